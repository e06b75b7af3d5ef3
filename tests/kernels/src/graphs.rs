//! Kernels for the CUDA graph tests (`tests/tests/graphs.rs`): small element-wise steps whose
//! composition, captured once and replayed, is checked against the same steps on the CPU.

use ferrocuda::prelude::*;

/// `x[i] = a * x[i] + b`, in place.
#[kernel]
pub fn affine(x: &mut [f32], a: f32, b: f32) {
    let i = grid!(1);
    if i < x.len() {
        x[i] = a * x[i] + b;
    }
}

/// `dst[i] += scale * src[i]`.
#[kernel]
pub fn accumulate(src: &[f32], dst: &mut [f32], scale: f32) {
    let i = grid!(1);
    if i < dst.len() {
        dst[i] += scale * src[i];
    }
}

/// `counts[i] += 1` for every `i`; the thread `culprit` first adds `data[culprit]`, and so
/// panics with an out-of-bounds index (before counting) when `data` is shorter than
/// `culprit + 1`.
#[kernel]
pub fn count_or_panic(counts: &mut [u32], data: &[u32], culprit: u32) {
    let i = grid!(1);
    if i < counts.len() {
        if i == culprit as usize {
            counts[i] += data[i];
        }
        counts[i] += 1;
    }
}
