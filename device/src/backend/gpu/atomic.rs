//! Atomics on the GPU: `core`'s atomics (which LLVM lowers to `atom.*` in the right state
//! space) between explicit fences, and the float additions `atom.add.f32`/`atom.add.f64`.

use core::arch::asm;
use core::sync::atomic::Ordering;

unsafe extern "C" {
    // LLVM upgrades these retired NVVM intrinsics to `atomicrmw fadd` when it reads them, so the
    // backend can infer the address space: `atom.global.add.f32` on a kernel's slice,
    // `atom.shared.add.f32` on shared memory, `atom.add.f32` on a generic pointer. (The upgrade
    // marks the operation seq_cst; LLVM 22's NVPTX backend emits every read-modify-write relaxed,
    // as `ordered` assumes.)
    #[link_name = "llvm.nvvm.atomic.load.add.f32.p0"]
    fn nvvm_atomic_add_f32(ptr: *mut f32, value: f32) -> f32;
    #[link_name = "llvm.nvvm.atomic.load.add.f64.p0"]
    fn nvvm_atomic_add_f64(ptr: *mut f64, value: f64) -> f64;
}

/// Runs the atomic `op` relaxed between the fences that give it `order` at device scope:
/// `fence.acq_rel.gpu` before a release and after an acquire, `fence.sc.gpu` before a
/// sequentially consistent one (LLVM 22's NVPTX backend drops the ordering of the
/// read-modify-write instruction itself).
#[inline(always)]
pub(crate) fn ordered<R>(order: Ordering, op: impl FnOnce(Ordering) -> R) -> R {
    // SAFETY: fences have no operands and only order memory accesses.
    unsafe {
        match order {
            Ordering::Release | Ordering::AcqRel => asm!("fence.acq_rel.gpu;"),
            Ordering::SeqCst => asm!("fence.sc.gpu;"),
            _ => {}
        }
    }
    let result = op(Ordering::Relaxed);
    if matches!(
        order,
        Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
    ) {
        // SAFETY: as above.
        unsafe { asm!("fence.acq_rel.gpu;") }
    }
    result
}

/// `atom.add.f32`.
///
/// # Safety
/// As [`crate::atomic::atomic_add`].
#[inline(always)]
pub(crate) unsafe fn add_f32(ptr: *mut f32, value: f32, order: Ordering) -> f32 {
    // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are atomic.
    ordered(order, |_| unsafe { nvvm_atomic_add_f32(ptr, value) })
}

/// `atom.add.f64`.
///
/// # Safety
/// As [`crate::atomic::atomic_add`].
#[inline(always)]
pub(crate) unsafe fn add_f64(ptr: *mut f64, value: f64, order: Ordering) -> f64 {
    // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are atomic.
    ordered(order, |_| unsafe { nvvm_atomic_add_f64(ptr, value) })
}
