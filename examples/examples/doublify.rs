//! Doublify: double every element of a 4x4 f32 matrix with one block of 4x4
//! threads, indexing with the 2-D thread index: idx = tx + ty * 4.
//!
//! `cargo run --release --example doublify`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::doublify;

fn main() -> ExampleResult {
    let device = device()?;
    let a = random_f32(16, 6);
    let mut a_dev = DeviceBuffer::from_slice(&device, &a)?;
    launch!(doublify[1, (4, 4)](&mut a_dev, 4u32, 4u32))?;
    let doubled = a_dev.to_vec()?;
    for row in doubled.chunks(4) {
        println!(
            "{}",
            row.iter()
                .map(|v| format!("{v:8.4}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let expected: Vec<f32> = a.iter().map(|v| v * 2.0).collect();
    check("doublify 4x4", &doubled, &expected, 0.0)?;
    Ok(())
}
