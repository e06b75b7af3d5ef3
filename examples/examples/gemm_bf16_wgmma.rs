//! The Hopper bf16 GEMM: `C = A B` with random bf16 `A` (M x K) and `B` (K x N) and an f32 `C`,
//! through `kernels_hopper::gemm_bf16_wgmma` (warp-specialised: TMA copies into a 4-stage ring
//! with mbarriers, `wgmma.mma_async.m64n256k16` from 128-byte-swizzled shared memory; sm_90a,
//! so an H100 or H200). The result is checked against an `f64` CPU reference computed from the
//! same bf16 values; the kernel is timed with CUDA events (median of repeated launches after a
//! warm-up) and its TFLOP/s printed.
//!
//! ```text
//! cargo run --release --example gemm_bf16_wgmma             # simulator: reports the refusal
//! gemm_bf16_wgmma --sizes 4096,8192 --torch-tflops 723,787  # GPU: square sizes, cuBLAS figures
//! ```
//!
//! `--sizes` takes square sizes (each a multiple of 256); the default is 4096 and 8192.
//! `--torch-tflops` takes one cuBLAS figure per size (or one for all), as
//! `bench/torch_matmul.py` prints them, and adds the ratio to it and whether it reaches the
//! target of 0.7.
//!
//! Tolerance: per element `(K / 16) 2^-18 sum_k |A B|`, as for `gemm_bf16`. The CPU reference
//! covers the first and the last 128 x 128 tile of `C` and 4096 elements spread over the rest.
//!
//! On the simulator, which cannot execute `wgmma`, TMA or mbarriers, the example prints the
//! simulator's refusal (`SimulatorFault::UnsupportedInstruction`, naming the instruction) and
//! exits successfully: nothing else can be shown there.
//!
//! Printed for each size, besides a human-readable line: `gemm_bf16_wgmma_tflops_<n> <x>` and,
//! with `--torch-tflops`, `gemm_bf16_wgmma_ratio_to_cublas_<n> <r>`.

use ferrocuda::device::half::bf16;
use ferrocuda::prelude::*;
use ferrocuda_examples::{
    EventTimer, ExampleResult, device, median, optional_arg, random_f32, reference,
};
use kernels_hopper::gemm_bf16_wgmma::GemmWgmmaMaps;

/// Launches timed per size after the warm-up.
const TIMED_RUNS: usize = 10;
/// The issue's target: at least 0.7 of cuBLAS's throughput.
const TARGET_RATIO: f64 = 0.7;

/// Parses a comma-separated list of numbers given after `name`.
fn list<T: std::str::FromStr>(name: &str, text: &str) -> Result<Vec<T>, String> {
    text.split(',')
        .map(|item| {
            item.trim()
                .parse()
                .map_err(|_| format!("{name}: `{item}` is not a number (expected e.g. 4096,8192)"))
        })
        .collect()
}

/// `n` random bf16 values in [-1, 1) and their exact `f32` values.
fn random_bf16(n: usize, seed: u64) -> (Vec<bf16>, Vec<f32>) {
    let values: Vec<bf16> = random_f32(n, seed)
        .into_iter()
        .map(bf16::from_f32)
        .collect();
    let exact = values.iter().map(|x| x.to_f32()).collect();
    (values, exact)
}

/// `C[row][col]` in `f64` and the sum of the products' magnitudes, from `a` (row-major) and `b_t`
/// (`B` transposed).
fn reference_element(a: &[f32], b_t: &[f32], k: usize, row: usize, col: usize) -> (f64, f64) {
    let (a_row, b_col) = (&a[row * k..(row + 1) * k], &b_t[col * k..(col + 1) * k]);
    a_row
        .iter()
        .zip(b_col)
        .fold((0.0, 0.0), |(sum, size), (&x, &y)| {
            let product = x as f64 * y as f64;
            (sum + product, size + product.abs())
        })
}

/// The elements the CPU checks: the first and last 128 x 128 tiles and 4096 more spread over
/// the matrix.
fn checked_elements(m: usize, n: usize) -> Vec<(usize, usize)> {
    let mut elements: Vec<(usize, usize)> = (0..128)
        .flat_map(|r| (0..128).flat_map(move |c| [(r, c), (m - 128 + r, n - 128 + c)]))
        .collect();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..4096 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        elements.push(((state >> 33) as usize % m, (state >> 13) as usize % n));
    }
    elements
}

