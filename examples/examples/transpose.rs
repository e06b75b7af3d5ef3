//! Coalesced transpose: through a shared tile padded to 16x17 (and the 32x33
//! variant with 32x8 blocks), against the naive transpose, on a matrix whose sides are not
//! multiples of the tile. Exact comparison with the CPU; effective bandwidth from events.
//!
//! `cargo run --release --example transpose`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32, reference};
use kernels_nvptx::transpose::{transpose_tiled16, transpose_tiled32};
use kernels_nvptx::transpose_naive::transpose_naive;

fn main() -> ExampleResult {
    let device = device()?;
    let (w, h) = if device.is_simulator() {
        println!("(simulator: matrix scaled down)");
        (301, 203)
    } else {
        (8000, 6001)
    };
    let input = random_f32(w * h, 3);
    let expected = reference::transpose(&input, w, h);
    let input_dev = DeviceBuffer::from_slice(&device, &input)?;
    let mut out = DeviceBuffer::<f32>::zeros(&device, w * h)?;
    let (ww, hh) = (w as u32, h as u32);
    let stream = device.default_stream();
    let g16 = (ww.div_ceil(16), hh.div_ceil(16));
    let g32 = (ww.div_ceil(32), hh.div_ceil(32));
    type Run<'a> = Box<dyn Fn(&mut DeviceBuffer<f32>) -> ferrocuda::Result<()> + 'a>;
    let runs: [(&str, Run); 3] = [
        (
            "naive (16x16 blocks)",
            Box::new(|o| launch!(transpose_naive[g16, (16, 16)](&input_dev, o, ww, hh))),
        ),
        (
            "tiled [16][17] (16x16 blocks)",
            Box::new(|o| launch!(transpose_tiled16[g16, (16, 16)](&input_dev, o, ww, hh))),
        ),
        (
            "tiled [32][33] (32x8 blocks)",
            Box::new(|o| launch!(transpose_tiled32[g32, (32, 8)](&input_dev, o, ww, hh))),
        ),
    ];
    println!("transpose of a {h} x {w} f32 matrix:");
    for (name, run) in &runs {
        run(&mut out)?; // untimed warm-up
        out.copy_from(&vec![0.0; w * h])?;
        let start = stream.record_event()?;
        run(&mut out)?;
        let end = stream.record_event()?;
        end.synchronize()?;
        let ms = start.elapsed_ms(&end)? as f64;
        if out.to_vec()? != expected {
            return Err(format!("{name}: the result differs from the CPU's transpose").into());
        }
        let gbs = 2.0 * 4.0 * (w * h) as f64 / (ms * 1e6);
        println!("  {name:<30} {ms:8.3} ms  {gbs:7.1} GB/s  (matches the CPU)");
    }
    Ok(())
}
