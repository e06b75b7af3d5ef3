//! PolyBench-GPU's gemver (`linear-algebra/kernels/gemver/gemver.cu`) on an `n` x `n` row-major
//! `f32` matrix `a` and vectors of `n`, in four kernels launched in this order:
//!
//! 1. [`gemver_outer`]: `A = A + u1 v1^T + u2 v2^T`;
//! 2. [`gemver_transposed`]: `x = x + beta A^T y`;
//! 3. [`gemver_add`]: `x = x + z`;
//! 4. [`gemver_product`]: `w = w + alpha A x`.
//!
//! PolyBench-GPU adds `z` at the end of its second kernel; here it is a kernel of its own. CUDA
//! C twins: `bench/external/polybench.cu`.

use ferrocuda::prelude::*;

/// Threads per block of [`gemver_outer`] along x (columns `j`).
pub const OUTER_BLOCK_X: usize = 32;
/// Threads per block of [`gemver_outer`] along y (rows `i`).
pub const OUTER_BLOCK_Y: usize = 8;
/// Threads per block of the vector kernels.
pub const BLOCK: usize = 256;

/// `a[i][j] = a[i][j] + (u1[i] v1[j] + u2[i] v2[j])` for `i, j < n`.
///
/// Launch: 32 x 8 blocks on a `(n.div_ceil(32), n.div_ceil(8))` grid (x along columns).
/// Benchmark kernel: PolyBench-GPU's `gemver_kernel1`.
#[kernel(max_block(OUTER_BLOCK_X, OUTER_BLOCK_Y))]
pub fn gemver_outer(a: &mut [f32], v1: &[f32], v2: &[f32], u1: &[f32], u2: &[f32], n: u32) {
    let (j, i) = grid!(2);
    let n = n as usize;
    if i < n && j < n {
        a[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
    }
}

/// `x[i] = x[i] + beta a[0][i] y[0] + ... + beta a[n-1][i] y[n-1]` for `i < n`, added in
/// order of `j`, each term `(beta a[j][i]) y[j]`.
///
/// Launch: one thread per element, `n.div_ceil(256)` blocks of 256 threads. Benchmark kernel:
/// PolyBench-GPU's `gemver_kernel2` (without its final `x += z`).
#[kernel(max_block(BLOCK))]
pub fn gemver_transposed(a: &[f32], x: &mut [f32], y: &[f32], beta: f32, n: u32) {
    let i = grid!(1);
    let n = n as usize;
    if i < n {
        let mut sum = x[i];
        for j in 0..n {
            sum += beta * a[j * n + i] * y[j];
        }
        x[i] = sum;
    }
}

/// `x[i] = x[i] + z[i]` for `i < n`.
///
/// Launch: one thread per element, `n.div_ceil(256)` blocks of 256 threads. Benchmark kernel:
/// the end of PolyBench-GPU's `gemver_kernel2`.
#[kernel(max_block(BLOCK))]
pub fn gemver_add(x: &mut [f32], z: &[f32], n: u32) {
    let i = grid!(1);
    if i < n as usize {
        x[i] += z[i];
    }
}

/// `w[i] = w[i] + alpha a[i][0] x[0] + ... + alpha a[i][n-1] x[n-1]` for `i < n`, added in
/// order of `j`, each term `(alpha a[i][j]) x[j]`.
///
/// Launch: one thread per element, `n.div_ceil(256)` blocks of 256 threads. Benchmark kernel:
/// PolyBench-GPU's `gemver_kernel3`.
#[kernel(max_block(BLOCK))]
pub fn gemver_product(a: &[f32], x: &[f32], w: &mut [f32], alpha: f32, n: u32) {
    let i = grid!(1);
    let n = n as usize;
    if i < n {
        let mut sum = w[i];
        for j in 0..n {
            sum += alpha * a[i * n + j] * x[j];
        }
        w[i] = sum;
    }
}
