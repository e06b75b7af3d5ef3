//! Fast math: the same Horner polynomial in a kernel built without it (`horner_plain`, each
//! multiply and add rounded) and in one that opts in with `#[kernel(fast_math)]`
//! (`horner_fused`, multiply-adds contracted to `fma.rn`), and `f32` division and square root
//! made approximate by `fast_math(approx_div, approx_sqrt)` (`div_sqrt_approx`) beside the
//! explicit `fast_div`/`fast_sqrt` (`div_sqrt_explicit`) and the IEEE-rounded operations
//! (`div_sqrt_ieee`). `tests/tests/fast_math.rs` checks their PTX and results.

use ferrocuda::prelude::*;

/// `coefficients[0] + x * (coefficients[1] + x * (...))`, highest power first: one multiply
/// and one add per coefficient after the last. Inlined into both kernels, so the contraction
/// of the fast-math one must not leak into the other.
#[inline(always)]
fn horner(coefficients: &[f32], x: f32) -> f32 {
    let mut acc = 0.0f32;
    for &c in coefficients.iter().rev() {
        acc = acc * x + c;
    }
    acc
}

/// `out[i] = horner(coefficients, x[i])` with every operation rounded (the default).
#[kernel]
pub fn horner_plain(coefficients: &[f32], x: &[f32], out: &mut [f32]) {
    let i = grid!(1);
    if i < x.len() {
        out[i] = horner(coefficients, x[i]);
    }
}

/// `horner_plain` with multiply-add contraction allowed: on the GPU each step is one `fma.rn`.
#[kernel(fast_math)]
pub fn horner_fused(coefficients: &[f32], x: &[f32], out: &mut [f32]) {
    let i = grid!(1);
    if i < x.len() {
        out[i] = horner(coefficients, x[i]);
    }
}

/// `quotient[i] = a[i] / b[i]`, `root[i] = a[i].sqrt()`, IEEE-rounded (the default).
#[kernel]
pub fn div_sqrt_ieee(a: &[f32], b: &[f32], quotient: &mut [f32], root: &mut [f32]) {
    let i = grid!(1);
    if i < a.len() {
        quotient[i] = a[i] / b[i];
        root[i] = a[i].sqrt();
    }
}

/// `div_sqrt_ieee` with approximate division and square root allowed: `div.approx.f32` and
/// `sqrt.approx.f32` on the GPU.
#[kernel(fast_math(approx_div, approx_sqrt))]
pub fn div_sqrt_approx(a: &[f32], b: &[f32], quotient: &mut [f32], root: &mut [f32]) {
    let i = grid!(1);
    if i < a.len() {
        quotient[i] = a[i] / b[i];
        root[i] = a[i].sqrt();
    }
}

/// The approximations called by name in a kernel without fast math: `fast_div`, `fast_sqrt`.
#[kernel]
pub fn div_sqrt_explicit(a: &[f32], b: &[f32], quotient: &mut [f32], root: &mut [f32]) {
    let i = grid!(1);
    if i < a.len() {
        quotient[i] = fast_div(a[i], b[i]);
        root[i] = fast_sqrt(a[i]);
    }
}
