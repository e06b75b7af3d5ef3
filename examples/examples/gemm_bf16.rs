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
//! `--sizes` takes square sizes (each a multiple of 256); the defaults are 4096 and 8192 on a GPU
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

use ferrocuda::prelude::*;
use ferrocuda_examples::gemm::{
    GemmArgs, TIMED_RUNS, check_gemm, gemm_tflops, median_ms, random_bf16,
};
use ferrocuda_examples::{ExampleResult, device};
use kernels_nvptx::gemm_bf16::{SHARED_BYTES, THREADS, blocks, gemm_bf16, gemm_bf16_launch};

/// The issue's target: at least half of cuBLAS's throughput.
const TARGET_RATIO: f64 = 0.5;

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

    check_gemm(&c, (&a_exact, &b_exact), (m, n, k), device.is_simulator())?;
    if device.is_simulator() {
        return Ok(None);
    }
    // The sizes and architecture were checked by the first launch: the timed ones go straight
    // through `launch!`.
    let grid = blocks(m, n);
    let (m32, n32, k32) = (m as u32, n as u32, k as u32);
    let ms = median_ms(device, || {
        launch!(gemm_bf16[grid, THREADS, &stream, SHARED_BYTES](
            &a_dev, &b_dev, &mut c_dev, m32, n32, k32
        ))
    })?;
    let tflops = gemm_tflops((m, n, k), ms);
    println!("{m} x {n} x {k}: {ms:.3} ms, {tflops:.1} TFLOP/s (median of {TIMED_RUNS})");
    Ok(Some(tflops))
}

fn main() -> ExampleResult {
    let device = device()?;
    let default = if device.is_simulator() {
        println!("(simulator: 256 x 256 x 64 only; no timing)");
        vec![(256, 256, 64)]
    } else {
        vec![(4096, 4096, 4096), (8192, 8192, 8192)]
    };
    let args = GemmArgs::parse(default)?;
    for (i, &size) in args.sizes.iter().enumerate() {
        let Some(tflops) = run(&device, size)? else {
            continue;
        };
        args.report("gemm_bf16", "", i, size.0, tflops, TARGET_RATIO);
    }
    Ok(())
}
