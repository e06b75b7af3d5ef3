//! Kernels calling crates from crates.io directly: `libm` for special functions the device API
//! does not wrap, and `num-traits` for a kernel generic over its `Float` trait. Both are
//! `no_std` crates, so they compile for nvptx64 in the PTX build like any other code.

use ferrocuda::prelude::*;
use num_traits::Float;

/// Number of results per element of [`libm_special`].
pub const LIBM_RESULTS: usize = 4;

/// For each `x = input[i]`: `out[4i..4i+4] = [erf(x), erfc(x), exp(x) - 1, ln(1 + |x|)]`,
/// through `libm`'s `erff`, `erfcf`, `expm1f` and `log1pf`.
#[kernel]
pub fn libm_special(input: &[f32], out: &mut [f32]) {
    let i = grid!(1);
    if i < input.len() {
        let x = input[i];
        let results = [
            libm::erff(x),
            libm::erfcf(x),
            libm::expm1f(x),
            libm::log1pf(x.abs()),
        ];
        out[LIBM_RESULTS * i..LIBM_RESULTS * (i + 1)].copy_from_slice(&results);
    }
}

/// `out[i] = softplus(input[i]) = ln(1 + e^x)`, computed without overflow as
/// `max(x, 0) + ln(1 + e^-|x|)` through `num_traits::Float` (backed by `libm`).
#[kernel(instances(f32, f64))]
pub fn softplus<T: Float>(input: &[T], out: &mut [T]) {
    let i = grid!(1);
    if i < input.len() {
        let x = input[i];
        out[i] = x.max(T::zero()) + (-x.abs()).exp().ln_1p();
    }
}
