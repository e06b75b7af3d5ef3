//! Naive matrix multiplication: one thread per output element, each reading a row of A and a column
//! of B from global memory. The tiled shared-memory version (`matmul_tiled`) lives in its own
//! module.

use ferrocuda::prelude::*;

/// `C = A B` for row-major `A` (`m` x `n`), `B` (`n` x `p`) and `C` (`m` x `p`): the thread at
/// grid position `(x, y)` computes `C[y][x]`, summing over `k` in order `0..n` in `f32`. Any
/// sizes: threads outside `C` do nothing.
#[kernel]
pub fn matmul_naive(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, p: u32) {
    let (col, row) = grid!(2);
    let (m, n, p) = (m as usize, n as usize, p as usize);
    if row < m && col < p {
        let a_row = &a[row * n..row * n + n];
        let mut sum = 0.0f32;
        for (k, &a_k) in a_row.iter().enumerate() {
            sum += a_k * b[k * p + col];
        }
        c[row * p + col] = sum;
    }
}
