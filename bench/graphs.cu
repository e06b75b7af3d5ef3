// The CUDA C side of examples/examples/bench_graphs.rs (the launch cost of CUDA graphs): 1,000
// tiny kernels (bump: one block of 256 threads, x[i] += 1) launched one by one with <<<>>> on a
// blocking stream, against the same launches captured once (cudaStreamBeginCapture) and replayed
// with cudaGraphLaunch.
//
// Each sample, as bench_graphs does it: synchronize the stream, start a host clock and record a
// CUDA event, queue the kernels, note the host time (enqueue), record the end event, wait for it,
// stop the clock (enqueue + completion). Per kernel, in microseconds: 3 warm-up samples, then the
// median of 21, printed as `name value` lines (stream_enqueue_us, stream_total_us, stream_gpu_us,
// graph_..._us), which bench_graphs reads (--reference FILE). The result is checked (every
// element counts every kernel that ran) and printed as `check ok`.
//
// Build on the GPU machine: nvcc -O3 -arch=sm_90 graphs.cu -o graphs_reference
// Run: ./graphs_reference [kernels]   (default 1000)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
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
static const int THREADS = 256;

__global__ void bump(float* x, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
}

static double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

struct Costs {
  double enqueue_us, total_us, gpu_us;
};

// Times `queue` (which queues `kernels` kernels on `stream`).
static Costs measure(cudaStream_t stream, int kernels, const std::function<void()>& queue) {
  cudaEvent_t start, end;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&end));
  std::vector<double> enqueue, total, gpu;
  for (int round = 0; round < WARM_UP + ROUNDS; ++round) {
    CHECK(cudaStreamSynchronize(stream));
    auto clock = std::chrono::steady_clock::now();
    CHECK(cudaEventRecord(start, stream));
    queue();
    double queued = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
    CHECK(cudaEventRecord(end, stream));
    CHECK(cudaEventSynchronize(end));
    double done = std::chrono::duration<double>(std::chrono::steady_clock::now() - clock).count();
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, end));
    if (round >= WARM_UP) {
      enqueue.push_back(queued * 1e6 / kernels);
      total.push_back(done * 1e6 / kernels);
      gpu.push_back(ms * 1e3 / kernels);
    }
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(end));
  return Costs{median(enqueue), median(total), median(gpu)};
}

int main(int argc, char** argv) {
  int kernels = argc > 1 ? std::atoi(argv[1]) : 1000;
  if (kernels < 1) {
    std::fprintf(stderr, "kernels must be at least 1\n");
    return 2;
  }
  float* x;
  CHECK(cudaMalloc(&x, THREADS * sizeof(float)));
  CHECK(cudaMemset(x, 0, THREADS * sizeof(float)));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));  // blocking, as ferrocuda's Device::new_stream

  Costs launches = measure(stream, kernels, [&] {
    for (int k = 0; k < kernels; ++k) bump<<<1, THREADS, 0, stream>>>(x, THREADS);
    CHECK(cudaGetLastError());
  });

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeRelaxed));
  for (int k = 0; k < kernels; ++k) bump<<<1, THREADS, 0, stream>>>(x, THREADS);
  CHECK(cudaStreamEndCapture(stream, &graph));
  CHECK(cudaGraphInstantiateWithFlags(&exec, graph, 0));
  Costs replays = measure(stream, kernels, [&] { CHECK(cudaGraphLaunch(exec, stream)); });

  std::vector<float> counts(THREADS);
  CHECK(cudaMemcpy(counts.data(), x, THREADS * sizeof(float), cudaMemcpyDeviceToHost));
  float ran = 2.0f * (WARM_UP + ROUNDS) * kernels;
  for (int i = 0; i < THREADS; ++i) {
    if (counts[i] != ran) {
      std::printf("check FAILED: element %d counted %g kernels, %g ran\n", i, counts[i], ran);
      return 1;
    }
  }
  std::printf("check ok\n");
  std::printf("stream_enqueue_us %.4f\nstream_total_us %.4f\nstream_gpu_us %.4f\n",
              launches.enqueue_us, launches.total_us, launches.gpu_us);
  std::printf("graph_enqueue_us %.4f\ngraph_total_us %.4f\ngraph_gpu_us %.4f\n", replays.enqueue_us,
              replays.total_us, replays.gpu_us);
  CHECK(cudaGraphExecDestroy(exec));
  CHECK(cudaGraphDestroy(graph));
  CHECK(cudaStreamDestroy(stream));
  CHECK(cudaFree(x));
  return 0;
}
