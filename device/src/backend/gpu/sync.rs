//! Barriers (`bar.sync`, `bar.red`, `bar.warp.sync`) and fences (`membar`).

use core::arch::asm;

#[inline(always)]
pub(crate) fn syncthreads() {
    // SAFETY: `bar.sync 0` has no memory-safety precondition; that every thread of the block
    // reaches it is the façade's documented contract (a GPU hangs otherwise, it cannot corrupt
    // memory).
    unsafe { core::arch::nvptx::_syncthreads() }
}

#[inline(always)]
pub(crate) fn syncthreads_count(predicate: bool) -> u32 {
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
}

#[inline(always)]
pub(crate) fn syncthreads_and(predicate: bool) -> bool {
    let all: u32;
    // SAFETY: a barrier reduction on registers only; it reads and writes no memory.
    unsafe {
        asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {pred}, 0; bar.red.and.pred q, 0, p; selp.u32 {all}, 1, 0, q; }}",
            pred = in(reg32) predicate as u32,
            all = out(reg32) all,
        );
    }
    all != 0
}

#[inline(always)]
pub(crate) fn syncthreads_or(predicate: bool) -> bool {
    let any: u32;
    // SAFETY: a barrier reduction on registers only; it reads and writes no memory.
    unsafe {
        asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {pred}, 0; bar.red.or.pred q, 0, p; selp.u32 {any}, 1, 0, q; }}",
            pred = in(reg32) predicate as u32,
            any = out(reg32) any,
        );
    }
    any != 0
}

#[inline(always)]
pub(crate) fn syncwarp(mask: u32) {
    // SAFETY: a warp barrier; it reads and writes no memory (the mask contract is the caller's).
    unsafe { asm!("bar.warp.sync {mask};", mask = in(reg32) mask) }
}

#[inline(always)]
pub(crate) fn threadfence() {
    // SAFETY: a memory fence only orders accesses; it has no operands.
    unsafe { asm!("membar.gl;") }
}

#[inline(always)]
pub(crate) fn threadfence_block() {
    // SAFETY: a memory fence only orders accesses; it has no operands.
    unsafe { asm!("membar.cta;") }
}

#[inline(always)]
pub(crate) fn threadfence_system() {
    // SAFETY: a memory fence only orders accesses; it has no operands.
    unsafe { asm!("membar.sys;") }
}
