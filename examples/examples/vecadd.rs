//! Vector addition with Numba's `grid(1)`: c = a + b for n = 2^24 + 11, blocks
//! of 256 threads, grid = ceil(n / 256). The size is not a multiple of the block, so the kernel's
//! bounds check matters. Runs on the GPU if there is one, else on the CPU simulator.
//!
//! `cargo run --release --example vecadd`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::vecadd;

fn main() -> ExampleResult {
    let device = device()?;
    // The simulator runs every GPU thread on the CPU: keep its run short.
    let n = if device.is_simulator() {
        (1 << 20) + 11
    } else {
        (1 << 24) + 11
    };
    let a = random_f32(n, 1);
    let b = random_f32(n, 2);

    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, n)?;

    let block: usize = 256;
    let grid = n.div_ceil(block);
    launch!(vecadd[grid, block](&a_dev, &b_dev, &mut c_dev))?;
    let c = c_dev.to_vec()?;

    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(
        &format!("vecadd n = {n}, grid = {grid}, block = {block}"),
        &c,
        &expected,
        0.0,
    )?;
    println!("c[0..4] = {:?}", &c[..4]);
    Ok(())
}
