//! Atomics on the half-precision types: [`Atomic`] for [`struct@f16`], [`bf16`], [`f16x2`] and
//! [`bf16x2`], so `slice.atomic_add(i, x)`, the shared-memory handles' methods and the free
//! functions of [`atomic`](crate::atomic) work on them as on `f32`.
//!
//! Addition is one instruction where PTX has it (`atom.add.noftz.f16` and `.f16x2` on sm_70,
//! `.bf16` and `.bf16x2` on sm_90) and a compare-and-swap loop elsewhere (older GPUs, the
//! simulator); subtraction adds the negated value (exact: `x - y` is `x + (-y)`); minimum, maximum
//! and exchange are compare-and-swap loops (pairs lane-wise, with the scalars' `min`/`max`:
//! a NaN operand is ignored). Compare-and-swap compares bits. `noftz`: subnormals are kept, as
//! everywhere in [`half`](crate::half).

use crate::atomic::{Atomic, Ordering, RmwOp, failure_order, load_order, sealed, store_order};
use crate::backend::atomic::ordered;
use crate::backend::half as imp;
use crate::half::{bf16, bf16x2, f16, f16x2};
use core::sync::atomic::{AtomicU16, AtomicU32};

/// Generates a compare-and-swap update loop over an atomic integer.
macro_rules! update_loop {
    ($(#[$doc:meta])* $name:ident, $bits:ty, $atomic:ty) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// As [`crate::atomic::atomic_add`].
        #[inline(always)]
        pub(crate) unsafe fn $name(ptr: *mut $bits, order: Ordering, new: impl Fn($bits) -> $bits) -> $bits {
            // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are
            // all atomic, which is `from_ptr`'s contract.
            let atomic = unsafe { <$atomic>::from_ptr(ptr) };
            let mut bits = atomic.load(load_order(order));
            loop {
                match atomic.compare_exchange_weak(bits, new(bits), order, failure_order(order)) {
                    Ok(_) => return bits,
                    Err(seen) => bits = seen,
                }
            }
        }
    };
}

update_loop!(
    /// Replaces the 16 bits at `ptr` by `new(old)` with a compare-and-swap loop; returns `old`.
    update_u16, u16, AtomicU16
);
update_loop!(
    /// Replaces the 32 bits at `ptr` by `new(old)` with a compare-and-swap loop; returns `old`.
    update_u32, u32, AtomicU32
);

/// Implements [`Atomic`] for a half-precision type over its bits.
macro_rules! half_atomic {
    ($t:ident, $bits:ty, $atomic:ty, $update:ident, min: $min:expr, max: $max:expr) => {
        impl sealed::Sealed for $t {}

        impl Atomic for $t {
            #[inline(always)]
            unsafe fn __rmw(ptr: *mut Self, value: Self, op: RmwOp, order: Ordering) -> Self {
                let ptr = ptr.cast::<$bits>();
                /// A compare-and-swap loop replacing the element by `$new(old)`.
                macro_rules! update {
                    ($new:expr) => {
                        // SAFETY: the caller passes a valid, aligned pointer whose concurrent
                        // accesses are all atomic; the type is `repr(transparent)` over its bits.
                        ordered(order, |o| unsafe {
                            $update(ptr, o, |bits| ($new)($t::from_bits(bits)).to_bits())
                        })
                    };
                }
                let old = match op {
                    // SAFETY: as in `update!`, the backend's contract.
                    RmwOp::Add => ordered(order, |o| unsafe {
                        imp::$t::atomic_add(ptr, value.to_bits(), o)
                    }),
                    // SAFETY: as in `update!`.
                    RmwOp::Sub => ordered(order, |o| unsafe {
                        imp::$t::atomic_add(ptr, (-value).to_bits(), o)
                    }),
                    RmwOp::Min => update!(|old| ($min)(old, value)),
                    RmwOp::Max => update!(|old| ($max)(old, value)),
                    RmwOp::Exchange => {
                        // SAFETY: as in `update!`.
                        let atomic = unsafe { <$atomic>::from_ptr(ptr) };
                        ordered(order, |o| atomic.swap(value.to_bits(), o))
                    }
                    RmwOp::And | RmwOp::Or | RmwOp::Xor => {
                        unreachable!("bitwise atomics need integer elements (`AtomicBitwise`)")
                    }
                };
                $t::from_bits(old)
            }

            #[inline(always)]
            unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self {
                // SAFETY: as in `__rmw`.
                let atomic = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                let old = ordered(order, |o| {
                    match atomic.compare_exchange(
                        current.to_bits(),
                        new.to_bits(),
                        o,
                        failure_order(o),
                    ) {
                        Ok(old) | Err(old) => old,
                    }
                });
                $t::from_bits(old)
            }

            #[inline(always)]
            unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self {
                // SAFETY: as in `__rmw`.
                let atomic = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                $t::from_bits(ordered(order, |o| atomic.load(load_order(o))))
            }

            #[inline(always)]
            unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering) {
                // SAFETY: as in `__rmw`.
                let atomic = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                ordered(order, |o| atomic.store(value.to_bits(), store_order(o)))
            }
        }
    };
}

half_atomic!(f16, u16, AtomicU16, update_u16, min: f16::min, max: f16::max);
half_atomic!(bf16, u16, AtomicU16, update_u16, min: bf16::min, max: bf16::max);
half_atomic!(f16x2, u32, AtomicU32, update_u32,
    min: |a: f16x2, b: f16x2| f16x2::new(a.low().min(b.low()), a.high().min(b.high())),
    max: |a: f16x2, b: f16x2| f16x2::new(a.low().max(b.low()), a.high().max(b.high())));
half_atomic!(bf16x2, u32, AtomicU32, update_u32,
    min: |a: bf16x2, b: bf16x2| bf16x2::new(a.low().min(b.low()), a.high().min(b.high())),
    max: |a: bf16x2, b: bf16x2| bf16x2::new(a.low().max(b.low()), a.high().max(b.high())));
