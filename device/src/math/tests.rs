//! The GPU runs `libm`'s implementations: check each `libm` line of the math table against std
//! here, on the host, where both exist (`libm` is the same Rust code on both targets), and check
//! the trait's host implementation against std.

use super::{
    DeviceFloat, MATH_FUNCTIONS, ulp_distance_f32 as ulps_f32, ulp_distance_f64 as ulps_f64,
};
use std::vec::Vec;

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
    out.extend([
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.5,
        -2.5,
        80.0,
        f64::INFINITY,
        f64::NAN,
    ]);
    out
}

use crate::__math_operand as operand;

/// For every `libm` line: the `libm` function against std on the samples, in `f32` and `f64`.
macro_rules! libm_against_std {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt),*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {{
        let mut checked = 0;
        $(libm_against_std!(@line checked $name [$($op),*]
            [$($ulp,)? super::MATH_ULP_TOLERANCE] $($lower)*);)*
        checked
    }};
    (@line $checked:ident $name:ident [$($op:tt),*] [$tolerance:expr $(, $default:expr)?]
        libm $f32:ident $f64:ident) => {
        let tolerance: u64 = $tolerance;
        for x in samples(5_000) {
            let x32 = x as f32;
            let (gpu, std) = (libm::$f32($(operand!(x32, $op)),*), f32::$name($(operand!(x32, $op)),*));
            assert!(ulps_f32(gpu, std) <= tolerance, "{}({x32:e}): libm {gpu:e} vs std {std:e}", stringify!($name));
            let (gpu, std) = (libm::$f64($(operand!(x, $op)),*), f64::$name($(operand!(x, $op)),*));
            assert!(ulps_f64(gpu, std) <= tolerance, "{}({x:e}): libm {gpu:e} vs std {std:e}", stringify!($name));
        }
        $checked += 1;
    };
    (@line $checked:ident $name:ident [$($op:tt),*] [$($tolerance:tt)*] $($lower:tt)*) => {};
}

#[test]
fn libm_lowerings_within_2_ulp_of_std() {
    let checked = crate::__math_functions!(libm_against_std, []);
    assert_eq!(checked, 20, "every libm line of the table is checked");
}

#[test]
fn table_names_every_method_once() {
    assert_eq!(MATH_FUNCTIONS.len(), 33);
    for (i, name) in MATH_FUNCTIONS.iter().enumerate() {
        assert!(!MATH_FUNCTIONS[..i].contains(name), "{name} twice");
    }
}

/// Bit patterns of a method's result, so that NaNs compare equal.
trait Bits {
    fn bits(self) -> (u64, u64);
}
impl Bits for f32 {
    fn bits(self) -> (u64, u64) {
        (self.to_bits() as u64, 0)
    }
}
impl Bits for f64 {
    fn bits(self) -> (u64, u64) {
        (self.to_bits(), 0)
    }
}
impl<T: Bits> Bits for (T, T) {
    fn bits(self) -> (u64, u64) {
        (self.0.bits().0, self.1.bits().0)
    }
}

/// For every line, in `f32` and `f64`: the trait's host implementation against the reference
/// (std's method of the same name, or the line's `std[...]`), bit for bit.
macro_rules! host_against_std {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:ty,
        lower[$($lower:tt)*], test[$($op:tt),*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        for x in samples(200) {
            $(host_against_std!(@line f32, x as f32, $name [$($op),*] [$($($std)*)?]);)*
            $(host_against_std!(@line f64, x, $name [$($op),*] [$($($std)*)?]);)*
        }
    };
    (@line $t:ident, $x:expr, $name:ident [$first:tt $(, $op:tt)*] []) => {{
        let x: $t = $x;
        let got = DeviceFloat::$name(operand!(x, $first) $(, operand!(x, $op))*);
        let expected = $t::$name(operand!(x, $first) $(, operand!(x, $op))*);
        assert_eq!(got.bits(), expected.bits(), "{}({x:e}) in {}", stringify!($name), stringify!($t));
    }};
    (@line $t:ident, $x:expr, $name:ident [$first:tt $(, $op:tt)*] [$($std:tt)+]) => {{
        let x: $t = $x;
        let reference: fn($t) -> $t = $($std)+;
        let got = DeviceFloat::$name(operand!(x, $first) $(, operand!(x, $op))*);
        let expected = reference(operand!(x, $first));
        assert_eq!(got.bits(), expected.bits(), "{}({x:e}) in {}", stringify!($name), stringify!($t));
    }};
}

#[test]
fn host_implementation_is_std() {
    crate::__math_functions!(host_against_std, []);
}
