//! Packed pairs of half-precision values, [`f16x2`] and [`bf16x2`] (CUDA's `__half2` and
//! `__nv_bfloat162`): two lanes in one 32-bit register, operated on by one instruction
//! (`add.rn.f16x2`, `fma.rn.bf16x2`, ...; see [`half`](crate::half) for the architecture each
//! needs and the software fallbacks, which give the same bits).
//!
//! Lane 0 ([`low`](f16x2::low)) is the low 16 bits, lane 1 ([`high`](f16x2::high)) the high 16
//! bits: in memory a pair is `[lane 0, lane 1]`, the layout of `[f16; 2]`, so a slice of pairs
//! reads a slice of scalars two at a time. Every operation is lane-wise and rounds each lane as
//! the scalar operation does.

use crate::backend::half as imp;
use crate::half::{assign_from_binary, bf16, f16};
use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

/// Generates a pair type over the scalar type `$scalar`.
macro_rules! pair_type {
    ($(#[$doc:meta])* $name:ident, $scalar:ident) => {
        $(#[$doc])*
        #[expect(non_camel_case_types, reason = "named like CUDA's `__half2` and the scalar types")]
        #[repr(transparent)]
        #[derive(Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name(u32);

        // SAFETY: `#[repr(transparent)]` over `u32`: the same size, alignment and bits on the
        // host and on nvptx64, no pointers, and all-zero bits are two +0.0 lanes.
        unsafe impl crate::abi::DeviceCopy for $name {}

        impl $name {
            /// A pair from its two lanes.
            #[inline(always)]
            pub const fn new(low: $scalar, high: $scalar) -> Self {
                Self(((high.to_bits() as u32) << 16) | low.to_bits() as u32)
            }

            /// Both lanes set to `x`.
            #[inline(always)]
            pub const fn splat(x: $scalar) -> Self {
                Self::new(x, x)
            }

            /// Lane 0 (the low 16 bits).
            #[inline(always)]
            pub const fn low(self) -> $scalar {
                $scalar::from_bits(self.0 as u16)
            }

            /// Lane 1 (the high 16 bits).
            #[inline(always)]
            pub const fn high(self) -> $scalar {
                $scalar::from_bits((self.0 >> 16) as u16)
            }

            /// The pair with these bits (lane 0 in the low half).
            #[inline(always)]
            pub const fn from_bits(bits: u32) -> Self {
                Self(bits)
            }

            /// The bits of the pair (lane 0 in the low half).
            #[inline(always)]
            pub const fn to_bits(self) -> u32 {
                self.0
            }

            /// Both lanes rounded from `f32` to nearest, ties to even, in one instruction
            /// (`cvt.rn.<pair>.f32`).
            #[inline(always)]
            pub fn from_f32s(low: f32, high: f32) -> Self {
                Self(imp::$name::from_f32s(low, high))
            }

            /// Both lanes as `f32` (exact): `(lane 0, lane 1)`.
            #[inline(always)]
            pub fn to_f32s(self) -> (f32, f32) {
                (self.low().to_f32(), self.high().to_f32())
            }

            /// Lane-wise `self * a + b` with one rounding per lane (`fma.rn`).
            #[inline(always)]
            pub fn mul_add(self, a: Self, b: Self) -> Self {
                Self(imp::$name::mul_add(self.0, a.0, b.0))
            }

            /// Lane-wise absolute value (clears both sign bits).
            #[inline(always)]
            pub const fn abs(self) -> Self {
                Self(self.0 & 0x7fff_7fff)
            }
        }

        impl Add for $name {
            type Output = Self;
            /// Lane-wise, correctly rounded (`add.rn`).
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                Self(imp::$name::add(self.0, rhs.0))
            }
        }

        impl Sub for $name {
            type Output = Self;
            /// Lane-wise, correctly rounded (`sub.rn`).
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                Self(imp::$name::sub(self.0, rhs.0))
            }
        }

        impl Mul for $name {
            type Output = Self;
            /// Lane-wise, correctly rounded (`mul.rn`).
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                Self(imp::$name::mul(self.0, rhs.0))
            }
        }

        impl Neg for $name {
            type Output = Self;
            /// Flips both sign bits.
            #[inline(always)]
            fn neg(self) -> Self {
                Self(self.0 ^ 0x8000_8000)
            }
        }

        assign_from_binary!($name: AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *);

        impl From<[$scalar; 2]> for $name {
            /// `[lane 0, lane 1]`.
            #[inline(always)]
            fn from([low, high]: [$scalar; 2]) -> Self {
                Self::new(low, high)
            }
        }

        impl From<$name> for [$scalar; 2] {
            /// `[lane 0, lane 1]`.
            #[inline(always)]
            fn from(pair: $name) -> Self {
                [pair.low(), pair.high()]
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_tuple(stringify!($name)).field(&self.low()).field(&self.high()).finish()
            }
        }

        impl crate::warp::sealed::Sealed for $name {}

        /// One 32-bit `shfl.sync`.
        impl crate::warp::ShuffleValue for $name {
            #[inline(always)]
            #[track_caller]
            fn __shuffle(self, kind: crate::warp::Kind, mask: u32, lane: u32, width: u32) -> Self {
                Self(crate::backend::warp::shuffle_u32(kind, mask, self.0, lane, width))
            }
        }
    };
}

pair_type! {
    /// Two [`struct@f16`] lanes in 32 bits (CUDA's `__half2`); see the [module documentation](self).
    ///
    /// `PartialEq` compares bits (both lanes), unlike the scalar's IEEE equality.
    f16x2, f16
}

pair_type! {
    /// Two [`bf16`] lanes in 32 bits (CUDA's `__nv_bfloat162`); see the
    /// [module documentation](self).
    ///
    /// `PartialEq` compares bits (both lanes), unlike the scalar's IEEE equality.
    bf16x2, bf16
}
