// CUDA C twins of the Rodinia kernels of kernels-external (gaussian.rs, lavamd.rs,
// particle_filter.rs, streamcluster.rs): the same algorithms, block sizes, launch shapes and
// arithmetic order, written as a CUDA C programmer writes them (int indices, __shared__ arrays,
// __launch_bounds__ where the Rust side declares max_block). Built on the GPU machine with
//
//   nvcc -O3 --fmad=false -arch=sm_90 -ptx rodinia.cu -o rodinia.ptx
//
// and timed against ferrocuda by examples/examples/bench_external_rodinia.rs. With --fmad=false
// the kernels without exp agree with ferrocuda bit for bit; lavaMD and the particle filter's
// likelihood call expf here and libm's expf on ferrocuda's side, so they agree within a tolerance.

#define FAN1_BLOCK 512
#define FAN2_BLOCK 16

// Rodinia's Fan1: m[i][t] = a[i][t] / a[t][t] for rows i > t, one thread per row.
extern "C" __global__ void __launch_bounds__(FAN1_BLOCK)
fan1_cuda(float *m, const float *a, int n, int t)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= n - 1 - t) return;
    int row = g + t + 1;
    m[n * row + t] = a[n * row + t] / a[n * t + t];
}

// Rodinia's Fan2: a[i][j] -= m[i][t] * a[t][j] for rows i > t, columns j >= t; b[i] -= m[i][t] * b[t].
extern "C" __global__ void __launch_bounds__(FAN2_BLOCK * FAN2_BLOCK)
fan2_cuda(const float *m, float *a, float *b, int n, int t)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n - 1 - t) return;
    if (y >= n - t) return;
    int row = x + 1 + t;
    int col = y + t;
    float multiplier = m[n * row + t];
    a[n * row + col] -= multiplier * a[n * t + col];
    if (y == 0) {
        b[row] -= multiplier * b[t];
    }
}

// lavaMD
#define PAR_PER_BOX 100
#define LAVA_THREADS 128
#define MAX_NEIGHBOURS 26

typedef struct {
    float v, x, y, z;
} FourVector;

typedef struct {
    unsigned int offset;
    unsigned int nn;
    unsigned int nei[MAX_NEIGHBOURS];
} LavaBox;

// Rodinia's kernel_gpu_cuda: one block per box, thread i < 100 accumulates particle i of the box.
extern "C" __global__ void __launch_bounds__(LAVA_THREADS)
lavamd_cuda(float alpha, const LavaBox *boxes, int number_boxes, const FourVector *rv,
            const float *qv, FourVector *fv)
{
    int bx = blockIdx.x;
    int tx = threadIdx.x;
    if (bx >= number_boxes) return;
    __shared__ FourVector ra_shared[PAR_PER_BOX];
    __shared__ FourVector rb_shared[PAR_PER_BOX];
    __shared__ float qb_shared[PAR_PER_BOX];

    float a2 = 2.0f * alpha * alpha;
    int first_i = boxes[bx].offset;
    int nn = boxes[bx].nn;

    for (int w = tx; w < PAR_PER_BOX; w += LAVA_THREADS) {
        ra_shared[w] = rv[first_i + w];
    }
    __syncthreads();

    FourVector acc = {0.0f, 0.0f, 0.0f, 0.0f};
    if (tx < PAR_PER_BOX) {
        acc = fv[first_i + tx];
    }

    for (int k = 0; k < 1 + nn; k++) {
        int pointer = k == 0 ? bx : (int)boxes[bx].nei[k - 1];
        int first_j = boxes[pointer].offset;
        for (int w = tx; w < PAR_PER_BOX; w += LAVA_THREADS) {
            rb_shared[w] = rv[first_j + w];
            qb_shared[w] = qv[first_j + w];
        }
        __syncthreads();

        if (tx < PAR_PER_BOX) {
            FourVector ra = ra_shared[tx];
            for (int j = 0; j < PAR_PER_BOX; j++) {
                FourVector rb = rb_shared[j];
                float q = qb_shared[j];
                float r2 = (ra.v + rb.v) - (ra.x * rb.x + ra.y * rb.y + ra.z * rb.z);
                float u2 = a2 * r2;
                float vij = expf(-u2);
                float fs = 2.0f * vij;
                float fxij = fs * (ra.x - rb.x);
                float fyij = fs * (ra.y - rb.y);
                float fzij = fs * (ra.z - rb.z);
                acc.v += q * vij;
                acc.x += q * fxij;
                acc.y += q * fyij;
                acc.z += q * fzij;
            }
        }
        __syncthreads();
    }

    if (tx < PAR_PER_BOX) {
        fv[first_i + tx] = acc;
    }
}

