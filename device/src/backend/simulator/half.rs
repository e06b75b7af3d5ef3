//! Half precision on the simulator: the correctly rounded software of `half_rounding.rs`, which
//! gives the bits the GPU's `.rn` instructions give; atomic additions are compare-and-swap loops
//! with the requested ordering.

use crate::half_rounding::{self as soft, BF16, F16, Format};
use core::sync::atomic::Ordering;

/// One module per 16-bit format, each with the functions of the GPU backend's module of the same
/// name.
macro_rules! scalar_format {
    ($name:ident, $format:expr) => {
        pub(crate) mod $name {
            use super::*;
            const FORMAT: Format = $format;

            #[inline]
            pub(crate) fn from_f32(x: f32) -> u16 {
                soft::round(x as f64, FORMAT)
            }

            #[inline]
            pub(crate) fn from_f64(x: f64) -> u16 {
                soft::round(x, FORMAT)
            }

            #[inline]
            pub(crate) fn to_f32(bits: u16) -> f32 {
                // Exact: every value of both formats is an `f32`.
                soft::to_f64(bits, FORMAT) as f32
            }

            #[inline]
            pub(crate) fn add(a: u16, b: u16) -> u16 {
                soft::add(a, b, FORMAT)
            }

            #[inline]
            pub(crate) fn sub(a: u16, b: u16) -> u16 {
                soft::sub(a, b, FORMAT)
            }

            #[inline]
            pub(crate) fn mul(a: u16, b: u16) -> u16 {
                soft::mul(a, b, FORMAT)
            }

            #[inline]
            pub(crate) fn mul_add(a: u16, b: u16, c: u16) -> u16 {
                soft::mul_add(a, b, c, FORMAT)
            }

            /// A compare-and-swap loop adding `value`.
            ///
            /// # Safety
            /// As [`crate::atomic::atomic_add`].
            #[inline]
            pub(crate) unsafe fn atomic_add(ptr: *mut u16, value: u16, order: Ordering) -> u16 {
                // SAFETY: the caller's contract is `update_u16`'s.
                unsafe { crate::half_atomic::update_u16(ptr, order, |old| add(old, value)) }
            }
        }
    };
}

/// One module per pair format, each with the functions of the GPU backend's module of the same
/// name, lane by lane.
macro_rules! pair_format {
    ($name:ident, $scalar:ident) => {
        pub(crate) mod $name {
            use super::*;

            /// Applies the scalar `op` to both lanes (lane 0 in the low half).
            #[inline]
            fn lanes(a: u32, b: u32, op: fn(u16, u16) -> u16) -> u32 {
                let low = op(a as u16, b as u16) as u32;
                let high = op((a >> 16) as u16, (b >> 16) as u16) as u32;
                (high << 16) | low
            }

            #[inline]
            pub(crate) fn from_f32s(low: f32, high: f32) -> u32 {
                ((super::$scalar::from_f32(high) as u32) << 16)
                    | super::$scalar::from_f32(low) as u32
            }

            #[inline]
            pub(crate) fn add(a: u32, b: u32) -> u32 {
                lanes(a, b, super::$scalar::add)
            }

            #[inline]
            pub(crate) fn sub(a: u32, b: u32) -> u32 {
                lanes(a, b, super::$scalar::sub)
            }

            #[inline]
            pub(crate) fn mul(a: u32, b: u32) -> u32 {
                lanes(a, b, super::$scalar::mul)
            }

            #[inline]
            pub(crate) fn mul_add(a: u32, b: u32, c: u32) -> u32 {
                let low = super::$scalar::mul_add(a as u16, b as u16, c as u16) as u32;
                let high =
                    super::$scalar::mul_add((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16)
                        as u32;
                (high << 16) | low
            }

            /// A compare-and-swap loop adding `value` lane by lane.
            ///
            /// # Safety
            /// As [`crate::atomic::atomic_add`].
            #[inline]
            pub(crate) unsafe fn atomic_add(ptr: *mut u32, value: u32, order: Ordering) -> u32 {
                // SAFETY: the caller's contract is `update_u32`'s.
                unsafe { crate::half_atomic::update_u32(ptr, order, |old| add(old, value)) }
            }
        }
    };
}

scalar_format!(f16, F16);
scalar_format!(bf16, BF16);
pair_format!(f16x2, f16);
pair_format!(bf16x2, bf16);
