//! Barriers (`bar.sync`, `bar.red`, `bar.warp.sync`) and fences (`membar`).
//!
//! Each one sits between two compiler fences. A kernel's `&mut [T]` parameter is `noalias` to
//! rustc, and LLVM assumes that neither the barrier intrinsic nor inline assembly (even with
//! its implicit memory clobber) touches memory reached only through a `noalias` pointer they
//! are not given: it forwarded a thread's store before `bar.sync` to its load of the same
//! element after it, missing what another thread wrote there in between
//! (`tests/tests/ptx_barrier_reload.rs`). A compiler fence is an LLVM `fence`, which every
//! optimization treats as reading and writing all memory, so no access moves across it; at
//! single-thread scope it emits no instruction.

use core::arch::asm;
use core::sync::atomic::{Ordering, compiler_fence};

/// Runs `barrier` between two compiler fences (see the module documentation).
#[inline(always)]
pub(crate) fn between_fences<T>(barrier: impl FnOnce() -> T) -> T {
    compiler_fence(Ordering::SeqCst);
    let result = barrier();
    compiler_fence(Ordering::SeqCst);
    result
}

#[inline(always)]
pub(crate) fn syncthreads() {
    // SAFETY: `bar.sync 0` has no memory-safety precondition; that every thread of the block
    // reaches it is the façade's documented contract (a GPU hangs otherwise, it cannot corrupt
    // memory).
    between_fences(|| unsafe { core::arch::nvptx::_syncthreads() })
}

#[inline(always)]
pub(crate) fn syncthreads_count(predicate: bool) -> u32 {
    between_fences(|| {
        let count: u32;
        // SAFETY: a barrier reduction on registers only; it reads and writes no memory.
        unsafe {
            asm!(
                "{{ .reg .pred p; setp.ne.u32 p, {pred}, 0; bar.red.popc.u32 {count}, 0, p; }}",
                pred = in(reg32) predicate as u32,
                count = out(reg32) count,
            );
        }
        count
    })
}

#[inline(always)]
pub(crate) fn syncthreads_and(predicate: bool) -> bool {
    let all: u32 = between_fences(|| {
        let all: u32;
        // SAFETY: a barrier reduction on registers only; it reads and writes no memory.
        unsafe {
            asm!(
                "{{ .reg .pred p, q; setp.ne.u32 p, {pred}, 0; bar.red.and.pred q, 0, p; selp.u32 {all}, 1, 0, q; }}",
                pred = in(reg32) predicate as u32,
                all = out(reg32) all,
            );
        }
        all
    });
    all != 0
}

#[inline(always)]
pub(crate) fn syncthreads_or(predicate: bool) -> bool {
    let any: u32 = between_fences(|| {
        let any: u32;
        // SAFETY: a barrier reduction on registers only; it reads and writes no memory.
        unsafe {
            asm!(
                "{{ .reg .pred p, q; setp.ne.u32 p, {pred}, 0; bar.red.or.pred q, 0, p; selp.u32 {any}, 1, 0, q; }}",
                pred = in(reg32) predicate as u32,
                any = out(reg32) any,
            );
        }
        any
    });
    any != 0
}

#[inline(always)]
pub(crate) fn syncwarp(mask: u32) {
    // SAFETY: a warp barrier; it reads and writes no memory (the mask contract is the caller's).
    between_fences(|| unsafe { asm!("bar.warp.sync {mask};", mask = in(reg32) mask) })
}

#[inline(always)]
pub(crate) fn threadfence() {
    // SAFETY: a memory fence only orders accesses; it has no operands.
    between_fences(|| unsafe { asm!("membar.gl;") })
}

#[inline(always)]
pub(crate) fn threadfence_block() {
    // SAFETY: a memory fence only orders accesses; it has no operands.
    between_fences(|| unsafe { asm!("membar.cta;") })
}

#[inline(always)]
pub(crate) fn threadfence_system() {
    // SAFETY: a memory fence only orders accesses; it has no operands.
    between_fences(|| unsafe { asm!("membar.sys;") })
}

/// Tells the compiler that the memory behind `ptr` (a kernel's `&mut [T]` parameter) is
/// reached by code it cannot see, which is what the block's other threads are.
///
/// A kernel body's `&mut [T]` parameters are `noalias`. When LLVM inlines the body into the
/// entry it turns that into scope metadata, and every later call that is not given the
/// pointer (a barrier, the calls the barrier's compiler fences were inlined from) gets
/// `!noalias` for the parameter's scope, unless the pointer may have been captured before the
/// call. LLVM 23 honours that metadata on fences too, so a fenced barrier no longer stops GVN
/// from forwarding a thread's own store to its load of the same element after the barrier
/// (`tests/tests/ptx_barrier_reload.rs`). Giving the pointer to an opaque assembly statement
/// that may read and write memory captures it: no later call gets the scope, and every
/// barrier is again a point where the element may have changed. Loads and stores keep their
/// scopes, so what LLVM knows about one parameter against another is unchanged.
#[inline(always)]
pub(crate) fn share_with_other_threads<T>(ptr: *mut T) {
    // SAFETY: the template is a PTX comment: it executes nothing and reads or writes no memory.
    // It is deliberately not `nomem`, so the compiler must assume it may keep the pointer.
    unsafe {
        asm!("// {0} is shared with other threads", in(reg64) ptr, options(nostack, preserves_flags))
    }
}
