//! Barriers and memory fences.
//!
//! `syncthreads` and its predicate forms must be reached by every thread of the block, and
//! `syncwarp` by every lane in its mask; on the simulator a barrier that some threads skip (or a
//! thread that returns early) is reported as an error instead of hanging.

#[cfg(not(target_arch = "nvptx64"))]
use crate::sim::{self, BarrierOp, WarpOp};

/// Waits until every thread of the block has reached this point, and makes their earlier writes
/// to shared and global memory visible to each other (`__syncthreads`).
#[inline(always)]
#[track_caller]
pub fn syncthreads() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::nvptx::_syncthreads()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().barrier(BarrierOp::Sync, false, core::panic::Location::caller());
    }
}

/// [`syncthreads`], returning how many threads of the block passed a true `predicate`
/// (`__syncthreads_count`).
#[inline(always)]
#[track_caller]
pub fn syncthreads_count(predicate: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let count: u32;
        core::arch::asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {pred}, 0; bar.red.popc.u32 {count}, 0, p; }}",
            pred = in(reg32) predicate as u32,
            count = out(reg32) count,
        );
        count
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().barrier(BarrierOp::Count, predicate, core::panic::Location::caller())
    }
}

/// [`syncthreads`], returning whether every thread of the block passed a true `predicate`
/// (`__syncthreads_and`).
#[inline(always)]
#[track_caller]
pub fn syncthreads_and(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let all: u32;
        core::arch::asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {pred}, 0; bar.red.and.pred q, 0, p; selp.u32 {all}, 1, 0, q; }}",
            pred = in(reg32) predicate as u32,
            all = out(reg32) all,
        );
        all != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().barrier(BarrierOp::And, predicate, core::panic::Location::caller()) != 0
    }
}

/// [`syncthreads`], returning whether any thread of the block passed a true `predicate`
/// (`__syncthreads_or`).
#[inline(always)]
#[track_caller]
pub fn syncthreads_or(predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let any: u32;
        core::arch::asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {pred}, 0; bar.red.or.pred q, 0, p; selp.u32 {any}, 1, 0, q; }}",
            pred = in(reg32) predicate as u32,
            any = out(reg32) any,
        );
        any != 0
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().barrier(BarrierOp::Or, predicate, core::panic::Location::caller()) != 0
    }
}

/// Waits until every lane of the warp named in `mask` has reached this point (`__syncwarp`).
#[inline(always)]
#[track_caller]
pub fn syncwarp(mask: u32) {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("bar.warp.sync {mask};", mask = in(reg32) mask);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().warp(WarpOp::Sync { mask }, core::panic::Location::caller());
    }
}

/// Orders this thread's memory accesses as seen by every thread of the device
/// (`__threadfence`, `membar.gl`).
#[inline(always)]
pub fn threadfence() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("membar.gl;");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}

/// Orders this thread's memory accesses as seen by the threads of its block
/// (`__threadfence_block`, `membar.cta`).
#[inline(always)]
pub fn threadfence_block() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("membar.cta;");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}

/// Orders this thread's memory accesses as seen by the whole system, host included
/// (`__threadfence_system`, `membar.sys`).
#[inline(always)]
pub fn threadfence_system() {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        core::arch::asm!("membar.sys;");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}
