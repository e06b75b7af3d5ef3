//! A sparse matrix-vector product `y = A x` with `A` in CSR form (compressed sparse rows:
//! `row_offsets[r]..row_offsets[r + 1]` are the positions in `values` and `columns` of row `r`'s
//! non-zeros). One thread per row, blocks of 256.
//!
//! Written the way a new user writes it: `grid!(1)`, `usize` indices, checked indexing. The CUDA
//! C twin is `spmv_csr_cuda` in `bench/idiomatic.cu`.

use ferrocuda::prelude::*;

/// `y[r] = sum of values[k] * x[columns[k]]` over row `r`'s non-zeros, in storage order, for
/// every row `r < y.len()` (`row_offsets` holds `y.len() + 1` offsets).
#[kernel]
pub fn spmv_csr(row_offsets: &[u32], columns: &[u32], values: &[f32], x: &[f32], y: &mut [f32]) {
    let row = grid!(1);
    if row < y.len() {
        let mut sum = 0.0f32;
        for k in row_offsets[row] as usize..row_offsets[row + 1] as usize {
            sum += values[k] * x[columns[k] as usize];
        }
        y[row] = sum;
    }
}
