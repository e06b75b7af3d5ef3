//! Tiled matrix multiplication: C = A B through 16x16 tiles of A and B in
//! shared memory, two `syncthreads` per tile. The sizes are not multiples of 16 (the tutorial's
//! version needed them to be). Checked against the CPU in f64, timed with events against the
//! naive kernel on the same matrices.
//!
//! `cargo run --release --example matmul_tiled`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32, reference};
use kernels_nvptx::matmul_naive::matmul_naive;
use kernels_nvptx::matmul_tiled::matmul_tiled;

fn main() -> ExampleResult {
    let device = device()?;
    let (m, n, p) = if device.is_simulator() {
        println!("(simulator: matrices scaled down)");
        (150, 77, 95)
    } else {
        (1500, 1200, 1100)
    };
    let a = random_f32(m * n, 1);
    let b = random_f32(n * p, 2);
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, m * p)?;
    let grid = ((p as u32).div_ceil(16), (m as u32).div_ceil(16));
    let (mm, nn, pp) = (m as u32, n as u32, p as u32);

    let stream = device.default_stream();
    let time = |tiled: bool, c: &mut DeviceBuffer<f32>| -> ferrocuda::Result<f64> {
        let start = stream.record_event()?;
        if tiled {
            launch!(matmul_tiled[grid, (16, 16)](&a_dev, &b_dev, c, mm, nn, pp))?;
        } else {
            launch!(matmul_naive[grid, (16, 16)](&a_dev, &b_dev, c, mm, nn, pp))?;
        }
        let end = stream.record_event()?;
        end.synchronize()?;
        Ok(start.elapsed_ms(&end)? as f64)
    };
    // One untimed launch each (module load, clocks), then the timed ones.
    time(true, &mut c_dev)?;
    time(false, &mut c_dev)?;
    let naive_ms = time(false, &mut c_dev)?;
    let tiled_ms = time(true, &mut c_dev)?;
    let c = c_dev.to_vec()?;

    let expected = reference::matmul(&a, &b, m, n, p);
    println!("C ({m} x {p}) = A ({m} x {n}) B ({n} x {p}), grid = {grid:?}, block = (16, 16)");
    check("matmul_tiled", &c, &expected, 1e-5 * (n as f32).sqrt())?;
    let gflops = |ms: f64| 2.0 * (m * n * p) as f64 / (ms * 1e6);
    println!(
        "naive: {naive_ms:.3} ms ({:.0} GFLOP/s), tiled: {tiled_ms:.3} ms ({:.0} GFLOP/s){}",
        gflops(naive_ms),
        gflops(tiled_ms),
        if device.is_simulator() {
            " on the simulator"
        } else {
            ""
        }
    );
    Ok(())
}
