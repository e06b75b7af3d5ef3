//! Fast math (`#[kernel(fast_math)]`): the PTX of each kernel has the fused or approximate
//! instructions exactly where a kernel opted in, and results stay within the stated bounds on
//! both backends (`test_kernels::fast_math`).
//!
//! The bound for Horner's rule with positive coefficients at positive `x` (no cancellation):
//! evaluating a polynomial of degree `n` with each multiply and add rounded gives
//! `|p̂ - p| <= γ(2n)·p`, with `γ(k) = k·u / (1 - k·u)` and `u = 2^-24` (Higham, *Accuracy and
//! Stability of Numerical Algorithms*, §5.1); with each multiply-add fused, `γ(n)·p`. So both
//! kernels are within `γ(2n)·p` of the exact value on both backends, and the GPU's fused result
//! and the simulator's (which rounds each operation, as it cannot replay LLVM's choices) differ
//! by at most `2·γ(2n)·p`. On the GPU the fused kernel is moreover bit for bit
//! `c.mul_add(x, acc)` step by step, and the plain one bit for bit `acc * x + c`.

use ferrocuda::prelude::*;
use ferrocuda_tests::{blocks, device_tests, rng, ulps32};
use rand::Rng;
use test_kernels::fast_math::{
    div_sqrt_approx, div_sqrt_explicit, div_sqrt_ieee, horner_fused, horner_plain,
};

/// Elements per test: several blocks, the last one partial.
const N: usize = 5_000;

/// Coefficients of a degree-7 polynomial, each in [0.1, 1).
fn coefficients(rng: &mut impl Rng) -> Vec<f32> {
    (0..8).map(|_| rng.random_range(0.1f32..1.0)).collect()
}

/// `n` arguments in [0.5, 2).
fn arguments(rng: &mut impl Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(0.5f32..2.0)).collect()
}

/// Horner's rule with each multiply and add rounded to `f32`.
fn horner_rounded(coefficients: &[f32], x: f32) -> f32 {
    coefficients
        .iter()
        .rev()
        .fold(0.0f32, |acc, &c| acc * x + c)
}

/// Horner's rule with each multiply-add fused (one rounding per step).
fn horner_fused_reference(coefficients: &[f32], x: f32) -> f32 {
    coefficients
        .iter()
        .rev()
        .fold(0.0f32, |acc, &c| acc.mul_add(x, c))
}

/// Horner's rule in `f64`: the exact value of the `f32` polynomial to far better than `f32`.
fn horner_exact(coefficients: &[f32], x: f32) -> f64 {
    coefficients
        .iter()
        .rev()
        .fold(0.0f64, |acc, &c| acc * f64::from(x) + f64::from(c))
}

/// `γ(k) = k·u / (1 - k·u)` with `u = 2^-24`: the relative error bound of `k` roundings.
fn gamma(k: usize) -> f64 {
    let ku = k as f64 * 2f64.powi(-24);
    ku / (1.0 - ku)
}

/// Runs a Horner kernel on `x` with `c`.
fn run_horner(device: &Device, fused: bool, c: &[f32], x: &[f32]) -> Vec<f32> {
    let mut out = DeviceBuffer::<f32>::zeros(device, x.len()).unwrap();
    if fused {
        launch!(horner_fused[blocks(x.len(), 128), 128](c, x, &mut out)).unwrap();
    } else {
        launch!(horner_plain[blocks(x.len(), 128), 128](c, x, &mut out)).unwrap();
    }
    out.to_vec().unwrap()
}

/// The operations of the `.entry` of a kernel, without their operands (`fma.rn.f32`).
fn instructions(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.'))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

#[test]
fn contraction_is_in_the_ptx_of_the_kernel_that_opted_in_only() {
    let fused = instructions(horner_fused.ptx().unwrap());
    let plain = instructions(horner_plain.ptx().unwrap());
    assert!(fused.contains(&"fma.rn.f32"), "{fused:?}");
    assert!(!fused.contains(&"mul.rn.f32"), "{fused:?}");
    assert!(!plain.contains(&"fma.rn.f32"), "{plain:?}");
    assert!(
        plain.contains(&"mul.rn.f32") && plain.contains(&"add.rn.f32"),
        "{plain:?}"
    );
}

#[test]
fn approximate_division_and_square_root_only_where_asked_for() {
    let approx = instructions(div_sqrt_approx.ptx().unwrap());
    let explicit = instructions(div_sqrt_explicit.ptx().unwrap());
    let ieee = instructions(div_sqrt_ieee.ptx().unwrap());
    for ops in [&approx, &explicit] {
        assert!(
            ops.contains(&"div.approx.f32") && ops.contains(&"sqrt.approx.f32"),
            "{ops:?}"
        );
        assert!(!ops.contains(&"div.rn.f32") && !ops.contains(&"sqrt.rn.f32"));
    }
    assert!(
        ieee.contains(&"div.rn.f32") && ieee.contains(&"sqrt.rn.f32"),
        "{ieee:?}"
    );
    assert!(!ieee.iter().any(|op| op.contains("approx")), "{ieee:?}");
}

#[test]
fn the_module_names_the_kernels_built_with_fast_math() {
    let module = horner_plain.module_ptx();
    let notes: Vec<&str> = module
        .lines()
        .filter(|l| l.starts_with(nvptx_note_prefix()))
        .collect();
    assert_eq!(
        notes,
        [
            "// ferrocuda fast math: div_sqrt_approx approx-div,approx-sqrt",
            "// ferrocuda fast math: horner_fused contract",
        ]
    );
}

#[test]
fn each_kernel_says_what_it_was_built_with() {
    assert_eq!(horner_fused.fast_math().to_string(), "contract");
    assert_eq!(
        div_sqrt_approx.fast_math().to_string(),
        "approx-div,approx-sqrt"
    );
    for off in [
        horner_plain.fast_math(),
        div_sqrt_ieee.fast_math(),
        div_sqrt_explicit.fast_math(),
    ] {
        assert!(off.is_off(), "{off}");
    }
}

/// nvptx-builder's `PTX_NOTE_PREFIX`.
fn nvptx_note_prefix() -> &'static str {
    "// ferrocuda fast math: "
}

