//! `cp.async.bulk.tensor` (PTX ISA 9.7.9.25.5.1): shared addresses in 32-bit registers, the
//! tensor map by its generic (global) address.

pub(crate) use crate::backend::mbarrier::shared_address;
use crate::tma::TensorMap;

/// Starts the 2-D tile copy of the box at (`col`, `row`) of `map` to `destination`, completing
/// on the barrier at `barrier`.
///
/// # Safety
/// The façade's contract ([`crate::tma::tma_load_2d`]).
#[inline(always)]
pub(crate) unsafe fn load_2d(
    destination: *mut u8,
    map: &TensorMap,
    col: i32,
    row: i32,
    barrier: *mut u64,
) {
    let (destination, barrier) = (shared_address(destination), shared_address(barrier));
    let map: *const TensorMap = map;
    // SAFETY: the caller's contract; the coordinates are the innermost dimension first, as the
    // tensor map's dimensions are listed.
    unsafe {
        core::arch::asm!(
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [{d}], [{m}, {{{c}, {r}}}], [{b}];",
            d = in(reg32) destination, m = in(reg64) map, c = in(reg32) col, r = in(reg32) row,
            b = in(reg32) barrier,
            options(nostack)
        )
    };
}

/// The panic of a start outside the destination.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(start: usize, len: usize) -> ! {
    let _ = (start, len);
    panic!("tma_load_2d: the destination start is out of bounds of the shared array")
}

/// The panic of a misaligned destination.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned(address: usize) -> ! {
    let _ = address;
    panic!("tma_load_2d: the shared destination is not 128-byte aligned")
}
