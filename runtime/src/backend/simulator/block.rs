//! The threads of the block being simulated: where each one stands.

use crate::device::sim::{BarrierOp, WarpOp};
use corosensei::Yielder;
use std::cell::Cell;
use std::panic::Location;

/// Where a simulated thread stands.
#[derive(Clone, Copy, Debug)]
pub(super) enum ThreadState {
    /// Can run: not started yet, or released from a barrier or warp operation.
    Ready,
    /// Waits at a block barrier (`syncthreads` and its predicate forms).
    AtBarrier {
        /// Which barrier flavour.
        op: BarrierOp,
        /// This thread's predicate (count/and/or forms).
        predicate: bool,
        /// Where the barrier is in the kernel source.
        location: &'static Location<'static>,
    },
    /// Waits at a warp operation (`syncwarp`, a shuffle, a ballot).
    AtWarp {
        /// The operation, with this lane's operands.
        op: WarpOp,
        /// Where the operation is in the kernel source.
        location: &'static Location<'static>,
    },
    /// Returned from the kernel.
    Exited,
    /// Panicked; the panic is recorded.
    Panicked,
    /// Ended by the simulator (its block faulted, or it waited for a thread that panicked).
    Aborted,
}

impl ThreadState {
    /// Whether the thread panicked or was ended by the simulator.
    pub(super) fn is_dead(&self) -> bool {
        matches!(self, ThreadState::Panicked | ThreadState::Aborted)
    }

    /// Whether the thread has ended in any way.
    pub(super) fn has_ended(&self) -> bool {
        matches!(
            self,
            ThreadState::Exited | ThreadState::Panicked | ThreadState::Aborted
        )
    }
}

/// One simulated thread of the block being run.
pub(super) struct ThreadSlot {
    /// Where the thread stands.
    pub(super) state: Cell<ThreadState>,
    /// The result of the barrier or warp operation that released it.
    pub(super) result: Cell<u64>,
    /// The yielder of the thread's coroutine, set when the coroutine starts.
    pub(super) yielder: Cell<*const Yielder<(), ()>>,
}

impl ThreadSlot {
    /// A thread that has not started.
    pub(super) fn new() -> Self {
        ThreadSlot {
            state: Cell::new(ThreadState::Ready),
            result: Cell::new(0),
            yielder: Cell::new(std::ptr::null()),
        }
    }
}

/// The number of lanes in a warp.
pub(super) const WARP_SIZE: usize = ferrocuda_device::warp::WARP_SIZE as usize;

/// The lanes that exist in the warp starting at thread `base` of a block of `threads` threads (a
/// block whose size is not a multiple of 32 has a partial last warp).
pub(super) fn existing_lanes(base: usize, threads: usize) -> u32 {
    let lanes = threads.saturating_sub(base).min(WARP_SIZE);
    if lanes == WARP_SIZE {
        u32::MAX
    } else {
        (1u32 << lanes) - 1
    }
}
