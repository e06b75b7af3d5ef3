// CUDA C twins of kernels-external's Rodinia CFD (euler3d) and PolyBench-GPU kernels
// (kernels-external/src/{euler3d,fdtd2d,correlation,gemver}.rs): the same algorithms, block
// sizes and launch shapes, written as a CUDA C programmer writes them (int indices,
// __launch_bounds__ where the Rust kernel declares max_block), with the floating-point
// operations in the same order, so that a --fmad=false build agrees with ferrocuda bit for bit.
// Each entry is named after its Rust kernel with a `_cuda` suffix.
//
//   nvcc -O3 --fmad=false -arch=sm_90 -ptx polybench.cu -o polybench.ptx
//
// Timed against ferrocuda by examples/examples/bench_external_polybench.rs.

// ---------------------------------------------------------------------------------------------
// Rodinia CFD (cfd/euler3d.cu): one thread per element, blocks of 192.

#define EULER_BLOCK 192
#define NNB 4
#define NDIM 3
#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY (VAR_MOMENTUM + NDIM)
#define NVAR (VAR_DENSITY_ENERGY + 1)
#define GAMMA 1.4f
#define RK 3

// Rodinia's far-field constants (ff_variable, ff_flux_contribution_*), passed by value: the
// layout of the Rust FarField (68 bytes).
struct FarField {
    float variables[NVAR];
    float3 flux_momentum_x;
    float3 flux_momentum_y;
    float3 flux_momentum_z;
    float3 flux_density_energy;
};

__device__ inline float3 compute_velocity(float density, float3 momentum) {
    return make_float3(momentum.x / density, momentum.y / density, momentum.z / density);
}

__device__ inline float compute_speed_sqd(float3 v) {
    return v.x * v.x + v.y * v.y + v.z * v.z;
}

__device__ inline float compute_pressure(float density, float density_energy, float speed_sqd) {
    return (GAMMA - 1.0f) * (density_energy - 0.5f * density * speed_sqd);
}

__device__ inline float compute_speed_of_sound(float density, float pressure) {
    return sqrtf(GAMMA * pressure / density);
}

__device__ inline void compute_flux_contribution(float3 momentum, float density_energy,
                                                 float pressure, float3 velocity,
                                                 float3 &fc_momentum_x, float3 &fc_momentum_y,
                                                 float3 &fc_momentum_z,
                                                 float3 &fc_density_energy) {
    fc_momentum_x.x = velocity.x * momentum.x + pressure;
    fc_momentum_x.y = velocity.x * momentum.y;
    fc_momentum_x.z = velocity.x * momentum.z;

    fc_momentum_y.x = fc_momentum_x.y;
    fc_momentum_y.y = velocity.y * momentum.y + pressure;
    fc_momentum_y.z = velocity.y * momentum.z;

    fc_momentum_z.x = fc_momentum_x.z;
    fc_momentum_z.y = fc_momentum_y.z;
    fc_momentum_z.z = velocity.z * momentum.z + pressure;

    float de_p = density_energy + pressure;
    fc_density_energy.x = velocity.x * de_p;
    fc_density_energy.y = velocity.y * de_p;
    fc_density_energy.z = velocity.z * de_p;
}

extern "C" __global__ void __launch_bounds__(EULER_BLOCK)
euler3d_compute_step_factor_cuda(const float *variables, const float *areas, float *step_factors,
                                 int nelr) {
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= nelr) return;
    float density = variables[i + VAR_DENSITY * nelr];
    float3 momentum;
    momentum.x = variables[i + (VAR_MOMENTUM + 0) * nelr];
    momentum.y = variables[i + (VAR_MOMENTUM + 1) * nelr];
    momentum.z = variables[i + (VAR_MOMENTUM + 2) * nelr];
    float density_energy = variables[i + VAR_DENSITY_ENERGY * nelr];
    float3 velocity = compute_velocity(density, momentum);
    float speed_sqd = compute_speed_sqd(velocity);
    float pressure = compute_pressure(density, density_energy, speed_sqd);
    float speed_of_sound = compute_speed_of_sound(density, pressure);
    step_factors[i] = 0.5f / (sqrtf(areas[i]) * (sqrtf(speed_sqd) + speed_of_sound));
}

