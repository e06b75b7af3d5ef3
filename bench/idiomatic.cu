// CUDA C twins of the idiomatic benchmark suite (kernels-idiomatic/src/): the same algorithms,
// tiles and launch shapes, written as a CUDA C programmer writes them (int indices, no bounds
// checks beyond the algorithm's own). Built twice on the GPU machine by bench/run.sh:
//   nvcc -O3 --fmad=false -arch=sm_90 -ptx idiomatic.cu -o idiomatic_nofma.ptx   (bit-identical
//        to ferrocuda's results: no multiply-add contraction on either side)
//   nvcc -O3 -arch=sm_90 -ptx idiomatic.cu -o idiomatic_fma.ptx                   (nvcc's default)
// and timed against ferrocuda by examples/examples/bench_idiomatic.rs; bench/sass_report.sh
// counts the SASS of both sides without a GPU. No host code and no #includes.

#define IN_RANGE(x, min, max) ((x) >= (min) && (x) <= (max))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

// --- HotSpot (Rodinia hotspot_kernel.cu, in float) ---------------------------------------------
#define HOTSPOT_BLOCK 16

extern "C" __global__ void __launch_bounds__(256) hotspot_cuda(int iteration, const float* power, const float* temp_src,
                                        float* temp_dst, int grid_cols, int grid_rows,
                                        int border_cols, int border_rows, float Cap, float Rx,
                                        float Ry, float Rz, float step) {
    __shared__ float temp_on_cuda[HOTSPOT_BLOCK][HOTSPOT_BLOCK];
    __shared__ float power_on_cuda[HOTSPOT_BLOCK][HOTSPOT_BLOCK];
    __shared__ float temp_t[HOTSPOT_BLOCK][HOTSPOT_BLOCK];
    float amb_temp = 80.0f;
    float step_div_Cap = step / Cap;
    float Rx_1 = 1.0f / Rx, Ry_1 = 1.0f / Ry, Rz_1 = 1.0f / Rz;
    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int small_block_rows = HOTSPOT_BLOCK - iteration * 2;
    int small_block_cols = HOTSPOT_BLOCK - iteration * 2;
    int blkY = small_block_rows * by - border_rows;
    int blkX = small_block_cols * bx - border_cols;
    int blkYmax = blkY + HOTSPOT_BLOCK - 1;
    int blkXmax = blkX + HOTSPOT_BLOCK - 1;
    int yidx = blkY + ty;
    int xidx = blkX + tx;
    int index = grid_cols * yidx + xidx;
    if (IN_RANGE(yidx, 0, grid_rows - 1) && IN_RANGE(xidx, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    __syncthreads();
    int validYmin = (blkY < 0) ? -blkY : 0;
    int validYmax = (blkYmax > grid_rows - 1) ? HOTSPOT_BLOCK - 1 - (blkYmax - grid_rows + 1) : HOTSPOT_BLOCK - 1;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > grid_cols - 1) ? HOTSPOT_BLOCK - 1 - (blkXmax - grid_cols + 1) : HOTSPOT_BLOCK - 1;
    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < validYmin) ? validYmin : N;
    S = (S > validYmax) ? validYmax : S;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, HOTSPOT_BLOCK - i - 2) && IN_RANGE(ty, i + 1, HOTSPOT_BLOCK - i - 2) &&
            IN_RANGE(tx, validXmin, validXmax) && IN_RANGE(ty, validYmin, validYmax)) {
            computed = true;
            float center = temp_on_cuda[ty][tx];
            temp_t[ty][tx] = center + step_div_Cap * (power_on_cuda[ty][tx] +
                (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0f * center) * Ry_1 +
                (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0f * center) * Rx_1 +
                (amb_temp - center) * Rz_1);
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed) temp_dst[index] = temp_t[ty][tx];
}

// --- PathFinder (Rodinia pathfinder.cu) ---------------------------------------------------------
#define PATHFINDER_BLOCK 256

