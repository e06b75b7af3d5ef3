//! Prefix sum, written correctly: the tutorial's 8 floats in one block, then an
//! inclusive scan of 1,000,003 floats (block scans, a scan of the block totals, and a pass adding
//! them back), against a running sum on the CPU.
//!
//! `cargo run --release --example scan`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32, reference};
use kernels_nvptx::scan::{inclusive_scan, scan_blocks};

fn main() -> ExampleResult {
    let device = device()?;
    let x: Vec<f32> = (1..=8).map(|v| v as f32).collect();
    let mut out = vec![0.0f32; 8];
    let mut total = vec![0.0f32; 1];
    launch!(scan_blocks[1, 8](&x, &mut out, &mut total))?;
    println!("input:  {x:?}");
    println!("output: {out:?}");
    if out != [1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 36.0] {
        return Err("the 8-element scan is wrong".into());
    }

    let n = 1_000_003;
    let x = random_f32(n, 9);
    let x_dev = DeviceBuffer::from_slice(&device, &x)?;
    let mut out_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    inclusive_scan(&x_dev, &mut out_dev)?;
    let out = out_dev.to_vec()?;
    let mut worst = 0.0f64;
    for (i, (&running, &got)) in reference::inclusive_sum(&x).iter().zip(&out).enumerate() {
        let error = (got as f64 - running).abs();
        if error > 1e-5 * (i + 1) as f64 + 1e-4 {
            return Err(format!("element {i}: {got}, the CPU says {running}").into());
        }
        worst = worst.max(error);
    }
    println!(
        "inclusive scan of {n} floats matches the CPU (largest error {worst:.1e}); last = {}",
        out[n - 1]
    );
    Ok(())
}