extern "C" __global__ void __launch_bounds__(EULER_BLOCK)
euler3d_compute_flux_cuda(const int *neighbours, const float *normals, const float *variables,
                          FarField far, float *fluxes, int nelr) {
    const float smoothing_coefficient = 0.2f;
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= nelr) return;

    float density_i = variables[i + VAR_DENSITY * nelr];
    float3 momentum_i;
    momentum_i.x = variables[i + (VAR_MOMENTUM + 0) * nelr];
    momentum_i.y = variables[i + (VAR_MOMENTUM + 1) * nelr];
    momentum_i.z = variables[i + (VAR_MOMENTUM + 2) * nelr];
    float density_energy_i = variables[i + VAR_DENSITY_ENERGY * nelr];

    float3 velocity_i = compute_velocity(density_i, momentum_i);
    float speed_sqd_i = compute_speed_sqd(velocity_i);
    float speed_i = sqrtf(speed_sqd_i);
    float pressure_i = compute_pressure(density_i, density_energy_i, speed_sqd_i);
    float speed_of_sound_i = compute_speed_of_sound(density_i, pressure_i);
    float3 fc_i_momentum_x, fc_i_momentum_y, fc_i_momentum_z, fc_i_density_energy;
    compute_flux_contribution(momentum_i, density_energy_i, pressure_i, velocity_i,
                              fc_i_momentum_x, fc_i_momentum_y, fc_i_momentum_z,
                              fc_i_density_energy);

    float flux_i_density = 0.0f;
    float3 flux_i_momentum = make_float3(0.0f, 0.0f, 0.0f);
    float flux_i_density_energy = 0.0f;

#pragma unroll
    for (int j = 0; j < NNB; j++) {
        int nb = neighbours[i + j * nelr];
        float3 normal;
        normal.x = normals[i + (j + 0 * NNB) * nelr];
        normal.y = normals[i + (j + 1 * NNB) * nelr];
        normal.z = normals[i + (j + 2 * NNB) * nelr];
        float normal_len = sqrtf(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);

        if (nb >= 0) {
            float density_nb = variables[nb + VAR_DENSITY * nelr];
            float3 momentum_nb;
            momentum_nb.x = variables[nb + (VAR_MOMENTUM + 0) * nelr];
            momentum_nb.y = variables[nb + (VAR_MOMENTUM + 1) * nelr];
            momentum_nb.z = variables[nb + (VAR_MOMENTUM + 2) * nelr];
            float density_energy_nb = variables[nb + VAR_DENSITY_ENERGY * nelr];
            float3 velocity_nb = compute_velocity(density_nb, momentum_nb);
            float speed_sqd_nb = compute_speed_sqd(velocity_nb);
            float pressure_nb = compute_pressure(density_nb, density_energy_nb, speed_sqd_nb);
            float speed_of_sound_nb = compute_speed_of_sound(density_nb, pressure_nb);
            float3 fc_nb_momentum_x, fc_nb_momentum_y, fc_nb_momentum_z, fc_nb_density_energy;
            compute_flux_contribution(momentum_nb, density_energy_nb, pressure_nb, velocity_nb,
                                      fc_nb_momentum_x, fc_nb_momentum_y, fc_nb_momentum_z,
                                      fc_nb_density_energy);

            // artificial viscosity
            float factor = -normal_len * smoothing_coefficient * 0.5f *
                           (speed_i + sqrtf(speed_sqd_nb) + speed_of_sound_i + speed_of_sound_nb);
            flux_i_density += factor * (density_i - density_nb);
            flux_i_density_energy += factor * (density_energy_i - density_energy_nb);
            flux_i_momentum.x += factor * (momentum_i.x - momentum_nb.x);
            flux_i_momentum.y += factor * (momentum_i.y - momentum_nb.y);
            flux_i_momentum.z += factor * (momentum_i.z - momentum_nb.z);

            // accumulate cell-centered fluxes
            factor = 0.5f * normal.x;
            flux_i_density += factor * (momentum_nb.x + momentum_i.x);
            flux_i_density_energy += factor * (fc_nb_density_energy.x + fc_i_density_energy.x);
            flux_i_momentum.x += factor * (fc_nb_momentum_x.x + fc_i_momentum_x.x);
            flux_i_momentum.y += factor * (fc_nb_momentum_y.x + fc_i_momentum_y.x);
            flux_i_momentum.z += factor * (fc_nb_momentum_z.x + fc_i_momentum_z.x);

            factor = 0.5f * normal.y;
            flux_i_density += factor * (momentum_nb.y + momentum_i.y);
            flux_i_density_energy += factor * (fc_nb_density_energy.y + fc_i_density_energy.y);
            flux_i_momentum.x += factor * (fc_nb_momentum_x.y + fc_i_momentum_x.y);
            flux_i_momentum.y += factor * (fc_nb_momentum_y.y + fc_i_momentum_y.y);
            flux_i_momentum.z += factor * (fc_nb_momentum_z.y + fc_i_momentum_z.y);

            factor = 0.5f * normal.z;
            flux_i_density += factor * (momentum_nb.z + momentum_i.z);
            flux_i_density_energy += factor * (fc_nb_density_energy.z + fc_i_density_energy.z);
            flux_i_momentum.x += factor * (fc_nb_momentum_x.z + fc_i_momentum_x.z);
            flux_i_momentum.y += factor * (fc_nb_momentum_y.z + fc_i_momentum_y.z);
            flux_i_momentum.z += factor * (fc_nb_momentum_z.z + fc_i_momentum_z.z);
        } else if (nb == -1) {  // a wing boundary
            flux_i_momentum.x += normal.x * pressure_i;
            flux_i_momentum.y += normal.y * pressure_i;
            flux_i_momentum.z += normal.z * pressure_i;
        } else if (nb == -2) {  // a far field boundary
            float factor = 0.5f * normal.x;
            flux_i_density += factor * (far.variables[VAR_MOMENTUM + 0] + momentum_i.x);
            flux_i_density_energy += factor * (far.flux_density_energy.x + fc_i_density_energy.x);
            flux_i_momentum.x += factor * (far.flux_momentum_x.x + fc_i_momentum_x.x);
            flux_i_momentum.y += factor * (far.flux_momentum_y.x + fc_i_momentum_y.x);
            flux_i_momentum.z += factor * (far.flux_momentum_z.x + fc_i_momentum_z.x);

            factor = 0.5f * normal.y;
            flux_i_density += factor * (far.variables[VAR_MOMENTUM + 1] + momentum_i.y);
            flux_i_density_energy += factor * (far.flux_density_energy.y + fc_i_density_energy.y);
            flux_i_momentum.x += factor * (far.flux_momentum_x.y + fc_i_momentum_x.y);
            flux_i_momentum.y += factor * (far.flux_momentum_y.y + fc_i_momentum_y.y);
            flux_i_momentum.z += factor * (far.flux_momentum_z.y + fc_i_momentum_z.y);

            factor = 0.5f * normal.z;
            flux_i_density += factor * (far.variables[VAR_MOMENTUM + 2] + momentum_i.z);
            flux_i_density_energy += factor * (far.flux_density_energy.z + fc_i_density_energy.z);
            flux_i_momentum.x += factor * (far.flux_momentum_x.z + fc_i_momentum_x.z);
            flux_i_momentum.y += factor * (far.flux_momentum_y.z + fc_i_momentum_y.z);
            flux_i_momentum.z += factor * (far.flux_momentum_z.z + fc_i_momentum_z.z);
        }
    }

    fluxes[i + VAR_DENSITY * nelr] = flux_i_density;
    fluxes[i + (VAR_MOMENTUM + 0) * nelr] = flux_i_momentum.x;
    fluxes[i + (VAR_MOMENTUM + 1) * nelr] = flux_i_momentum.y;
    fluxes[i + (VAR_MOMENTUM + 2) * nelr] = flux_i_momentum.z;
    fluxes[i + VAR_DENSITY_ENERGY * nelr] = flux_i_density_energy;
}

