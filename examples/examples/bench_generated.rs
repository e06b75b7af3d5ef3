//! The benchmark of kernels generated from a scalar function (GPU only): `#[elementwise]` saxpy
//! against a plain CUDA C grid-stride kernel, and `#[reduction]` sum of squares against
//! `cub::DeviceReduce::TransformReduce`, on 2^26 `f32`, with CuPy's `ElementwiseKernel` and
//! `ReductionKernel` beside them. Run through `bench/run.sh` (`BENCH_ONLY=generated`):
//!
//! ```text
//! bench_generated --reference generated_reference.txt [--cupy generated_cupy.txt] [--log2 26]
//! ```
//!
//! `--reference` is the output of `bench/generated.cu`, `--cupy` that of
//! `bench/generated_cupy.py`: `name_ms value` lines, medians of 21 timed runs after 3 warm-up
//! runs, as here. ferrocuda's side: the generated launches as a user calls them
//! (`saxpy::launch(&stream, 2.5, &x, &y, &mut out)`, `sum_of_squares::reduce_into(&stream, &x,
//! &mut sum, &mut scratch)` with the scratch allocated once), one call between two CUDA events
//! per sample. Results are checked against the CPU: saxpy exactly (ferrocuda does not contract
//! the multiply-add), the sum within 1e-5 relative of an `f64` sum.
//!
//! The ratio is the reference's time over ferrocuda's (higher is better for ferrocuda); the
//! targets are 0.98x for saxpy and 0.95x for the sum of squares. GB/s counts the bytes read and
//! written once (12 per element for saxpy, 4 for the sum).

use ferrocuda::prelude::*;
use ferrocuda_examples::{EventTimer, ExampleResult, median, optional_arg, random_f32};
use kernels_nvptx::generated::{saxpy, sum_of_squares};
use std::collections::HashMap;

/// Untimed runs before the timed ones.
const WARM_UP: usize = 3;
/// Timed runs; the table gives their median.
const ROUNDS: usize = 21;

/// The `name value` lines of a reference's output; empty (every column n/a) without the file.
fn read_times(option: &str) -> ExampleResult<HashMap<String, String>> {
    let Some(path) = optional_arg(option) else {
        return Ok(HashMap::new());
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{option} {path}: {e}"))?;
    Ok(text
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(key, value)| (key.to_string(), value.trim().to_string()))
        .collect())
}

/// The median time of `ROUNDS` calls of `run`, after `WARM_UP` untimed ones.
fn median_ms(
    timer: &EventTimer,
    mut run: impl FnMut() -> ferrocuda::Result<()>,
) -> ExampleResult<f64> {
    for _ in 0..WARM_UP {
        timer.time(&mut run)?;
    }
    let mut times = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        times.push(timer.time(&mut run)?);
    }
    Ok(median(times))
}

/// One line of the table.
struct Row {
    /// What is measured.
    name: &'static str,
    /// The reference's name.
    reference: &'static str,
    /// The key of its time in the reference files.
    key: &'static str,
    /// ferrocuda's median, ms.
    ours_ms: f64,
    /// Bytes read and written.
    bytes: f64,
    /// reference ms / ferrocuda ms to reach.
    target: f64,
}

/// Where the reduction's time goes: the grid the launch picks, each of its two kernels timed
/// alone through its handle (same grid, block and shared memory), and the host time of one
/// `reduce_into` call (which lies inside the events: the GPU waits for the host's launches).
fn diagnose_reduction(
    timer: &EventTimer,
    device: &Device,
    x: &DeviceBuffer<f32>,
    sum: &mut DeviceBuffer<f32>,
    scratch: &mut DeviceBuffer<f32>,
    total_ms: f64,
) -> ExampleResult {
    use ferrocuda::__private::{REDUCE_BLOCK, reduce_grid};
    use ferrocuda::device::generated::reduce_shared_bytes;
    use sum_of_squares::{sum_of_squares_finish, sum_of_squares_partials};
    let grid = reduce_grid(device, x.len());
    let shared = reduce_shared_bytes(REDUCE_BLOCK, size_of::<f32>());
    let partials_ms = median_ms(timer, || {
        sum_of_squares_partials
            .grid(grid)
            .block(REDUCE_BLOCK)
            .shared_mem(shared)
            .launch(x, scratch.slice_mut(..grid as usize))
    })?;
    let finish_ms = median_ms(timer, || {
        sum_of_squares_finish
            .grid(1)
            .block(REDUCE_BLOCK)
            .shared_mem(shared)
            .launch(scratch.slice(..grid as usize), &mut *sum)
    })?;
    let stream = device.default_stream();
    let mut host_us = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let start = std::time::Instant::now();
        sum_of_squares::reduce_into(&stream, x, &mut *sum, &mut *scratch)?;
        host_us.push(start.elapsed().as_secs_f64() * 1e6);
        stream.synchronize()?;
    }
    let attributes = sum_of_squares_partials.attributes(device)?;
    println!(
        "sum of squares, where the time goes: {grid} blocks of {REDUCE_BLOCK} ({} multiprocessors), {shared} B shared; partials kernel alone {partials_ms:.4} ms ({:.0} GB/s), finish kernel alone {finish_ms:.4} ms, both through reduce_into {total_ms:.4} ms; host time of one reduce_into call {:.1} us (median); partials kernel: {attributes}",
        device.limits().multiprocessor_count,
        4.0 * x.len() as f64 / (partials_ms * 1e6),
        median(host_us),
    );
    Ok(())
}

