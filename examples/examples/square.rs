//! Map square: a[i] = a[i]^2 in place, blocks of 256. The host array is passed
//! directly: ferrocuda copies it to the device and back, like Numba's automatic transfers.
//!
//! `cargo run --release --example square`

use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::square;

fn main() -> ExampleResult {
    let device = device()?;
    let n = 100_003;
    let original = random_f32(n, 5);
    let mut a = original.clone();
    // Host slices are accepted directly: copied in, and back because the parameter is `&mut`.
    square
        .grid(n.div_ceil(256) as u32)
        .block(256)
        .stream(&device.default_stream())
        .launch(&mut a)?;
    let expected: Vec<f32> = original.iter().map(|v| v * v).collect();
    check("square (in place, host slice)", &a, &expected, 0.0)?;
    Ok(())
}
