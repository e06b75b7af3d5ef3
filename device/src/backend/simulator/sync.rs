//! Barriers through the simulator's block scheduler; fences as host fences.

use crate::sim::{self, BarrierOp, WarpOp};
use core::panic::Location;
use core::sync::atomic::{Ordering, fence};

#[inline]
#[track_caller]
pub(crate) fn syncthreads() {
    sim::hooks().barrier(BarrierOp::Sync, false, Location::caller());
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads_count(predicate: bool) -> u32 {
    sim::hooks().barrier(BarrierOp::Count, predicate, Location::caller())
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads_and(predicate: bool) -> bool {
    sim::hooks().barrier(BarrierOp::And, predicate, Location::caller()) != 0
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads_or(predicate: bool) -> bool {
    sim::hooks().barrier(BarrierOp::Or, predicate, Location::caller()) != 0
}

#[inline]
#[track_caller]
pub(crate) fn syncwarp(mask: u32) {
    sim::hooks().warp(WarpOp::Sync { mask }, Location::caller());
}

// The simulated threads of a launch run on one OS thread at a time, but the host's fences are
// what a kernel's atomics on global memory synchronize with (`SeqCst`: the strongest, as cheap
// as any other on the host).
#[inline]
pub(crate) fn threadfence() {
    fence(Ordering::SeqCst);
}

#[inline]
pub(crate) fn threadfence_block() {
    fence(Ordering::SeqCst);
}

#[inline]
pub(crate) fn threadfence_system() {
    fence(Ordering::SeqCst);
}
