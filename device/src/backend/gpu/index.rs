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
    // SAFETY: reading the special registers has no preconditions. A block index is below the
    // grid's size in that dimension (CUDA's definition); telling the optimizer bounds the
    // absolute indices of `grid!`.
    unsafe {
        let (x, y, z) = (_block_idx_x(), _block_idx_y(), _block_idx_z());
        core::hint::assert_unchecked(x < _grid_dim_x());
        core::hint::assert_unchecked(y < _grid_dim_y());
        core::hint::assert_unchecked(z < _grid_dim_z());
        Dim3::new(x, y, z)
    }
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

/// The low 32 bits of `value`, through an instruction the optimizer cannot see into: a plain
/// `as u32` widened back becomes `value & 0xffff_ffff`, a 64-bit value that keeps every compare
/// and `min` built on it 64-bit, while the result of an opaque `cvt` widened back is a
/// zero-extended `u32`, which the optimizer narrows such operations through. ptxas turns the
/// `cvt` into a use of the low register: it costs nothing.
#[inline(always)]
pub(crate) fn low_32_bits(value: u64) -> u32 {
    let low: u32;
    // SAFETY: a register-to-register conversion; it touches no memory.
    unsafe {
        core::arch::asm!(
            "cvt.u32.u64 {low}, {value};",
            low = out(reg32) low,
            value = in(reg64) value,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    low
}