/// Runs, checks and times one size; returns the TFLOP/s.
fn run(device: &Device, (m, n, k): (usize, usize, usize)) -> ExampleResult<f64> {
    let (a, a_exact) = random_bf16(m * k, 1);
    let (b, b_exact) = random_bf16(k * n, 2);
    let a_dev = DeviceBuffer::from_slice(device, &a)?;
    let b_dev = DeviceBuffer::from_slice(device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(device, m * n)?;
    let stream = device.default_stream();
    let maps = GemmWgmmaMaps::new(&a_dev, &b_dev, (m, n, k))?;
    maps.launch(&stream, &mut c_dev)?;
    device.synchronize()?;
    let c = c_dev.to_vec()?;

    let per_magnitude = (k / 16) as f64 * 2f64.powi(-18);
    let b_transposed = reference::transpose(&b_exact, n, k);
    let elements = checked_elements(m, n);
    let mut worst = 0.0f64;
    for &(row, col) in &elements {
        let (want, size) = reference_element(&a_exact, &b_transposed, k, row, col);
        let got = c[row * n + col] as f64;
        let error = (got - want).abs();
        if error.is_nan() || error > per_magnitude * size {
            return Err(format!(
                "{m} x {n} x {k}: C[{row}][{col}] = {got}, expected {want} (error {error:e}, tolerance {:e})",
                per_magnitude * size
            )
            .into());
        }
        if size > 0.0 {
            worst = worst.max(error / size);
        }
    }
    println!(
        "C ({m} x {n}) = A ({m} x {k}) B ({k} x {n}): {} elements match the CPU (worst error {worst:.2e} of sum |a b|, tolerance {per_magnitude:.2e})",
        elements.len()
    );
    let timer = EventTimer::new(device)?;
    let mut time_one = || timer.time(|| maps.launch(&stream, &mut c_dev));
    // Warm-up (clocks, caches), then the timed launches.
    for _ in 0..3 {
        time_one()?;
    }
    let times: Vec<f64> = (0..TIMED_RUNS)
        .map(|_| time_one())
        .collect::<Result<_, _>>()?;
    let ms = median(times);
    let tflops = 2.0 * (m * n * k) as f64 / (ms * 1e-3) / 1e12;
    println!("{m} x {n} x {k}: {ms:.3} ms, {tflops:.1} TFLOP/s (median of {TIMED_RUNS})");
    Ok(tflops)
}

fn main() -> ExampleResult {
    let device = device()?;
    if device.is_simulator() {
        let a = DeviceBuffer::<bf16>::zeros(&device, 128 * 64)?;
        let b = DeviceBuffer::<bf16>::zeros(&device, 64 * 256)?;
        let mut c = DeviceBuffer::<f32>::zeros(&device, 128 * 256)?;
        let maps = GemmWgmmaMaps::new(&a, &b, (128, 256, 64))?;
        match maps
            .launch(&device.default_stream(), &mut c)
            .and_then(|()| device.synchronize())
        {
            Err(error @ ferrocuda::Error::SimulatorFault(_)) => {
                println!(
                    "gemm_bf16_wgmma runs only on an sm_90 GPU; the simulator refused it: {error}"
                );
                return Ok(());
            }
            other => return Err(format!("expected the simulator to refuse, got {other:?}").into()),
        }
    }
    let sizes: Vec<(usize, usize, usize)> = match optional_arg("--sizes") {
        Some(text) => list::<usize>("--sizes", &text)?
            .into_iter()
            .map(|s| (s, s, s))
            .collect(),
        None => vec![(4096, 4096, 4096), (8192, 8192, 8192)],
    };
    let torch: Vec<f64> = match optional_arg("--torch-tflops") {
        Some(text) => list("--torch-tflops", &text)?,
        None => Vec::new(),
    };
    if !(torch.is_empty() || torch.len() == 1 || torch.len() == sizes.len()) {
        return Err(format!(
            "--torch-tflops: {} figures for {} sizes (give one per size, or one for all)",
            torch.len(),
            sizes.len()
        )
        .into());
    }
    for (i, &size) in sizes.iter().enumerate() {
        let tflops = run(&device, size)?;
        let n = size.0;
        println!("gemm_bf16_wgmma_tflops_{n} {tflops:.1}");
        if let Some(&cublas) = torch.get(i).or(torch.first()) {
            let ratio = tflops / cublas;
            let verdict = if ratio >= TARGET_RATIO {
                "met"
            } else {
                "MISSED"
            };
            println!("gemm_bf16_wgmma_ratio_to_cublas_{n} {ratio:.3}");
            println!(
                "{n}^3 (wgmma + TMA): {tflops:.1} TFLOP/s against cuBLAS {cublas:.1}: {ratio:.2}x (target >= {TARGET_RATIO}x: {verdict})"
            );
        }
    }
    Ok(())
}
