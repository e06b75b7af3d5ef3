//! Indices and dimensions from the special registers (`%tid`, `%ctaid`, `%ntid`, `%nctaid`).

use crate::Dim3;
use core::arch::nvptx::*;

#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    // SAFETY: reading the special registers has no preconditions. A thread index is below the
    // block's size in that dimension (CUDA's definition); telling the optimizer lets a kernel
    // that checked its block shape index shared tiles with `threadIdx` unchecked.
    unsafe {
        let (x, y, z) = (_thread_idx_x(), _thread_idx_y(), _thread_idx_z());
        core::hint::assert_unchecked(x < _block_dim_x());
        core::hint::assert_unchecked(y < _block_dim_y());
        core::hint::assert_unchecked(z < _block_dim_z());
        Dim3::new(x, y, z)
    }
}

#[inline(always)]
pub(crate) fn block_idx() -> Dim3 {
    // SAFETY: reading the `%ctaid` special registers has no preconditions.
    unsafe { Dim3::new(_block_idx_x(), _block_idx_y(), _block_idx_z()) }
}

#[inline(always)]
pub(crate) fn block_dim() -> Dim3 {
    // SAFETY: reading the `%ntid` special registers has no preconditions.
    unsafe { Dim3::new(_block_dim_x(), _block_dim_y(), _block_dim_z()) }
}

#[inline(always)]
pub(crate) fn grid_dim() -> Dim3 {
    // SAFETY: reading the `%nctaid` special registers has no preconditions.
    unsafe { Dim3::new(_grid_dim_x(), _grid_dim_y(), _grid_dim_z()) }
}
