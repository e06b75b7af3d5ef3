//! The GPU runs `libm`'s implementations: check each `libm` line of the math table against std
//! here, on the host, where both exist (`libm` is the same Rust code on both targets), and check
//! the trait's host implementation against std.

use super::{DeviceFloat, MATH_FUNCTIONS};
use std::vec::Vec;

/// Distance in units in the last place (0 when both are NaN or equal).
fn ulps_f32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 { i32::MIN as i64 - bits as i64 } else { bits as i64 }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Distance in units in the last place (0 when both are NaN or equal).
fn ulps_f64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() || a == b {
        return 0;
    }
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 { i64::MIN as i128 - bits as i128 } else { bits as i128 }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}

/// Deterministic inputs: uniform in +-1, +-10, +-100 and +-1000, log-uniform magnitudes from
/// 1e-30 to 1e30 of both signs, and special points.
fn samples(n: usize) -> Vec<f64> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut out = Vec::new();
    for scale in [1.0, 10.0, 100.0, 1000.0] {
        out.extend((0..n).map(|_| scale * (2.0 * next() - 1.0)));
    }
    for _ in 0..n {
        let magnitude = 10f64.powf(60.0 * next() - 30.0);
        out.push(if next() < 0.5 { -magnitude } else { magnitude });
    }
    out.extend([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 80.0, f64::INFINITY, f64::NAN]);
    out
}

/// An operand of a table line's test, from the input `x`.
macro_rules! operand {
    ($x:ident, x) => {
        $x
    };
    ($x:ident, ax) => {
        $x.abs()
    };
    ($x:ident, sx) => {
        $x / 16.0
    };
    ($x:ident, $literal:literal) => {
        $literal
    };
}

/// For every `libm` line: the `libm` function against std on the samples, in `f32` and `f64`.
macro_rules! libm_against_std {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt),*] $(, std[$($std:tt)*])?;
    )*) => {
        let mut checked = 0;
        $(libm_against_std!(@line checked $name [$($op),*] $($lower)*);)*
        checked
    };
    (@line $checked:ident $name:ident [$($op:tt),*] libm $f32:ident $f64:ident) => {
        for x in samples(5_000) {
            let x32 = x as f32;
            let (gpu, std) = (libm::$f32($(operand!(x32, $op)),*), f32::$name($(operand!(x32, $op)),*));
            assert!(ulps_f32(gpu, std) <= 2, "{}({x32:e}): libm {gpu:e} vs std {std:e}", stringify!($name));
            let (gpu, std) = (libm::$f64($(operand!(x, $op)),*), f64::$name($(operand!(x, $op)),*));
            assert!(ulps_f64(gpu, std) <= 2, "{}({x:e}): libm {gpu:e} vs std {std:e}", stringify!($name));
        }
        $checked += 1;
    };
    (@line $checked:ident $name:ident [$($op:tt),*] $($lower:tt)*) => {};
}

#[test]
fn libm_lowerings_within_2_ulp_of_std() {
    let checked = {
        crate::__math_functions!(libm_against_std, [])
    };
    assert_eq!(checked, 20, "every libm line of the table is checked");
}

#[test]
fn table_names_every_method_once() {
    assert_eq!(MATH_FUNCTIONS.len(), 33);
    for (i, name) in MATH_FUNCTIONS.iter().enumerate() {
        assert!(!MATH_FUNCTIONS[..i].contains(name), "{name} twice");
    }
}

#[test]
fn trait_methods_match_std_on_the_host() {
    for x in samples(500) {
        let xf = x as f32;
        assert_eq!(DeviceFloat::sqrt(xf.abs()), xf.abs().sqrt());
        assert_eq!(DeviceFloat::exp(xf).to_bits(), xf.exp().to_bits());
        assert_eq!(DeviceFloat::powi(xf, 3).to_bits(), xf.powi(3).to_bits());
        assert_eq!(DeviceFloat::round(x).to_bits(), x.round().to_bits());
        assert_eq!(DeviceFloat::mul_add(x, 2.0, 1.0).to_bits(), x.mul_add(2.0, 1.0).to_bits());
        let (s, c) = DeviceFloat::sin_cos(x);
        assert!(ulps_f64(s, x.sin()) == 0 && ulps_f64(c, x.cos()) == 0, "sin_cos({x})");
        assert!(ulps_f64(DeviceFloat::rsqrt(x.abs() + 1.0), 1.0 / (x.abs() + 1.0).sqrt()) <= 1);
    }
}
