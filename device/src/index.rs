//! Thread, block and grid indices and dimensions, and Numba's `grid`/`gridsize` helpers.
//!
//! The four special registers are one call each into the backend: `backend/gpu/index.rs` reads
//! `%tid`, `%ctaid`, `%ntid` and `%nctaid`, `backend/simulator/index.rs` the simulated thread's
//! context. Everything else here is computed from them, the same on both targets.

use crate::Dim3;
use crate::backend::index as imp;

/// This thread's index within its block (`threadIdx`).
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    imp::thread_idx()
}

/// This block's index within the grid (`blockIdx`).
#[inline(always)]
pub fn block_idx() -> Dim3 {
    imp::block_idx()
}

/// The number of threads in each block (`blockDim`).
#[inline(always)]
pub fn block_dim() -> Dim3 {
    imp::block_dim()
}

/// The number of blocks in the grid (`gridDim`).
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    imp::grid_dim()
}

/// The absolute x index of this thread in the grid: `blockIdx.x * blockDim.x + threadIdx.x`
/// (Numba's `cuda.grid(1)`).
#[inline(always)]
pub fn grid_1d() -> usize {
    block_idx().x as usize * block_dim().x as usize + thread_idx().x as usize
}

/// The absolute (x, y) index of this thread in the grid (Numba's `cuda.grid(2)`).
#[inline(always)]
pub fn grid_2d() -> (usize, usize) {
    let (b, d, t) = (block_idx(), block_dim(), thread_idx());
    (
        b.x as usize * d.x as usize + t.x as usize,
        b.y as usize * d.y as usize + t.y as usize,
    )
}

/// The absolute (x, y, z) index of this thread in the grid (Numba's `cuda.grid(3)`).
#[inline(always)]
pub fn grid_3d() -> (usize, usize, usize) {
    let (b, d, t) = (block_idx(), block_dim(), thread_idx());
    (
        b.x as usize * d.x as usize + t.x as usize,
        b.y as usize * d.y as usize + t.y as usize,
        b.z as usize * d.z as usize + t.z as usize,
    )
}

/// The total number of threads along x in the grid (Numba's `cuda.gridsize(1)`), the stride
/// of a grid-stride loop.
#[inline(always)]
pub fn gridsize_1d() -> usize {
    grid_dim().x as usize * block_dim().x as usize
}

/// The total number of threads along x and y in the grid (Numba's `cuda.gridsize(2)`).
#[inline(always)]
pub fn gridsize_2d() -> (usize, usize) {
    let (g, d) = (grid_dim(), block_dim());
    (g.x as usize * d.x as usize, g.y as usize * d.y as usize)
}

/// The total number of threads along x, y and z in the grid (Numba's `cuda.gridsize(3)`).
#[inline(always)]
pub fn gridsize_3d() -> (usize, usize, usize) {
    let (g, d) = (grid_dim(), block_dim());
    (
        g.x as usize * d.x as usize,
        g.y as usize * d.y as usize,
        g.z as usize * d.z as usize,
    )
}

/// The linear index of this thread within its block: `x + y * blockDim.x + z * blockDim.x * blockDim.y`.
#[inline(always)]
pub fn thread_rank() -> u32 {
    let (t, d) = (thread_idx(), block_dim());
    t.x + t.y * d.x + t.z * d.x * d.y
}

/// Numba's `cuda.grid(n)`: `grid!(1)` is a `usize`, `grid!(2)` a `(usize, usize)`, `grid!(3)` a
/// triple: the absolute index of this thread in the grid.
#[macro_export]
macro_rules! grid {
    (1) => {
        $crate::index::grid_1d()
    };
    (2) => {
        $crate::index::grid_2d()
    };
    (3) => {
        $crate::index::grid_3d()
    };
}

/// Numba's `cuda.gridsize(n)`: the number of threads in the grid along 1, 2 or 3 dimensions.
#[macro_export]
macro_rules! gridsize {
    (1) => {
        $crate::index::gridsize_1d()
    };
    (2) => {
        $crate::index::gridsize_2d()
    };
    (3) => {
        $crate::index::gridsize_3d()
    };
}
