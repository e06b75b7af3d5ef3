//! Simulator benchmark: how long the CPU simulator takes for the launches CI depends on, as
//! medians of repeated wall-clock timings (the simulator is synchronous), against the targets
//! (vecadd of 2^20 elements under 1 s, the 16x16-tiled matrix product at 256 under 5 s).
//! Results are checked against the CPU. Always runs on the simulator, GPU or not.
//!
//! `cargo run --release --example simulator_speed`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, median, random_f32, reference};
use kernels_nvptx::elementwise::vecadd;
use kernels_nvptx::matmul_tiled::matmul_tiled;
use std::time::Instant;

/// Median wall-clock seconds of `rounds` runs of `f`.
fn median_seconds(
    rounds: usize,
    mut f: impl FnMut() -> ferrocuda::Result<()>,
) -> ferrocuda::Result<f64> {
    let mut times = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(median(times))
}

fn main() -> ExampleResult {
    let device = Device::simulator();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("device: {device} on {threads} host threads");
    let mut rows = Vec::new();

    let n = 1 << 20;
    let (a, b) = (random_f32(n, 1), random_f32(n, 2));
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let grid = (n as u32).div_ceil(256);
    let seconds = median_seconds(5, || launch!(vecadd[grid, 256](&a_dev, &b_dev, &mut c_dev)))?;
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check("vecadd 2^20", &c_dev.to_vec()?, &expected, 0.0)?;
    rows.push(("vecadd, 2^20 elements, blocks of 256", seconds, 1.0));

    let m = 256;
    let (a, b) = (random_f32(m * m, 3), random_f32(m * m, 4));
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, m * m)?;
    let grid = ((m / 16) as u32, (m / 16) as u32);
    let mm = m as u32;
    let seconds = median_seconds(
        3,
        || launch!(matmul_tiled[grid, (16, 16)](&a_dev, &b_dev, &mut c_dev, mm, mm, mm)),
    )?;
    let expected = reference::matmul(&a, &b, m, m, m);
    check("matmul_tiled 256", &c_dev.to_vec()?, &expected, 1e-4)?;
    rows.push(("matmul_tiled, 256 x 256, 16x16 tiles", seconds, 5.0));

    println!();
    println!("| simulator launch (median wall time) | seconds | target | within |");
    println!("|---|---|---|---|");
    for (name, seconds, target) in rows {
        println!(
            "| {name} | {seconds:.3} | < {target} s | {} |",
            if seconds < target { "yes" } else { "NO" }
        );
    }
    Ok(())
}
