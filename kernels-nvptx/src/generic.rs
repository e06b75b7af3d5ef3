//! Generic kernels: one Rust function, one PTX entry per listed instance
//! (`#[kernel(instances(...))]`). The host launches an instance by its types:
//! `launch!(scale::<f32>[grid, block](2.0f32, &mut data))`, or
//! `scale::<f64>::grid(grid).block(block).launch(2.0f64, &mut data)`. The entries are named
//! `scale__f32`, `scale__f64`, `widen__u8_f32`...

use core::ops::{Add, Mul};
use ferrocuda::prelude::*;

/// `data[i] = factor * data[i]`, for `f32` and `f64`.
#[kernel(instances(f32, f64))]
pub fn scale<T: Copy + Mul<Output = T>>(factor: T, data: &mut [T]) {
    let i = grid!(1);
    if i < data.len() {
        data[i] = factor * data[i];
    }
}

/// `out[i] = max(input[2i], input[2i + 1])` (just `input[2i]` for a last, unpaired element):
/// pairwise max pooling over integers of several widths and signs.
#[kernel(instances(u8, i32, u64))]
pub fn max_pool2<T: Copy + Ord>(input: &[T], out: &mut [T]) {
    let i = grid!(1);
    if i < out.len() {
        let left = input[2 * i];
        out[i] = match input.get(2 * i + 1) {
            Some(&right) => left.max(right),
            None => left,
        };
    }
}

/// `out[i] = D::from(input[i]) * factor + offset`: widens a narrow source type into a wider
/// destination type, with two type parameters per instance.
#[kernel(instances((u8, f32), (i32, f64), (u16, u64)))]
pub fn widen<S, D>(input: &[S], out: &mut [D], factor: D, offset: D)
where
    S: Copy,
    D: Copy + From<S> + Mul<Output = D> + Add<Output = D>,
{
    let i = grid!(1);
    if i < out.len() {
        out[i] = D::from(input[i]) * factor + offset;
    }
}
