//! Sums: the tutorial's per-block tree sum in 256 floats of shared
//! memory with the partial sums added on the host (n = 1000), then the whole sum on the device
//! with warp shuffles and one atomic add per block (n = 2^24 + 3). Both against an f64 CPU sum.
//!
//! `cargo run --release --example reduce`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32};
use kernels_nvptx::reduce::{block_sum_shared, sum_warp_shuffle};

fn main() -> ExampleResult {
    let device = device()?;

    // The tutorial's version: n = 1000, blocks of 256, partial sums on the host.
    let x = random_f32(1000, 1);
    let blocks = x.len().div_ceil(256);
    let mut partial = vec![0.0f32; blocks];
    launch!(block_sum_shared[blocks as u32, 256](&x, &mut partial))?;
    let gpu_sum: f32 = partial.iter().sum();
    let cpu_sum: f64 = x.iter().map(|&v| v as f64).sum();
    let error = (gpu_sum as f64 - cpu_sum).abs();
    println!("block partial sums: {partial:?}");
    println!("sum = {gpu_sum}, CPU (f64) = {cpu_sum}, error = {error:.1e}");
    if error > 1e-4 {
        return Err(format!("block sum is off by {error}").into());
    }

    // The whole sum on the device.
    let n = (1 << 24) + 3;
    let x = random_f32(n, 2);
    let x_dev = DeviceBuffer::from_slice(&device, &x)?;
    let mut total = DeviceBuffer::<f32>::zeros(&device, 1)?;
    let blocks = 8 * device.limits().multiprocessor_count;
    let stream = device.default_stream();
    let start = stream.record_event()?;
    launch!(sum_warp_shuffle[blocks, 256](&x_dev, &mut total))?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)? as f64;
    let gpu_sum = total.to_vec()?[0];
    let cpu_sum: f64 = x.iter().map(|&v| v as f64).sum();
    let error = (gpu_sum as f64 - cpu_sum).abs();
    println!(
        "warp-shuffle sum of {n} floats = {gpu_sum}, CPU (f64) = {cpu_sum:.3}, error = {error:.1e}, {ms:.3} ms ({:.0} GB/s)",
        4.0 * n as f64 / (ms * 1e6)
    );
    if error > 1e-6 * n as f64 {
        return Err(format!("warp-shuffle sum is off by {error}").into());
    }
    Ok(())
}
