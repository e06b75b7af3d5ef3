//! A bf16 GEMM on the tensor cores: `C = A B` with random bf16 `A` (M x K) and `B` (K x N) and an
//! f32 `C`, through `kernels_nvptx::gemm_bf16` (cp.async pipeline, ldmatrix, mma.sync; needs
//! sm_80 and kernels built for it, e.g. `FERROCUDA_ARCH=sm_90`). The result is checked against an
//! `f64` CPU reference computed from the same bf16 values; on a GPU the kernel is timed with CUDA
//! events (median of repeated launches after a warm-up) and its TFLOP/s printed.
//!
//! ```text
//! cargo run --release --example gemm_bf16                 # simulator: 256 x 256 x 64
//! gemm_bf16 --sizes 4096,8192 --torch-tflops 723,787      # GPU: square sizes, cuBLAS figures
//! ```
//!
//! `--sizes` takes square sizes (each a multiple of 128); the defaults are 4096 and 8192 on a GPU
//! and 256 x 256 x 64 on the simulator. `--torch-tflops` takes one cuBLAS figure per size (or one
//! for all), as `bench/torch_matmul.py` prints them, and adds the ratio to it and whether it
//! reaches the target of 0.5.
//!
//! Tolerance: per element `(K / 16) 2^-18 sum_k |A B|`, the project's tolerance for one `mma`
//! once per 16 of K (see `ferrocuda::device::mma`). On a GPU at these sizes the CPU reference
//! covers the first and the last 128 x 128 tile of `C` and 4096 elements spread over the rest;
//! on the simulator every element.
//!
//! Printed for each size, besides a human-readable line: `gemm_bf16_tflops_<n> <x>` and, with
//! `--torch-tflops`, `gemm_bf16_ratio_to_cublas_<n> <r>`.

use ferrocuda::device::half::bf16;
use ferrocuda::prelude::*;
use ferrocuda_examples::{
    EventTimer, ExampleResult, device, median, optional_arg, random_f32, reference,
};
use kernels_nvptx::gemm_bf16::{SHARED_BYTES, THREADS, blocks, gemm_bf16, gemm_bf16_launch};

/// Launches timed per size after the warm-up.
const TIMED_RUNS: usize = 10;
/// The issue's target: at least half of cuBLAS's throughput.
const TARGET_RATIO: f64 = 0.5;

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
/// (`B` transposed: column `col` of `B` is contiguous, which keeps the CPU's caches useful).
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

/// The elements the CPU checks: all of them when `all`, else the first and last 128 x 128
/// tiles and 4096 more spread over the matrix.
fn checked_elements(m: usize, n: usize, all: bool) -> Vec<(usize, usize)> {
    if all {
        return (0..m).flat_map(|r| (0..n).map(move |c| (r, c))).collect();
    }
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

/// Runs, checks and (on a GPU) times one size; returns the TFLOP/s (`None` on the simulator).
fn run(device: &Device, (m, n, k): (usize, usize, usize)) -> ExampleResult<Option<f64>> {
    let (a, a_exact) = random_bf16(m * k, 1);
    let (b, b_exact) = random_bf16(k * n, 2);
    let a_dev = DeviceBuffer::from_slice(device, &a)?;
    let b_dev = DeviceBuffer::from_slice(device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(device, m * n)?;
    let stream = device.default_stream();
    gemm_bf16_launch(&stream, &a_dev, &b_dev, &mut c_dev, (m, n, k))?;
    device.synchronize()?;
    let c = c_dev.to_vec()?;

    let per_magnitude = (k / 16) as f64 * 2f64.powi(-18);
    let b_transposed = reference::transpose(&b_exact, n, k);
    let elements = checked_elements(m, n, device.is_simulator());
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
    if device.is_simulator() {
        return Ok(None);
    }
    let timer = EventTimer::new(device)?;
    // The sizes and architecture were checked by the first launch: the timed ones go straight
    // through `launch!`.
    let grid = blocks(m, n);
    let (m32, n32, k32) = (m as u32, n as u32, k as u32);
    let mut time_one = || {
        timer.time(|| {
            launch!(gemm_bf16[grid, THREADS, &stream, SHARED_BYTES](
                &a_dev, &b_dev, &mut c_dev, m32, n32, k32
            ))
        })
    };
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
    Ok(Some(tflops))
}

fn main() -> ExampleResult {
    let device = device()?;
    let sizes: Vec<(usize, usize, usize)> = match optional_arg("--sizes") {
        Some(text) => list::<usize>("--sizes", &text)?
            .into_iter()
            .map(|s| (s, s, s))
            .collect(),
        None if device.is_simulator() => {
            println!("(simulator: 256 x 256 x 64 only; no timing)");
            vec![(256, 256, 64)]
        }
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
        let Some(tflops) = run(&device, size)? else {
            continue;
        };
        let n = size.0;
        println!("gemm_bf16_tflops_{n} {tflops:.1}");
        if let Some(&cublas) = torch.get(i).or(torch.first()) {
            let ratio = tflops / cublas;
            let verdict = if ratio >= TARGET_RATIO {
                "met"
            } else {
                "MISSED"
            };
            println!("gemm_bf16_ratio_to_cublas_{n} {ratio:.3}");
            println!(
                "{n}^3: {tflops:.1} TFLOP/s against cuBLAS {cublas:.1}: {ratio:.2}x (target >= {TARGET_RATIO}x: {verdict})"
            );
        }
    }
    Ok(())
}
