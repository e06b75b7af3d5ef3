//! Kernels that call crates.io crates directly (`kernels_nvptx::external_crates`): `libm`'s
//! special functions and a `num_traits::Float` generic, against references computed on the CPU
//! with std (and, for `erf`, which std lacks on stable, a power series in `f64`), on the
//! simulator and the GPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{blocks, device_tests, rng, ulps32, ulps64};
use kernels_nvptx::external_crates::{LIBM_RESULTS, libm_special, softplus};
use rand::Rng;

/// `erf(x)` for `|x| <= 3` in `f64` from its Maclaurin series
/// `2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))`: accurate to about 1e-13, far below an
/// `f32` ulp.
fn erf_series(x: f64) -> f64 {
    let (mut term, mut sum, mut n) = (x, x, 0.0f64);
    // `term` is (-1)^n x^(2n+1) / n!.
    while term.abs() > 1e-17 * sum.abs().max(1e-300) {
        n += 1.0;
        term *= -x * x / n;
        sum += term / (2.0 * n + 1.0);
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn the_erf_reference_is_accurate() {
    // Known values: erf(0.5), erf(1), erf(2), erf(3).
    let known = [
        (0.5, 0.520_499_877_813_046_5),
        (1.0, 0.842_700_792_949_714_9),
        (2.0, 0.995_322_265_018_952_7),
        (3.0, 0.999_977_909_503_001_4),
    ];
    for (x, erf) in known {
        assert!(
            (erf_series(x) - erf).abs() < 1e-13,
            "erf({x}) = {}",
            erf_series(x)
        );
        assert!((erf_series(-x) + erf).abs() < 1e-13);
    }
    assert_eq!(erf_series(0.0), 0.0);
}

device_tests! {
    fn libm_special_functions_match_the_cpu(device) {
        let mut rng = rng("libm_special");
        let mut input: Vec<f32> = (0..3001).map(|_| rng.random_range(-3.0f32..3.0)).collect();
        input.extend([0.0, -0.0, 1e-6, -1e-6, 0.5, -0.5, 2.99]);
        let n = input.len();
        let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; LIBM_RESULTS * n]).unwrap();
        launch!(libm_special[blocks(n, 128), 128](&input, &mut out)).unwrap();
        let out = out.to_vec().unwrap();
        for (i, &x) in input.iter().enumerate() {
            let erf = erf_series(x as f64);
            let expected = [
                erf as f32,
                (1.0 - erf) as f32,
                x.exp_m1(),
                x.abs().ln_1p(),
            ];
            // erfc(x) = 1 - erf(x) loses relative accuracy where erfc is tiny (x near 3): there
            // the f64 difference still has about 8 correct digits, so allow a few ulps.
            let tolerance = [1, 4, 2, 2];
            for k in 0..LIBM_RESULTS {
                let got = out[LIBM_RESULTS * i + k];
                assert!(
                    ulps32(got, expected[k]) <= tolerance[k],
                    "function {k} of {x:e}: got {got:e}, reference {:e}",
                    expected[k]
                );
            }
        }
    }

    fn num_traits_generic_softplus(device) {
        let mut rng = rng("softplus");
        let mut input: Vec<f64> = (0..2049).map(|_| rng.random_range(-30.0..30.0)).collect();
        input.extend([0.0, -0.0, 1e-8, -1e-8, 100.0, -100.0, 700.0, -700.0]);
        let n = input.len();

        let single: Vec<f32> = input.iter().map(|&x| x as f32).collect();
        let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
        launch!(softplus::<f32>[blocks(n, 96), 96](&single, &mut out)).unwrap();
        for (&x, got) in single.iter().zip(out.to_vec().unwrap()) {
            // ln(1 + e^x) in f64 with std, rounded once to f32.
            let expected = ((x as f64).max(0.0) + (-(x as f64).abs()).exp().ln_1p()) as f32;
            assert!(ulps32(got, expected) <= 2, "softplus({x:e}) in f32: got {got:e}, std {expected:e}");
        }

        let mut out = DeviceBuffer::from_slice(device, &vec![f64::NAN; n]).unwrap();
        launch!(softplus::<f64>[blocks(n, 96), 96](&input, &mut out)).unwrap();
        for (&x, got) in input.iter().zip(out.to_vec().unwrap()) {
            let expected = x.max(0.0) + (-x.abs()).exp().ln_1p();
            assert!(ulps64(got, expected) <= 2, "softplus({x:e}) in f64: got {got:e}, std {expected:e}");
        }
    }
}
