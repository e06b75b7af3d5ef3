//! Floating-point math in kernels: `x.sqrt()`, `x.exp()`, `x.sin()`... on `f32` and `f64`
//! through [`DeviceFloat`], plus opt-in fast approximations (`fast_sin`, `fast_exp`, ...).
//!
//! On the GPU the methods of [`DeviceFloat`] are full precision, within
//! [`MATH_ULP_TOLERANCE`] (2) ulp of Rust's std, `tanh` within 3, `rsqrt` equal to
//! `1.0 / x.sqrt()` (measured by the tests): the operations that are one PTX instruction
//! (`sqrt`, `mul_add`, `floor`, `ceil`, `trunc`, `round`, `abs`, `copysign`, `min`, `max`)
//! compile to it, the transcendental ones run the `libm` crate's implementations (a few dozen
//! instructions each; `sin`/`cos`/`tan` keep about 560 bytes of per-thread stack for argument
//! reduction and 3 KB of tables). On the host the trait calls std, and method syntax on a float
//! picks std's inherent methods anyway: `x.sqrt()` reads the same in a kernel and in host code.
//! To name this trait's version explicitly, write `DeviceFloat::sqrt(x)`.
//!
//! The `fast_*` functions trade accuracy for speed with the GPU's approximate instructions
//! (`sin.approx.ftz.f32`, `ex2.approx.ftz.f32`, ...; subnormal inputs and results flush to zero).
//! Their errors are those of the PTX instructions, given with each function; on the simulator they
//! compute the full-precision value with std, so results differ slightly between the backends.
//!
//! # Coming from CUDA
//! The names follow Rust's std, and every method of [`DeviceFloat`] is full precision; CUDA's
//! approximate intrinsics are the `fast_*` functions. In particular **CUDA's `rsqrtf` is
//! [`fast_rsqrt`]** (`rsqrt.approx`, one hardware instruction), while `x.rsqrt()` is the
//! IEEE-rounded `1 / sqrt(x)`: `sqrt.rn` then `rcp.rn`, two correctly rounded operations that
//! ptxas expands into much longer sequences (bit for bit `1.0 / x.sqrt()` on the host). Use
//! `fast_rsqrt` where a kernel's time goes into reciprocal square roots (n-body forces,
//! normalisation) and its 2^-22.9 relative error is acceptable. Likewise `__sinf`, `__cosf`,
//! `__expf` and `__log2f` are [`fast_sin`], [`fast_cos`], [`fast_exp`] and [`fast_log2`];
//! `sinf`, `expf`, `sqrtf`, `fmaf`... are the methods of the same std name (`x.sin()`, `x.exp()`,
//! `x.sqrt()`, `x.mul_add(a, b)`). `__fdividef` is [`fast_div`]; [`fast_sqrt`] is the
//! `sqrt.approx.f32` that nvcc's `--prec-sqrt=false` makes of `sqrtf`.
//!
//! # Fast math for a whole kernel
//! The `fast_*` functions change one call. `#[kernel(fast_math)]` (or, for a whole kernel
//! crate, `nvptx_builder::Builder::fast_math` / `FERROCUDA_FAST_MATH=contract`) lets the
//! compiler fuse every multiply and dependent add of the kernel into `fma.rn`, as nvcc does by
//! default; `fast_math(approx_div, approx_sqrt)` makes every `f32` `/` and `sqrt` the
//! approximate instruction of [`fast_div`] and [`fast_sqrt`]. The simulator computes the
//! IEEE-rounded operations in both cases, so results may differ between the backends: one
//! contraction `a * b + c` differs from the two rounded operations by less than one ulp of the
//! product `a * b` plus one ulp of the result (the README's builder section derives the bound
//! for a chain).
//!
//! # One table
//! The list of functions exists once, in [`__math_functions!`](crate::__math_functions): each line
//! gives a method's signature and documentation, its GPU lowering (`core`: the `core::fN::math`
//! function, one PTX instruction; `libm`: the `libm` crate's function for `f32` and for `f64`;
//! `inherent`: `core`'s own float method; `derived`: an expression over the other methods) and
//! the operands its tests call it with. From it come the trait, both backends (the simulator
//! calls std's method of the same name), [`MATH_FUNCTIONS`], the unit tests of the `libm`
//! lowerings, the device-API test kernel `api_math` and its CPU expectations, and the check that
//! the README's math row lists exactly these functions.

use crate::backend::math as imp;

