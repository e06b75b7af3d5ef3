//! The launch-cost benchmark of CUDA graphs (GPU only): 1,000 tiny kernels (`bump`, one block
//! of 256 threads) launched one by one on a stream, against the same 1,000 launches captured
//! once as a graph and replayed, with CUDA C doing both beside them (`bench/graphs.cu`). Run
//! through `bench/run.sh` (`BENCH_ONLY=graphs`):
//!
//! ```text
//! bench_graphs [--reference graphs_reference.txt] [--kernels 1000]
//! ```
//!
//! Each sample: synchronize the stream, start a host clock and record a CUDA event, queue the
//! 1,000 kernels (1,000 `launch!`s, or one `GraphExec::launch`), note the host time (enqueue),
//! record the end event, wait for it, stop the host clock (enqueue + completion). Reported per
//! kernel, in microseconds: the host's enqueue time, its enqueue-plus-completion time, and the
//! GPU's time between the events; medians of 21 samples after 3 warm-up ones. The result is
//! checked: every element counts every kernel that ran.
//!
//! `--reference` is the output of `bench/graphs.cu`: `name value` lines with the same keys.

use ferrocuda::prelude::*;
use ferrocuda::{GraphExec, Stream};
use ferrocuda_examples::{ExampleResult, median, optional_arg};
use kernels_nvptx::graphs::bump;
use std::collections::HashMap;
use std::time::Instant;

/// Untimed samples before the timed ones.
const WARM_UP: usize = 3;
/// Timed samples; the table gives their median.
const ROUNDS: usize = 21;
/// Threads of the one block of each tiny kernel (and elements of its buffer).
const THREADS: usize = 256;

/// The three medians of one way of queueing the kernels, in microseconds per kernel.
struct Costs {
    /// Host time to queue the kernels.
    enqueue_us: f64,
    /// Host time to queue them and wait for their completion.
    total_us: f64,
    /// GPU time between the events around them.
    gpu_us: f64,
}

/// Times `queue` (which queues `kernels` kernels on `stream`) as the module documentation says.
fn measure(
    device: &Device,
    stream: &Stream,
    kernels: usize,
    mut queue: impl FnMut() -> ferrocuda::Result<()>,
) -> ExampleResult<Costs> {
    let (start, end) = (Event::new(device)?, Event::new(device)?);
    let (mut enqueue, mut total, mut gpu) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..WARM_UP + ROUNDS {
        stream.synchronize()?;
        let clock = Instant::now();
        start.record(stream)?;
        queue()?;
        let queued = clock.elapsed();
        end.record(stream)?;
        end.synchronize()?;
        let done = clock.elapsed();
        if round >= WARM_UP {
            let per_kernel = |seconds: f64| seconds * 1e6 / kernels as f64;
            enqueue.push(per_kernel(queued.as_secs_f64()));
            total.push(per_kernel(done.as_secs_f64()));
            gpu.push(per_kernel(start.elapsed_ms(&end)? as f64 / 1e3));
        }
    }
    stream.synchronize()?;
    Ok(Costs {
        enqueue_us: median(enqueue),
        total_us: median(total),
        gpu_us: median(gpu),
    })
}

/// The `name value` lines of the CUDA C reference; empty (columns n/a) without the file.
fn read_reference() -> ExampleResult<HashMap<String, f64>> {
    let Some(path) = optional_arg("--reference") else {
        return Ok(HashMap::new());
    };
    let text = std::fs::read_to_string(&path).map_err(|e| format!("--reference {path}: {e}"))?;
    Ok(text
        .lines()
        .filter_map(|line| line.split_once(' '))
        .filter_map(|(key, value)| Some((key.to_string(), value.trim().parse().ok()?)))
        .collect())
}

/// A column of the table: ferrocuda's value and CUDA C's, if known.
fn cell(ours: f64, reference: Option<&f64>) -> String {
    match reference {
        Some(theirs) => format!("{ours:.3} | {theirs:.3}"),
        None => format!("{ours:.3} | n/a"),
    }
}

fn main() -> ExampleResult {
    let device = Device::default_device()?;
    if device.is_simulator() {
        println!(
            "SKIP: no GPU (bench_graphs times a GPU's launches; tests/tests/graphs.rs replays graphs on the simulator)"
        );
        return Ok(());
    }
    let kernels: usize = match optional_arg("--kernels") {
        Some(text) => text.parse().map_err(|e| format!("--kernels {text}: {e}"))?,
        None => 1000,
    };
    if !(1..=100_000).contains(&kernels) {
        return Err(format!("--kernels is {kernels}; it must be 1 to 100000").into());
    }
    let reference = read_reference()?;
    println!(
        "device: {device}; {kernels} kernels of 1 block x {THREADS} threads; {WARM_UP} warm-up samples, median of {ROUNDS}"
    );
    let stream = device.new_stream()?;
    let mut x = DeviceBuffer::<f32>::zeros(&device, THREADS)?;

    let launches = measure(&device, &stream, kernels, || {
        for _ in 0..kernels {
            launch!(bump[1, THREADS, &stream](&mut x))?;
        }
        Ok(())
    })?;
    let exec: GraphExec = stream
        .capture(|s| {
            for _ in 0..kernels {
                launch!(bump[1, THREADS, s](&mut x))?;
            }
            Ok(())
        })?
        .instantiate()?;
    let replays = measure(&device, &stream, kernels, || exec.launch(&stream))?;

    let ran = (2 * (WARM_UP + ROUNDS) * kernels) as f32;
    let counts = x.to_vec()?;
    if let Some((i, &v)) = counts.iter().enumerate().find(|(_, v)| **v != ran) {
        return Err(format!("element {i} counted {v} kernels; {ran} ran").into());
    }
    println!("check: every element counted all {ran} kernels");

    let r = |key: &str| reference.get(key);
    println!();
    println!("| us per kernel | ferrocuda | CUDA C |");
    println!("|---|---|---|");
    for (name, costs, prefix) in [
        ("stream launches", &launches, "stream"),
        ("graph replay", &replays, "graph"),
    ] {
        println!(
            "| {name}: host enqueue | {} |",
            cell(costs.enqueue_us, r(&format!("{prefix}_enqueue_us")))
        );
        println!(
            "| {name}: host enqueue + completion | {} |",
            cell(costs.total_us, r(&format!("{prefix}_total_us")))
        );
        println!(
            "| {name}: GPU (events) | {} |",
            cell(costs.gpu_us, r(&format!("{prefix}_gpu_us")))
        );
    }
    println!();
    println!(
        "graph replay vs stream launches, host enqueue + completion per kernel: {:.2}x cheaper (ferrocuda){}",
        launches.total_us / replays.total_us,
        match (r("stream_total_us"), r("graph_total_us")) {
            (Some(s), Some(g)) => format!("; CUDA C: {:.2}x", s / g),
            _ => String::new(),
        }
    );
    if let (Some(s), Some(g)) = (r("stream_total_us"), r("graph_total_us")) {
        println!(
            "ferrocuda / CUDA C, host enqueue + completion per kernel: stream launches {:.2}x, graph replay {:.2}x (1.00x = as cheap as CUDA C)",
            launches.total_us / s,
            replays.total_us / g
        );
    }
    Ok(())
}
