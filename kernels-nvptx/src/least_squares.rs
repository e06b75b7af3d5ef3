//! The gradient of a least-squares fit, `X^T (X w - y)`, over one shard of the rows: the kernels
//! of the data-parallel example (`examples/least_squares_multi_gpu.rs`), where each device
//! computes the gradient of its rows and an all-reduce adds the devices' gradients.
//!
//! `x` holds the rows one after another (`rows x features`, row-major), `w` the `features`
//! weights, `y` one target per row.

use ferrocuda::prelude::*;

/// Threads per block of [`least_squares_gradient`].
pub const GRADIENT_BLOCK: u32 = 256;

/// `residual[i] = x_i . w - y[i]`, one thread per row.
#[kernel]
pub fn least_squares_residual(x: &[f32], w: &[f32], y: &[f32], residual: &mut [f32]) {
    let i = grid!(1);
    let features = w.len();
    if i < residual.len() {
        let row = &x[i * features..(i + 1) * features];
        let mut prediction = 0.0f32;
        for (value, weight) in row.iter().zip(w) {
            prediction += value * weight;
        }
        residual[i] = prediction - y[i];
    }
}

/// `gradient[j] = sum over rows i of x[i][j] * residual[i]`: block `j` sums column `j` (a grid
/// of `gradient.len()` blocks, any block size up to 1024).
#[kernel]
pub fn least_squares_gradient(x: &[f32], residual: &[f32], gradient: &mut [f32]) {
    let mut scratch = shared_array!(f32; BLOCK_SCRATCH_LEN);
    let features = gradient.len();
    let column = block_idx().x as usize;
    let mut sum = 0.0f32;
    let mut i = thread_idx().x as usize;
    while i < residual.len() {
        sum += x[i * features + column] * residual[i];
        i += block_dim().x as usize;
    }
    let total = block_reduce(&mut scratch, sum, |a, b| a + b);
    if thread_idx().x == 0 && column < features {
        gradient[column] = total;
    }
}
