//! A whole sum in one launch: every block sums a grid-stride share of the input, a grid barrier
//! (`grid_sync`, in a kernel marked `#[kernel(cooperative)]`) waits for all the partial sums,
//! and block 0 adds them up. The grid is as large as the device holds at once
//! (`max_cooperative_blocks`); the launch refuses a larger one. Checked against an f64 CPU sum.
//!
//! `cargo run --release --example grid_sync_reduce`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32};
use kernels_nvptx::grid_sync_sum::grid_sync_sum;

fn main() -> ExampleResult {
    let device = device()?;
    // 2^26 floats on a GPU; the simulator runs every thread on the CPU.
    let n = if device.is_simulator() {
        1 << 20
    } else {
        1 << 26
    };
    let threads = 256u32;
    let blocks = grid_sync_sum.max_cooperative_blocks(&device, threads, 0u32)?;
    println!(
        "cooperative grid: {blocks} blocks of {threads} threads ({} multiprocessors)",
        device.limits().multiprocessor_count
    );
    let x = random_f32(n, 26);
    let input = DeviceBuffer::from_slice(&device, &x)?;
    let mut partials = DeviceBuffer::<f32>::zeros(&device, blocks as usize)?;
    let mut total = DeviceBuffer::<f32>::zeros(&device, 1)?;
    let stream = device.default_stream();
    let start = stream.record_event()?;
    launch!(grid_sync_sum[blocks, threads](&input, &mut partials, &mut total))?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)? as f64;
    let sum = total.to_vec()?[0] as f64;
    let cpu: f64 = x.iter().map(|&v| v as f64).sum();
    let error = (sum - cpu).abs();
    println!(
        "sum of {n} floats in one launch = {sum}, CPU (f64) = {cpu:.3}, error = {error:.1e}, {ms:.3} ms ({:.0} GB/s)",
        4.0 * n as f64 / (ms * 1e6)
    );
    // The bound of a float sum of n terms of magnitude at most 1, in this summation order.
    if error > 1e-6 * n as f64 {
        return Err(format!("the grid-barrier sum is off by {error}").into());
    }
    // A grid one block larger than the device holds at once is refused before launch.
    match launch!(grid_sync_sum[blocks + 1, threads](&input, &mut partials, &mut total)) {
        Err(error) => println!("{} blocks: refused: {error}", blocks + 1),
        Ok(()) => return Err("a cooperative grid larger than the device was launched".into()),
    }
    Ok(())
}
