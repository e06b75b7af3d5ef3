//! mbarriers on the simulator: initialisation is accepted (it is a block barrier there: the
//! barrier objects are never read, since every other operation is refused), and every other
//! operation stops the kernel with `SimulatorFault::UnsupportedInstruction`. mbarriers serve TMA
//! copies and `wgmma`, which the simulator cannot run either.

use crate::sim;
use core::panic::Location;

/// The block barrier of [`crate::mbarrier::Mbarriers::new`]; the objects are left as they are.
#[inline]
#[track_caller]
pub(crate) fn init_block(_base: *mut u64, _len: usize, _arrivals: u32) {
    crate::syncthreads();
}

/// Refuses `mbarrier.arrive`.
#[inline]
#[track_caller]
pub(crate) fn arrive(_slot: *mut u64) {
    sim::hooks().unsupported("mbarrier.arrive", Location::caller())
}

/// Refuses `mbarrier.arrive.expect_tx`.
#[inline]
#[track_caller]
pub(crate) fn arrive_expect_tx(_slot: *mut u64, _bytes: u32) {
    sim::hooks().unsupported("mbarrier.arrive.expect_tx", Location::caller())
}

/// Refuses `mbarrier.try_wait.parity`.
#[inline]
#[track_caller]
pub(crate) fn wait(_slot: *mut u64, _parity: u32) {
    sim::hooks().unsupported("mbarrier.try_wait.parity", Location::caller())
}

/// Refuses `fence.proxy.async`.
#[inline]
#[track_caller]
pub(crate) fn fence_proxy_async() {
    sim::hooks().unsupported("fence.proxy.async", Location::caller())
}

/// The panic of an arrival count out of range.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_arrivals(arrivals: u32) -> ! {
    panic!("Mbarriers::new: the arrival count is {arrivals}; it must be 1 to 2^20 - 1")
}

/// The panic of a transaction count out of range.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_transaction_bytes(bytes: u32) -> ! {
    panic!("Mbarriers::arrive_expect_tx: {bytes} bytes; at most 2^20 - 1 per arrival")
}

/// The panic of a barrier index out of bounds.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(index: usize, len: usize) -> ! {
    panic!("Mbarriers: barrier {index} is out of bounds of {len} barriers")
}
