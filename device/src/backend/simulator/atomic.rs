//! Atomics on the simulator: the host's atomics with the requested ordering; float additions as
//! compare-and-swap loops (the host has no atomic float add).

use crate::atomic::FloatBits;
use core::sync::atomic::Ordering;

/// Runs the atomic `op` with `order` itself: the host's atomics honour it.
#[inline(always)]
pub(crate) fn ordered<R>(order: Ordering, op: impl FnOnce(Ordering) -> R) -> R {
    op(order)
}

/// A compare-and-swap loop adding `value`.
///
/// # Safety
/// As [`crate::atomic::atomic_add`].
#[inline]
pub(crate) unsafe fn add_f32(ptr: *mut f32, value: f32, order: Ordering) -> f32 {
    // SAFETY: the caller's contract is `update`'s.
    unsafe { f32::update(ptr, order, |old| old + value) }
}

/// A compare-and-swap loop adding `value`.
///
/// # Safety
/// As [`crate::atomic::atomic_add`].
#[inline]
pub(crate) unsafe fn add_f64(ptr: *mut f64, value: f64, order: Ordering) -> f64 {
    // SAFETY: the caller's contract is `update`'s.
    unsafe { f64::update(ptr, order, |old| old + value) }
}
