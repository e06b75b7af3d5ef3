//! The device-wide algorithms benchmark (GPU): `kernels_algorithms`' reduce, inclusive scans, an
//! exclusive scan and copy against CUB (`bench/algorithms.cu`, built by nvcc on the GPU machine) and CuPy
//! (`bench/algorithms_cupy.py`), on 2^26 elements. Run through `bench/run.sh`
//! (`BENCH_ONLY=algorithms`):
//!
//! ```text
//! bench_algorithms --cub cub.txt [--cupy cupy.txt] [--log2 26] [--out bench-algorithms.md]
//! bench_algorithms --simulator [--log2 12]     (a smoke run of the program on the simulator)
//! ```
//!
//! The inputs are those of `algorithms.cu`: element `i` of the `f32` input is
//! `(hash(i) >> 8) * 2^-24 - 0.5`, of the `u32` input `hash(i) & 0xff`. Each operation runs with
//! its temporary storage allocated beforehand (as the CUB program does), 3 warm-up runs, then 21
//! timed runs, each between two CUDA events on the default stream; the table gives the medians.
//! The results are checked against the host (an `f64` sum, the exact `u32` scan) and against
//! CUB's checksums.
//!
//! The ratio is CUB's time over ferrocuda's (higher is better for ferrocuda); GB/s counts the
//! bytes read and written once. Without a GPU the program prints `SKIP: no GPU` and exits 0.

use ferrocuda::prelude::*;
use ferrocuda_examples::{EventTimer, ExampleResult, median, optional_arg};
use kernels_algorithms::copy::copy;
use kernels_algorithms::reduce::{ReduceScratch, Sum, reduce_into};
use kernels_algorithms::scan::{ScanScratch, exclusive_scan_with, inclusive_scan_with};
use std::collections::HashMap;
use std::fmt::Write as _;

/// Untimed runs before the timed ones.
const WARM_UP: usize = 3;
/// Timed runs; the table gives their median.
const ROUNDS: usize = 21;

/// The 32-bit integer mix of `bench/algorithms.cu`.
fn hash_index(i: u32) -> u32 {
    let mut x = i.wrapping_mul(0x9e37_79b9);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85eb_ca6b);
    x ^= x >> 13;
    x = x.wrapping_mul(0xc2b2_ae35);
    x ^ (x >> 16)
}

/// `name median_ms [checksum]` lines of a reference program, by name (comment lines skipped).
fn read_results(path: &str) -> ExampleResult<HashMap<String, (f64, Option<f64>)>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
    let mut results = HashMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let ms = fields
            .get(1)
            .and_then(|f| f.parse::<f64>().ok())
            .ok_or_else(|| format!("{path}: expected 'name ms [checksum]', got '{line}'"))?;
        let checksum = fields.get(2).and_then(|f| f.parse::<f64>().ok());
        results.insert(fields[0].to_string(), (ms, checksum));
    }
    Ok(results)
}

/// The median ms of `run` (which queues its work on the default stream).
fn time(timer: &EventTimer, mut run: impl FnMut() -> ferrocuda::Result<()>) -> ExampleResult<f64> {
    for _ in 0..WARM_UP {
        run()?;
    }
    let mut times = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        times.push(timer.time(&mut run)?);
    }
    Ok(median(times))
}

/// One line of the table.
struct Row {
    /// What was measured.
    operation: &'static str,
    /// ferrocuda's median ms.
    ours: f64,
    /// The reference's median ms (CUB, or cudaMemcpy for the copy).
    reference: Option<f64>,
    /// CuPy's median ms.
    cupy: Option<f64>,
    /// Bytes read and written.
    bytes: f64,
    /// The target ratio (reference ms / ours), if the issue sets one.
    target: Option<f64>,
}

