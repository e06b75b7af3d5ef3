//! Barriers and memory fences.
//!
//! `syncthreads` and its predicate forms must be reached by every thread of the block, and
//! `syncwarp` by every lane in its mask; on the simulator a barrier that some threads skip (or a
//! thread that returns early) is reported as an error instead of hanging.
//!
//! Each function is one call into the backend (`backend/gpu/sync.rs` for the PTX,
//! `backend/simulator/sync.rs` for the simulator).

use crate::backend::sync as imp;

/// Waits until every thread of the block has reached this point, and makes their earlier writes
/// to shared and global memory visible to each other (`__syncthreads`).
#[inline(always)]
#[track_caller]
pub fn syncthreads() {
    imp::syncthreads()
}

/// [`syncthreads`], returning how many threads of the block passed a true `predicate`
/// (`__syncthreads_count`).
#[inline(always)]
#[track_caller]
pub fn syncthreads_count(predicate: bool) -> u32 {
    imp::syncthreads_count(predicate)
}

/// [`syncthreads`], returning whether every thread of the block passed a true `predicate`
/// (`__syncthreads_and`).
#[inline(always)]
#[track_caller]
pub fn syncthreads_and(predicate: bool) -> bool {
    imp::syncthreads_and(predicate)
}

/// [`syncthreads`], returning whether any thread of the block passed a true `predicate`
/// (`__syncthreads_or`).
#[inline(always)]
#[track_caller]
pub fn syncthreads_or(predicate: bool) -> bool {
    imp::syncthreads_or(predicate)
}

/// Waits until every lane of the warp named in `mask` has reached this point (`__syncwarp`).
#[inline(always)]
#[track_caller]
pub fn syncwarp(mask: u32) {
    imp::syncwarp(mask)
}

/// Orders this thread's memory accesses as seen by every thread of the device
/// (`__threadfence`, `membar.gl`).
#[inline(always)]
pub fn threadfence() {
    imp::threadfence()
}

/// Orders this thread's memory accesses as seen by the threads of its block
/// (`__threadfence_block`, `membar.cta`).
#[inline(always)]
pub fn threadfence_block() {
    imp::threadfence_block()
}

/// Orders this thread's memory accesses as seen by the whole system, host included
/// (`__threadfence_system`, `membar.sys`).
#[inline(always)]
pub fn threadfence_system() {
    imp::threadfence_system()
}

/// Marks the memory behind a kernel's `&mut [T]` parameter as reachable by the block's other
/// threads, so that the compiler reloads it after every barrier (see
/// `backend/gpu/sync.rs`). Called first in the body of every kernel `#[kernel]` expands, once
/// per `&mut [T]` parameter; not for kernel code. It emits no instruction.
#[doc(hidden)]
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn __share_with_other_threads<T>(ptr: *mut T) {
    imp::share_with_other_threads(ptr)
}
