//! Thread configuration sweep: vector addition at n = 10,000,000 with blocks
//! of 32 to 1024 threads, each configuration timed with events (best of 5) and checked.
//!
//! `cargo run --release --example thread_config_sweep`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::vecadd;

fn main() -> ExampleResult {
    let device = device()?;
    let n = if device.is_simulator() {
        1_000_000
    } else {
        10_000_000
    };
    if device.is_simulator() {
        println!("(simulator: n scaled down to {n}; its times say nothing about a GPU)");
    }
    let a = random_f32(n, 1);
    let b = random_f32(n, 2);
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    let poison = vec![f32::NAN; n];
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let stream = device.default_stream();
    let (start, end) = (Event::new(&device)?, Event::new(&device)?);

    println!("vecadd, n = {n}");
    println!(
        "{:>6} {:>8} {:>10} {:>8}",
        "block", "grid", "time (ms)", "GB/s"
    );
    for block in [32u32, 64, 128, 256, 512, 1024] {
        let grid = n.div_ceil(block as usize) as u32;
        c_dev.copy_from(&poison)?;
        launch!(vecadd[grid, block](&a_dev, &b_dev, &mut c_dev))?; // warm-up
        let mut best = f32::INFINITY;
        for _ in 0..5 {
            start.record(&stream)?;
            launch!(vecadd[grid, block](&a_dev, &b_dev, &mut c_dev))?;
            end.record(&stream)?;
            end.synchronize()?;
            best = best.min(start.elapsed_ms(&end)?);
        }
        let gbs = 3.0 * 4.0 * n as f64 / (best as f64 * 1e6);
        println!("{block:>6} {grid:>8} {best:>10.3} {gbs:>8.1}");
        let c = c_dev.to_vec()?;
        if c != expected {
            check(&format!("block {block}"), &c, &expected, 0.0)?;
        }
    }
    println!("every configuration matches the CPU");
    Ok(())
}
