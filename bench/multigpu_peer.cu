// The peer-copy reference of bench/run.sh's multi-GPU step: cudaMemcpyPeerAsync of 256 MiB from
// GPU 0 to GPU 1 on a stream of GPU 1, with peer access enabled both ways where the GPUs allow
// it, timed with CUDA events: 5 warm-up copies, then the median of 21. Prints
// `peer_copy_gbs <GB/s>` (and a comment line naming the GPUs), or `# skipped: ...` with fewer
// than 2 GPUs.
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e = (call);                                                           \
    if (e != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
                   cudaGetErrorString(e));                                            \
      return 1;                                                                       \
    }                                                                                 \
  } while (0)

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  if (count < 2) {
    std::printf("# skipped: %d GPU(s), the peer copy needs 2\n", count);
    return 0;
  }
  const size_t bytes = size_t(256) << 20;
  int can01 = 0, can10 = 0;
  CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
  CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
  void *src = nullptr, *dst = nullptr;
  CHECK(cudaSetDevice(0));
  if (can01) CHECK(cudaDeviceEnablePeerAccess(1, 0));
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMemset(src, 1, bytes));
  CHECK(cudaSetDevice(1));
  if (can10) CHECK(cudaDeviceEnablePeerAccess(0, 0));
  CHECK(cudaMalloc(&dst, bytes));
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> times;
  for (int round = 0; round < 5 + 21; ++round) {
    CHECK(cudaEventRecord(start, stream));
    CHECK(cudaMemcpyPeerAsync(dst, 1, src, 0, bytes, stream));
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (round >= 5) times.push_back(ms);
  }
  std::sort(times.begin(), times.end());
  double ms = times[times.size() / 2];
  std::printf("# cudaMemcpyPeerAsync 256 MiB GPU 0 -> GPU 1, peer access %s, median %.4f ms\n",
              can10 ? "enabled" : "impossible", ms);
  std::printf("peer_copy_gbs %.3f\n", bytes / (ms * 1e-3) / 1e9);
  return 0;
}
