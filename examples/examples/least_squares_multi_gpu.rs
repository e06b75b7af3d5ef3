//! Data-parallel least squares over every device: the rows of `X` and `y` are split into one
//! shard per device; each device computes the gradient of its shard, `X_s^T (X_s w - y_s)`, and
//! an all-reduce adds the shards' gradients on every device, so each holds the full gradient
//! `X^T (X w - y)`, which a CPU computation in `f64` checks. Then a few steps of gradient
//! descent, each ending in the same all-reduce, bring `w` towards the weights the data was made
//! from.
//!
//! The devices are every GPU (through NCCL, which needs `libnccl.so` on the library path: see
//! the README's "Several GPUs"), or the simulated devices on a machine without one
//! (`FERROCUDA_SIMULATED_DEVICES`, default 2).
//!
//! `cargo run --release --example least_squares_multi_gpu [rows]`

use ferrocuda::prelude::*;
use ferrocuda::{Communicator, ReduceOp};
use ferrocuda_examples::{ExampleResult, check, random_f32};
use kernels_nvptx::least_squares::{
    GRADIENT_BLOCK, least_squares_gradient, least_squares_residual,
};

/// Features per row.
const FEATURES: usize = 16;
/// Steps of gradient descent after the checked gradient.
const STEPS: usize = 30;
/// The step size of gradient descent (on the mean gradient).
const LEARNING_RATE: f32 = 0.5;

/// One device's shard of the data and its work buffers.
struct Shard {
    /// The shard's rows, row-major.
    x: DeviceBuffer<f32>,
    /// The shard's targets.
    y: DeviceBuffer<f32>,
    /// The current weights (the same on every device).
    w: DeviceBuffer<f32>,
    /// `X_s w - y_s`.
    residual: DeviceBuffer<f32>,
    /// The shard's gradient, then (after the all-reduce) the whole data's.
    gradient: DeviceBuffer<f32>,
    /// Where the shard's kernels run (the communicator's stream of this device).
    stream: Stream,
}

impl Shard {
    /// Queues the shard's gradient for weights `w` on its stream.
    fn queue_gradient(&mut self) -> ferrocuda::Result<()> {
        let rows = self.y.len();
        launch!(least_squares_residual[rows.div_ceil(256).max(1), 256, &self.stream](
            &self.x, &self.w, &self.y, &mut self.residual
        ))?;
        launch!(least_squares_gradient[FEATURES, GRADIENT_BLOCK, &self.stream](
            &self.x, &self.residual, &mut self.gradient
        ))
    }
}

/// The gradient `X^T (X w - y)` in `f64`.
fn cpu_gradient(x: &[f32], y: &[f32], w: &[f32]) -> Vec<f64> {
    let mut gradient = vec![0.0f64; FEATURES];
    for (row, &target) in x.chunks_exact(FEATURES).zip(y) {
        let residual: f64 = row
            .iter()
            .zip(w)
            .map(|(&a, &b)| a as f64 * b as f64)
            .sum::<f64>()
            - target as f64;
        for (g, &a) in gradient.iter_mut().zip(row) {
            *g += a as f64 * residual;
        }
    }
    gradient
}

fn main() -> ExampleResult {
    let devices = Device::all()?;
    let simulated = devices[0].is_simulator();
    let rows: usize = match std::env::args().nth(1) {
        Some(text) => text
            .parse()
            .map_err(|_| format!("rows: {text:?} is not a number"))?,
        None if simulated => 1 << 14,
        None => 1 << 22,
    };
    let streams: Vec<Stream> = devices
        .iter()
        .map(Device::new_stream)
        .collect::<ferrocuda::Result<_>>()?;
    let communicator = Communicator::with_streams(&streams)?;
    println!(
        "{} device(s): {}; collectives by {}",
        devices.len(),
        devices
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        communicator.library()?
    );

    // y = X w_true + noise.
    let x = random_f32(rows * FEATURES, 11);
    let w_true = random_f32(FEATURES, 12);
    let noise = random_f32(rows, 13);
    let y: Vec<f32> = x
        .chunks_exact(FEATURES)
        .zip(&noise)
        .map(|(row, e)| row.iter().zip(&w_true).map(|(a, b)| a * b).sum::<f32>() + 0.01 * e)
        .collect();
    let w0 = vec![0.0f32; FEATURES];

    // One contiguous block of rows per device.
    let per_device = rows.div_ceil(devices.len());
    let mut shards = Vec::with_capacity(devices.len());
    for (rank, (device, stream)) in devices.iter().zip(&streams).enumerate() {
        let start = (rank * per_device).min(rows);
        let end = ((rank + 1) * per_device).min(rows);
        shards.push(Shard {
            x: DeviceBuffer::from_slice(device, &x[start * FEATURES..end * FEATURES])?,
            y: DeviceBuffer::from_slice(device, &y[start..end])?,
            w: DeviceBuffer::from_slice(device, &w0)?,
            residual: DeviceBuffer::zeros(device, end - start)?,
            gradient: DeviceBuffer::zeros(device, FEATURES)?,
            stream: stream.clone(),
        });
        println!("  rank {rank}: rows {start}..{end} on {device}");
    }

    // The gradient at w0, checked against the CPU on every device.
    for shard in &mut shards {
        shard.queue_gradient()?;
    }
    let mut gradients: Vec<&mut DeviceBuffer<f32>> =
        shards.iter_mut().map(|s| &mut s.gradient).collect();
    communicator.all_reduce(&mut gradients, ReduceOp::Sum)?;
    communicator.synchronize()?;
    let expected: Vec<f32> = cpu_gradient(&x, &y, &w0)
        .iter()
        .map(|&g| g as f32)
        .collect();
    let scale = expected.iter().fold(0.0f32, |m, g| m.max(g.abs()));
    for (rank, shard) in shards.iter().enumerate() {
        let got: Vec<f32> = shard.gradient.to_vec()?.iter().map(|g| g / scale).collect();
        let want: Vec<f32> = expected.iter().map(|g| g / scale).collect();
        check(
            &format!("gradient after the all-reduce, rank {rank}"),
            &got,
            &want,
            1e-3,
        )?;
    }

    // Gradient descent on the mean gradient; every rank applies the same all-reduced step.
    let mut w = w0;
    for _ in 0..STEPS {
        let gradient = shards[0].gradient.to_vec()?;
        for (weight, g) in w.iter_mut().zip(&gradient) {
            *weight -= LEARNING_RATE * g / rows as f32;
        }
        for shard in &mut shards {
            shard.w.copy_from(&w)?;
            shard.queue_gradient()?;
        }
        let mut gradients: Vec<&mut DeviceBuffer<f32>> =
            shards.iter_mut().map(|s| &mut s.gradient).collect();
        communicator.all_reduce(&mut gradients, ReduceOp::Sum)?;
        communicator.synchronize()?;
    }
    let distance = w
        .iter()
        .zip(&w_true)
        .map(|(a, b)| (a - b) * (a - b))
        .sum::<f32>()
        .sqrt();
    println!("after {STEPS} steps of gradient descent: |w - w_true| = {distance:.2e}");
    if distance > 0.05 {
        return Err(format!(
            "gradient descent did not approach the true weights (|w - w_true| = {distance})"
        )
        .into());
    }
    Ok(())
}
