// CUDA C references for the benchmarks, the same algorithms as ferrocuda's kernels in
// kernels-nvptx, built with nvcc on the GPU machine:
//   nvcc -O3 -arch=sm_90 -ptx reference_kernels.cu -o reference_kernels.ptx
// and timed side by side with ferrocuda's kernels by examples/examples/bench_kernels.rs (and
// bench_foundation.rs, through vecadd.cu, which includes this file). bench/cupy_kernels.py
// compiles this file with NVRTC (CuPy RawModule) for the kernels it runs as RawKernels, so it
// must stay free of host code and #includes.

// c = a + b, one thread per element.
extern "C" __global__ void vecadd_cuda(const float* a, const float* b, float* c, unsigned long long n) {
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

// C = A B, A m x n, B n x p, row-major; 16x16 shared tiles, any size (bounds-checked loads).
extern "C" __global__ void matmul_tiled_cuda(const float* a, const float* b, float* c,
                                             unsigned m, unsigned n, unsigned p) {
    __shared__ float ta[16][16];
    __shared__ float tb[16][16];
    unsigned tx = threadIdx.x, ty = threadIdx.y;
    unsigned row = blockIdx.y * 16 + ty, col = blockIdx.x * 16 + tx;
    float acc = 0.0f;
    for (unsigned t = 0; t < (n + 15) / 16; t++) {
        unsigned ka = t * 16 + tx, kb = t * 16 + ty;
        ta[ty][tx] = (row < m && ka < n) ? a[(size_t)row * n + ka] : 0.0f;
        tb[ty][tx] = (kb < n && col < p) ? b[(size_t)kb * p + col] : 0.0f;
        __syncthreads();
        for (unsigned k = 0; k < 16; k++) acc += ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    if (row < m && col < p) c[(size_t)row * p + col] = acc;
}

// out (w x h) = transpose of in (h x w), through a 32x33 shared tile; blocks of 32x8 threads.
extern "C" __global__ void transpose_tiled_cuda(const float* in, float* out, unsigned w, unsigned h) {
    __shared__ float tile[32][33];
    unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (unsigned j = 0; j < 32; j += 8)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x;
    y = blockIdx.x * 32 + threadIdx.y;
    for (unsigned j = 0; j < 32; j += 8)
        if (x < h && y + j < w) out[(size_t)(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

// 256-bin histogram of values (bin = value & 255): per-block bins in shared memory, grid-stride.
extern "C" __global__ void histogram_shared_cuda(const unsigned* data, unsigned long long n, unsigned* bins) {
    __shared__ unsigned local[256];
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) local[i] = 0;
    __syncthreads();
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[data[i] & 255], 1u);
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x)
        if (local[i]) atomicAdd(&bins[i], local[i]);
}

// *out += sum(x): grid-stride float4 loads (scalar loads for the tail), a tree of warp shuffles,
// one shared slot per warp, and one atomic add per block (blocks of a multiple of 32 threads;
// x must be 16-byte aligned, as cudaMalloc'd memory is).
extern "C" __global__ void sum_warp_shuffle_cuda(const float* x, unsigned long long n, float* out) {
    __shared__ float warp_sums[32];
    unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const float4* body = reinterpret_cast<const float4*>(x);
    unsigned long long groups = n / 4;
    float sum = 0.0f;
    for (unsigned long long k = i; k < groups; k += stride) {
        float4 v = body[k];
        sum += (v.x + v.y) + (v.z + v.w);
    }
    if (i < n - groups * 4) sum += x[groups * 4 + i];
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        float total = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
        if (lane == 0) atomicAdd(out, total);
    }
}
