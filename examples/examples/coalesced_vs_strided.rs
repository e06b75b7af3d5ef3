//! Coalesced against strided access: `out[i] = in[i]` against
//! `out[i] = in[2i]`, the same number of useful bytes, timed with `ferrocuda::bench` (events,
//! median of 20) and checked exactly.
//!
//! `cargo run --release --example coalesced_vs_strided`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::memory::{copy_coalesced, copy_strided};

fn main() -> ExampleResult {
    let device = device()?;
    let n = if device.is_simulator() {
        1 << 20
    } else {
        1 << 25
    };
    if device.is_simulator() {
        println!("(simulator: n scaled down; its times say nothing about a GPU)");
    }
    let input = random_f32(2 * n, 5);
    let input_dev = DeviceBuffer::from_slice(&device, &input)?;
    let mut output = DeviceBuffer::<f32>::zeros(&device, n)?;
    let (grid, block) = (n.div_ceil(256) as u32, 256u32);

    let coalesced = bench(
        &device,
        3,
        20,
        || launch!(copy_coalesced[grid, block](&input_dev, &mut output)),
    )?;
    check(
        "coalesced out[i] = in[i]",
        &output.to_vec()?,
        &input[..n],
        0.0,
    )?;
    let strided = bench(
        &device,
        3,
        20,
        || launch!(copy_strided[grid, block](&input_dev, &mut output, 2u32)),
    )?;
    let expected: Vec<f32> = (0..n).map(|i| input[2 * i]).collect();
    check(
        "strided   out[i] = in[2i]",
        &output.to_vec()?,
        &expected,
        0.0,
    )?;

    // Useful traffic: n floats read and n written.
    let gbs = |ms: f64| 2.0 * 4.0 * n as f64 / (ms * 1e6);
    println!("n = {n}");
    println!(
        "coalesced: {coalesced}, {:.1} GB/s useful",
        gbs(coalesced.median_ms)
    );
    println!(
        "strided:   {strided}, {:.1} GB/s useful",
        gbs(strided.median_ms)
    );
    println!(
        "strided / coalesced time: {:.2}x",
        strided.median_ms / coalesced.median_ms
    );
    Ok(())
}