// Particle filter
#define PF_BLOCK 512

// Rodinia's likelihood_kernel (float version), without the random move of the particles.
extern "C" __global__ void __launch_bounds__(PF_BLOCK)
likelihood_kernel_cuda(const float *array_x, const float *array_y, const int *objxy,
                const unsigned char *image, int *ind, float *likelihood, float *weights,
                float *partial_sums, int n, int count_ones, int max_size, int k, int isz_y,
                int nfr)
{
    __shared__ float buffer[PF_BLOCK];
    int tx = threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    float weight = 0.0f;
    if (i < n) {
        int cx = (int)roundf(array_x[i]);
        int cy = (int)roundf(array_y[i]);
        float sum = 0.0f;
        for (int d = 0; d < count_ones; d++) {
            int px = cx + objxy[2 * d + 1];
            int py = cy + objxy[2 * d];
            int index = abs(px * isz_y * nfr + py * nfr + k);
            if (index >= max_size) index = 0;
            ind[i * count_ones + d] = index;
            float pixel = (float)image[index];
            float low = pixel - 100.0f;
            float high = pixel - 228.0f;
            sum += (low * low - high * high) / 50.0f;
        }
        float l = sum / (float)count_ones;
        likelihood[i] = l;
        weight = weights[i] * expf(l);
        weights[i] = weight;
    }

    buffer[tx] = weight;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
        if (tx < s) {
            buffer[tx] += buffer[tx + s];
        }
        __syncthreads();
    }
    if (tx == 0) {
        partial_sums[blockIdx.x] = buffer[0];
    }
}

// Rodinia's find_index_kernel: the first CDF entry >= u[j], by a linear search.
extern "C" __global__ void __launch_bounds__(PF_BLOCK)
find_index_cuda(const float *array_x, const float *array_y, const float *cdf, const float *u,
                float *xj, float *yj, int n, int count)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < count) {
        float target = u[j];
        int index = -1;
        for (int x = 0; x < n; x++) {
            if (cdf[x] >= target) {
                index = x;
                break;
            }
        }
        if (index == -1) index = n - 1;
        xj[j] = array_x[index];
        yj[j] = array_y[index];
    }
}

// streamcluster
#define SC_THREADS 512

typedef struct {
    float weight;
    unsigned int assign;
    float cost;
} Point;

// Rodinia's kernel_compute_cost (pgain): the cost of moving each point to candidate center x.
extern "C" __global__ void __launch_bounds__(SC_THREADS)
compute_cost_cuda(int num, int dim, int x, const Point *p, int K, int stride,
                  const float *coord, float *work_mem, const unsigned int *center_table,
                  bool *switch_membership)
{
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    const int tid = blockDim.x * bid + threadIdx.x;
    if (tid < num) {
        float *lower = &work_mem[tid * stride];
        float distance = 0.0f;
        for (int d = 0; d < dim; d++) {
            float diff = coord[d * num + tid] - coord[d * num + x];
            distance += diff * diff;
        }
        float x_cost = distance * p[tid].weight;
        if (x_cost < p[tid].cost) {
            switch_membership[tid] = 1;
            lower[K] += x_cost - p[tid].cost;
        } else {
            lower[center_table[p[tid].assign]] += p[tid].cost - x_cost;
        }
    }
}
