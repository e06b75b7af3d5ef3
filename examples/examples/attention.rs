//! Fused attention on the tensor cores: `O = softmax(scale Q Kᵀ) V` with random bf16 `Q`, `K`,
//! `V` and an f32 `O`, `scale = 1 / sqrt(d)`, through `kernels_nvptx::attention`
//! (FlashAttention-2 style: cp.async, ldmatrix, mma.sync, online softmax; needs sm_80 and
//! kernels built for it, e.g. `FERROCUDA_ARCH=sm_90`). The result is checked against an `f64`
//! CPU reference computed from the same bf16 values; on a GPU the kernel is timed with CUDA
//! events (median of repeated launches after a warm-up) and its TFLOP/s printed.
//!
//! ```text
//! cargo run --release --example attention        # simulator: 128 queries, 200 keys, d = 64
//! attention --seqs 4096,16384 --dims 64,128 --torch-tflops s4096_d64=300,s4096_d64_causal=250
//! ```
//!
//! On a GPU each sequence length `n` of `--seqs` (default 4096 and 16384) runs with each head
//! dimension of `--dims` (default 64 and 128), without and with the causal mask, over
//! `(16384 / n) (2048 / d)` heads: batches of 16k tokens in all and 2048 model dimensions, the
//! shapes of FlashAttention-2's benchmarks (at n = 4096, d = 64: 4 x 32 heads). On the simulator
//! one head of 128 queries and 200 keys with d = 64, both masks.
//!
//! FLOPs: `4 heads seq_q seq_k d` for the two products, halved with the causal mask.
//!
//! Tolerance: per element `(2^-8 + 2^-10) sum_j P[i][j] |V[j][c]|`. The kernel rounds the
//! probabilities `P` to bf16 before multiplying them by `V`: 8 significant bits, a relative error
//! of up to 2^-8 each (the row sum it divides by stays in f32), which dominates; the f32
//! accumulation of `Q Kᵀ` (its error enters the exponent), `ex2.approx` and the f32 sums add
//! about 2^-12, which 2^-10 covers. On a GPU the CPU checks 64 rows per shape (the first and last
//! rows of the first and last heads, and rows spread over the rest); on the simulator every row.
//!
//! Printed for each shape, besides a human-readable line: `attention_tflops_<shape> <x>`, with
//! `<shape>` like `s4096_d64` or `s4096_d64_causal`, and with `--torch-tflops` (pairs
//! `<shape>=<x>`, as `bench/torch_attention.py` prints them) `attention_ratio_to_torch_<shape>
//! <r>`.

use ferrocuda::prelude::*;
use ferrocuda_examples::gemm::{TIMED_RUNS, list, median_ms, random_bf16};
use ferrocuda_examples::{ExampleResult, device, optional_arg};
use kernels_nvptx::attention::{
    AttentionShape, THREADS, attention_d64, attention_d128, attention_grid, attention_launch,
    shared_bytes,
};
use std::collections::HashMap;

/// Rows the CPU checks per shape on a GPU.
const CHECKED_ROWS: usize = 64;
/// Tokens per batch in the GPU shapes (batch x seq).
const TOKENS: usize = 16384;
/// Model dimension in the GPU shapes (heads x d).
const MODEL_DIM: usize = 2048;

/// Parses `--torch-tflops`: `shape=x` pairs separated by commas.
fn torch_figures(text: &str) -> Result<HashMap<String, f64>, String> {
    text.split(',')
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let (shape, value) = item.split_once('=').ok_or_else(|| {
                format!("--torch-tflops: `{item}` is not `shape=TFLOP/s` (e.g. s4096_d64=300)")
            })?;
            let value = value
                .trim()
                .parse()
                .map_err(|_| format!("--torch-tflops: `{value}` (for {shape}) is not a number"))?;
            Ok((shape.trim().to_string(), value))
        })
        .collect()
}

/// The (head, row) pairs the CPU checks: every one when `all`, else the first and last rows
/// of the first and last heads and rows spread over the rest.
fn checked_rows(shape: &AttentionShape, all: bool) -> Vec<(usize, usize)> {
    let (heads, seq) = (shape.heads, shape.seq_q);
    if all {
        return (0..heads)
            .flat_map(|h| (0..seq).map(move |r| (h, r)))
            .collect();
    }
    let mut rows = vec![(0, 0), (0, seq - 1), (heads - 1, 0), (heads - 1, seq - 1)];
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    while rows.len() < CHECKED_ROWS {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        rows.push(((state >> 40) as usize % heads, (state >> 13) as usize % seq));
    }
    rows
}

/// The name of a shape in the printed keys: `s4096_d64`, `s4096_d64_causal`.
fn key(shape: &AttentionShape, causal: bool) -> String {
    let mask = if causal { "_causal" } else { "" };
    if shape.seq_q == shape.seq_k {
        format!("s{}_d{}{mask}", shape.seq_q, shape.head_dim)
    } else {
        format!(
            "q{}_k{}_d{}{mask}",
            shape.seq_q, shape.seq_k, shape.head_dim
        )
    }
}

