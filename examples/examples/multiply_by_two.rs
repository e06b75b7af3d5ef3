//! Device printf: one block of 10 threads doubles 10 floats, each printing its
//! value before and after. The lines appear on stdout at the next synchronization.
//!
//! `cargo run --release --example multiply_by_two`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device};
use kernels_nvptx::printing::multiply_by_two;

fn main() -> ExampleResult {
    let device = device()?;
    let original: Vec<f32> = (0..10).map(|i| i as f32 * 1.5).collect();
    let mut a = DeviceBuffer::from_slice(&device, &original)?;
    launch!(multiply_by_two[1, 10](&mut a))?;
    device.synchronize()?;
    let doubled: Vec<f32> = original.iter().map(|v| v * 2.0).collect();
    check("multiply_by_two", &a.to_vec()?, &doubled, 0.0)?;
    Ok(())
}
