//! PolyBench-GPU's fdtd-2d (`stencils/fdtd-2d/fdtd2d.cu`): the 2-D finite-difference time-domain
//! method on an `nx` x `ny` grid, three kernels per time step `t`, launched from the host in that
//! order for `t` in `0..tmax`:
//!
//! 1. [`fdtd_step1`]: `ey[i][j] -= 0.5 (hz[i][j] - hz[i-1][j])`, and `ey[0][j] = fict[t]`;
//! 2. [`fdtd_step2`]: `ex[i][j] -= 0.5 (hz[i][j] - hz[i][j-1])` for `j > 0`;
//! 3. [`fdtd_step3`]: `hz[i][j] -= 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])`.
//!
//! Row-major storage as PolyBench-GPU's: `ex` is `nx` x `(ny + 1)`, `ey` is `(nx + 1)` x `ny`,
//! `hz` is `nx` x `ny`, `fict` holds at least `tmax` values. One thread per cell `(i, j)` with
//! `j` along x and `i` along y, blocks of 32 x 8 threads ([`BLOCK_X`] x [`BLOCK_Y`]), a grid of
//! `(ny.div_ceil(32), nx.div_ceil(8))` blocks. CUDA C twins: `bench/external/polybench.cu`.

use ferrocuda::prelude::*;

/// Threads per block along x (the `j` index), PolyBench-GPU's `DIM_THREAD_BLOCK_X`.
pub const BLOCK_X: usize = 32;
/// Threads per block along y (the `i` index), PolyBench-GPU's `DIM_THREAD_BLOCK_Y`.
pub const BLOCK_Y: usize = 8;

/// Step 1 of time step `t`: `ey[i][j] = fict[t]` for `i == 0`, else `ey[i][j] - 0.5 (hz[i][j] -
/// hz[i-1][j])`, for `i < nx`, `j < ny` (row `nx` of `ey` is left alone).
///
/// Launch: 32 x 8 blocks on a `(ny.div_ceil(32), nx.div_ceil(8))` grid. Benchmark kernel:
/// PolyBench-GPU's `fdtd_step1_kernel`.
#[kernel(max_block(BLOCK_X, BLOCK_Y))]
pub fn fdtd_step1(fict: &[f32], ey: &mut [f32], hz: &[f32], nx: u32, ny: u32, t: u32) {
    let (j, i) = grid!(2);
    let (nx, ny) = (nx as usize, ny as usize);
    if i < nx && j < ny {
        if i == 0 {
            ey[j] = fict[t as usize];
        } else {
            ey[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
        }
    }
}

/// Step 2: `ex[i][j] = ex[i][j] - 0.5 (hz[i][j] - hz[i][j-1])` for `i < nx`, `0 < j < ny`
/// (columns 0 and `ny` of `ex` are left alone).
///
/// Launch: 32 x 8 blocks on a `(ny.div_ceil(32), nx.div_ceil(8))` grid. Benchmark kernel:
/// PolyBench-GPU's `fdtd_step2_kernel`.
#[kernel(max_block(BLOCK_X, BLOCK_Y))]
pub fn fdtd_step2(ex: &mut [f32], hz: &[f32], nx: u32, ny: u32) {
    let (j, i) = grid!(2);
    let (nx, ny) = (nx as usize, ny as usize);
    if i < nx && j < ny && j > 0 {
        ex[i * (ny + 1) + j] -= 0.5 * (hz[i * ny + j] - hz[i * ny + (j - 1)]);
    }
}

/// Step 3: `hz[i][j] = hz[i][j] - 0.7 (ex[i][j+1] - ex[i][j] + ey[i+1][j] - ey[i][j])` for
/// `i < nx`, `j < ny`.
///
/// Launch: 32 x 8 blocks on a `(ny.div_ceil(32), nx.div_ceil(8))` grid. Benchmark kernel:
/// PolyBench-GPU's `fdtd_step3_kernel`.
#[kernel(max_block(BLOCK_X, BLOCK_Y))]
pub fn fdtd_step3(ex: &[f32], ey: &[f32], hz: &mut [f32], nx: u32, ny: u32) {
    let (j, i) = grid!(2);
    let (nx, ny) = (nx as usize, ny as usize);
    if i < nx && j < ny {
        hz[i * ny + j] -= 0.7
            * (ex[i * (ny + 1) + (j + 1)] - ex[i * (ny + 1) + j] + ey[(i + 1) * ny + j]
                - ey[i * ny + j]);
    }
}
