//! TMA copies on the simulator: refused with `SimulatorFault::UnsupportedInstruction`.

pub(crate) use crate::backend::wgmma::shared_address;
use crate::sim;
use crate::tma::TensorMap;
use core::panic::Location;

/// Refuses `cp.async.bulk.tensor`.
///
/// # Safety
/// None needed here (nothing is copied); `unsafe` to match the GPU backend.
#[inline]
#[track_caller]
pub(crate) unsafe fn load_2d(
    _destination: *mut u8,
    _map: &TensorMap,
    _col: i32,
    _row: i32,
    _barrier: *mut u64,
) {
    sim::hooks().unsupported("cp.async.bulk.tensor", Location::caller())
}

/// The panic of a start outside the destination.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(start: usize, len: usize) -> ! {
    panic!("tma_load_2d: start {start} is out of bounds of a shared array of {len} elements")
}

/// The panic of a misaligned destination.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned(address: usize) -> ! {
    panic!(
        "tma_load_2d: the shared destination {address:#x} is not 128-byte aligned (TMA needs it)"
    )
}
