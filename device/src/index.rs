//! Thread, block and grid indices and dimensions, and Numba's `grid`/`gridsize` helpers.
//!
//! The four special registers are one call each into the backend: `backend/gpu/index.rs` reads
//! `%tid`, `%ctaid`, `%ntid` and `%nctaid`, `backend/simulator/index.rs` the simulated thread's
//! context. Everything else here is computed from them, the same on both targets.
//!
//! # 32-bit index arithmetic
//! The launch rejects a grid with more than `u32::MAX` threads along a dimension
//! (`gridDim * blockDim`), so the absolute indices and grid sizes below are computed in `u32`
//! without overflow checks and only then widened to `usize`: `grid!(1)` is one 32-bit
//! `mad.lo.s32`, as CUDA C's `int` index is, instead of a 64-bit multiply and add (nvptx64's
//! `usize` is 64-bit, and each 64-bit operation costs two). The entry also narrows slice lengths
//! and `usize` arguments to their low 32 bits (`__narrow_len`, GPU only) for kernels without
//! `#[kernel(large_buffers)]`, whose launch checked that they fit. The byte offsets of loads and
//! stores stay 64-bit.

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

/// `block * dim + thread` for one dimension, in `u32`: the absolute index along it.
#[inline(always)]
fn absolute(block: u32, dim: u32, thread: u32) -> usize {
    // SAFETY: `block < gridDim` and `thread < dim` along this dimension (CUDA's definition of
    // the indices), so `block * dim + thread < gridDim * dim`, which the launch checked to be at
    // most `u32::MAX` (the runtime's `check_grid_extent`): neither operation overflows.
    unsafe { block.unchecked_mul(dim).unchecked_add(thread) as usize }
}

/// `grid * dim` for one dimension, in `u32`: the number of threads along it.
#[inline(always)]
fn extent(grid: u32, dim: u32) -> usize {
    // SAFETY: the launch checked `gridDim * blockDim <= u32::MAX` along every dimension (the
    // runtime's `check_grid_extent`).
    unsafe { grid.unchecked_mul(dim) as usize }
}

/// The absolute x index of this thread in the grid: `blockIdx.x * blockDim.x + threadIdx.x`
/// (Numba's `cuda.grid(1)`), computed in 32 bits (see the module documentation).
#[inline(always)]
pub fn grid_1d() -> usize {
    absolute(block_idx().x, block_dim().x, thread_idx().x)
}

/// The absolute (x, y) index of this thread in the grid (Numba's `cuda.grid(2)`), computed in
/// 32 bits.
#[inline(always)]
pub fn grid_2d() -> (usize, usize) {
    let (b, d, t) = (block_idx(), block_dim(), thread_idx());
    (absolute(b.x, d.x, t.x), absolute(b.y, d.y, t.y))
}

/// The absolute (x, y, z) index of this thread in the grid (Numba's `cuda.grid(3)`), computed
/// in 32 bits.
#[inline(always)]
pub fn grid_3d() -> (usize, usize, usize) {
    let (b, d, t) = (block_idx(), block_dim(), thread_idx());
    (
        absolute(b.x, d.x, t.x),
        absolute(b.y, d.y, t.y),
        absolute(b.z, d.z, t.z),
    )
}

/// The total number of threads along x in the grid (Numba's `cuda.gridsize(1)`), the stride
/// of a grid-stride loop.
#[inline(always)]
pub fn gridsize_1d() -> usize {
    extent(grid_dim().x, block_dim().x)
}

/// The total number of threads along x and y in the grid (Numba's `cuda.gridsize(2)`).
#[inline(always)]
pub fn gridsize_2d() -> (usize, usize) {
    let (g, d) = (grid_dim(), block_dim());
    (extent(g.x, d.x), extent(g.y, d.y))
}

/// The total number of threads along x, y and z in the grid (Numba's `cuda.gridsize(3)`).
#[inline(always)]
pub fn gridsize_3d() -> (usize, usize, usize) {
    let (g, d) = (grid_dim(), block_dim());
    (extent(g.x, d.x), extent(g.y, d.y), extent(g.z, d.z))
}

/// A slice length as a kernel entry passes it to the body: its low 32 bits, widened back.
/// Called by the entries `#[kernel]` generates for kernels without `large_buffers`, whose
/// launch checked that every slice length fits in `u32`; not for kernel code (GPU only: the
/// simulator's entries keep the length as it is, which the same check bounds).
///
/// The compiler then knows every length is below 2^32: sums and products of lengths and 32-bit
/// indices ([`grid_1d`], `thread_idx().x as usize`, ...) cannot overflow, and the overflow
/// checks and wrapping cases of `usize` index arithmetic fold away. Were the launch's check
/// bypassed, the slice would only get shorter.
#[doc(hidden)]
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn __narrow_len(len: usize) -> usize {
    len as u32 as usize
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
