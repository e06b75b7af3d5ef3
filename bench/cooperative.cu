// CUDA C references of the cooperative-launch benchmark (examples/examples/bench_cooperative.rs):
// the sum of 2^26 f32 in one cooperative launch with a cooperative-groups grid barrier (each
// block sums a grid-stride share with cub::BlockReduce, writes a partial, grid.sync(), block 0
// sums the partials), launched with cudaLaunchCooperativeKernel on as many blocks of 256 threads
// as are resident at once, and cub::DeviceReduce::Sum (two launches). Built and run on the GPU
// machine by bench/run.sh (cooperative_step):
//   nvcc -O3 -arch=sm_90 cooperative.cu -o cooperative_reference && ./cooperative_reference [log2_n]
// Each: 3 warm-up runs, then 21 runs each between two CUDA events on one stream; prints one line
// per version, "name median_ms sum", which bench_cooperative reads.
#include <cooperative_groups.h>
#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

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
static const int THREADS = 256;

// Element i of the input, as on the Rust side: ((i * 37 % 1001) - 500) / 256, exact in f32.
__global__ void init_input(float* x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        x[i] = ((float)(i * 37 % 1001) - 500.0f) / 256.0f;
    }
}

__global__ void __launch_bounds__(THREADS) grid_sync_sum(const float* x, size_t n,
                                                         float* partials, float* out) {
    using BlockReduce = cub::BlockReduce<float, THREADS>;
    __shared__ typename BlockReduce::TempStorage temp;
    cg::grid_group grid = cg::this_grid();
    float sum = 0.0f;
    const float4* x4 = reinterpret_cast<const float4*>(x);
    size_t n4 = n / 4;
    for (size_t i = blockIdx.x * (size_t)THREADS + threadIdx.x; i < n4;
         i += (size_t)gridDim.x * THREADS) {
        float4 v = x4[i];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    for (size_t i = 4 * n4 + blockIdx.x * (size_t)THREADS + threadIdx.x; i < n;
         i += (size_t)gridDim.x * THREADS) {
        sum += x[i];
    }
    float block_sum = BlockReduce(temp).Sum(sum);
    if (threadIdx.x == 0) partials[blockIdx.x] = block_sum;
    grid.sync();
    if (blockIdx.x == 0) {
        float s = 0.0f;
        for (unsigned k = threadIdx.x; k < gridDim.x; k += THREADS) s += partials[k];
        __syncthreads();
        float total = BlockReduce(temp).Sum(s);
        if (threadIdx.x == 0) out[0] = total;
    }
}

template <typename F>
static float median_ms(cudaStream_t stream, F run) {
    cudaEvent_t start, end;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&end));
    for (int i = 0; i < WARMUP; ++i) run();
    CHECK(cudaStreamSynchronize(stream));
    std::vector<float> times;
    for (int i = 0; i < ROUNDS; ++i) {
        CHECK(cudaEventRecord(start, stream));
        run();
        CHECK(cudaEventRecord(end, stream));
        CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, end));
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(end));
    return times[times.size() / 2];
}

int main(int argc, char** argv) {
    int log2_n = argc > 1 ? std::atoi(argv[1]) : 26;
    size_t n = (size_t)1 << log2_n;
    cudaStream_t stream = 0;
    float *x, *partials, *out;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&out, sizeof(float)));
    init_input<<<1024, 256>>>(x, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    int device = 0, sms = 0, per_sm = 0, cooperative = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sync_sum, THREADS, 0));
    unsigned blocks = (unsigned)(sms * per_sm);
    CHECK(cudaMalloc(&partials, blocks * sizeof(float)));
    float host = 0;
    if (cooperative) {
        float ms = median_ms(stream, [&] {
            void* args[] = {&x, &n, &partials, &out};
            CHECK(cudaLaunchCooperativeKernel((void*)grid_sync_sum, blocks, THREADS, args, 0,
                                              stream));
        });
        CHECK(cudaMemcpy(&host, out, sizeof(float), cudaMemcpyDeviceToHost));
        std::printf("cg_grid_sync_sum %.5f %.6f\n", ms, host);
        std::fprintf(stderr, "cg_grid_sync_sum: %u blocks of %d (%d per SM x %d SMs)\n", blocks,
                     THREADS, per_sm, sms);
    }

    void* temp = nullptr;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, (int)n, stream));
    CHECK(cudaMalloc(&temp, temp_bytes));
    float ms = median_ms(stream, [&] {
        CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, x, out, (int)n, stream));
    });
    CHECK(cudaMemcpy(&host, out, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("cub_device_reduce_sum %.5f %.6f\n", ms, host);
    return 0;
}