device_tests! {
    fn without_fast_math_each_operation_is_rounded(device) {
        let mut rng = rng("fast_math_plain");
        let c = coefficients(&mut rng);
        let x = arguments(&mut rng, N);
        let got = run_horner(device, false, &c, &x);
        let rounded: Vec<f32> = x.iter().map(|&x| horner_rounded(&c, x)).collect();
        // The inputs are such that contraction would show: it changes many results.
        let changed = x
            .iter()
            .zip(&rounded)
            .filter(|&(&x, &r)| horner_fused_reference(&c, x) != r)
            .count();
        assert!(changed > N / 10, "only {changed} of {N} inputs tell fused from rounded");
        for i in 0..N {
            assert_eq!(
                got[i].to_bits(),
                rounded[i].to_bits(),
                "x = {}: got {}, rounded {} (fused {})",
                x[i],
                got[i],
                rounded[i],
                horner_fused_reference(&c, x[i])
            );
        }
    }

    fn with_fast_math_within_the_bound_and_fused_on_the_gpu(device) {
        let mut rng = rng("fast_math_fused");
        let c = coefficients(&mut rng);
        let x = arguments(&mut rng, N);
        let got = run_horner(device, true, &c, &x);
        let degree = c.len() - 1;
        let mut fused_bits = 0;
        for i in 0..N {
            let exact = horner_exact(&c, x[i]);
            let error = (f64::from(got[i]) - exact).abs();
            assert!(
                error <= gamma(2 * degree) * exact,
                "x = {}: got {}, exact {exact}, error {error:e} over γ(2n)·p = {:e}",
                x[i],
                got[i],
                gamma(2 * degree) * exact
            );
            let rounded = horner_rounded(&c, x[i]);
            let fused = horner_fused_reference(&c, x[i]);
            if device.is_simulator() {
                // The simulator rounds every operation.
                assert_eq!(got[i].to_bits(), rounded.to_bits(), "x = {}", x[i]);
            } else {
                assert_eq!(got[i].to_bits(), fused.to_bits(), "x = {}: got {}, fused {fused}, rounded {rounded}", x[i], got[i]);
            }
            fused_bits += usize::from(got[i] == fused && fused != rounded);
        }
        if !device.is_simulator() {
            assert!(fused_bits > N / 10, "{fused_bits} results show the contraction");
        }
    }

    fn approximate_division_and_square_root_within_their_bounds(device) {
        let mut rng = rng("fast_math_div_sqrt");
        let a: Vec<f32> = (0..N).map(|_| rng.random_range(1e-3f32..1e3)).collect();
        let b: Vec<f32> = (0..N)
            .map(|_| {
                let magnitude = rng.random_range(1e-3f32..1e3);
                if rng.random_bool(0.5) { -magnitude } else { magnitude }
            })
            .collect();
        let results = |which: u8| {
            let mut quotient = DeviceBuffer::<f32>::zeros(device, N).unwrap();
            let mut root = DeviceBuffer::<f32>::zeros(device, N).unwrap();
            let grid = blocks(N, 128);
            match which {
                0 => launch!(div_sqrt_ieee[grid, 128](&a, &b, &mut quotient, &mut root)),
                1 => launch!(div_sqrt_approx[grid, 128](&a, &b, &mut quotient, &mut root)),
                _ => launch!(div_sqrt_explicit[grid, 128](&a, &b, &mut quotient, &mut root)),
            }
            .unwrap();
            (quotient.to_vec().unwrap(), root.to_vec().unwrap())
        };
        let (ieee_q, ieee_r) = results(0);
        for i in 0..N {
            // Correctly rounded on both backends.
            assert_eq!(ieee_q[i], ((f64::from(a[i]) / f64::from(b[i])) as f32), "{} / {}", a[i], b[i]);
            assert_eq!(ieee_r[i], (f64::from(a[i]).sqrt() as f32), "sqrt {}", a[i]);
        }
        for which in [1, 2] {
            let (q, r) = results(which);
            for i in 0..N {
                let exact_q = (f64::from(a[i]) / f64::from(b[i])) as f32;
                assert!(ulps32(q[i], exact_q) <= 2, "kernel {which}: {} / {} = {}, not {exact_q}", a[i], b[i], q[i]);
                let exact_r = f64::from(a[i]).sqrt();
                let relative = (f64::from(r[i]) - exact_r).abs() / exact_r;
                assert!(relative <= 2f64.powi(-22), "kernel {which}: sqrt {} = {}, relative error {relative:e}", a[i], r[i]);
            }
        }
    }
}
