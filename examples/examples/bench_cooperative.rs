//! The cooperative-launch benchmark (GPU only): the sum of 2^26 `f32` in one cooperative launch
//! with a grid barrier (`kernels_nvptx::grid_sync_sum`) against the same reduction in two
//! launches (`kernels_algorithms::reduce::reduce_into`, one partial per block, then one block
//! sums the partials), with the CUDA C versions beside them: a cooperative-groups
//! `grid.sync()` kernel and `cub::DeviceReduce::Sum` (`bench/cooperative.cu`). Run through
//! `bench/run.sh` (`BENCH_ONLY=cooperative`):
//!
//! ```text
//! bench_cooperative [--reference cooperative_reference.txt] [--log2 26]
//! ```
//!
//! `--reference` is the output of `bench/cooperative.cu`: `name median_ms sum` lines, medians of
//! 21 timed runs after 3 warm-up runs, as here (one call between two CUDA events per sample).
//! Both of ferrocuda's sums are checked against an `f64` CPU sum. The cooperative grid has as
//! many blocks of 256 threads as the device holds at once (`max_cooperative_blocks`); the
//! two-launch reduction picks its own grid. GB/s counts the 4 bytes read per element.

use ferrocuda::prelude::*;
use ferrocuda_examples::{EventTimer, ExampleResult, median, optional_arg};
use kernels_algorithms::reduce::{ReduceScratch, Sum, reduce_into};
use kernels_nvptx::grid_sync_sum::grid_sync_sum;
use std::collections::HashMap;

/// Untimed runs before the timed ones.
const WARM_UP: usize = 3;
/// Timed runs; the table gives their median.
const ROUNDS: usize = 21;
/// Threads per block of the cooperative sum.
const THREADS: u32 = 256;

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

/// The `name median_ms sum` lines of the reference's output, by name; empty without the file.
fn read_reference() -> ExampleResult<HashMap<String, (f64, f64)>> {
    let Some(path) = optional_arg("--reference") else {
        return Ok(HashMap::new());
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("--reference {path}: {e}"))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let name = fields.next()?;
            let ms = fields.next()?.parse().ok()?;
            let sum = fields.next()?.parse().ok()?;
            Some((name.to_string(), (ms, sum)))
        })
        .collect())
}

/// Element `i` of the input, the same on the CUDA C side: exact in `f32`, so the `f64` sum is
/// the exact sum.
fn element(i: usize) -> f32 {
    ((i * 37 % 1001) as f32 - 500.0) / 256.0
}

/// Checks a device sum against the exact one, within a float sum's error bound.
fn check(what: &str, sum: f64, exact: f64, abs_sum: f64) -> ExampleResult {
    let bound = 1e-6 * abs_sum + 1e-3;
    if (sum - exact).abs() > bound {
        return Err(format!("{what}: {sum} against the exact {exact} (bound {bound:.1e})").into());
    }
    Ok(())
}

fn main() -> ExampleResult {
    let device = Device::default_device()?;
    if device.is_simulator() {
        println!("skipped: bench_cooperative times a GPU (no CUDA GPU here)");
        return Ok(());
    }
    let log2: u32 = optional_arg("--log2").map_or(Ok(26), |v| v.parse())?;
    let n = 1usize << log2;
    let x: Vec<f32> = (0..n).map(element).collect();
    let exact: f64 = x.iter().map(|&v| v as f64).sum();
    let abs_sum: f64 = x.iter().map(|&v| v.abs() as f64).sum();
    let input = DeviceBuffer::from_slice(&device, &x)?;
    let timer = EventTimer::new(&device)?;
    let stream = device.default_stream();

    let blocks = grid_sync_sum.max_cooperative_blocks(&device, THREADS, 0u32)?;
    let mut partials = DeviceBuffer::<f32>::zeros(&device, blocks as usize)?;
    let mut cooperative_out = DeviceBuffer::<f32>::zeros(&device, 1)?;
    let cooperative_ms = median_ms(
        &timer,
        || launch!(grid_sync_sum[blocks, THREADS](&input, &mut partials, &mut cooperative_out)),
    )?;
    let cooperative_sum = cooperative_out.to_vec()?[0] as f64;
    check("grid_sync_sum", cooperative_sum, exact, abs_sum)?;

    let mut scratch = ReduceScratch::new(&device)?;
    let mut two_out = DeviceBuffer::<f32>::zeros(&device, 1)?;
    let two_ms = median_ms(&timer, || {
        reduce_into(&stream, &input, &mut two_out, Sum, &mut scratch)
    })?;
    let two_sum = two_out.to_vec()?[0] as f64;
    check("reduce_into", two_sum, exact, abs_sum)?;

    let reference = read_reference()?;
    let gbs = |ms: f64| 4.0 * n as f64 / (ms * 1e6);
    println!(
        "## Cooperative grid-barrier sum of 2^{log2} f32 on {} ({blocks} blocks of {THREADS} threads, {} multiprocessors)\n",
        device.name(),
        device.limits().multiprocessor_count
    );
    println!("| version | launches | median ms | GB/s | time / ferrocuda two-launch |");
    println!("|---|---|---|---|---|");
    let row = |name: &str, launches: &str, ms: f64| {
        println!(
            "| {name} | {launches} | {ms:.4} | {:.0} | {:.3} |",
            gbs(ms),
            ms / two_ms
        );
    };
    row(
        "ferrocuda grid_sync_sum (grid_sync)",
        "1 cooperative",
        cooperative_ms,
    );
    row("ferrocuda reduce_into (kernels-algorithms)", "2", two_ms);
    for (key, name, launches) in [
        (
            "cg_grid_sync_sum",
            "CUDA C cooperative groups grid.sync()",
            "1 cooperative",
        ),
        ("cub_device_reduce_sum", "cub::DeviceReduce::Sum", "2"),
    ] {
        match reference.get(key) {
            Some(&(ms, sum)) => {
                check(name, sum, exact, abs_sum)?;
                row(name, launches, ms);
            }
            None => println!("| {name} | {launches} | n/a | n/a | n/a |"),
        }
    }
    println!(
        "\ncooperative / two-launch time ratio (ferrocuda): {:.3} ({cooperative_ms:.4} ms against {two_ms:.4} ms)",
        cooperative_ms / two_ms
    );
    Ok(())
}
