//! The tensor-core attention (`kernels_nvptx::attention`) against an `f64` CPU reference on the
//! simulator and the GPU: one tile, lengths that are not multiples of the tiles (query rows and
//! keys past the end), a single key, more keys than queries and the reverse, several heads, head
//! dimensions 64 and 128, with and without the causal mask; and the sizes the host rejects.
//!
//! bf16 values come from the `half` crate (an independent rounding), and the reference
//! (`ferrocuda_examples::reference::attention_row`) computes `softmax(scale Q Kᵀ) V` in `f64`
//! from the same bf16 values. Per element the result may differ from it by
//! `(2^-8 + 2^-10) sum_j P[i][j] |V[j][c]|`: the kernel rounds the probabilities to bf16 before
//! `P V` (8 significant bits: a relative error of up to 2^-8 each, while the row sum it divides
//! by is kept in f32), and the rest (the f32 accumulation of `Q Kᵀ`, whose error enters the
//! exponent, `ex2.approx`, the f32 sums) adds about 2^-12 at these magnitudes; 2^-10 covers it.
//! A mistake in the rescaling, the masks, the fragment layouts or the pipeline gives errors of
//! the size of the output itself (tens of times the tolerance or more).
//!
//! The kernel needs sm_80: on a GPU it runs when the kernels' PTX targets sm_80 or newer
//! (`scripts/gpu-bundle.sh` builds it for sm_90), and the test says it skipped otherwise.

use ferrocuda::device::half::bf16;
use ferrocuda::prelude::*;
use ferrocuda_examples::reference::attention_row;
use ferrocuda_tests::{device_tests, random_bf16};
use kernels_nvptx::attention::{AttentionError, AttentionShape, attention_launch};
use kernels_nvptx::gemm_bf16::ptx_architecture;

/// The tolerance per unit of `sum_j P[i][j] |V[j][c]|` (see the module documentation).
const TOLERANCE: f64 = 1.0 / 256.0 + 1.0 / 1024.0;

/// Whether the kernel can run on `device` (else it says why it skips).
fn runs_on(device: &Device) -> bool {
    if device.is_simulator() || ptx_architecture() >= 80 {
        return true;
    }
    eprintln!(
        "skipped on the GPU: kernels-nvptx was built for sm_{}, and attention needs sm_80 (build with FERROCUDA_ARCH=sm_90, as scripts/gpu-bundle.sh does)",
        ptx_architecture()
    );
    false
}

/// Runs the attention of `shape` on `device` with `scale` and the causal mask when `causal`,
/// and checks every element of every head.
fn check(device: &Device, shape: AttentionShape, scale: f32, causal: bool) {
    let AttentionShape {
        heads,
        seq_q,
        seq_k,
        head_dim: d,
    } = shape;
    let name = format!("{heads} x {seq_q} x {seq_k} x {d} causal {causal}");
    // Q and K in [-2, 2): scores of a few units, so the softmax is far from uniform.
    let (q, q_values) = random_bf16(&format!("attention q {name}"), heads * seq_q * d, 2.0);
    let (k, k_values) = random_bf16(&format!("attention k {name}"), heads * seq_k * d, 2.0);
    let (v, v_values) = random_bf16(&format!("attention v {name}"), heads * seq_k * d, 1.0);
    let q_dev = DeviceBuffer::from_slice(device, &q).unwrap();
    let k_dev = DeviceBuffer::from_slice(device, &k).unwrap();
    let v_dev = DeviceBuffer::from_slice(device, &v).unwrap();
    let mut o_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; heads * seq_q * d]).unwrap();
    attention_launch(
        &device.default_stream(),
        (&q_dev, &k_dev, &v_dev),
        &mut o_dev,
        &shape,
        scale,
        causal,
    )
    .unwrap();
    device.synchronize().unwrap();
    let o = o_dev.to_vec().unwrap();
    for head in 0..heads {
        let (k_head, v_head) = (
            &k_values[head * seq_k * d..(head + 1) * seq_k * d],
            &v_values[head * seq_k * d..(head + 1) * seq_k * d],
        );
        for row in 0..seq_q {
            let at = (head * seq_q + row) * d;
            let (want, magnitude) = attention_row(
                &q_values[at..at + d],
                k_head,
                v_head,
                d,
                scale as f64,
                causal.then_some(row),
            );
            for c in 0..d {
                let got = o[at + c] as f64;
                let tolerance = TOLERANCE * magnitude[c];
                let error = (got - want[c]).abs();
                assert!(
                    error <= tolerance,
                    "{name}: O[head {head}][{row}][{c}] = {got}, expected {} (error {error:e}, tolerance {tolerance:e})",
                    want[c]
                );
            }
        }
    }
}

