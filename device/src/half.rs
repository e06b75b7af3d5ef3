//! Half precision: [`struct@f16`] (IEEE 754 binary16, CUDA's `__half`) and [`bf16`] (bfloat16, CUDA's
//! `__nv_bfloat16`), and their packed pairs [`f16x2`] and [`bf16x2`](crate::half_pair).
//!
//! ```ignore
//! use ferrocuda::prelude::*;
//!
//! #[kernel]
//! pub fn axpy_f16(a: f16, x: &[f16], y: &mut [f16]) {
//!     let i = grid!(1);
//!     if i < y.len() {
//!         y[i] = a.mul_add(x[i], y[i]); // one `fma.rn.f16`
//!     }
//! }
//! ```
//!
//! Both types are kernel parameters, elements of `&[T]`/`&mut [T]` (host `DeviceBuffer<f16>`),
//! of shared arrays and of local variables, on the host and the device alike.
//!
//! # Why ferrocuda's own types
//! They are `#[repr(transparent)]` wrappers of the bits (`u16`), like the `half` crate's types,
//! but their operations lower to PTX's half-precision instructions (`add.rn.f16`, `fma.rn.bf16`,
//! `cvt.rn.f16.f32`, ...), where `half`'s arithmetic on nvptx would be software through `f32`
//! (several instructions per operation). On the simulator the same operations run correctly
//! rounded software, so a kernel gives the **same bits** on both backends: every arithmetic
//! operation here is correctly rounded (round to nearest, ties to even, subnormals kept), which
//! is what the GPU's `.rn` instructions compute. Host code that uses the `half` crate converts
//! with `From`/`Into` (host only; the bits are the same).
//!
//! # What is native and what goes through `f32`
//! | operation | on the GPU | correctly rounded |
//! |---|---|---|
//! | `+ - *`, [`mul_add`](crate::half::f16::mul_add) | `add/sub/mul/fma.rn.f16`; `.bf16` on sm_90 (sm_80: `fma.rn.bf16`; older: software) | yes |
//! | `/`, [`sqrt`](crate::half::f16::sqrt) | `f32` (`div.rn.f32`, `sqrt.rn.f32`), then one `cvt.rn` | yes (see below) |
//! | `from_f32`, `from_f64` | `cvt.rn.f16.f32`, `cvt.rn.f16.f64`; `cvt.rn.bf16.f32` on sm_80 | yes |
//! | `to_f32`, `to_f64` | `cvt.f32.f16`; a shift for `bf16` | exact |
//! | `-x`, [`abs`](crate::half::f16::abs), [`copysign`](crate::half::f16::copysign) | the sign bit | exact |
//! | comparisons, [`min`](crate::half::f16::min), [`max`](crate::half::f16::max) | in `f32` (exact) | exact |
//! | [`exp`](crate::half::f16::exp), [`ln`](crate::half::f16::ln), [`sin`](crate::half::f16::sin), [`cos`](crate::half::f16::cos), [`tanh`](crate::half::f16::tanh) | the `f32` function ([`DeviceFloat`]), then `cvt.rn` | within 1 ulp |
//!
//! Division and square root in `f32` followed by one rounding are correctly rounded: rounding
//! twice, to `p'` then to `p` bits, is innocuous for `+ - * / sqrt` when `p' >= 2p + 2`
//! (Figueroa, 1995); `f32` has 24 bits, `f16` 11 and `bf16` 8. Both backends compute these two the
//! same way, so their bits agree in every case. The transcendental functions round the `f32`
//! result once more: within 1 ulp, and the two backends can differ by 1 ulp where the GPU's
//! `f32` function differs from the host's.
//!
//! NaN results are NaN on both backends, but their payload is not part of the promise: the
//! simulator returns `0x7fff` (the `NAN` constant), the GPU what its instruction returns.
//!
//! # Architectures
//! Every operation exists for every `FERROCUDA_ARCH` from sm_70 on: the GPU backend picks the
//! instruction by the `sm_80`/`sm_90` target features that `-Ctarget-cpu` sets, and where the
//! architecture lacks one (`bf16` arithmetic before sm_80, `add.rn.bf16` before sm_90) it
//! computes the same bits in software. So a kernel using these types needs no `cfg` of its own and
//! gives the same results whatever it is built for; it is only slower on older GPUs.

