//! Half precision: SAXPY on 2^20 `f16` values (one `fma.rn.f16` each), checked bit for bit, then
//! 2^20 `bf16` values widened to `f32` two at a time through `bf16x2`.
//!
//! `cargo run --release --example half_precision`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32};
use kernels_nvptx::half_precision::{bf16x2_to_f32, saxpy_f16};

fn main() -> ExampleResult {
    let device = device()?;
    let n = 1 << 20;
    let a = f16::from_f32(3.3);
    let x: Vec<f16> = random_f32(n, 3).into_iter().map(f16::from_f32).collect();
    let y: Vec<f16> = random_f32(n, 4).into_iter().map(f16::from_f32).collect();

    let x_dev = DeviceBuffer::from_slice(&device, &x)?;
    let mut y_dev = DeviceBuffer::from_slice(&device, &y)?;
    launch!(saxpy_f16[n.div_ceil(256), 256](a, &x_dev, &mut y_dev))?;
    let result = y_dev.to_vec()?;
    // The CPU reference: `a * x + y` is exact in f64 here (a = 3.3 rounds to a multiple of 2^-9, x and y of
    // 2^-24, all below 4: at most 36 significant bits), so rounding it once to f16 is the
    // correctly rounded fused multiply-add the GPU computes.
    let mismatches = (0..n)
        .filter(|&i| {
            let exact = a.to_f64() * x[i].to_f64() + y[i].to_f64();
            result[i].to_bits() != f16::from_f64(exact).to_bits()
        })
        .count();
    if mismatches > 0 {
        return Err(format!("saxpy_f16: {mismatches} of {n} results differ from the CPU").into());
    }
    println!("saxpy_f16: {n} results equal the CPU's bit for bit");

    let values: Vec<bf16> = random_f32(n, 5)
        .into_iter()
        .map(|v| bf16::from_f32(v * 1e30))
        .collect();
    let pairs: Vec<bf16x2> = values.chunks(2).map(|p| bf16x2::new(p[0], p[1])).collect();
    let mut out = DeviceBuffer::<f32>::zeros(&device, n)?;
    launch!(bf16x2_to_f32[(n / 2).div_ceil(256), 256](&pairs, &mut out))?;
    let widened = out.to_vec()?;
    // bf16 is the top half of an f32: widening appends 16 zero bits.
    let expected: Vec<u32> = values.iter().map(|v| (v.to_bits() as u32) << 16).collect();
    if widened.iter().map(|v| v.to_bits()).ne(expected) {
        return Err("bf16x2_to_f32: widened values differ from the CPU".into());
    }
    println!(
        "bf16x2_to_f32: {n} values widened exactly (first: {:e} -> {:e})",
        values[0].to_f32(),
        widened[0]
    );
    Ok(())
}
