//! The benchmark helper, like `cupyx.profiler.benchmark(f, n_warmup=10,
//! n_repeat=100)`: `ferrocuda::bench` runs a launch repeatedly and reports the GPU time per call
//! (CUDA events around each call) and the host time spent launching.
//!
//! `cargo run --release --example benchmark_helper`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::elementwise::vecadd;

fn mean_and_std(samples: &[f64]) -> (f64, f64) {
    let mean = samples.iter().sum::<f64>() / samples.len() as f64;
    let variance =
        samples.iter().map(|s| (s - mean) * (s - mean)).sum::<f64>() / samples.len() as f64;
    (mean, variance.sqrt())
}

fn main() -> ExampleResult {
    let device = device()?;
    let (n, repeats) = if device.is_simulator() {
        (1 << 18, 20)
    } else {
        (1 << 24, 100)
    };
    if device.is_simulator() {
        println!(
            "(simulator: n and repeats scaled down; \"GPU\" times are the simulator's wall clock)"
        );
    }
    let a = random_f32(n, 1);
    let b = random_f32(n, 2);
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let (grid, block) = (n.div_ceil(256) as u32, 256u32);

    let report = bench(
        &device,
        10,
        repeats,
        || launch!(vecadd[grid, block](&a_dev, &b_dev, &mut c_dev)),
    )?;

    let (cpu_mean, cpu_std) = mean_and_std(&report.host_samples_ms);
    let (gpu_mean, gpu_std) = mean_and_std(&report.samples_ms);
    // cupyx's format, in microseconds.
    println!(
        "vecadd              :    CPU: {:>9.3} us   +/- {:>7.3} (min: {:>9.3} / max: {:>9.3}) us     GPU-0: {:>9.3} us   +/- {:>7.3} (min: {:>9.3} / max: {:>9.3}) us",
        cpu_mean * 1e3,
        cpu_std * 1e3,
        report
            .host_samples_ms
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            * 1e3,
        report.host_samples_ms.iter().copied().fold(0.0, f64::max) * 1e3,
        gpu_mean * 1e3,
        gpu_std * 1e3,
        report.min_ms * 1e3,
        report.max_ms * 1e3,
    );
    println!("vecadd n = {n}: {report}");
    println!(
        "GPU time per call: {:.3} us (median), {:.1} GB/s",
        report.median_ms * 1e3,
        3.0 * 4.0 * n as f64 / (report.median_ms * 1e6)
    );

    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check(
        "vecadd after the benchmark",
        &c_dev.to_vec()?,
        &expected,
        0.0,
    )?;
    Ok(())
}
