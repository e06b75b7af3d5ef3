//! PolyBench-GPU's correlation (`datamining/correlation/correlation.cu`): the correlation matrix
//! of the `m` columns (variables) of an `n` x `m` row-major `f32` matrix `data` (`n` data
//! points), in four kernels launched in this order:
//!
//! 1. [`correlation_mean`]: the mean of each column, `sum_i data[i][j] / float_n`;
//! 2. [`correlation_std`]: the standard deviation of each column, `sqrt(sum_i (data[i][j] -
//!    mean[j])^2 / float_n)`, replaced by 1 where it is at most [`EPS`] (nearly constant
//!    columns);
//! 3. [`correlation_reduce`]: centres and scales `data` in place, `(data[i][j] - mean[j]) /
//!    (sqrt(float_n) std_dev[j])`;
//! 4. [`correlation_corr`]: `symmat[j1][j2] = symmat[j2][j1] = sum_i data[i][j1] data[i][j2]`,
//!    with 1 on the diagonal, the `m` x `m` row-major matrix.
//!
//! PolyBench-GPU indexes from 1 in arrays of `(n + 1) x (m + 1)` and passes `FLOAT_N` as a
//! constant; these kernels index from 0 and take `float_n` (normally `n`) as a parameter, and
//! accumulate each sum in a register rather than in the output array (the same operations in
//! the same order). The last diagonal element, which PolyBench-GPU sets on the host, is set by
//! the thread of `j1 = m - 1`. CUDA C twins: `bench/external/polybench.cu`.

use ferrocuda::prelude::*;

/// Threads per block of the column kernels (mean, std dev, correlation).
pub const BLOCK: usize = 256;
/// Threads per block of [`correlation_reduce`] along x (columns).
pub const REDUCE_BLOCK_X: usize = 32;
/// Threads per block of [`correlation_reduce`] along y (rows).
pub const REDUCE_BLOCK_Y: usize = 8;
/// A standard deviation at most this is replaced by 1 (PolyBench's `EPS`).
pub const EPS: f32 = 0.005;

/// `mean[j] = (data[0][j] + ... + data[n-1][j]) / float_n` for `j < m`, summed in row order.
///
/// Launch: one thread per column, `m.div_ceil(256)` blocks of 256 threads. Benchmark kernel:
/// PolyBench-GPU's `mean_kernel`.
#[kernel(max_block(BLOCK))]
pub fn correlation_mean(data: &[f32], mean: &mut [f32], m: u32, n: u32, float_n: f32) {
    let j = grid!(1);
    let (m, n) = (m as usize, n as usize);
    if j < m {
        let mut sum = 0.0f32;
        for i in 0..n {
            sum += data[i * m + j];
        }
        mean[j] = sum / float_n;
    }
}

/// `std_dev[j] = sqrt(sum_i (data[i][j] - mean[j])^2 / float_n)` for `j < m`, summed in row
/// order, or 1 where that is at most [`EPS`].
///
/// Launch: one thread per column, `m.div_ceil(256)` blocks of 256 threads. Benchmark kernel:
/// PolyBench-GPU's `std_kernel`.
#[kernel(max_block(BLOCK))]
pub fn correlation_std(
    data: &[f32],
    mean: &[f32],
    std_dev: &mut [f32],
    m: u32,
    n: u32,
    float_n: f32,
) {
    let j = grid!(1);
    let (m, n) = (m as usize, n as usize);
    if j < m {
        let mean_j = mean[j];
        let mut sum = 0.0f32;
        for i in 0..n {
            let d = data[i * m + j] - mean_j;
            sum += d * d;
        }
        let s = (sum / float_n).sqrt();
        std_dev[j] = if s <= EPS { 1.0 } else { s };
    }
}

/// Centres and scales `data` in place: `data[i][j] = (data[i][j] - mean[j]) / (sqrt(float_n)
/// std_dev[j])` for `i < n`, `j < m`.
///
/// Launch: 32 x 8 blocks on a `(m.div_ceil(32), n.div_ceil(8))` grid (x along columns). Benchmark
/// kernel: PolyBench-GPU's `reduce_kernel`.
#[kernel(max_block(REDUCE_BLOCK_X, REDUCE_BLOCK_Y))]
pub fn correlation_reduce(
    mean: &[f32],
    std_dev: &[f32],
    data: &mut [f32],
    m: u32,
    n: u32,
    float_n: f32,
) {
    let (j, i) = grid!(2);
    let (m, n) = (m as usize, n as usize);
    if i < n && j < m {
        let centred = data[i * m + j] - mean[j];
        data[i * m + j] = centred / (float_n.sqrt() * std_dev[j]);
    }
}

/// The correlation matrix of the reduced `data`: for each `j1 < m`, `symmat[j1][j1] = 1` and,
/// for each `j2` in `j1 + 1..m`, `symmat[j1][j2] = symmat[j2][j1] = sum_i data[i][j1]
/// data[i][j2]`, summed in row order.
///
/// Launch: one thread per row `j1`, `m.div_ceil(256)` blocks of 256 threads. Benchmark kernel:
/// PolyBench-GPU's `corr_kernel`.
#[kernel(max_block(BLOCK))]
pub fn correlation_corr(data: &[f32], symmat: &mut [f32], m: u32, n: u32) {
    let j1 = grid!(1);
    let (m, n) = (m as usize, n as usize);
    if j1 < m {
        symmat[j1 * m + j1] = 1.0;
        for j2 in j1 + 1..m {
            let mut sum = 0.0f32;
            for i in 0..n {
                sum += data[i * m + j1] * data[i * m + j2];
            }
            symmat[j1 * m + j2] = sum;
            symmat[j2 * m + j1] = sum;
        }
    }
}
