//! Gaussian elimination, after Rodinia's `gaussian` (`gaussian.cu`, kernels `Fan1` and `Fan2`).
//!
//! The system `a x = b` has an `n x n` row-major `f32` matrix `a`. For each pivot column
//! `t = 0, 1, ..., n - 2` the host launches [`fan1`] (the multipliers of column `t`) and then
//! [`fan2`] (the update of the trailing rows of `a` and of `b`). Afterwards `a` is upper
//! triangular below its pivots (the entries under the diagonal are left as Rodinia leaves them:
//! zero up to rounding, since they are updated like the others), `m` holds the multipliers
//! under the diagonal, and the host solves by back substitution (not done here).
//!
//! Launch shapes, as Rodinia's: [`fan1`] takes blocks of [`FAN1_BLOCK`] (512) threads and
//! `ceil(n / 512)` blocks, the same for every `t`; [`fan2`] takes blocks of
//! [`FAN2_BLOCK`] x [`FAN2_BLOCK`] (16 x 16) threads on a grid of `ceil(n / 16)` x `ceil(n / 16)`
//! blocks, x along the rows below the pivot, y along the columns from the pivot's on.

use ferrocuda::prelude::*;

/// Threads per block of [`fan1`] (Rodinia's `MAXBLOCKSIZE`).
pub const FAN1_BLOCK: usize = 512;

/// Threads per side of [`fan2`]'s square blocks.
pub const FAN2_BLOCK: usize = 16;

/// Rodinia's `Fan1`: the multipliers of pivot column `t`,
/// `m[i][t] = a[i][t] / a[t][t]` for every row `i` in `t + 1..n`, one thread per row
/// (thread `g` of the grid takes row `t + 1 + g`; threads past the last row do nothing).
///
/// Launch: `[n.div_ceil(FAN1_BLOCK), FAN1_BLOCK]`; `m` and `a` hold `n * n` elements.
#[kernel(max_block(FAN1_BLOCK))]
pub fn fan1(m: &mut [f32], a: &[f32], n: u32, t: u32) {
    let n = n as usize;
    let t = t as usize;
    let g = grid!(1);
    if g + t + 1 >= n {
        return;
    }
    let row = g + t + 1;
    m[n * row + t] = a[n * row + t] / a[n * t + t];
}

/// Rodinia's `Fan2`: the elimination step of pivot `t` on the trailing submatrix,
/// `a[i][j] -= m[i][t] * a[t][j]` for rows `i` in `t + 1..n` and columns `j` in `t..n`, and
/// `b[i] -= m[i][t] * b[t]` (done by the threads of column `j = t`).
///
/// Thread (x, y) of the grid takes row `t + 1 + x` and column `t + y`. Launch:
/// `[(n.div_ceil(FAN2_BLOCK), n.div_ceil(FAN2_BLOCK)), (FAN2_BLOCK, FAN2_BLOCK)]`, after
/// [`fan1`] for the same `t`.
#[kernel(max_block(FAN2_BLOCK, FAN2_BLOCK))]
pub fn fan2(m: &[f32], a: &mut [f32], b: &mut [f32], n: u32, t: u32) {
    let n = n as usize;
    let t = t as usize;
    let (x, y) = grid!(2);
    if x + t + 1 >= n {
        return;
    }
    if y + t >= n {
        return;
    }
    let row = x + 1 + t;
    let col = y + t;
    let multiplier = m[n * row + t];
    let product = multiplier * a[n * t + col];
    a[n * row + col] -= product;
    if y == 0 {
        let product = multiplier * b[t];
        b[row] -= product;
    }
}
