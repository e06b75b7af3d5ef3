//! Stream compaction, as `x[x > t]` in CuPy or NumPy: the particles of a simulation whose energy
//! passes a threshold are kept, in order (`kernels_algorithms::select::select_count` with
//! `Predicate::GreaterThan`); then those flagged by a mask (`Predicate::Flagged`, CUB's
//! `DeviceSelect::Flagged`). Both are checked against the CPU's `filter`.
//!
//! `cargo run --release --example stream_compaction [elements]`: 2^24 on a GPU, 2^18 on the
//! simulator unless given.

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device};
use kernels_algorithms::select::{Predicate, select_count};

fn main() -> ExampleResult {
    let device = device()?;
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|e| format!("the argument is the number of elements: {arg:?}: {e}"))?,
        None if device.is_simulator() => 1 << 18,
        None => 1 << 24,
    };
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Exponentially distributed energies: about e^-2 (13.5 %) pass 2.0.
    let energies: Vec<f32> = (0..n)
        .map(|_| -((next() >> 40) as f32 / (1u64 << 24) as f32 + 1e-7).ln())
        .collect();
    let mask: Vec<u8> = (0..n)
        .map(|i| u8::from(i % 3 == 0 || next() % 7 == 0))
        .collect();

    let stream = device.default_stream();
    let input = DeviceBuffer::from_slice(&device, &energies)?;
    let mut kept = DeviceBuffer::<f32>::zeros(&device, n)?;
    let threshold = 2.0f32;
    let start = std::time::Instant::now();
    let count = select_count(
        &stream,
        &input,
        Predicate::GreaterThan(threshold),
        &mut kept,
    )?;
    let elapsed = start.elapsed();
    let expected: Vec<f32> = energies
        .iter()
        .copied()
        .filter(|&e| e > threshold)
        .collect();
    if kept.to_vec()?[..count] != expected[..] {
        return Err(format!(
            "kept {count} elements above {threshold}, the CPU keeps {}, or they differ",
            expected.len()
        )
        .into());
    }
    println!(
        "{count} of {n} energies above {threshold} ({:.1} %) kept in order in {:.3} ms (host time, with allocation and synchronization); equal to the CPU's filter",
        100.0 * count as f64 / n as f64,
        elapsed.as_secs_f64() * 1e3
    );

    let flags = DeviceBuffer::from_slice(&device, &mask)?;
    let count = select_count(&stream, &input, Predicate::Flagged(&flags), &mut kept)?;
    let expected: Vec<f32> = energies
        .iter()
        .zip(&mask)
        .filter(|(_, m)| **m != 0)
        .map(|(e, _)| *e)
        .collect();
    if kept.to_vec()?[..count] != expected[..] {
        return Err(format!(
            "kept {count} flagged elements, the CPU keeps {}, or they differ",
            expected.len()
        )
        .into());
    }
    println!("{count} of {n} flagged elements kept in order; equal to the CPU's filter");
    Ok(())
}
