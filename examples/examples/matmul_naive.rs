//! Naive matrix multiplication: C = A B with A m x n and B n x p, one thread
//! per element of C in 16x16 blocks. The shapes are not multiples of 16. Checked against the
//! CPU (in f64) and timed with events.
//!
//! `cargo run --release --example matmul_naive`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32, reference};
use kernels_nvptx::matmul_naive::matmul_naive;

fn main() -> ExampleResult {
    let device = device()?;
    let (m, n, p) = if device.is_simulator() {
        (123, 77, 95)
    } else {
        (1000, 1200, 900)
    };
    if device.is_simulator() {
        println!("(simulator: matrices scaled down)");
    }
    let a = random_f32(m * n, 1);
    let b = random_f32(n * p, 2);
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, m * p)?;

    let block = (16u32, 16u32);
    let grid = ((p as u32).div_ceil(block.0), (m as u32).div_ceil(block.1));
    let stream = device.default_stream();
    // One untimed launch (loads the module), then a timed one.
    launch!(matmul_naive[grid, block](&a_dev, &b_dev, &mut c_dev, m as u32, n as u32, p as u32))?;
    let start = stream.record_event()?;
    launch!(matmul_naive[grid, block](&a_dev, &b_dev, &mut c_dev, m as u32, n as u32, p as u32))?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)? as f64;
    let c = c_dev.to_vec()?;

    let expected = reference::matmul(&a, &b, m, n, p);
    println!("C ({m} x {p}) = A ({m} x {n}) B ({n} x {p}), grid = {grid:?}, block = {block:?}");
    check("matmul_naive", &c, &expected, 1e-5 * (n as f32).sqrt())?;
    println!("C[0][0..4] = {:?}", &c[..4.min(p)]);
    let gflops = 2.0 * m as f64 * n as f64 * p as f64 / (ms * 1e6);
    println!(
        "time: {ms:.3} ms ({gflops:.1} GFLOP/s){}",
        if device.is_simulator() {
            " on the simulator"
        } else {
            ""
        }
    );
    Ok(())
}
