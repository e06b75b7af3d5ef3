//! Half-precision elementwise work: SAXPY in `f16` (one `fma.rn.f16` per element) and a
//! `bf16 -> f32` widening that reads two values at a time as a `bf16x2`.

use ferrocuda::prelude::*;

/// `y[i] = a * x[i] + y[i]` in `f16`, rounded once (`fma.rn.f16`).
#[kernel]
pub fn saxpy_f16(a: f16, x: &[f16], y: &mut [f16]) {
    let i = grid!(1);
    if i < y.len() {
        y[i] = a.mul_add(x[i], y[i]);
    }
}

/// `out[2i] = pairs[i].low()` and `out[2i + 1] = pairs[i].high()` as `f32` (exact): one 32-bit
/// load per two `bf16` values.
#[kernel]
pub fn bf16x2_to_f32(pairs: &[bf16x2], out: &mut [f32]) {
    let i = grid!(1);
    if i < pairs.len() {
        let (low, high) = pairs[i].to_f32s();
        out[2 * i] = low;
        out[2 * i + 1] = high;
    }
}
