// The host side of the foundation benchmark's CUDA C reference: the cost of <<<>>> on the vecadd
// kernel of reference_kernels.cu (the same kernel as kernels-nvptx/src/elementwise.rs), built with
// nvcc on the GPU machine.
//   nvcc -O3 -arch=sm_90 -ptx vecadd.cu -o vecadd_cuda.ptx       (kernel, timed by the Rust bench)
//   nvcc -O3 -arch=sm_90 vecadd.cu -o launch_overhead             (host cost of <<<>>>)
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <vector>
#include <algorithm>

#include "reference_kernels.cu"

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s failed: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)

int main(int argc, char** argv) {
    int launches = argc > 1 ? atoi(argv[1]) : 10000;
    int repeats = argc > 2 ? atoi(argv[2]) : 7;
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, 1024 * sizeof(float)));
    CHECK(cudaMalloc(&b, 1024 * sizeof(float)));
    CHECK(cudaMalloc(&c, 1024 * sizeof(float)));
    // Warm up: module load, first-launch costs.
    for (int i = 0; i < 100; i++) vecadd_cuda<<<1, 32>>>(a, b, c, 32);
    CHECK(cudaDeviceSynchronize());
    std::vector<double> per_launch_us;
    for (int r = 0; r < repeats; r++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < launches; i++) vecadd_cuda<<<1, 32>>>(a, b, c, 32);
        auto t1 = std::chrono::steady_clock::now();
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        per_launch_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / launches);
    }
    std::sort(per_launch_us.begin(), per_launch_us.end());
    printf("cuda_c_launch_us %.3f\n", per_launch_us[per_launch_us.size() / 2]);
    return 0;
}
