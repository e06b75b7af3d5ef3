//! The L2 norm of a vector, as a Python user writes it with CuPy's `ReductionKernel`
//! (`ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0')`) or Numba's
//! `@cuda.reduce`: a `#[reduction]` of the squares, then a square root on the host.
//!
//! ```text
//! #[reduction(identity = 0.0, combine = |a, b| a + b)]
//! pub fn sum_of_squares(x: f32) -> f32 { x * x }
//!
//! let norm = sum_of_squares::reduce(&stream, &x)?.sqrt();
//! ```
//!
//! `cargo run --release --example l2_norm [length]`: 2^24 elements on a GPU, 2^16 on the
//! simulator unless given. Checked against an `f64` sum on the CPU.

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32};
use kernels_nvptx::generated::sum_of_squares;

fn main() -> ExampleResult {
    let device = device()?;
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|e| format!("the argument is the vector's length: {arg:?}: {e}"))?,
        None if device.is_simulator() => 1 << 16,
        None => 1 << 24,
    };
    let stream = device.default_stream();
    let x = random_f32(n, 7);
    let x_dev = DeviceBuffer::from_slice(&device, &x)?;

    let norm = sum_of_squares::reduce(&stream, &x_dev)?.sqrt();

    let expected = x
        .iter()
        .map(|&v| f64::from(v) * f64::from(v))
        .sum::<f64>()
        .sqrt();
    let relative = (f64::from(norm) - expected).abs() / expected.max(f64::MIN_POSITIVE);
    println!(
        "||x|| of {n} elements: {norm} (CPU, f64: {expected:.7}; relative difference {relative:.1e})"
    );
    // An f32 tree sum of n squares: well within 1e-5 relative.
    if relative > 1e-5 {
        return Err(format!("the norm differs from the CPU's by {relative:.1e} (relative)").into());
    }
    println!("OK");
    Ok(())
}
