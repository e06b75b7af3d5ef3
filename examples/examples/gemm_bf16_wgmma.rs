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
use ferrocuda_examples::gemm::{
    GemmArgs, TIMED_RUNS, check_gemm, gemm_tflops, median_ms, random_bf16,
};
use ferrocuda_examples::{ExampleResult, device};
use kernels_hopper::gemm_bf16_wgmma::GemmWgmmaMaps;

/// The issue's target: at least 0.7 of cuBLAS's throughput.
const TARGET_RATIO: f64 = 0.7;

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

    check_gemm(&c, (&a_exact, &b_exact), (m, n, k), false)?;
    let ms = median_ms(device, || maps.launch(&stream, &mut c_dev))?;
    let tflops = gemm_tflops((m, n, k), ms);
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
    let args = GemmArgs::parse(vec![(4096, 4096, 4096), (8192, 8192, 8192)])?;
    for (i, &size) in args.sizes.iter().enumerate() {
        let tflops = run(&device, size)?;
        args.report(
            "gemm_bf16_wgmma",
            " (wgmma + TMA)",
            i,
            size.0,
            tflops,
            TARGET_RATIO,
        );
    }
    Ok(())
}
