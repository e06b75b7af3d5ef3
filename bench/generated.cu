// The CUDA C++ side of examples/examples/bench_generated.rs (kernels generated from a scalar
// function): the references its targets are measured against, on 2^26 f32.
//
//   saxpy           a plain CUDA C kernel, y = a * x + y written to out, in a grid-stride loop
//                   with the launch shape ferrocuda's #[elementwise] launch chooses (256 threads,
//                   at most 32 blocks per multiprocessor)
//   sum_of_squares  cub::DeviceReduce::TransformReduce with a squaring functor and cuda::std::plus
//                   (temporary storage allocated once, outside the timing)
//
// Each is timed alone with CUDA events: 3 warm-up runs, then 21 timed runs (one launch or one
// CUB call between two events), the median printed as `name_ms value` lines, which
// bench_generated reads (--reference FILE). Results are checked against the CPU (saxpy exactly
// up to FMA contraction, the sum within 1e-5 relative) and printed as `name_check ok`.
//
// Build on the GPU machine: nvcc -O3 -arch=sm_90 generated.cu -o generated_reference
#include <cub/cub.cuh>
#include <cuda/std/functional>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t error_ = (call);                                                     \
    if (error_ != cudaSuccess) {                                                     \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(error_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

static const int WARM_UP = 3;
static const int ROUNDS = 21;
static const int BLOCK = 256;
static const int BLOCKS_PER_SM = 32;

__global__ void saxpy_cuda(float a, const float* x, const float* y, float* out, unsigned n) {
  unsigned stride = gridDim.x * blockDim.x;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = a * x[i] + y[i];
  }
}

struct Square {
  __host__ __device__ float operator()(float x) const { return x * x; }
};

// The median of ROUNDS timings of `run`, after WARM_UP untimed runs.
template <typename Run>
static float median_ms(Run run) {
  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  for (int i = 0; i < WARM_UP; ++i) run();
  std::vector<float> times;
  for (int i = 0; i < ROUNDS; ++i) {
    CHECK(cudaEventRecord(start));
    run();
    CHECK(cudaEventRecord(end));
    CHECK(cudaEventSynchronize(end));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, end));
    times.push_back(ms);
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(end));
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  int log2_n = argc > 1 ? std::atoi(argv[1]) : 26;
  size_t n = size_t(1) << log2_n;
  std::vector<float> x(n), y(n);
  unsigned state = 12345;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    x[i] = float(state >> 8) / float(1 << 24) * 2.0f - 1.0f;
    state = state * 1664525u + 1013904223u;
    y[i] = float(state >> 8) / float(1 << 24) * 2.0f - 1.0f;
  }
  float *dx, *dy, *dout, *dsum;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMalloc(&dsum, sizeof(float)));
  CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));

  int device = 0, sms = 0;
  CHECK(cudaGetDevice(&device));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  size_t blocks = std::min((n + BLOCK - 1) / BLOCK, size_t(sms) * BLOCKS_PER_SM);
  const float a = 2.5f;
  float saxpy_ms = median_ms([&] {
    saxpy_cuda<<<unsigned(blocks), BLOCK>>>(a, dx, dy, dout, unsigned(n));
  });
  CHECK(cudaGetLastError());
  std::vector<float> out(n);
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  bool saxpy_ok = true;
  for (size_t i = 0; i < n && saxpy_ok; ++i) {
    float expected = std::fma(a, x[i], y[i]);
    float plain = a * x[i] + y[i];
    saxpy_ok = out[i] == expected || out[i] == plain;
  }

  size_t temp_bytes = 0;
  CHECK(cub::DeviceReduce::TransformReduce(nullptr, temp_bytes, dx, dsum, n, cuda::std::plus<float>(),
                                           Square(), 0.0f));
  void* temp = nullptr;
  CHECK(cudaMalloc(&temp, temp_bytes));
  float sum_ms = median_ms([&] {
    CHECK(cub::DeviceReduce::TransformReduce(temp, temp_bytes, dx, dsum, n, cuda::std::plus<float>(),
                                             Square(), 0.0f));
  });
  float sum = 0;
  CHECK(cudaMemcpy(&sum, dsum, sizeof(float), cudaMemcpyDeviceToHost));
  double expected = 0;
  for (size_t i = 0; i < n; ++i) expected += double(x[i]) * double(x[i]);
  bool sum_ok = std::fabs(double(sum) - expected) <= 1e-5 * expected;

  std::printf("n %zu\n", n);
  std::printf("saxpy_ms %.6f\n", saxpy_ms);
  std::printf("saxpy_check %s\n", saxpy_ok ? "ok" : "FAILED");
  std::printf("sum_of_squares_ms %.6f\n", sum_ms);
  std::printf("sum_of_squares_check %s (%.6g, CPU %.6g)\n", sum_ok ? "ok" : "FAILED", sum, expected);
  CHECK(cudaFree(temp));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsum));
  return saxpy_ok && sum_ok ? 0 : 1;
}
