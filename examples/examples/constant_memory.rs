//! Constant memory: C = (A + B) * factors[blockIdx.x] with the factors in
//! constant memory, written from the host by name before the launch. Two blocks.
//!
//! `cargo run --release --example constant_memory`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::constant_memory::{FACTORS, MAX_FACTOR_BLOCKS, add_and_scale_per_block};

fn main() -> ExampleResult {
    let device = device()?;
    let mut factors = [1.0f32; MAX_FACTOR_BLOCKS];
    factors[0] = 2.0;
    factors[1] = -0.5;
    FACTORS.write(&device, &factors)?;
    println!(
        "factors[0..2] in constant memory: {:?}",
        &FACTORS.read(&device)?[..2]
    );
    let (n, block) = (200usize, 100usize);
    let (a, b) = (random_f32(n, 1), random_f32(n, 2));
    let mut c = vec![0.0f32; n];
    launch!(add_and_scale_per_block[2, block as u32, &device.default_stream()](&a, &b, &mut c))?;
    let expected: Vec<f32> = (0..n).map(|i| (a[i] + b[i]) * factors[i / block]).collect();
    println!("C[0] = {} (block 0), C[100] = {} (block 1)", c[0], c[100]);
    check("(A + B) * factors[block]", &c, &expected, 1e-6)?;
    Ok(())
}
