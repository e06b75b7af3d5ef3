//! Monte Carlo estimate of pi: every thread draws points in the unit square from its own
//! Philox4x32-10 stream (`Philox::new(seed, thread, 0)`), counts those inside the quarter
//! circle, and the warps add their counts to one 64-bit counter (`count_in_circle`). Then the
//! device-wide fills of `kernels-algorithms`, timed, with a few elements checked against their
//! host definitions.
//!
//! `cargo run --release --example monte_carlo_pi [log2 of the samples]`: 2^30 samples on a GPU
//! and 2^22 on the simulator unless given (at least 2^18).

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device};
use kernels_algorithms::random::{
    element_normal_f32, element_uniform_f32, fill_normal, fill_uniform,
};
use kernels_nvptx::monte_carlo::count_in_circle;

/// Threads per block of the estimate.
const BLOCK: u32 = 256;
/// Samples per thread.
const SAMPLES_PER_THREAD: u32 = 1024;

fn main() -> ExampleResult {
    let device = device()?;
    let log2_samples: u32 = match std::env::args().nth(1) {
        Some(arg) => arg
            .parse()
            .map_err(|e| format!("the argument is log2 of the sample count: {arg:?}: {e}"))?,
        None if device.is_simulator() => 22,
        None => 30,
    };
    if !(18..=40).contains(&log2_samples) {
        return Err(
            format!("log2 of the sample count is {log2_samples}; it must be 18 to 40").into(),
        );
    }
    let samples = 1u64 << log2_samples;
    let blocks = samples / u64::from(SAMPLES_PER_THREAD * BLOCK);
    let seed = 20261123;
    let stream = device.default_stream();
    let mut hits = DeviceBuffer::<u64>::zeros(&device, 1)?;
    let start = stream.record_event()?;
    launch!(count_in_circle[blocks, BLOCK](seed, SAMPLES_PER_THREAD, &mut hits))?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = f64::from(start.elapsed_ms(&end)?);
    let hits = hits.to_vec()?[0];

    let estimate = 4.0 * hits as f64 / samples as f64;
    let p = std::f64::consts::FRAC_PI_4;
    let standard_error = 4.0 * (p * (1.0 - p) / samples as f64).sqrt();
    let error = estimate - std::f64::consts::PI;
    println!(
        "pi ~ {estimate:.9} from 2^{log2_samples} samples ({hits} inside), error {error:+.2e} = {:+.2} standard errors ({standard_error:.2e}); {ms:.3} ms, {:.1} G samples/s",
        error / standard_error,
        samples as f64 / (ms * 1e6)
    );
    if error.abs() > 5.0 * standard_error {
        return Err(format!(
            "the estimate is {:.1} standard errors off",
            error / standard_error
        )
        .into());
    }
    // Device-wide fills, 2^26 f32 on a GPU (2^20 on the simulator).
    let n = if device.is_simulator() {
        1 << 20
    } else {
        1 << 26
    };
    let mut buffer = DeviceBuffer::<f32>::zeros(&device, n)?;
    for normal in [false, true] {
        let start = stream.record_event()?;
        if normal {
            fill_normal(&stream, &mut buffer, seed, 1.0, 0.5)?;
        } else {
            fill_uniform(&stream, &mut buffer, seed)?;
        }
        let end = stream.record_event()?;
        end.synchronize()?;
        let ms = f64::from(start.elapsed_ms(&end)?);
        let values = buffer.to_vec()?;
        for i in [0, 1, 2, 3, 4, n / 2 + 1, n - 1] {
            let expected = if normal {
                element_normal_f32(seed, i as u64, 1.0, 0.5)
            } else {
                element_uniform_f32(seed, i as u64)
            };
            if values[i].to_bits() != expected.to_bits() {
                return Err(
                    format!("element {i} is {}, the host computes {expected}", values[i]).into(),
                );
            }
        }
        let mean = values.iter().map(|&v| f64::from(v)).sum::<f64>() / n as f64;
        println!(
            "fill_{} of {n} f32: {ms:.3} ms ({:.1} GB/s), mean {mean:.5}",
            if normal { "normal(1, 0.5)" } else { "uniform" },
            4.0 * n as f64 / (ms * 1e6)
        );
    }
    Ok(())
}
