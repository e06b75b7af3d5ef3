//! The histogram of an image's 8-bit intensities, as `cupy.histogram(image, bins=256,
//! range=(0, 256))` or CUB's `DeviceHistogram::HistogramEven` on pixels: a synthetic gradient
//! image with noise goes through `kernels_algorithms::histogram::histogram_even` as `u8` (255
//! bins of 0..255, the intensity 255 outside, as CUB's upper level is excluded) and as `u32`
//! (256 bins of 0..256, every intensity), both checked against the CPU's count.
//!
//! `cargo run --release --example image_histogram [width] [height]`: 3840 x 2160 on a GPU,
//! 640 x 480 on the simulator unless given.

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device};
use kernels_algorithms::histogram::histogram_even;

fn main() -> ExampleResult {
    let device = device()?;
    let mut args = std::env::args().skip(1).map(|arg| {
        arg.parse::<usize>()
            .map_err(|e| format!("the arguments are the width and the height: {arg:?}: {e}"))
    });
    let (width, height) = match (args.next(), args.next()) {
        (Some(w), Some(h)) => (w?, h?),
        _ if device.is_simulator() => (640, 480),
        _ => (3840, 2160),
    };
    let mut state = 0x1234_5678_9abc_def1u64;
    let pixels: Vec<u8> = (0..width * height)
        .map(|i| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let (x, y) = (i % width, i / width);
            let gradient = (x * 200 / width.max(1) + y * 55 / height.max(1)) as i64;
            (gradient + (state % 41) as i64 - 20).clamp(0, 255) as u8
        })
        .collect();
    let mut expected = [0u32; 256];
    for &p in &pixels {
        expected[p as usize] += 1;
    }

    let stream = device.default_stream();
    let image = DeviceBuffer::from_slice(&device, &pixels)?;
    let mut counts = DeviceBuffer::<u32>::zeros(&device, 255)?;
    let start = stream.record_event()?;
    histogram_even(&stream, &image, 0u8, 255u8, &mut counts)?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = f64::from(start.elapsed_ms(&end)?);
    if counts.to_vec()?[..] != expected[..255] {
        return Err("the u8 histogram differs from the CPU's".into());
    }

    let wide: Vec<u32> = pixels.iter().map(|&p| u32::from(p)).collect();
    let wide = DeviceBuffer::from_slice(&device, &wide)?;
    let mut all = DeviceBuffer::<u32>::zeros(&device, 256)?;
    histogram_even(&stream, &wide, 0u32, 256u32, &mut all)?;
    if all.to_vec()?[..] != expected[..] {
        return Err("the u32 histogram differs from the CPU's".into());
    }
    let peak = (0..256).max_by_key(|&i| expected[i]).unwrap_or(0);
    println!(
        "histogram of a {width} x {height} image: {ms:.3} ms for the u8 pixels ({:.2} G pixels/s); peak at intensity {peak} ({} pixels), {} pixels at 255; equal to the CPU's count",
        (width * height) as f64 / (ms * 1e6),
        expected[peak],
        expected[255]
    );
    Ok(())
}