extern "C" __global__ void __launch_bounds__(EULER_BLOCK)
euler3d_time_step_cuda(int j, const float *old_variables, float *variables,
                       const float *step_factors, const float *fluxes, int nelr) {
    const int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= nelr) return;
    float factor = step_factors[i] / float(RK + 1 - j);
    variables[i + VAR_DENSITY * nelr] =
        old_variables[i + VAR_DENSITY * nelr] + factor * fluxes[i + VAR_DENSITY * nelr];
    variables[i + VAR_DENSITY_ENERGY * nelr] = old_variables[i + VAR_DENSITY_ENERGY * nelr] +
                                               factor * fluxes[i + VAR_DENSITY_ENERGY * nelr];
    variables[i + (VAR_MOMENTUM + 0) * nelr] = old_variables[i + (VAR_MOMENTUM + 0) * nelr] +
                                               factor * fluxes[i + (VAR_MOMENTUM + 0) * nelr];
    variables[i + (VAR_MOMENTUM + 1) * nelr] = old_variables[i + (VAR_MOMENTUM + 1) * nelr] +
                                               factor * fluxes[i + (VAR_MOMENTUM + 1) * nelr];
    variables[i + (VAR_MOMENTUM + 2) * nelr] = old_variables[i + (VAR_MOMENTUM + 2) * nelr] +
                                               factor * fluxes[i + (VAR_MOMENTUM + 2) * nelr];
}