extern "C" __global__ void __launch_bounds__(256) pathfinder_cuda(int iteration, const int* gpuWall, const int* gpuSrc,
                                           int* gpuResults, int cols, int startStep, int border) {
    __shared__ int prev[PATHFINDER_BLOCK];
    __shared__ int result[PATHFINDER_BLOCK];
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    int small_block_cols = PATHFINDER_BLOCK - iteration * 2;
    int blkX = small_block_cols * bx - border;
    int blkXmax = blkX + PATHFINDER_BLOCK - 1;
    int xidx = blkX + tx;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > cols - 1) ? PATHFINDER_BLOCK - 1 - (blkXmax - cols + 1) : PATHFINDER_BLOCK - 1;
    int W = tx - 1, E = tx + 1;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool isValid = IN_RANGE(tx, validXmin, validXmax);
    if (IN_RANGE(xidx, 0, cols - 1)) prev[tx] = gpuSrc[xidx];
    __syncthreads();
    bool computed = false;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, PATHFINDER_BLOCK - i - 2) && isValid) {
            computed = true;
            int left = prev[W], up = prev[tx], right = prev[E];
            int shortest = MIN(left, up);
            shortest = MIN(shortest, right);
            int index = cols * (startStep + i) + xidx;
            result[tx] = shortest + gpuWall[index];
        }
        __syncthreads();
        if (i == iteration - 1) break;
        if (computed) prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed) gpuResults[xidx] = result[tx];
}

// --- 3-D 7-point stencil, one point per thread ---------------------------------------------------
extern "C" __global__ void stencil3d_cuda(const float* in, float* out, int nx, int ny, int nz,
                                          float c0, float c1) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    int z = blockIdx.z * blockDim.z + threadIdx.z;
    if (x < nx && y < ny && z < nz) {
        int i = (z * ny + y) * nx + x;
        if (x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1) {
            out[i] = in[i];
        } else {
            int plane = nx * ny;
            out[i] = c0 * in[i] + c1 * (in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx] +
                                        in[i - plane] + in[i + plane]);
        }
    }
}

// --- 2-D convolution, 7x7 filter in constant memory ---------------------------------------------
#define FILTER_SIZE 7
__constant__ float FILTER[FILTER_SIZE * FILTER_SIZE];

extern "C" __global__ void convolution_cuda(const float* image, float* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) {
        const int radius = FILTER_SIZE / 2;
        float sum = 0.0f;
        for (int fy = 0; fy < FILTER_SIZE; fy++) {
            for (int fx = 0; fx < FILTER_SIZE; fx++) {
                int iy = y + fy - radius, ix = x + fx - radius;
                if (iy >= 0 && iy < height && ix >= 0 && ix < width)
                    sum += FILTER[fy * FILTER_SIZE + fx] * image[iy * width + ix];
            }
        }
        out[y * width + x] = sum;
    }
}

// --- n-body step, shared tiles of 256 positions (GPU Gems 3, ch. 31) ----------------------------
#define NBODY_BLOCK 256

extern "C" __global__ void __launch_bounds__(256) nbody_cuda(const float4* pos, const float4* vel, float4* new_pos,
                                      float4* new_vel, int n, float dt, float softening2) {
    __shared__ float4 tile[NBODY_BLOCK];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int tx = threadIdx.x;
    float4 me = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (int start = 0; start < n; start += NBODY_BLOCK) {
        if (start + tx < n) tile[tx] = pos[start + tx];
        __syncthreads();
        int count = MIN(NBODY_BLOCK, n - start);
        for (int j = 0; j < count; j++) {
            float4 other = tile[j];
            float rx = other.x - me.x, ry = other.y - me.y, rz = other.z - me.z;
            float distance2 = rx * rx + ry * ry + rz * rz + softening2;
            float inverse = 1.0f / sqrtf(distance2);
            float strength = other.w * (inverse * inverse * inverse);
            ax += rx * strength;
            ay += ry * strength;
            az += rz * strength;
        }
        __syncthreads();
    }
    if (i < n) {
        float4 v = vel[i];
        float4 velocity = make_float4(v.x + ax * dt, v.y + ay * dt, v.z + az * dt, v.w);
        new_vel[i] = velocity;
        new_pos[i] = make_float4(me.x + velocity.x * dt, me.y + velocity.y * dt,
                                 me.z + velocity.z * dt, me.w);
    }
}

// --- CSR sparse matrix-vector product, one thread per row ---------------------------------------
extern "C" __global__ void spmv_csr_cuda(const unsigned* row_offsets, const unsigned* columns,
                                         const float* values, const float* x, float* y, int rows) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int k = row_offsets[row]; k < (int)row_offsets[row + 1]; k++)
            sum += values[k] * x[columns[k]];
        y[row] = sum;
    }
}
