//! Floating-point math in kernels: `x.sqrt()`, `x.exp()`, `x.sin()`... on `f32` and `f64`
//! through [`DeviceFloat`], plus opt-in fast approximations (`fast_sin`, `fast_exp`, ...).
//!
//! On the GPU the methods of [`DeviceFloat`] are full precision, within 2 ulp of Rust's std
//! (measured by this module's tests): the operations that are one PTX instruction (`sqrt`,
//! `mul_add`, `floor`, `ceil`, `trunc`, `round`, `abs`, `copysign`, `min`, `max`) compile to it,
//! the transcendental ones run the `libm` crate's implementations (a few dozen instructions each;
//! `sin`/`cos`/`tan` keep about 560 bytes of per-thread stack for argument reduction and 3 KB of
//! tables). On the host the trait calls std, and method syntax on a float picks std's inherent
//! methods anyway: `x.sqrt()` reads the same in a kernel and in host code. To name this trait's
//! version explicitly, write `DeviceFloat::sqrt(x)`.
//!
//! The `fast_*` functions trade accuracy for speed with the GPU's approximate instructions
//! (`sin.approx.ftz.f32`, `ex2.approx.ftz.f32`, ...; subnormal inputs and results flush to zero).
//! Their errors are those of the PTX instructions, given with each function; on the simulator they
//! compute the full-precision value with std, so results differ slightly between the backends.

