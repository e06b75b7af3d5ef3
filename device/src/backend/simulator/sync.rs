//! Barriers through the simulator's block scheduler; fences as host fences.
//!
//! A barrier is a call into the simulator, opaque to the compiler, that lets other simulated
//! threads run and write memory. A kernel's `&mut [T]` parameter is `noalias` to rustc, and a
//! call that is not given the pointer is assumed not to touch what it points to: without more,
//! the host compiler may forward a thread's store before the barrier to its load after it and
//! miss what another thread wrote there meanwhile (`tests/tests/cooperative.rs` saw it happen).
//! So every barrier sits between two compiler fences, which the optimizer treats as reading and
//! writing all memory: no load or store moves across them, as none moves across `bar.sync` on
//! the GPU. They cost no instruction.

use crate::sim::{self, BarrierOp, WarpOp};
use core::panic::Location;
use core::sync::atomic::{Ordering, compiler_fence, fence};

/// Runs `wait` (a call into the simulator that lets other threads run) between two compiler
/// fences, so that the compiler keeps every memory access on its side of it.
#[inline(always)]
pub(crate) fn between_fences<T>(wait: impl FnOnce() -> T) -> T {
    compiler_fence(Ordering::SeqCst);
    let result = wait();
    compiler_fence(Ordering::SeqCst);
    result
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads() {
    let location = Location::caller();
    between_fences(|| sim::hooks().barrier(BarrierOp::Sync, false, location));
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads_count(predicate: bool) -> u32 {
    let location = Location::caller();
    between_fences(|| sim::hooks().barrier(BarrierOp::Count, predicate, location))
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads_and(predicate: bool) -> bool {
    let location = Location::caller();
    between_fences(|| sim::hooks().barrier(BarrierOp::And, predicate, location)) != 0
}

#[inline]
#[track_caller]
pub(crate) fn syncthreads_or(predicate: bool) -> bool {
    let location = Location::caller();
    between_fences(|| sim::hooks().barrier(BarrierOp::Or, predicate, location)) != 0
}

#[inline]
#[track_caller]
pub(crate) fn syncwarp(mask: u32) {
    let location = Location::caller();
    between_fences(|| sim::hooks().warp(WarpOp::Sync { mask }, location));
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
