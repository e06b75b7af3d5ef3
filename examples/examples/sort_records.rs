//! Sorting records by key, as one sorts a table on the GPU with CuPy (`cupy.argsort` then a
//! gather) or CUB (`DeviceRadixSort::SortPairs` on (key, index)): the records stay where they
//! are; their `f32` scores and their indices are sorted as pairs
//! (`kernels_algorithms::radix_sort::sort_pairs`), and the records are gathered in that order.
//! The result is checked against the CPU's stable `sort_by`, ties included (scores repeat).
//!
//! `cargo run --release --example sort_records [records]`: 2^22 records on a GPU, 2^16 on the
//! simulator unless given.

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device};
use kernels_algorithms::radix_sort::sort_pairs;

/// One record of the table.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Record {
    id: u32,
    score: f32,
    name: [u8; 8],
}

fn main() -> ExampleResult {
    let device = device()?;
    let n: usize = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|e| format!("the argument is the number of records: {arg:?}: {e}"))?,
        None if device.is_simulator() => 1 << 16,
        None => 1 << 22,
    };
    // Scores in steps of 0.25 from -500 to 500 repeat often, both signs, so the stable order of
    // ties shows.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let records: Vec<Record> = (0..n as u32)
        .map(|id| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let score = (state % 4001) as f32 * 0.25 - 500.0;
            let mut name = *b"rec-0000";
            name[4..].copy_from_slice(format!("{:04}", id % 10_000).as_bytes());
            Record { id, score, name }
        })
        .collect();

    let stream = device.default_stream();
    let scores: Vec<f32> = records.iter().map(|r| r.score).collect();
    let indices: Vec<u32> = (0..n as u32).collect();
    let mut keys = DeviceBuffer::from_slice(&device, &scores)?;
    let mut order = DeviceBuffer::from_slice(&device, &indices)?;
    let start = stream.record_event()?;
    sort_pairs(&stream, &mut keys, &mut order)?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = f64::from(start.elapsed_ms(&end)?);
    let sorted: Vec<Record> = order
        .to_vec()?
        .iter()
        .map(|&i| records[i as usize])
        .collect();

    let mut expected = records.clone();
    expected.sort_by(|a, b| a.score.total_cmp(&b.score));
    if sorted != expected {
        let first = (0..n).find(|&i| sorted[i] != expected[i]).unwrap_or(0);
        return Err(format!(
            "record {first} differs: {:?}, expected {:?}",
            sorted[first], expected[first]
        )
        .into());
    }
    let show = |r: &Record| {
        format!(
            "{} ({}, {})",
            r.score,
            r.id,
            String::from_utf8_lossy(&r.name)
        )
    };
    println!(
        "sorted {n} records by score in {ms:.3} ms (with allocation of the temporary storage): lowest {}, highest {}; equal to the CPU's stable sort",
        show(&sorted[0]),
        show(&sorted[n - 1])
    );
    Ok(())
}
