//! Naive transpose: `out[x * h + y] = in[y * w + x]`, one thread per element in
//! 16x16 blocks. Reads are coalesced, writes are strided by `h`. Checked exactly against the CPU
//! and timed with events.
//!
//! `cargo run --release --example transpose_naive`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32, reference};
use kernels_nvptx::transpose_naive::transpose_naive;

fn main() -> ExampleResult {
    let device = device()?;
    let (w, h) = if device.is_simulator() {
        (700, 500)
    } else {
        (5000, 4001)
    };
    if device.is_simulator() {
        println!("(simulator: matrix scaled down)");
    }
    let input = random_f32(w * h, 7);
    let input_dev = DeviceBuffer::from_slice(&device, &input)?;
    let mut output_dev = DeviceBuffer::<f32>::zeros(&device, w * h)?;
    let block = (16u32, 16u32);
    let grid = ((w as u32).div_ceil(block.0), (h as u32).div_ceil(block.1));

    launch!(transpose_naive[grid, block](&input_dev, &mut output_dev, w as u32, h as u32))?;
    let stream = device.default_stream();
    let start = stream.record_event()?;
    launch!(transpose_naive[grid, block](&input_dev, &mut output_dev, w as u32, h as u32))?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)? as f64;
    let output = output_dev.to_vec()?;

    let expected = reference::transpose(&input, w, h);
    println!("transposed a {h} x {w} matrix into {w} x {h}, grid = {grid:?}, block = {block:?}");
    check("transpose_naive", &output, &expected, 0.0)?;
    let gbs = 2.0 * 4.0 * (w * h) as f64 / (ms * 1e6);
    println!(
        "time: {ms:.3} ms ({gbs:.1} GB/s read + write){}",
        if device.is_simulator() {
            " on the simulator"
        } else {
            ""
        }
    );
    Ok(())
}
