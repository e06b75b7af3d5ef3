//! Kernels replayed as CUDA graphs: one step of the 1-D heat equation (Jacobi), for
//! `examples/graph_stencil.rs`, and a tiny kernel for the launch-cost benchmark of
//! `examples/bench_graphs.rs`.

use ferrocuda::prelude::*;

/// One explicit step of the 1-D heat equation with fixed ends:
/// `next[i] = current[i] + alpha * (current[i - 1] - 2 current[i] + current[i + 1])` inside,
/// `next[i] = current[i]` at both ends. Stable for `alpha <= 0.5`.
#[kernel]
pub fn heat_step(current: &[f32], next: &mut [f32], alpha: f32) {
    let i = grid!(1);
    let n = next.len();
    if i < n {
        next[i] = if i == 0 || i == n - 1 {
            current[i]
        } else {
            let laplacian = current[i - 1] - 2.0 * current[i] + current[i + 1];
            current[i] + alpha * laplacian
        };
    }
}

/// `x[i] += 1.0`: a kernel whose running time is the launch's, for timing launch costs.
#[kernel]
pub fn bump(x: &mut [f32]) {
    let i = grid!(1);
    if i < x.len() {
        x[i] += 1.0;
    }
}