/// The table of [`DeviceFloat`]'s methods (see the [module documentation](crate::math)), handed
/// to a callback macro: `__math_functions!(callback, [extra tokens])` expands to
/// `callback! { [extra tokens] entries }` where each entry is
///
/// ```text
/// #[doc = "..."] name(params) -> Return, lower[...], test[operands] (, std[|x| reference])? ;
/// ```
///
/// `params` are the parameters after `self`. Test operands are `x` (the test input), `ax` (its
/// absolute value), `sx` (`x / 16`, inside the domain of `asin`/`acos` for the tests' inputs) or
/// literals; `self` is the first operand. `std[...]` gives the CPU reference of a function std
/// lacks; otherwise the reference is std's method of the same name. `ulp[n]` is the tolerance of
/// the tests against that reference when it is not [`MATH_ULP_TOLERANCE`].
#[doc(hidden)]
#[macro_export]
macro_rules! __math_functions {
    ($callback:ident, $extra:tt) => {
        $callback! {
            $extra
            /// Square root (correctly rounded).
            sqrt() -> Self, lower[core], test[ax];
            /// Reciprocal square root, IEEE-rounded: `1 / sqrt(x)` as two correctly rounded
            /// operations (`sqrt.rn` then `rcp.rn`), bit for bit `1.0 / x.sqrt()` on the host.
            ///
            /// This is not CUDA's `rsqrtf`: CUDA's `rsqrtf` is
            /// [`fast_rsqrt`](crate::math::fast_rsqrt), one `rsqrt.approx` instruction, much
            /// faster where reciprocal square roots dominate a kernel (2^-22.9 relative error).
            rsqrt() -> Self, lower[derived |x| 1.0 / DeviceFloat::sqrt(x)], test[ax],
                std[|x| 1.0 / x.sqrt()], ulp[0];
            /// Cube root.
            cbrt() -> Self, lower[libm cbrtf cbrt], test[x];
            /// `e^x`.
            exp() -> Self, lower[libm expf exp], test[x];
            /// `2^x`.
            exp2() -> Self, lower[libm exp2f exp2], test[x];
            /// `e^x - 1`, accurate near zero.
            exp_m1() -> Self, lower[libm expm1f expm1], test[x];
            /// Natural logarithm.
            ln() -> Self, lower[libm logf log], test[ax];
            /// Base-2 logarithm.
            log2() -> Self, lower[libm log2f log2], test[ax];
            /// Base-10 logarithm.
            log10() -> Self, lower[libm log10f log10], test[ax];
            /// `ln(1 + x)`, accurate near zero.
            ln_1p() -> Self, lower[libm log1pf log1p], test[ax];
            /// Sine (radians).
            sin() -> Self, lower[libm sinf sin], test[x];
            /// Cosine (radians).
            cos() -> Self, lower[libm cosf cos], test[x];
            /// Sine and cosine together.
            sin_cos() -> (Self, Self),
                lower[derived |x| (DeviceFloat::sin(x), DeviceFloat::cos(x))], test[x];
            /// Tangent (radians).
            tan() -> Self, lower[libm tanf tan], test[x];
            /// Arcsine, in radians.
            asin() -> Self, lower[libm asinf asin], test[sx];
            /// Arccosine, in radians.
            acos() -> Self, lower[libm acosf acos], test[sx];
            /// Arctangent, in radians.
            atan() -> Self, lower[libm atanf atan], test[x];
            /// Four-quadrant arctangent of `self / other` (`self` is y), in radians.
            atan2(other: Self) -> Self, lower[libm atan2f atan2], test[x, 2.0];
            /// Hyperbolic sine.
            sinh() -> Self, lower[libm sinhf sinh], test[x];
            /// Hyperbolic cosine.
            cosh() -> Self, lower[libm coshf cosh], test[x];
            /// Hyperbolic tangent (within 3 ulp of std: `libm`'s `tanh` and `tanhf` are 3 ulp
            /// away on rare inputs, such as 0.5283652470236408).
            tanh() -> Self, lower[libm tanhf tanh], test[x], ulp[3];
            /// `sqrt(self^2 + other^2)` without intermediate overflow.
            hypot(other: Self) -> Self, lower[libm hypotf hypot], test[x, 2.0];
            /// `self^n` for a float exponent.
            powf(n: Self) -> Self, lower[libm powf pow], test[ax, 1.5];
            /// `self^n` for an integer exponent (repeated multiplication, as std).
            powi(n: i32) -> Self, lower[core], test[x, 3];
            /// Largest integer less than or equal to `self`.
            floor() -> Self, lower[core], test[x];
            /// Smallest integer greater than or equal to `self`.
            ceil() -> Self, lower[core], test[x];
            /// Nearest integer, halfway cases away from zero.
            round() -> Self, lower[core], test[x];
            /// Integer part (rounds toward zero).
            trunc() -> Self, lower[core], test[x];
            /// Absolute value.
            abs() -> Self, lower[inherent], test[x];
            /// `self * a + b` with one rounding (fused multiply-add, `fma`).
            mul_add(a: Self, b: Self) -> Self, lower[core], test[x, 2.0, 1.0];
            /// The smaller of two values; a NaN operand is ignored.
            min(other: Self) -> Self, lower[inherent], test[x, 0.5];
            /// The larger of two values; a NaN operand is ignored.
            max(other: Self) -> Self, lower[inherent], test[x, 0.5];
            /// `self` with the sign of `sign`.
            copysign(sign: Self) -> Self, lower[inherent], test[1.0, x];
        }
    };
}