/// The Markdown table of `rows`.
fn table(rows: &[Row], n: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| operation (n = {n}) | ferrocuda ms | CUB ms | ratio (CUB / ferrocuda) | ferrocuda GB/s | CuPy ms | target |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for row in rows {
        let ratio = row.reference.map(|r| r / row.ours);
        let target = match (row.target, ratio) {
            (Some(t), Some(r)) if r >= t => format!(">= {t:.2}: met"),
            (Some(t), Some(r)) => format!(">= {t:.2}: MISSED by {:.1}%", (t - r) / t * 100.0),
            (Some(t), None) => format!(">= {t:.2}: no reference"),
            (None, _) => "(for scale)".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {:.4} | {} | {} | {:.0} | {} | {} |",
            row.operation,
            row.ours,
            row.reference.map_or("n/a".into(), |r| format!("{r:.4}")),
            ratio.map_or("n/a".into(), |r| format!("{r:.3}")),
            row.bytes / row.ours / 1e6,
            row.cupy.map_or("n/a".into(), |c| format!("{c:.4}")),
            target,
        );
    }
    out
}

fn main() -> ExampleResult {
    let simulator = std::env::args().any(|a| a == "--simulator");
    let log2: u32 = match optional_arg("--log2") {
        Some(v) => v
            .parse()
            .ok()
            .filter(|l| (4..=30).contains(l))
            .ok_or_else(|| format!("--log2 {v}: expected a whole number from 4 to 30"))?,
        None if simulator => 12,
        None => 26,
    };
    let device = if simulator {
        Device::simulator()
    } else {
        match Device::new(0) {
            Ok(device) => device,
            Err(e) => {
                println!("SKIP: no GPU ({e})");
                return Ok(());
            }
        }
    };
    println!("device: {device}");
    let cub = match optional_arg("--cub") {
        Some(path) => read_results(&path)?,
        None if simulator => HashMap::new(),
        None => return Err("--cub <output of bench/algorithms.cu> is required".into()),
    };
    let cupy = match optional_arg("--cupy") {
        Some(path) => read_results(&path)?,
        None => HashMap::new(),
    };
    let n = 1usize << log2;
    let hashes: Vec<u32> = (0..n as u32).map(hash_index).collect();
    let floats: Vec<f32> = hashes
        .iter()
        .map(|&h| (h >> 8) as f32 * (1.0 / 16_777_216.0) - 0.5)
        .collect();
    let words: Vec<u32> = hashes.iter().map(|&h| h & 0xff).collect();
    let f_in = DeviceBuffer::from_slice(&device, &floats)?;
    let u_in = DeviceBuffer::from_slice(&device, &words)?;
    let mut f_out = DeviceBuffer::<f32>::zeros(&device, n)?;
    let mut u_out = DeviceBuffer::<u32>::zeros(&device, n)?;
    let mut sum = DeviceBuffer::<f32>::zeros(&device, 1)?;
    let mut reduce_scratch = ReduceScratch::new(&device)?;
    let mut scan_scratch_f = ScanScratch::<f32>::new(&device, n)?;
    let mut scan_scratch_u = ScanScratch::<u32>::new(&device, n)?;
    let stream = device.default_stream();
    let timer = EventTimer::new(&device)?;
    let bytes = (n * 4) as f64;
    let mut failures = Vec::new();

    // Reduce.
    let reduce_ms = time(&timer, || {
        reduce_into(&stream, &f_in, &mut sum, Sum, &mut reduce_scratch)
    })?;
    let got = sum.to_vec()?[0] as f64;
    let exact: f64 = floats.iter().map(|&x| x as f64).sum();
    let magnitude: f64 = floats.iter().map(|&x| (x as f64).abs()).sum();
    if (got - exact).abs() > 1e-5 * magnitude {
        failures.push(format!("reduce sum: {got}, expected {exact}"));
    }
    if let Some((_, Some(cub_sum))) = cub.get("cub_reduce_sum_f32")
        && (got - cub_sum).abs() > 1e-5 * magnitude
    {
        failures.push(format!("reduce sum: {got}, CUB's is {cub_sum}"));
    }

    // Inclusive scans.
    let scan_f_ms = time(&timer, || {
        inclusive_scan_with(&stream, &f_in, &mut f_out, Sum, &mut scan_scratch_f)
    })?;
    let scanned = f_out.to_vec()?;
    let mut running = 0.0f64;
    let mut scale = 0.0f64;
    for (i, (&x, &y)) in floats.iter().zip(&scanned).enumerate() {
        running += x as f64;
        scale += (x as f64).abs();
        if (y as f64 - running).abs() > 1e-5 * scale + 1e-6 {
            failures.push(format!("f32 scan: element {i} is {y}, expected {running}"));
            break;
        }
    }
    let scan_u_ms = time(&timer, || {
        inclusive_scan_with(&stream, &u_in, &mut u_out, Sum, &mut scan_scratch_u)
    })?;
    let scanned = u_out.to_vec()?;
    let mut running = 0u32;
    for (i, (&x, &y)) in words.iter().zip(&scanned).enumerate() {
        running = running.wrapping_add(x);
        if y != running {
            failures.push(format!("u32 scan: element {i} is {y}, expected {running}"));
            break;
        }
    }
    if let Some((_, Some(cub_last))) = cub.get("cub_inclusive_scan_u32")
        && *cub_last != running as f64
    {
        failures.push(format!(
            "u32 scan: last element {running}, CUB's is {cub_last}"
        ));
    }

    // Exclusive scan (for scale: the issue sets no target for it).
    let exclusive_f_ms = time(&timer, || {
        exclusive_scan_with(&stream, &f_in, &mut f_out, 0.0, Sum, &mut scan_scratch_f)
    })?;
    let scanned = f_out.to_vec()?;
    let mut running = 0.0f64;
    let mut scale = 0.0f64;
    for (i, (&x, &y)) in floats.iter().zip(&scanned).enumerate() {
        if (y as f64 - running).abs() > 1e-5 * scale + 1e-6 {
            failures.push(format!(
                "f32 exclusive scan: element {i} is {y}, expected {running}"
            ));
            break;
        }
        running += x as f64;
        scale += (x as f64).abs();
    }

    // Copy.
    let copy_ms = time(&timer, || copy(&stream, &f_in, &mut f_out))?;
    if f_out.to_vec()? != floats {
        failures.push("copy: the destination differs from the source".to_string());
    }

    let ms = |map: &HashMap<String, (f64, Option<f64>)>, name: &str| map.get(name).map(|r| r.0);
    let rows = [
        Row {
            operation: "reduce sum f32",
            ours: reduce_ms,
            reference: ms(&cub, "cub_reduce_sum_f32"),
            cupy: ms(&cupy, "cupy_reduce_sum_f32"),
            bytes,
            target: Some(0.95),
        },
        Row {
            operation: "inclusive scan (sum) f32",
            ours: scan_f_ms,
            reference: ms(&cub, "cub_inclusive_scan_f32"),
            cupy: ms(&cupy, "cupy_inclusive_scan_f32"),
            bytes: 2.0 * bytes,
            target: Some(0.9),
        },
        Row {
            operation: "inclusive scan (sum) u32",
            ours: scan_u_ms,
            reference: ms(&cub, "cub_inclusive_scan_u32"),
            cupy: ms(&cupy, "cupy_inclusive_scan_u32"),
            bytes: 2.0 * bytes,
            target: Some(0.9),
        },
        Row {
            operation: "exclusive scan (sum) f32",
            ours: exclusive_f_ms,
            reference: ms(&cub, "cub_exclusive_scan_f32"),
            cupy: None,
            bytes: 2.0 * bytes,
            target: None,
        },
        Row {
            operation: "copy f32 (reference: cudaMemcpyAsync D2D)",
            ours: copy_ms,
            reference: ms(&cub, "cuda_memcpy_d2d_f32"),
            cupy: ms(&cupy, "cupy_copy_f32"),
            bytes: 2.0 * bytes,
            target: None,
        },
    ];
    let report = table(&rows, n);
    println!("{report}");
    if let Some(path) = optional_arg("--out") {
        std::fs::write(&path, &report).map_err(|e| format!("writing {path}: {e}"))?;
    }
    if failures.is_empty() {
        println!("results: all checked against the host");
        Ok(())
    } else {
        Err(format!("wrong results: {}", failures.join("; ")).into())
    }
}
