//! Atomics on the simulator: the host's atomics with the requested ordering; float additions as
//! compare-and-swap loops (the host has no atomic float add). Every atomic counts towards the
//! thread's next yield ([`sim::after_atomic`]), so a spin-wait lets the thread it waits for run.

use crate::atomic::FloatBits;
use crate::sim;
use core::sync::atomic::Ordering;

/// Runs the atomic `op` with `order` itself (the host's atomics honour it), then counts it
/// towards the thread's next yield.
#[inline(always)]
pub(crate) fn ordered<R>(order: Ordering, op: impl FnOnce(Ordering) -> R) -> R {
    let result = op(order);
    sim::after_atomic();
    result
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
