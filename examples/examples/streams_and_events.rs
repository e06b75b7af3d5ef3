//! Streams and events: two kernels on two streams. Stream one copies `x` from
//! pinned host memory and squares it; stream two copies `y` meanwhile, waits for an event
//! recorded in stream one, then computes `z = x² + y` and copies it back to pinned memory.
//! Events time each stream's work and the whole. Checked exactly against the CPU.
//!
//! `cargo run --release --example streams_and_events`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::{square, vecadd};

fn main() -> ExampleResult {
    let device = device()?;
    let n = if device.is_simulator() {
        1 << 18
    } else {
        1 << 24
    };
    if device.is_simulator() {
        println!("(simulator: n scaled down; streams run one after the other there)");
    }
    let x = random_f32(n, 1);
    let y = random_f32(n, 2);
    // Page-locked host memory: the copies below are asynchronous and can overlap.
    let x_pinned = PinnedBuffer::from_slice(&device, &x)?;
    let y_pinned = PinnedBuffer::from_slice(&device, &y)?;
    let mut z_pinned = PinnedBuffer::<f32>::new(&device, n)?;
    let mut x_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let mut y_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let mut z_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let (one, two) = (device.new_stream()?, device.new_stream()?);
    let (grid, block) = (n.div_ceil(256) as u32, 256u32);

    // Warm-up (loads the module) so the timings below are of the work itself.
    launch!(square[1, 32, &one](&mut x_dev))?;
    device.synchronize()?;

    let start_one = one.record_event()?;
    x_dev.copy_from_async(&x_pinned, &one)?;
    launch!(square[grid, block, &one](&mut x_dev))?;
    let squared = one.record_event()?;

    let start_two = two.record_event()?;
    y_dev.copy_from_async(&y_pinned, &two)?;
    two.wait_event(&squared)?; // stream two waits for stream one's square
    launch!(vecadd[grid, block, &two](&x_dev, &y_dev, &mut z_dev))?;
    z_dev.copy_to_async(&mut z_pinned, &two)?;
    let end_two = two.record_event()?;
    println!("queued both streams; the host is free while they run");

    end_two.synchronize()?;
    let mb = (n * 4) as f64 / 1e6;
    println!(
        "stream one: copy x ({mb:.1} MB, pinned) + square:             {:.3} ms",
        start_one.elapsed_ms(&squared)?
    );
    println!(
        "stream two: copy y + wait for stream one + vecadd + copy z: {:.3} ms",
        start_two.elapsed_ms(&end_two)?
    );
    println!(
        "elapsed from stream one's start to stream two's end:       {:.3} ms",
        start_one.elapsed_ms(&end_two)?
    );

    let expected: Vec<f32> = x.iter().zip(&y).map(|(x, y)| x * x + y).collect();
    check("z = x^2 + y", z_pinned.as_slice()?, &expected, 0.0)?;
    Ok(())
}