/// Runs, checks and (on a GPU) times one shape; returns the TFLOP/s (`None` on the simulator).
fn run(device: &Device, shape: &AttentionShape, causal: bool) -> ExampleResult<Option<f64>> {
    let AttentionShape {
        heads,
        seq_q,
        seq_k,
        head_dim: d,
    } = *shape;
    let name = key(shape, causal);
    let scale = 1.0 / (d as f32).sqrt();
    let (q, q_exact) = random_bf16(heads * seq_q * d, 1);
    let (k, k_exact) = random_bf16(heads * seq_k * d, 2);
    let (v, v_exact) = random_bf16(heads * seq_k * d, 3);
    let q_dev = DeviceBuffer::from_slice(device, &q)?;
    let k_dev = DeviceBuffer::from_slice(device, &k)?;
    let v_dev = DeviceBuffer::from_slice(device, &v)?;
    let mut o_dev = DeviceBuffer::<f32>::zeros(device, heads * seq_q * d)?;
    let stream = device.default_stream();
    attention_launch(
        &stream,
        (&q_dev, &k_dev, &v_dev),
        &mut o_dev,
        shape,
        scale,
        causal,
    )?;
    device.synchronize()?;
    let o = o_dev.to_vec()?;

    let per_magnitude = 2f64.powi(-8) + 2f64.powi(-10);
    let rows = checked_rows(shape, device.is_simulator());
    let mut worst = 0.0f64;
    for &(head, row) in &rows {
        let at = (head * seq_q + row) * d;
        let keys = head * seq_k * d..(head + 1) * seq_k * d;
        let (want, magnitude) = ferrocuda_examples::reference::attention_row(
            &q_exact[at..at + d],
            &k_exact[keys.clone()],
            &v_exact[keys],
            d,
            scale as f64,
            causal.then_some(row),
        );
        for c in 0..d {
            let got = o[at + c] as f64;
            let error = (got - want[c]).abs();
            let tolerance = per_magnitude * magnitude[c];
            if error.is_nan() || error > tolerance {
                return Err(format!(
                    "{name}: O[head {head}][{row}][{c}] = {got}, expected {} (error {error:e}, tolerance {tolerance:e})",
                    want[c]
                )
                .into());
            }
            if magnitude[c] > 0.0 {
                worst = worst.max(error / magnitude[c]);
            }
        }
    }
    println!(
        "{name} ({heads} head{}, {seq_q} queries, {seq_k} keys, d = {d}{}): {} rows match the CPU (worst error {worst:.2e} of sum P |V|, tolerance {per_magnitude:.2e})",
        if heads == 1 { "" } else { "s" },
        if causal { ", causal" } else { "" },
        rows.len()
    );
    if device.is_simulator() {
        return Ok(None);
    }
    // The shape and architecture were checked by the first launch: the timed ones go straight
    // through `launch!`.
    let grid = attention_grid(shape);
    let shared = shared_bytes(d);
    let (seq_q32, seq_k32) = (seq_q as u32, seq_k as u32);
    let ms = median_ms(device, || {
        if d == 64 {
            launch!(attention_d64[grid, THREADS, &stream, shared](
                &q_dev, &k_dev, &v_dev, &mut o_dev, seq_q32, seq_k32, scale, causal
            ))
        } else {
            launch!(attention_d128[grid, THREADS, &stream, shared](
                &q_dev, &k_dev, &v_dev, &mut o_dev, seq_q32, seq_k32, scale, causal
            ))
        }
    })?;
    let tflops = shape.flops(causal) / (ms * 1e-3) / 1e12;
    println!("{name}: {ms:.3} ms, {tflops:.1} TFLOP/s (median of {TIMED_RUNS})");
    Ok(Some(tflops))
}

fn main() -> ExampleResult {
    let device = device()?;
    let torch = match optional_arg("--torch-tflops") {
        Some(text) => torch_figures(&text)?,
        None => HashMap::new(),
    };
    let shapes: Vec<AttentionShape> = if device.is_simulator() {
        println!("(simulator: one head, 128 queries, 200 keys, d = 64; no timing)");
        vec![AttentionShape {
            heads: 1,
            seq_q: 128,
            seq_k: 200,
            head_dim: 64,
        }]
    } else {
        let seqs = match optional_arg("--seqs") {
            Some(text) => list("--seqs", &text)?,
            None => vec![4096, 16384],
        };
        let dims = match optional_arg("--dims") {
            Some(text) => list("--dims", &text)?,
            None => vec![64, 128],
        };
        let mut shapes = Vec::new();
        for &seq in &seqs {
            for &d in &dims {
                shapes.push(AttentionShape {
                    heads: (TOKENS / seq).max(1) * (MODEL_DIM / d.max(1)).max(1),
                    seq_q: seq,
                    seq_k: seq,
                    head_dim: d,
                });
            }
        }
        shapes
    };
    for shape in &shapes {
        for causal in [false, true] {
            let Some(tflops) = run(&device, shape, causal)? else {
                continue;
            };
            let name = key(shape, causal);
            println!("attention_tflops_{name} {tflops:.1}");
            if let Some(&reference) = torch.get(&name) {
                let ratio = tflops / reference;
                println!("attention_ratio_to_torch_{name} {ratio:.3}");
                println!(
                    "{name}: {tflops:.1} TFLOP/s against PyTorch's flash attention {reference:.1}: {ratio:.2}x"
                );
            }
        }
    }
    Ok(())
}
