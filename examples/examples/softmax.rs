//! A row-wise softmax built from generated kernels, as a Python user writes it with CuPy
//! (`e = cp.exp(x - x.max(axis=1, keepdims=True)); e / e.sum(axis=1, keepdims=True)`) or with
//! Numba's `@vectorize` and `@cuda.reduce`:
//!
//! 1. `max_value::rows`: the maximum of each row (a `#[reduction]` per row);
//! 2. `exp_minus::launch`: `exp(x - row_max)` for every element (an `#[elementwise]` function
//!    whose `row_max` is `per_row`: one value per row, NumPy's `keepdims` broadcast);
//! 3. `sum::rows`: the sum of each row of those;
//! 4. `divide_by::launch`: every element divided by its row's sum.
//!
//! `cargo run --release --example softmax [rows] [cols]`: 4096 x 1000 on a GPU, 64 x 1000 on
//! the simulator unless given. Checked against an `f64` softmax on the CPU.

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32};
use kernels_nvptx::generated::{divide_by, exp_minus, max_value, sum};

/// The softmax of each row of the row-major `rows x cols` matrix `x`, on `stream`.
fn softmax(
    stream: &Stream,
    x: &DeviceBuffer<f32>,
    cols: usize,
) -> ferrocuda::Result<DeviceBuffer<f32>> {
    let device = stream.device();
    let rows = x.len() / cols;
    let mut row_max = DeviceBuffer::<f32>::zeros(device, rows)?;
    max_value::rows(stream, x, cols, &mut row_max)?;
    let mut exps = DeviceBuffer::<f32>::zeros(device, x.len())?;
    exp_minus::launch(stream, cols, x, &row_max, &mut exps)?;
    let mut row_sum = DeviceBuffer::<f32>::zeros(device, rows)?;
    sum::rows(stream, &exps, cols, &mut row_sum)?;
    let mut out = DeviceBuffer::<f32>::zeros(device, x.len())?;
    divide_by::launch(stream, cols, &exps, &row_sum, &mut out)?;
    Ok(out)
}

fn main() -> ExampleResult {
    let device = device()?;
    let arg = |i: usize, default: usize| -> ExampleResult<usize> {
        match std::env::args().nth(i) {
            Some(a) => Ok(a
                .parse()
                .map_err(|e| format!("the arguments are rows and columns: {a:?}: {e}"))?),
            None => Ok(default),
        }
    };
    let rows = arg(1, if device.is_simulator() { 64 } else { 4096 })?;
    let cols = arg(2, 1000)?;
    if rows == 0 || cols == 0 {
        return Err("rows and columns must be at least 1".into());
    }
    let stream = device.default_stream();
    // Logits in [-8, 8): exp(x) alone would not overflow, but the max shift is what keeps
    // softmax safe for any input.
    let x: Vec<f32> = random_f32(rows * cols, 11)
        .iter()
        .map(|v| 8.0 * v)
        .collect();
    let x_dev = DeviceBuffer::from_slice(&device, &x)?;

    let start = stream.record_event()?;
    let out = softmax(&stream, &x_dev, cols)?;
    let end = stream.record_event()?;
    end.synchronize()?;
    let ms = start.elapsed_ms(&end)?;
    let got = out.to_vec()?;

    let mut worst = 0.0f64;
    for (row, values) in x.chunks(cols).zip(got.chunks(cols)) {
        let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let exps: Vec<f64> = row
            .iter()
            .map(|&v| (f64::from(v) - f64::from(max)).exp())
            .collect();
        let total: f64 = exps.iter().sum();
        for (e, v) in exps.iter().zip(values) {
            worst = worst.max((e / total - f64::from(*v)).abs());
        }
    }
    println!(
        "softmax of {rows} x {cols}: {ms:.3} ms (four launches and the allocations), largest difference from the CPU's f64 softmax {worst:.2e}"
    );
    // Each probability is at most 1; f32 exp, sum and division: well within 1e-6 absolute.
    if worst > 1e-6 {
        return Err(format!("the softmax differs from the CPU's by {worst:.2e}").into());
    }
    println!("OK");
    Ok(())
}
