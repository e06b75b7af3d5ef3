//! Map square: a[i] = a[i]^2 in place, one thread per element with the block size the device
//! suggests for the kernel (`forall`, as in Numba). The host array is passed directly:
//! ferrocuda copies it to the device and back, like Numba's automatic transfers.
//!
//! `cargo run --release --example square`

use ferrocuda::InspectKernel;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::square;

fn main() -> ExampleResult {
    let device = device()?;
    let n = 100_003;
    let original = random_f32(n, 5);
    let mut a = original.clone();
    // Host slices are accepted directly: copied in, and back because the parameter is `&mut`.
    square
        .forall(n)
        .stream(&device.default_stream())
        .launch(&mut a)?;
    let block = square.suggested_block_size(&device, 0)?;
    println!(
        "forall({n}): blocks of {block} threads; {}",
        square.attributes(&device)?
    );
    let expected: Vec<f32> = original.iter().map(|v| v * v).collect();
    check("square (in place, host slice)", &a, &expected, 0.0)?;
    Ok(())
}
