// CUB references of the device-wide algorithms benchmark (examples/examples/bench_algorithms.rs):
// cub::DeviceReduce::Sum of 2^26 f32, cub::DeviceScan::InclusiveSum of 2^26 f32 and of 2^26 u32,
// cub::DeviceScan::ExclusiveSum of 2^26 f32, and a device-to-device cudaMemcpyAsync of 2^26 f32 for scale. Built and run on the GPU machine
// by bench/run.sh (algorithms_step):
//   nvcc -O3 -arch=sm_90 algorithms.cu -o algorithms_cub && ./algorithms_cub [log2_n] > cub.txt
// Each operation: temporary storage allocated once, 3 warm-up runs, then 21 runs each between two
// CUDA events on one stream; prints one line per operation, "name median_ms checksum", which
// bench_algorithms reads (the checksum: the reduce's sum, the scans' last element).
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                         cudaGetErrorString(err_));                                         \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

static const int WARMUP = 3;
static const int ROUNDS = 21;

// The same inputs as the Rust side: element i of the f32 input is ((hash(i) >> 8) * 2^-24) - 0.5
// and of the u32 input hash(i) & 0xff, hash being a 32-bit integer mix.
__host__ __device__ inline unsigned hash_index(unsigned i) {
    unsigned x = i * 0x9e3779b9u;
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

__global__ void init_inputs(float* f, unsigned* u, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned h = hash_index((unsigned)i);
        f[i] = (float)(h >> 8) * (1.0f / 16777216.0f) - 0.5f;
        u[i] = h & 0xffu;
    }
}

// The median of ROUNDS timed runs of `run` after WARMUP untimed ones, in ms.
template <typename Run>
static float time_median(cudaStream_t stream, Run run) {
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < WARMUP; ++i) run();
    CHECK(cudaStreamSynchronize(stream));
    std::vector<float> times;
    for (int i = 0; i < ROUNDS; ++i) {
        CHECK(cudaEventRecord(start, stream));
        run();
        CHECK(cudaEventRecord(stop, stream));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return times[times.size() / 2];
}

int main(int argc, char** argv) {
    int log2_n = argc > 1 ? std::atoi(argv[1]) : 26;
    size_t n = (size_t)1 << log2_n;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    float *f_in, *f_out, *f_sum;
    unsigned *u_in, *u_out;
    CHECK(cudaMalloc(&f_in, n * sizeof(float)));
    CHECK(cudaMalloc(&f_out, n * sizeof(float)));
    CHECK(cudaMalloc(&f_sum, sizeof(float)));
    CHECK(cudaMalloc(&u_in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&u_out, n * sizeof(unsigned)));
    init_inputs<<<1024, 256, 0, stream>>>(f_in, u_in, n);
    CHECK(cudaGetLastError());

    // Temporary storage: the largest that any of the four calls asks for, allocated once.
    size_t bytes = 0, b = 0;
    CHECK(cub::DeviceReduce::Sum(nullptr, b, f_in, f_sum, (int)n, stream));
    bytes = std::max(bytes, b);
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, b, f_in, f_out, (int)n, stream));
    bytes = std::max(bytes, b);
    CHECK(cub::DeviceScan::InclusiveSum(nullptr, b, u_in, u_out, (int)n, stream));
    bytes = std::max(bytes, b);
    CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b, f_in, f_out, (int)n, stream));
    bytes = std::max(bytes, b);
    void* temp = nullptr;
    CHECK(cudaMalloc(&temp, bytes));

    float ms = time_median(stream, [&] {
        size_t t = bytes;
        CHECK(cub::DeviceReduce::Sum(temp, t, f_in, f_sum, (int)n, stream));
    });
    float sum = 0;
    CHECK(cudaMemcpy(&sum, f_sum, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("cub_reduce_sum_f32 %.6f %.9g\n", ms, sum);

    ms = time_median(stream, [&] {
        size_t t = bytes;
        CHECK(cub::DeviceScan::InclusiveSum(temp, t, f_in, f_out, (int)n, stream));
    });
    float last_f = 0;
    CHECK(cudaMemcpy(&last_f, f_out + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("cub_inclusive_scan_f32 %.6f %.9g\n", ms, last_f);

    ms = time_median(stream, [&] {
        size_t t = bytes;
        CHECK(cub::DeviceScan::InclusiveSum(temp, t, u_in, u_out, (int)n, stream));
    });
    unsigned last_u = 0;
    CHECK(cudaMemcpy(&last_u, u_out + n - 1, sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::printf("cub_inclusive_scan_u32 %.6f %u\n", ms, last_u);

    ms = time_median(stream, [&] {
        size_t t = bytes;
        CHECK(cub::DeviceScan::ExclusiveSum(temp, t, f_in, f_out, (int)n, stream));
    });
    CHECK(cudaMemcpy(&last_f, f_out + n - 1, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("cub_exclusive_scan_f32 %.6f %.9g\n", ms, last_f);

    ms = time_median(stream, [&] {
        CHECK(cudaMemcpyAsync(f_out, f_in, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    });
    std::printf("cuda_memcpy_d2d_f32 %.6f 0\n", ms);

    CHECK(cudaFree(temp));
    CHECK(cudaFree(f_in));
    CHECK(cudaFree(f_out));
    CHECK(cudaFree(f_sum));
    CHECK(cudaFree(u_in));
    CHECK(cudaFree(u_out));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}