use crate::backend::half as imp;
use crate::math::DeviceFloat;
use core::cmp::Ordering as CmpOrdering;
use core::fmt;
use core::ops::{Add, Div, Mul, Neg, Sub};

pub use crate::half_pair::{bf16x2, f16x2};

/// `x op= y` as `x = x op y` for each listed operator: the compound assignments of the scalar
/// and pair half types, which round exactly as their binary operators do.
macro_rules! assign_from_binary {
    ($name:ident: $($trait:ident $method:ident $op:tt),* $(,)?) => {
        $(
            impl core::ops::$trait for $name {
                #[inline(always)]
                fn $method(&mut self, rhs: Self) {
                    *self = *self $op rhs;
                }
            }
        )*
    };
}
pub(crate) use assign_from_binary;

/// Generates a half-precision type: its struct, constants, conversions, arithmetic and traits.
macro_rules! half_type {
    (
        $(#[$doc:meta])*
        $name:ident, $imp:ident, $half:ident,
        bits { one: $one:literal, max: $max:literal, min_positive: $min_positive:literal,
               epsilon: $epsilon:literal },
    ) => {
        $(#[$doc])*
        #[expect(non_camel_case_types, reason = "named like `f32` and CUDA's `__half`, as the `half` crate does")]
        #[repr(transparent)]
        #[derive(Clone, Copy, Default)]
        pub struct $name(u16);

        // SAFETY: `#[repr(transparent)]` over `u16`: the same size, alignment and bits on the host
        // and on nvptx64, no pointers, and all-zero bits are +0.0.
        unsafe impl crate::abi::DeviceCopy for $name {}

        impl $name {
            /// +0.0.
            pub const ZERO: Self = Self(0);
            /// 1.0.
            pub const ONE: Self = Self($one);
            /// -1.0.
            pub const NEG_ONE: Self = Self($one | 0x8000);
            /// The largest finite value.
            pub const MAX: Self = Self($max);
            /// The smallest (most negative) finite value.
            pub const MIN: Self = Self($max | 0x8000);
            /// The smallest positive normal value.
            pub const MIN_POSITIVE: Self = Self($min_positive);
            /// The smallest positive value (a subnormal).
            pub const MIN_POSITIVE_SUBNORMAL: Self = Self(1);
            /// The difference between 1.0 and the next larger value.
            pub const EPSILON: Self = Self($epsilon);
            /// Positive infinity.
            pub const INFINITY: Self = Self(crate::half_rounding::$half.infinity());
            /// Negative infinity.
            pub const NEG_INFINITY: Self = Self(crate::half_rounding::$half.infinity() | 0x8000);
            /// A quiet NaN (`0x7fff`, the NaN the simulator's arithmetic returns).
            pub const NAN: Self = Self(crate::half_rounding::CANONICAL_NAN);

            /// The value with these bits.
            #[inline(always)]
            pub const fn from_bits(bits: u16) -> Self {
                Self(bits)
            }

            /// The bits of the value.
            #[inline(always)]
            pub const fn to_bits(self) -> u16 {
                self.0
            }

            #[doc = concat!("The nearest `", stringify!($name), "` to `x`, ties to even (`cvt.rn`): too large a value becomes an infinity, too small a subnormal or zero.")]
            #[inline(always)]
            pub fn from_f32(x: f32) -> Self {
                Self(imp::$imp::from_f32(x))
            }

            #[doc = concat!("The nearest `", stringify!($name), "` to `x`, ties to even, rounded once (not through `f32`).")]
            #[inline(always)]
            pub fn from_f64(x: f64) -> Self {
                Self(imp::$imp::from_f64(x))
            }

            /// The value as an `f32` (exact).
            #[inline(always)]
            pub fn to_f32(self) -> f32 {
                imp::$imp::to_f32(self.0)
            }

            /// The value as an `f64` (exact).
            #[inline(always)]
            pub fn to_f64(self) -> f64 {
                self.to_f32() as f64
            }

            /// Whether the value is a NaN.
            #[inline(always)]
            pub const fn is_nan(self) -> bool {
                crate::half_rounding::$half.is_nan(self.0)
            }

            /// Whether the value is positive or negative infinity.
            #[inline(always)]
            pub const fn is_infinite(self) -> bool {
                self.0 & 0x7fff == crate::half_rounding::$half.infinity()
            }

            /// Whether the value is neither infinite nor NaN.
            #[inline(always)]
            pub const fn is_finite(self) -> bool {
                self.0 & 0x7fff < crate::half_rounding::$half.infinity()
            }

            /// Whether the sign bit is set (true for -0.0 and negative NaNs).
            #[inline(always)]
            pub const fn is_sign_negative(self) -> bool {
                self.0 & 0x8000 != 0
            }

            /// The absolute value (clears the sign bit).
            #[inline(always)]
            pub const fn abs(self) -> Self {
                Self(self.0 & 0x7fff)
            }

            /// The magnitude of `self` with the sign of `sign`.
            #[inline(always)]
            pub const fn copysign(self, sign: Self) -> Self {
                Self((self.0 & 0x7fff) | (sign.0 & 0x8000))
            }

            /// `self * a + b` with one rounding (`fma.rn`).
            #[inline(always)]
            pub fn mul_add(self, a: Self, b: Self) -> Self {
                Self(imp::$imp::mul_add(self.0, a.0, b.0))
            }

            /// The square root, correctly rounded (`sqrt.rn.f32`, then `cvt.rn`); NaN for negative
            /// values, -0.0 for -0.0.
            #[inline(always)]
            pub fn sqrt(self) -> Self {
                Self::from_f32(DeviceFloat::sqrt(self.to_f32()))
            }

            /// The smaller of two values; a NaN operand is ignored (NaN only if both are NaN), and
            /// -0.0 is smaller than +0.0.
            #[inline(always)]
            pub fn min(self, other: Self) -> Self {
                let (a, b) = (self.to_f32(), other.to_f32());
                if b.is_nan() || a < b || (a == b && self.is_sign_negative()) { self } else { other }
            }

            /// The larger of two values; a NaN operand is ignored (NaN only if both are NaN), and
            /// +0.0 is larger than -0.0.
            #[inline(always)]
            pub fn max(self, other: Self) -> Self {
                let (a, b) = (self.to_f32(), other.to_f32());
                if b.is_nan() || a > b || (a == b && !self.is_sign_negative()) { self } else { other }
            }

            /// `e^self`, through `f32` (within 1 ulp).
            #[inline(always)]
            pub fn exp(self) -> Self {
                Self::from_f32(DeviceFloat::exp(self.to_f32()))
            }

            /// The natural logarithm, through `f32` (within 1 ulp).
            #[inline(always)]
            pub fn ln(self) -> Self {
                Self::from_f32(DeviceFloat::ln(self.to_f32()))
            }

            /// The sine, through `f32` (within 1 ulp).
            #[inline(always)]
            pub fn sin(self) -> Self {
                Self::from_f32(DeviceFloat::sin(self.to_f32()))
            }

            /// The cosine, through `f32` (within 1 ulp).
            #[inline(always)]
            pub fn cos(self) -> Self {
                Self::from_f32(DeviceFloat::cos(self.to_f32()))
            }

            /// The hyperbolic tangent, through `f32` (within 1 ulp).
            #[inline(always)]
            pub fn tanh(self) -> Self {
                Self::from_f32(DeviceFloat::tanh(self.to_f32()))
            }
        }

        impl Add for $name {
            type Output = Self;
            /// Correctly rounded (`add.rn`).
            #[inline(always)]
            fn add(self, rhs: Self) -> Self {
                Self(imp::$imp::add(self.0, rhs.0))
            }
        }

        impl Sub for $name {
            type Output = Self;
            /// Correctly rounded (`sub.rn`).
            #[inline(always)]
            fn sub(self, rhs: Self) -> Self {
                Self(imp::$imp::sub(self.0, rhs.0))
            }
        }

        impl Mul for $name {
            type Output = Self;
            /// Correctly rounded (`mul.rn`).
            #[inline(always)]
            fn mul(self, rhs: Self) -> Self {
                Self(imp::$imp::mul(self.0, rhs.0))
            }
        }

        impl Div for $name {
            type Output = Self;
            /// Correctly rounded (`div.rn.f32`, then `cvt.rn`).
            #[inline(always)]
            fn div(self, rhs: Self) -> Self {
                Self::from_f32(self.to_f32() / rhs.to_f32())
            }
        }

        impl Neg for $name {
            type Output = Self;
            /// Flips the sign bit.
            #[inline(always)]
            fn neg(self) -> Self {
                Self(self.0 ^ 0x8000)
            }
        }

        assign_from_binary!($name: AddAssign add_assign +, SubAssign sub_assign -, MulAssign mul_assign *, DivAssign div_assign /);

        /// IEEE equality: NaN equals nothing, -0.0 equals +0.0.
        impl PartialEq for $name {
            #[inline(always)]
            fn eq(&self, other: &Self) -> bool {
                self.to_f32() == other.to_f32()
            }
        }

        /// IEEE order: NaN is unordered.
        impl PartialOrd for $name {
            #[inline(always)]
            fn partial_cmp(&self, other: &Self) -> Option<CmpOrdering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }

        impl From<$name> for f32 {
            #[inline(always)]
            fn from(x: $name) -> f32 {
                x.to_f32()
            }
        }

        impl From<$name> for f64 {
            #[inline(always)]
            fn from(x: $name) -> f64 {
                x.to_f64()
            }
        }

        #[cfg(not(target_arch = "nvptx64"))]
        impl From<half::$name> for $name {
            /// The same bits.
            #[inline]
            fn from(x: half::$name) -> Self {
                Self(x.to_bits())
            }
        }

        #[cfg(not(target_arch = "nvptx64"))]
        impl From<$name> for half::$name {
            /// The same bits.
            #[inline]
            fn from(x: $name) -> Self {
                half::$name::from_bits(x.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }

        impl crate::warp::sealed::Sealed for $name {}

        /// A 16-bit value in a 32-bit `shfl.sync`.
        impl crate::warp::ShuffleValue for $name {
            #[inline(always)]
            #[track_caller]
            fn __shuffle(self, kind: crate::warp::Kind, mask: u32, lane: u32, width: u32) -> Self {
                Self(crate::backend::warp::shuffle_u32(kind, mask, self.0 as u32, lane, width) as u16)
            }
        }
    };
}

half_type! {
    /// IEEE 754 binary16 (CUDA's `__half`): 1 sign bit, 5 exponent bits, 10 mantissa bits;
    /// largest finite value 65504, smallest normal 2^-14, smallest subnormal 2^-24.
    ///
    /// Arithmetic is correctly rounded (`add.rn.f16`, `mul.rn.f16`, `fma.rn.f16`, ...); see the
    /// [module documentation](self) for what is native and what goes through `f32`.
    f16, f16, F16,
    bits { one: 0x3c00, max: 0x7bff, min_positive: 0x0400, epsilon: 0x1400 },
}

half_type! {
    /// bfloat16 (CUDA's `__nv_bfloat16`): the top 16 bits of an `f32`, with its exponent range
    /// (largest finite value about 3.39e38) and 8 bits of precision.
    ///
    /// Arithmetic is correctly rounded (`add.rn.bf16` on sm_90, `fma.rn.bf16` on sm_80, the same
    /// results in software before); see the [module documentation](self).
    bf16, bf16, BF16,
    bits { one: 0x3f80, max: 0x7f7f, min_positive: 0x0080, epsilon: 0x3c00 },
}
