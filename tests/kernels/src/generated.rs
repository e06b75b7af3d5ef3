//! Kernels generated from scalar functions (`#[elementwise]`, `#[reduction]`) for
//! `tests/tests/generated.rs`: a broadcast scalar, two outputs, generic instances, integer and
//! float reductions, a reduction of two slices and a maximum.

use ferrocuda::prelude::*;

/// `a * x + y`, `a` one value for every element.
#[elementwise(broadcast(a))]
pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
    a * x + y
}

/// Two outputs: the sum and the difference.
#[elementwise]
pub fn sum_and_difference(x: f32, y: f32) -> (f32, f32) {
    (x + y, x - y)
}

/// A generic function with an instance per type: `x * factor + offset`, the two scalars
/// broadcast.
#[elementwise(broadcast(factor, offset), instances(f32, f64, i32, u64))]
pub fn scale_shift<T: Copy + core::ops::Mul<Output = T> + core::ops::Add<Output = T>>(
    x: T,
    factor: T,
    offset: T,
) -> T {
    x * factor + offset
}

/// A conversion between element types: `u8` in, `f32` out.
#[elementwise]
pub fn to_unit(x: u8) -> f32 {
    f32::from(x) / 255.0
}

/// The sum of squares, as CuPy's `ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = a', '0')`.
#[reduction(identity = 0.0, combine = |a, b| a + b)]
pub fn sum_of_squares(x: f32) -> f32 {
    x * x
}

/// The dot product of two slices, in `f64`.
#[reduction(identity = 0.0, combine = |a, b| a + b)]
pub fn dot_f64(x: f64, y: f64) -> f64 {
    x * y
}

/// The largest element (a combine that is not a sum; identity minus infinity).
#[reduction(identity = f32::NEG_INFINITY, combine = |a, b| if b > a { b } else { a })]
pub fn max_f32(x: f32) -> f32 {
    x
}

/// How many elements exceed `threshold` (broadcast), as an integer count.
#[reduction(broadcast(threshold), identity = 0, combine = |a, b| a + b)]
pub fn count_above(x: f32, threshold: f32) -> u32 {
    u32::from(x > threshold)
}

/// A generic sum with wrapping integer instances.
#[reduction(instances(u32, u64), identity = T::ZERO, combine = |a: T, b: T| a.wrapping_add(b))]
pub fn wrapping_sum<T: WrappingAdd>(x: T) -> T {
    x
}

/// Integers with a wrapping add, for [`wrapping_sum()`].
pub trait WrappingAdd: Copy {
    /// Zero.
    const ZERO: Self;
    /// `self + other`, wrapping.
    fn wrapping_add(self, other: Self) -> Self;
}

impl WrappingAdd for u32 {
    const ZERO: u32 = 0;
    fn wrapping_add(self, other: u32) -> u32 {
        u32::wrapping_add(self, other)
    }
}

impl WrappingAdd for u64 {
    const ZERO: u64 = 0;
    fn wrapping_add(self, other: u64) -> u64 {
        u64::wrapping_add(self, other)
    }
}

/// `x - offset[row]`: one `offset` per row of `cols` elements.
#[elementwise(per_row(offset))]
pub fn subtract_row(x: f32, offset: f32) -> f32 {
    x - offset
}

/// `-x`, with 64-bit indices (`large_buffers`: slices may exceed `u32::MAX` elements).
#[elementwise(large_buffers)]
pub fn negate(x: f64) -> f64 {
    -x
}

/// The sum of absolute values, with 64-bit indices.
#[reduction(large_buffers, identity = 0.0, combine = |a, b| a + b)]
pub fn sum_of_magnitudes(x: f64) -> f64 {
    if x < 0.0 { -x } else { x }
}