// ---------------------------------------------------------------------------------------------
// PolyBench-GPU fdtd-2d: 32 x 8 blocks, j along x, i along y.

#define FDTD_BLOCK_X 32
#define FDTD_BLOCK_Y 8

extern "C" __global__ void __launch_bounds__(FDTD_BLOCK_X * FDTD_BLOCK_Y)
fdtd_step1_cuda(const float *fict, float *ey, const float *hz, int nx, int ny, int t) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nx) && (j < ny)) {
        if (i == 0) {
            ey[i * ny + j] = fict[t];
        } else {
            ey[i * ny + j] = ey[i * ny + j] - 0.5f * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(FDTD_BLOCK_X * FDTD_BLOCK_Y)
fdtd_step2_cuda(float *ex, const float *hz, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nx) && (j < ny) && (j > 0)) {
        ex[i * (ny + 1) + j] = ex[i * (ny + 1) + j] - 0.5f * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
    }
}

extern "C" __global__ void __launch_bounds__(FDTD_BLOCK_X * FDTD_BLOCK_Y)
fdtd_step3_cuda(const float *ex, const float *ey, float *hz, int nx, int ny) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < nx) && (j < ny)) {
        hz[i * ny + j] = hz[i * ny + j] - 0.7f * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] +
                                                   ey[(i + 1) * ny + j] - ey[i * ny + j]);
    }
}

// ---------------------------------------------------------------------------------------------
// PolyBench-GPU correlation, 0-based: data is n x m (rows are data points), symmat m x m.

#define CORR_BLOCK 256
#define CORR_REDUCE_X 32
#define CORR_REDUCE_Y 8
#define EPS 0.005f

extern "C" __global__ void __launch_bounds__(CORR_BLOCK)
correlation_mean_cuda(const float *data, float *mean, int m, int n, float float_n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float sum = 0.0f;
        for (int i = 0; i < n; i++) {
            sum += data[i * m + j];
        }
        mean[j] = sum / float_n;
    }
}

extern "C" __global__ void __launch_bounds__(CORR_BLOCK)
correlation_std_cuda(const float *data, const float *mean, float *std, int m, int n,
                     float float_n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float mean_j = mean[j];
        float sum = 0.0f;
        for (int i = 0; i < n; i++) {
            float d = data[i * m + j] - mean_j;
            sum += d * d;
        }
        float s = sqrtf(sum / float_n);
        std[j] = (s <= EPS) ? 1.0f : s;
    }
}

extern "C" __global__ void __launch_bounds__(CORR_REDUCE_X * CORR_REDUCE_Y)
correlation_reduce_cuda(const float *mean, const float *std, float *data, int m, int n,
                        float float_n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < n) && (j < m)) {
        float centred = data[i * m + j] - mean[j];
        data[i * m + j] = centred / (sqrtf(float_n) * std[j]);
    }
}

extern "C" __global__ void __launch_bounds__(CORR_BLOCK)
correlation_corr_cuda(const float *data, float *symmat, int m, int n) {
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        symmat[j1 * m + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 < m; j2++) {
            float sum = 0.0f;
            for (int i = 0; i < n; i++) {
                sum += data[i * m + j1] * data[i * m + j2];
            }
            symmat[j1 * m + j2] = sum;
            symmat[j2 * m + j1] = sum;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PolyBench-GPU gemver: kernel 1 on 32 x 8 blocks, the vector kernels on 256.

#define GEMVER_BLOCK_X 32
#define GEMVER_BLOCK_Y 8
#define GEMVER_BLOCK 256

extern "C" __global__ void __launch_bounds__(GEMVER_BLOCK_X * GEMVER_BLOCK_Y)
gemver_outer_cuda(float *a, const float *v1, const float *v2, const float *u1, const float *u2,
                  int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if ((i < n) && (j < n)) {
        a[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
    }
}

extern "C" __global__ void __launch_bounds__(GEMVER_BLOCK)
gemver_transposed_cuda(const float *a, float *x, const float *y, float beta, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = x[i];
        for (int j = 0; j < n; j++) {
            sum += beta * a[j * n + i] * y[j];
        }
        x[i] = sum;
    }
}

extern "C" __global__ void __launch_bounds__(GEMVER_BLOCK)
gemver_add_cuda(float *x, const float *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += z[i];
    }
}

extern "C" __global__ void __launch_bounds__(GEMVER_BLOCK)
gemver_product_cuda(const float *a, const float *x, float *w, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float sum = w[i];
        for (int j = 0; j < n; j++) {
            sum += alpha * a[i * n + j] * x[j];
        }
        w[i] = sum;
    }
}