/// Floating-point operations available in kernels, for `f32` and `f64`.
///
/// In scope through `ferrocuda::prelude::*`, so that `x.sqrt()` compiles for the GPU (where
/// `core` has no `sqrt` method). Every method is within 2 ulp of the std method of the same name.
pub trait DeviceFloat: Copy {
    /// Square root (correctly rounded).
    fn sqrt(self) -> Self;
    /// Reciprocal square root, `1 / sqrt(x)`.
    fn rsqrt(self) -> Self;
    /// Cube root.
    fn cbrt(self) -> Self;
    /// `e^x`.
    fn exp(self) -> Self;
    /// `2^x`.
    fn exp2(self) -> Self;
    /// `e^x - 1`, accurate near zero.
    fn exp_m1(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// Base-2 logarithm.
    fn log2(self) -> Self;
    /// Base-10 logarithm.
    fn log10(self) -> Self;
    /// `ln(1 + x)`, accurate near zero.
    fn ln_1p(self) -> Self;
    /// Sine (radians).
    fn sin(self) -> Self;
    /// Cosine (radians).
    fn cos(self) -> Self;
    /// Sine and cosine together.
    fn sin_cos(self) -> (Self, Self);
    /// Tangent (radians).
    fn tan(self) -> Self;
    /// Arcsine, in radians.
    fn asin(self) -> Self;
    /// Arccosine, in radians.
    fn acos(self) -> Self;
    /// Arctangent, in radians.
    fn atan(self) -> Self;
    /// Four-quadrant arctangent of `self / other` (`self` is y), in radians.
    fn atan2(self, other: Self) -> Self;
    /// Hyperbolic sine.
    fn sinh(self) -> Self;
    /// Hyperbolic cosine.
    fn cosh(self) -> Self;
    /// Hyperbolic tangent.
    fn tanh(self) -> Self;
    /// `sqrt(self^2 + other^2)` without intermediate overflow.
    fn hypot(self, other: Self) -> Self;
    /// `self^n` for a float exponent.
    fn powf(self, n: Self) -> Self;
    /// `self^n` for an integer exponent (repeated multiplication, as std).
    fn powi(self, n: i32) -> Self;
    /// Largest integer less than or equal to `self`.
    fn floor(self) -> Self;
    /// Smallest integer greater than or equal to `self`.
    fn ceil(self) -> Self;
    /// Nearest integer, halfway cases away from zero.
    fn round(self) -> Self;
    /// Integer part (rounds toward zero).
    fn trunc(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// `self * a + b` with one rounding (fused multiply-add, `fma`).
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// The smaller of two values; a NaN operand is ignored.
    fn min(self, other: Self) -> Self;
    /// The larger of two values; a NaN operand is ignored.
    fn max(self, other: Self) -> Self;
    /// `self` with the sign of `sign`.
    fn copysign(self, sign: Self) -> Self;
}

/// Implements `DeviceFloat` for one type: each line names the GPU implementation (`core` or
/// `libm`), the host one is std's method of the same name.
macro_rules! device_float {
    (
        $t:ident, core = $core:ident,
        libm { $($method:ident => $libm:ident),* $(,)? }
        libm2 { $($method2:ident => $libm2:ident),* $(,)? }
    ) => {
        impl DeviceFloat for $t {
            #[inline(always)]
            fn sqrt(self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::sqrt(self);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::sqrt(self);
            }
            #[inline(always)]
            fn rsqrt(self) -> Self {
                1.0 / DeviceFloat::sqrt(self)
            }
            #[inline(always)]
            fn sin_cos(self) -> (Self, Self) {
                #[cfg(target_arch = "nvptx64")]
                return (DeviceFloat::sin(self), DeviceFloat::cos(self));
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::sin_cos(self);
            }
            #[inline(always)]
            fn powi(self, n: i32) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::powi(self, n);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::powi(self, n);
            }
            #[inline(always)]
            fn floor(self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::floor(self);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::floor(self);
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::ceil(self);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::ceil(self);
            }
            #[inline(always)]
            fn round(self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::round(self);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::round(self);
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::trunc(self);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::trunc(self);
            }
            #[inline(always)]
            fn mul_add(self, a: Self, b: Self) -> Self {
                #[cfg(target_arch = "nvptx64")]
                return core::$core::math::mul_add(self, a, b);
                #[cfg(not(target_arch = "nvptx64"))]
                return $t::mul_add(self, a, b);
            }
            // `abs`, `min`, `max` and `copysign` are inherent methods of `core`'s floats.
            #[inline(always)]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline(always)]
            fn min(self, other: Self) -> Self {
                $t::min(self, other)
            }
            #[inline(always)]
            fn max(self, other: Self) -> Self {
                $t::max(self, other)
            }
            #[inline(always)]
            fn copysign(self, sign: Self) -> Self {
                $t::copysign(self, sign)
            }
            $(
                #[inline(always)]
                fn $method(self) -> Self {
                    #[cfg(target_arch = "nvptx64")]
                    return libm::$libm(self);
                    #[cfg(not(target_arch = "nvptx64"))]
                    return $t::$method(self);
                }
            )*
            $(
                #[inline(always)]
                fn $method2(self, other: Self) -> Self {
                    #[cfg(target_arch = "nvptx64")]
                    return libm::$libm2(self, other);
                    #[cfg(not(target_arch = "nvptx64"))]
                    return $t::$method2(self, other);
                }
            )*
        }
    };
}

device_float! {
    f32, core = f32,
    libm {
        cbrt => cbrtf, exp => expf, exp2 => exp2f, exp_m1 => expm1f, ln => logf, log2 => log2f,
        log10 => log10f, ln_1p => log1pf, sin => sinf, cos => cosf, tan => tanf, asin => asinf,
        acos => acosf, atan => atanf, sinh => sinhf, cosh => coshf, tanh => tanhf,
    }
    libm2 { atan2 => atan2f, hypot => hypotf, powf => powf }
}

device_float! {
    f64, core = f64,
    libm {
        cbrt => cbrt, exp => exp, exp2 => exp2, exp_m1 => expm1, ln => log, log2 => log2,
        log10 => log10, ln_1p => log1p, sin => sin, cos => cos, tan => tan, asin => asin,
        acos => acos, atan => atan, sinh => sinh, cosh => cosh, tanh => tanh,
    }
    libm2 { atan2 => atan2, hypot => hypot, powf => pow }
}

/// Runs a one-operand approximate PTX instruction on an `f32`.
#[cfg(target_arch = "nvptx64")]
macro_rules! approx {
    ($instruction:literal, $x:expr) => {{
        let y: f32;
        // SAFETY: arithmetic only.
        unsafe {
            core::arch::asm!(
                concat!($instruction, " {y}, {x};"),
                y = out(reg32) y,
                x = in(reg32) $x,
                options(pure, nomem, nostack)
            );
        }
        y
    }};
}

/// Approximate sine (`sin.approx.ftz.f32`): absolute error at most 2^-20.9 for `x` in
/// [-pi, pi], growing with |x| outside it.
#[inline(always)]
pub fn fast_sin(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return approx!("sin.approx.ftz.f32", x);
    #[cfg(not(target_arch = "nvptx64"))]
    return x.sin();
}

/// Approximate cosine (`cos.approx.ftz.f32`): absolute error at most 2^-20.9 for `x` in
/// [-pi, pi], growing with |x| outside it.
#[inline(always)]
pub fn fast_cos(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return approx!("cos.approx.ftz.f32", x);
    #[cfg(not(target_arch = "nvptx64"))]
    return x.cos();
}

/// Approximate `2^x` (`ex2.approx.ftz.f32`): at most 2 ulp of relative error.
#[inline(always)]
pub fn fast_exp2(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return approx!("ex2.approx.ftz.f32", x);
    #[cfg(not(target_arch = "nvptx64"))]
    return x.exp2();
}

/// Approximate base-2 logarithm (`lg2.approx.ftz.f32`): absolute error at most 2^-22.6 for
/// `x` in [0.5, 2], relative error 2^-22 elsewhere.
#[inline(always)]
pub fn fast_log2(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return approx!("lg2.approx.ftz.f32", x);
    #[cfg(not(target_arch = "nvptx64"))]
    return x.log2();
}

/// Approximate `e^x`, as CUDA's `__expf`: `ex2.approx(x * log2(e))`. The rounding of the
/// product makes the relative error grow with |x| (about 2^-21 * |x|).
#[inline(always)]
pub fn fast_exp(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return fast_exp2(x * core::f32::consts::LOG2_E);
    #[cfg(not(target_arch = "nvptx64"))]
    return x.exp();
}

/// Approximate hyperbolic tangent: `tanh.approx.f32` when compiled for sm_75 or newer (maximum
/// relative error 2^-10.987); on older targets `1 - 2 / (e^(2|x|) + 1)` with the sign of `x`,
/// through `ex2.approx` and `rcp.approx` (absolute error about 2^-21).
#[inline(always)]
pub fn fast_tanh(x: f32) -> f32 {
    #[cfg(all(target_arch = "nvptx64", target_feature = "sm_75"))]
    return approx!("tanh.approx.f32", x);
    #[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_75")))]
    {
        let e = fast_exp2(2.0 * core::f32::consts::LOG2_E * x.abs());
        let r: f32 = approx!("rcp.approx.ftz.f32", e + 1.0);
        return (1.0 - 2.0 * r).copysign(x);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    return x.tanh();
}

/// Approximate `1 / sqrt(x)` (`rsqrt.approx.ftz.f32`): maximum relative error 2^-22.9.
#[inline(always)]
pub fn fast_rsqrt(x: f32) -> f32 {
    #[cfg(target_arch = "nvptx64")]
    return approx!("rsqrt.approx.ftz.f32", x);
    #[cfg(not(target_arch = "nvptx64"))]
    return 1.0 / x.sqrt();
}

#[cfg(test)]
mod tests {
    //! The GPU runs `libm`'s implementations: check them against std here, on the host, where
    //! both exist. `libm` is the same Rust code on both targets.
    use super::DeviceFloat;
    use std::vec::Vec;

    /// Distance in units in the last place between two floats of the same sign (0 when both
    /// are NaN or equal).
    fn ulps_f32(a: f32, b: f32) -> u64 {
        if a.is_nan() && b.is_nan() || a == b {
            return 0;
        }
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

    fn ulps_f64(a: f64, b: f64) -> u64 {
        if a.is_nan() && b.is_nan() || a == b {
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

    /// Deterministic pseudo-random values in `[lo, hi]`, plus some special points.
    fn samples(lo: f64, hi: f64, n: usize) -> Vec<f64> {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut out: Vec<f64> = (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                lo + (hi - lo) * ((state >> 11) as f64 / (1u64 << 53) as f64)
            })
            .collect();
        out.extend([0.0, -0.0, 1.0, -1.0, 0.5, lo, hi]);
        out
    }

    type Case32 = (&'static str, fn(f32) -> f32, fn(f32) -> f32, f64, f64);
    type Case64 = (&'static str, fn(f64) -> f64, fn(f64) -> f64, f64, f64);

    #[test]
    fn libm_f32_within_2_ulp_of_std() {
        let cases: &[Case32] = &[
            ("cbrt", libm::cbrtf, f32::cbrt, -1e6, 1e6),
            ("exp", libm::expf, f32::exp, -87.0, 88.0),
            ("exp2", libm::exp2f, f32::exp2, -126.0, 127.0),
            ("exp_m1", libm::expm1f, f32::exp_m1, -10.0, 10.0),
            ("ln", libm::logf, f32::ln, 1e-30, 1e30),
            ("log2", libm::log2f, f32::log2, 1e-30, 1e30),
            ("log10", libm::log10f, f32::log10, 1e-30, 1e30),
            ("ln_1p", libm::log1pf, f32::ln_1p, -0.9, 10.0),
            ("sin", libm::sinf, f32::sin, -100.0, 100.0),
            ("cos", libm::cosf, f32::cos, -100.0, 100.0),
            ("tan", libm::tanf, f32::tan, -10.0, 10.0),
            ("asin", libm::asinf, f32::asin, -1.0, 1.0),
            ("acos", libm::acosf, f32::acos, -1.0, 1.0),
            ("atan", libm::atanf, f32::atan, -100.0, 100.0),
            ("sinh", libm::sinhf, f32::sinh, -20.0, 20.0),
            ("cosh", libm::coshf, f32::cosh, -20.0, 20.0),
            ("tanh", libm::tanhf, f32::tanh, -10.0, 10.0),
        ];
        for &(name, gpu, std_fn, lo, hi) in cases {
            for x in samples(lo, hi, 20_000) {
                let x = x as f32;
                let (a, b) = (gpu(x), std_fn(x));
                assert!(
                    ulps_f32(a, b) <= 2,
                    "{name}({x:e}): libm {a:e} vs std {b:e}"
                );
            }
        }
        for x in samples(-50.0, 50.0, 20_000) {
            let (x, y) = (x as f32, (x * 0.37 + 1.5) as f32);
            assert!(
                ulps_f32(libm::atan2f(x, y), x.atan2(y)) <= 2,
                "atan2({x}, {y})"
            );
            assert!(
                ulps_f32(libm::hypotf(x, y), x.hypot(y)) <= 2,
                "hypot({x}, {y})"
            );
            let base = x.abs() * 0.1 + 0.01;
            let power = y * 0.2;
            assert!(
                ulps_f32(libm::powf(base, power), base.powf(power)) <= 2,
                "powf({base}, {power})"
            );
        }
    }

    #[test]
    fn libm_f64_within_2_ulp_of_std() {
        let cases: &[Case64] = &[
            ("cbrt", libm::cbrt, f64::cbrt, -1e6, 1e6),
            ("exp", libm::exp, f64::exp, -700.0, 700.0),
            ("exp2", libm::exp2, f64::exp2, -1000.0, 1000.0),
            ("exp_m1", libm::expm1, f64::exp_m1, -10.0, 10.0),
            ("ln", libm::log, f64::ln, 1e-300, 1e300),
            ("log2", libm::log2, f64::log2, 1e-300, 1e300),
            ("log10", libm::log10, f64::log10, 1e-300, 1e300),
            ("ln_1p", libm::log1p, f64::ln_1p, -0.9, 10.0),
            ("sin", libm::sin, f64::sin, -1000.0, 1000.0),
            ("cos", libm::cos, f64::cos, -1000.0, 1000.0),
            ("tan", libm::tan, f64::tan, -10.0, 10.0),
            ("asin", libm::asin, f64::asin, -1.0, 1.0),
            ("acos", libm::acos, f64::acos, -1.0, 1.0),
            ("atan", libm::atan, f64::atan, -100.0, 100.0),
            ("sinh", libm::sinh, f64::sinh, -20.0, 20.0),
            ("cosh", libm::cosh, f64::cosh, -20.0, 20.0),
            ("tanh", libm::tanh, f64::tanh, -10.0, 10.0),
        ];
        for &(name, gpu, std_fn, lo, hi) in cases {
            for x in samples(lo, hi, 20_000) {
                let (a, b) = (gpu(x), std_fn(x));
                assert!(
                    ulps_f64(a, b) <= 2,
                    "{name}({x:e}): libm {a:e} vs std {b:e}"
                );
            }
        }
        for x in samples(-50.0, 50.0, 20_000) {
            let y = x * 0.37 + 1.5;
            assert!(
                ulps_f64(libm::atan2(x, y), x.atan2(y)) <= 2,
                "atan2({x}, {y})"
            );
            assert!(
                ulps_f64(libm::hypot(x, y), x.hypot(y)) <= 2,
                "hypot({x}, {y})"
            );
            let base = x.abs() * 0.1 + 0.01;
            let power = y * 0.2;
            assert!(
                ulps_f64(libm::pow(base, power), base.powf(power)) <= 2,
                "pow({base}, {power})"
            );
        }
    }

    #[test]
    fn trait_methods_match_std_on_the_host() {
        for x in samples(-30.0, 30.0, 2_000) {
            let xf = x as f32;
            assert_eq!(DeviceFloat::sqrt(xf.abs()), xf.abs().sqrt());
            assert_eq!(DeviceFloat::exp(xf), xf.exp());
            assert_eq!(DeviceFloat::powi(xf, 3), xf.powi(3));
            assert_eq!(DeviceFloat::round(x), x.round());
            assert_eq!(DeviceFloat::mul_add(x, 2.0, 1.0), x.mul_add(2.0, 1.0));
            assert_eq!(DeviceFloat::sin_cos(x), x.sin_cos());
            assert!(
                ulps_f64(
                    DeviceFloat::rsqrt(x.abs() + 1.0),
                    1.0 / (x.abs() + 1.0).sqrt()
                ) <= 1
            );
        }
    }
}