/// The documented accuracy of [`DeviceFloat`]'s methods on the GPU: the largest distance, in
/// units in the last place, from std's method of the same name, for every line of the table that
/// gives no `ulp[n]` of its own.
pub const MATH_ULP_TOLERANCE: u64 = 2;

/// Distance in units in the last place between two `f32` values (0 when they are equal or both
/// NaN): the measure of [`MATH_ULP_TOLERANCE`], for tests that compare a kernel's results with a
/// CPU reference.
pub fn ulp_distance_f32(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    // Map the bits onto a line where adjacent floats are adjacent integers (negative floats
    // count down from zero).
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 {
            i32::MIN as i64 - bits as i64
        } else {
            bits as i64
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Distance in units in the last place between two `f64` values (0 when they are equal or both
/// NaN); see [`ulp_distance_f32`].
pub fn ulp_distance_f64(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            i64::MIN as i128 - bits as i128
        } else {
            bits as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

/// Declares [`DeviceFloat`] and implements it for `f32` and `f64` from the table.
macro_rules! device_float {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        /// Floating-point operations available in kernels, for `f32` and `f64`.
        ///
        /// In scope through `ferrocuda::prelude::*`, so that `x.sqrt()` compiles for the GPU
        /// (where `core` has no `sqrt` method). Every method is within [`MATH_ULP_TOLERANCE`]
        /// ulp of the std method of the same name (`tanh`: 3; `rsqrt`: equal to
        /// `1.0 / x.sqrt()`, and not CUDA's `rsqrtf`, which is [`fast_rsqrt`]).
        pub trait DeviceFloat: Copy {
            $(
                $(#[$doc])*
                fn $name(self, $($param: $pty),*) -> $ret;
            )*
        }

        device_float!(@impl f32 $($name($($param: $pty),*) -> $ret, lower[$($lower)*];)*);
        device_float!(@impl f64 $($name($($param: $pty),*) -> $ret, lower[$($lower)*];)*);

        /// The names of [`DeviceFloat`]'s methods, in the order of the table.
        pub const MATH_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];
    };
    (@impl $t:ident $($name:ident($($param:ident: $pty:ty),*) -> $ret:ty, lower[$($lower:tt)*];)*) => {
        impl DeviceFloat for $t {
            $(
                #[inline(always)]
                fn $name(self, $($param: $pty),*) -> $ret {
                    device_float!(@body $t $name(self $(, $param)*) $($lower)*)
                }
            )*
        }
    };
    (@body $t:ident $name:ident($receiver:ident $(, $arg:ident)*) derived $($body:tt)*) => {{
        let derived: fn($t) -> _ = $($body)*;
        derived($receiver)
    }};
    (@body $t:ident $name:ident($receiver:ident $(, $arg:ident)*) $($lower:tt)*) => {
        <$t as imp::Lower>::$name($receiver $(, $arg)*)
    };
}

__math_functions!(device_float, []);

/// What the code generated from the math table for tests needs: literal operands of the
/// parameter's type (`T`, or the `i32` of `powi`).
#[doc(hidden)]
pub mod __table_support {
    /// A number written in the table, converted to a parameter's type.
    pub trait Literal {
        /// `value` as `Self` (exact for the table's literals).
        fn from_literal(value: f64) -> Self;
    }

    impl Literal for f32 {
        fn from_literal(value: f64) -> Self {
            value as f32
        }
    }

    impl Literal for f64 {
        fn from_literal(value: f64) -> Self {
            value
        }
    }

    impl Literal for i32 {
        fn from_literal(value: f64) -> Self {
            value as i32
        }
    }

    /// `value` in the type of `_like`.
    pub fn like<T: Literal>(_like: T, value: f64) -> T {
        T::from_literal(value)
    }
}

/// A test operand of the math table (`x`, `ax`, `sx` or a literal) for the input `$x`; see
/// [`__math_functions!`](crate::__math_functions). Method syntax, so that it means std's `abs`
/// on a concrete float and [`DeviceFloat::abs`] on a generic one.
#[doc(hidden)]
#[macro_export]
macro_rules! __math_operand {
    ($x:ident, x) => {
        $x
    };
    ($x:ident, ax) => {
        $x.abs()
    };
    ($x:ident, sx) => {
        $x / $crate::math::__table_support::like($x, 16.0)
    };
    ($x:ident, $literal:literal) => {
        $crate::math::__table_support::Literal::from_literal($literal as f64)
    };
}

/// Declares the `fast_*` approximations, each one call into the backend, and their list.
macro_rules! fast_functions {
    ($($(#[$doc:meta])* $name:ident $(($($arg:ident),*))?;)*) => {
        $(fast_functions!(@one $(#[$doc])* $name $(($($arg),*))?);)*

        /// The names of the `fast_*` approximations of this module.
        pub const FAST_MATH_FUNCTIONS: &[&str] = &[$(stringify!($name)),*];
    };
    (@one $(#[$doc:meta])* $name:ident) => {
        fast_functions!(@one $(#[$doc])* $name(x));
    };
    (@one $(#[$doc:meta])* $name:ident($($arg:ident),*)) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name($($arg: f32),*) -> f32 {
            imp::$name($($arg),*)
        }
    };
}

fast_functions! {
    /// Approximate sine (`sin.approx.ftz.f32`): absolute error at most 2^-20.9 for `x` in
    /// [-pi, pi], growing with |x| outside it.
    fast_sin;
    /// Approximate cosine (`cos.approx.ftz.f32`): absolute error at most 2^-20.9 for `x` in
    /// [-pi, pi], growing with |x| outside it.
    fast_cos;
    /// Approximate `2^x` (`ex2.approx.ftz.f32`): at most 2 ulp of relative error.
    fast_exp2;
    /// Approximate base-2 logarithm (`lg2.approx.ftz.f32`): absolute error at most 2^-22.6 for
    /// `x` in [0.5, 2], relative error 2^-22 elsewhere.
    fast_log2;
    /// Approximate `e^x`, as CUDA's `__expf`: `ex2.approx(x * log2(e))`. The rounding of the
    /// product makes the relative error grow with |x| (about 2^-21 * |x|).
    fast_exp;
    /// Approximate hyperbolic tangent: `tanh.approx.f32` when compiled for sm_75 or newer (maximum
    /// relative error 2^-10.987); on older targets `1 - 2 / (e^(2|x|) + 1)` with the sign of `x`,
    /// through `ex2.approx` and `rcp.approx` (absolute error about 2^-21).
    fast_tanh;
    /// Approximate `1 / sqrt(x)` (`rsqrt.approx.ftz.f32`), CUDA's `rsqrtf`: one hardware
    /// instruction, maximum relative error 2^-22.9 (subnormal inputs flush to zero, giving
    /// infinity). [`DeviceFloat::rsqrt`] is the IEEE-rounded `1 / sqrt(x)`, two correctly rounded
    /// operations.
    fast_rsqrt;
    /// Approximate square root (`sqrt.approx.f32`, what nvcc's `--prec-sqrt=false` makes of
    /// `sqrtf`) instead of the correctly rounded `sqrt.rn.f32` of `x.sqrt()`; the tests accept a
    /// relative error of 2^-22 (2 ulp) on the GPU. On the simulator, `x.sqrt()`.
    fast_sqrt;
    /// Approximate division `x / y` (`div.approx.f32`), CUDA's `__fdividef`: at most 2 ulp of
    /// error for `|y|` in [2^-126, 2^126]; for `|y|` in (2^126, 2^128) the quotient is 0 (NaN when
    /// `x` is infinite). The IEEE-rounded `x / y` is `div.rn.f32`, a longer sequence. On the
    /// simulator, `x / y`.
    fast_div(x, y);
}

#[cfg(test)]
mod tests;
