//! Transfer sizes: ten host-to-device copies of 1M floats against one copy of
//! 10M floats, from ordinary (pageable) memory with `copy_from` and from page-locked memory with
//! `copy_from_async`, each timed with events (best of 3). The data on the device is checked.
//!
//! `cargo run --release --example transfer_sizes`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32};
use std::time::Instant;

const CHUNK: usize = 1_000_000;
const CHUNKS: usize = 10;

/// Best-of-3 event time and wall time, in ms, of `copies` queued on `stream`.
fn time(
    stream: &Stream,
    mut copies: impl FnMut() -> ferrocuda::Result<()>,
) -> ferrocuda::Result<(f32, f64)> {
    let device = stream.device();
    let (start, end) = (Event::new(device)?, Event::new(device)?);
    let (mut best_events, mut best_wall) = (f32::INFINITY, f64::INFINITY);
    for _ in 0..3 {
        device.synchronize()?;
        let began = Instant::now();
        start.record(stream)?;
        copies()?;
        end.record(stream)?;
        end.synchronize()?;
        best_wall = best_wall.min(began.elapsed().as_secs_f64() * 1e3);
        best_events = best_events.min(start.elapsed_ms(&end)?);
    }
    Ok((best_events, best_wall))
}

fn main() -> ExampleResult {
    let device = device()?;
    if device.is_simulator() {
        println!("(simulator: \"device\" memory is host memory; the times are of memcpy)");
    }
    let data = random_f32(CHUNK * CHUNKS, 3);
    let chunks: Vec<&[f32]> = data.chunks(CHUNK).collect();
    let pinned_whole = PinnedBuffer::from_slice(&device, &data)?;
    let pinned_chunks = chunks
        .iter()
        .map(|c| PinnedBuffer::from_slice(&device, c))
        .collect::<ferrocuda::Result<Vec<_>>>()?;
    let mut whole = DeviceBuffer::<f32>::zeros(&device, CHUNK * CHUNKS)?;
    let mut parts = (0..CHUNKS)
        .map(|_| DeviceBuffer::<f32>::zeros(&device, CHUNK))
        .collect::<ferrocuda::Result<Vec<_>>>()?;
    let default = device.default_stream();
    let stream = device.new_stream()?;

    let results = [
        (
            "ten 1M-float copies, pageable",
            time(&default, || {
                parts
                    .iter_mut()
                    .zip(&chunks)
                    .try_for_each(|(p, c)| p.copy_from(c))
            })?,
        ),
        (
            "one 10M-float copy, pageable",
            time(&default, || whole.copy_from(&data))?,
        ),
        (
            "ten 1M-float copies, pinned async",
            time(&stream, || {
                parts
                    .iter_mut()
                    .zip(&pinned_chunks)
                    .try_for_each(|(p, c)| p.copy_from_async(c, &stream))
            })?,
        ),
        (
            "one 10M-float copy, pinned async",
            time(&stream, || whole.copy_from_async(&pinned_whole, &stream))?,
        ),
    ];

    let bytes = (CHUNK * CHUNKS * 4) as f64;
    println!("host to device, {:.0} MB in all", bytes / 1e6);
    println!(
        "{:<36} {:>10} {:>10} {:>8}",
        "", "events ms", "wall ms", "GB/s"
    );
    for (what, (events_ms, wall_ms)) in results {
        println!(
            "{what:<36} {events_ms:>10.3} {wall_ms:>10.3} {:>8.2}",
            bytes / (events_ms as f64 * 1e6)
        );
    }

    // Both layouts hold the data.
    if whole.to_vec()? != data {
        return Err("the 10M-float buffer differs from the host data".into());
    }
    for (i, (part, chunk)) in parts.iter().zip(&chunks).enumerate() {
        if part.to_vec()? != *chunk {
            return Err(format!("1M-float buffer {i} differs from the host data").into());
        }
    }
    println!("the device holds the data in both layouts");
    Ok(())
}