fn main() -> ExampleResult {
    let device = Device::default_device()?;
    if device.is_simulator() {
        println!(
            "SKIP: no GPU (bench_generated times a GPU; tests/tests/generated.rs runs the same generated kernels on the simulator)"
        );
        return Ok(());
    }
    let log2_n: u32 = match optional_arg("--log2") {
        Some(text) => text.parse().map_err(|e| format!("--log2 {text}: {e}"))?,
        None => 26,
    };
    if !(10..=30).contains(&log2_n) {
        return Err(format!("--log2 is {log2_n}; it must be 10 to 30").into());
    }
    let n = 1usize << log2_n;
    println!("device: {device}; n = 2^{log2_n} f32; {WARM_UP} warm-up runs, median of {ROUNDS}");
    let reference = read_times("--reference")?;
    let cupy = read_times("--cupy")?;
    for (what, times) in [("CUDA C / CUB", &reference), ("CuPy", &cupy)] {
        for (key, value) in times.iter().filter(|(key, _)| key.ends_with("_check")) {
            println!("{what} {key}: {value}");
        }
        if let Some(reason) = times.get("unavailable") {
            println!("{what} unavailable: {reason}");
        }
    }

    let stream = device.default_stream();
    let timer = EventTimer::new(&device)?;
    let (x, y) = (random_f32(n, 1), random_f32(n, 2));
    let x_dev = DeviceBuffer::from_slice(&device, &x)?;
    let y_dev = DeviceBuffer::from_slice(&device, &y)?;
    let mut out = DeviceBuffer::<f32>::zeros(&device, n)?;

    let saxpy_ms = median_ms(&timer, || {
        saxpy::launch(&stream, 2.5, &x_dev, &y_dev, &mut out)
    })?;
    let got = out.to_vec()?;
    if let Some(i) = (0..n).find(|&i| got[i] != 2.5 * x[i] + y[i]) {
        return Err(format!(
            "saxpy: element {i} is {} instead of {}",
            got[i],
            2.5 * x[i] + y[i]
        )
        .into());
    }

    let mut sum = DeviceBuffer::<f32>::zeros(&device, 1)?;
    let mut scratch = DeviceBuffer::<f32>::zeros(&device, sum_of_squares::scratch_len(&device))?;
    let sum_ms = median_ms(&timer, || {
        sum_of_squares::reduce_into(&stream, &x_dev, &mut sum, &mut scratch)
    })?;
    let total = f64::from(sum.to_vec()?[0]);
    let expected: f64 = x.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
    if (total - expected).abs() > 1e-5 * expected {
        return Err(format!("sum of squares: {total} instead of {expected} (f64)").into());
    }
    println!("ferrocuda saxpy_check ok, sum_of_squares_check ok ({total:.6e}, CPU {expected:.6e})");

    let rows = [
        Row {
            name: "#[elementwise] saxpy",
            reference: "CUDA C kernel",
            key: "saxpy_ms",
            ours_ms: saxpy_ms,
            bytes: 12.0 * n as f64,
            target: 0.98,
        },
        Row {
            name: "#[reduction] sum of squares",
            reference: "cub::DeviceReduce::TransformReduce",
            key: "sum_of_squares_ms",
            ours_ms: sum_ms,
            bytes: 4.0 * n as f64,
            target: 0.95,
        },
    ];
    let time = |times: &HashMap<String, String>, key: &str| -> Option<f64> {
        times.get(key).and_then(|v| v.parse().ok())
    };
    println!();
    println!(
        "| target | ferrocuda ms | ferrocuda GB/s | reference | reference ms | ratio | CuPy ms | CuPy / ferrocuda | target ratio | met |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut missed = Vec::new();
    for row in &rows {
        let gb_per_s = row.bytes / (row.ours_ms * 1e6);
        let (reference_ms, ratio, met) = match time(&reference, row.key) {
            Some(ms) => {
                let ratio = ms / row.ours_ms;
                let met = ratio >= row.target;
                if !met {
                    missed.push(format!(
                        "{}: {ratio:.3}x of {} (target {:.2}x, missed by {:.1}%)",
                        row.name,
                        row.reference,
                        row.target,
                        (row.target - ratio) / row.target * 100.0
                    ));
                }
                (
                    format!("{ms:.4}"),
                    format!("{ratio:.3}x"),
                    if met { "yes" } else { "NO" },
                )
            }
            None => ("n/a".to_string(), "n/a".to_string(), "n/a"),
        };
        let (cupy_ms, cupy_ratio) = match time(&cupy, row.key) {
            Some(ms) => (format!("{ms:.4}"), format!("{:.3}x", ms / row.ours_ms)),
            None => ("n/a".to_string(), "n/a".to_string()),
        };
        println!(
            "| {} | {:.4} | {gb_per_s:.0} | {} | {reference_ms} | {ratio} | {cupy_ms} | {cupy_ratio} | >= {:.2}x | {met} |",
            row.name, row.ours_ms, row.reference, row.target
        );
    }
    println!();
    diagnose_reduction(&timer, &device, &x_dev, &mut sum, &mut scratch, sum_ms)?;
    println!();
    if missed.is_empty() {
        println!("generated targets: all met (or n/a without the reference)");
    } else {
        println!("generated targets missed: {}", missed.join("; "));
    }
    Ok(())
}