/// The launch's error for `shape` with buffers of the given lengths (nothing runs).
fn rejected(device: &Device, shape: AttentionShape, scale: f32, lengths: [usize; 4]) -> String {
    let q = DeviceBuffer::<bf16>::zeros(device, lengths[0]).unwrap();
    let k = DeviceBuffer::<bf16>::zeros(device, lengths[1]).unwrap();
    let v = DeviceBuffer::<bf16>::zeros(device, lengths[2]).unwrap();
    let mut o = DeviceBuffer::<f32>::zeros(device, lengths[3]).unwrap();
    match attention_launch(
        &device.default_stream(),
        (&q, &k, &v),
        &mut o,
        &shape,
        scale,
        false,
    ) {
        Err(error @ AttentionError::Shape(_)) => error.to_string(),
        other => panic!("{shape:?}: expected a shape error, got {other:?}"),
    }
}

/// A shape of one head.
fn one_head(seq_q: usize, seq_k: usize, head_dim: usize) -> AttentionShape {
    AttentionShape {
        heads: 1,
        seq_q,
        seq_k,
        head_dim,
    }
}

device_tests! {
    fn attention_one_tile(device) {
        if runs_on(device) {
            check(device, one_head(64, 64, 64), 0.125, false);
        }
    }

    fn attention_lengths_off_the_tile(device) {
        // 4 query tiles and 4 key tiles, the last ones partial: the pipeline's stages are
        // reused, keys past 200 are masked and rows past 200 are not stored.
        if runs_on(device) {
            check(device, one_head(200, 200, 64), 0.125, false);
        }
    }

    fn attention_causal_lengths_off_the_tile(device) {
        if runs_on(device) {
            check(device, one_head(200, 200, 64), 0.125, true);
        }
    }

    fn attention_single_key(device) {
        // Every row's softmax is one weight of 1: O is V's only row, in every query row.
        if runs_on(device) {
            check(device, one_head(70, 1, 64), 0.125, false);
            check(device, one_head(70, 1, 64), 0.125, true);
        }
    }

    fn attention_more_keys_than_queries(device) {
        // Causal: one query tile visits only the first key tiles of the 300.
        if runs_on(device) {
            check(device, one_head(65, 300, 64), 0.125, false);
            check(device, one_head(65, 300, 64), 0.125, true);
        }
    }

    fn attention_more_queries_than_keys(device) {
        if runs_on(device) {
            check(device, one_head(190, 70, 64), 0.3, true);
        }
    }

    fn attention_three_heads(device) {
        if runs_on(device) {
            let shape = AttentionShape { heads: 3, seq_q: 80, seq_k: 100, head_dim: 64 };
            check(device, shape, 0.125, true);
        }
    }

    fn attention_head_dim_128(device) {
        if runs_on(device) {
            let shape = AttentionShape { heads: 2, seq_q: 100, seq_k: 130, head_dim: 128 };
            check(device, shape, 0.088, false);
            check(device, shape, 0.088, true);
        }
    }

    fn attention_many_tiles(device) {
        // 9 query tiles and 10 key tiles per head, the last ones partial, two heads: many
        // blocks at once and many refills of both stages.
        if runs_on(device) {
            let shape = AttentionShape { heads: 2, seq_q: 520, seq_k: 600, head_dim: 64 };
            check(device, shape, 0.125, false);
            check(device, shape, 0.125, true);
        }
    }

    fn attention_rejects_bad_shapes(device) {
        let shape = one_head(64, 64, 96);
        let message = rejected(device, shape, 0.1, [64 * 96; 4]);
        assert!(message.contains("head dimension 96") && message.contains("64 or 128"), "{message}");
        let message = rejected(device, one_head(0, 64, 64), 0.1, [0, 64 * 64, 64 * 64, 0]);
        assert!(message.contains("seq_q is 0") && message.contains("at least 1"), "{message}");
        let message = rejected(device, one_head(64, 64, 64), 0.1, [64 * 64, 64 * 64 - 1, 64 * 64, 64 * 64]);
        assert!(
            message.contains("k holds 4095 elements") && message.contains("are 4096"),
            "{message}"
        );
        let shape = AttentionShape { heads: 65536, seq_q: 1, seq_k: 1, head_dim: 64 };
        let message = rejected(device, shape, 0.1, [65536 * 64; 4]);
        assert!(message.contains("65536 heads") && message.contains("at most 65535"), "{message}");
        let message = rejected(device, one_head(64, 64, 64), f32::NAN, [64 * 64; 4]);
        assert!(message.contains("scale is NaN") && message.contains("finite"), "{message}");
    }
}
