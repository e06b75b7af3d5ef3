//! SAXPY: y = a*x + y with a = 3.141 and n = 1024 * 2048, blocks of 256.
//!
//! `cargo run --release --example saxpy`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::saxpy;

fn main() -> ExampleResult {
    let device = device()?;
    let n = 1024 * 2048;
    #[expect(clippy::approx_constant, reason = "the tutorial uses 3.141, not pi")]
    let a = 3.141f32;
    let x = random_f32(n, 3);
    let y = random_f32(n, 4);

    let x_dev = DeviceBuffer::from_slice(&device, &x)?;
    let mut y_dev = DeviceBuffer::from_slice(&device, &y)?;
    launch!(saxpy[n.div_ceil(256), 256](a, &x_dev, &mut y_dev))?;
    let result = y_dev.to_vec()?;

    let expected: Vec<f32> = x.iter().zip(&y).map(|(x, y)| a * x + y).collect();
    check("saxpy", &result, &expected, 1e-6)?;
    Ok(())
}
