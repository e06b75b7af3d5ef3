//! Kernels generated from scalar functions, for the programs that port what people write with
//! Numba's `@vectorize` and `@cuda.reduce` and CuPy's `ElementwiseKernel` and `ReductionKernel`:
//! `examples/l2_norm.rs`, `examples/softmax.rs` and `examples/bench_generated.rs`.

use ferrocuda::prelude::*;

/// `a * x + y` (CuPy: `ElementwiseKernel('float32 a, float32 x, float32 y', 'float32 z',
/// 'z = a * x + y')`).
#[elementwise(broadcast(a))]
pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
    a * x + y
}

/// The sum of squares (CuPy: `ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = a', '0')`),
/// the L2 norm's reduction.
#[reduction(identity = 0.0, combine = |a, b| a + b)]
pub fn sum_of_squares(x: f32) -> f32 {
    x * x
}

/// The largest element (of a slice, or of each row).
#[reduction(identity = f32::NEG_INFINITY, combine = |a, b| if b > a { b } else { a })]
pub fn max_value(x: f32) -> f32 {
    x
}

/// The sum of the elements (of a slice, or of each row).
#[reduction(identity = 0.0, combine = |a, b| a + b)]
pub fn sum(x: f32) -> f32 {
    x
}

/// `exp(x - row_max)`: a softmax's numerator, with the maximum of each row (NumPy's
/// `np.exp(x - x.max(axis=1, keepdims=True))`).
#[elementwise(per_row(row_max))]
pub fn exp_minus(x: f32, row_max: f32) -> f32 {
    libm::expf(x - row_max)
}

/// `x / row_sum`: a softmax's normalisation, with the sum of each row.
#[elementwise(per_row(row_sum))]
pub fn divide_by(x: f32, row_sum: f32) -> f32 {
    x / row_sum
}
