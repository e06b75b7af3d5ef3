//! Comparisons with CPU references: a tolerance in absolute plus relative terms (the one the
//! examples use, [`ferrocuda_examples::compare`]), and distances in units in the last place for
//! the math functions.

use ferrocuda_examples::Mismatch;

/// Asserts `actual` matches `expected` within `tolerance` (absolute plus relative:
/// `|a - e| <= tolerance * (1 + |e|)`), naming the first element that does not.
#[track_caller]
pub fn assert_close(actual: &[f32], expected: &[f32], tolerance: f32) {
    match ferrocuda_examples::compare(actual, expected, tolerance) {
        Ok(_) => {}
        Err(Mismatch::Length { .. }) => panic!(
            "lengths differ: {} results, {} expected",
            actual.len(),
            expected.len()
        ),
        Err(Mismatch::Element {
            index,
            actual: a,
            expected: e,
        }) => panic!(
            "element {index}: got {a}, expected {e} (tolerance {tolerance}), of {} elements",
            actual.len()
        ),
    }
}

/// Distance in units in the last place between two `f32` (0 for two NaNs): the device crate's
/// measure of math accuracy.
pub use ferrocuda::device::math::ulp_distance_f32 as ulps32;
/// Distance in units in the last place between two `f64` (0 for two NaNs).
pub use ferrocuda::device::math::ulp_distance_f64 as ulps64;

/// Distance in units in the last place between two values held in `f64`, counted in `f32` when
/// `single` (for tests written once for both precisions).
pub fn ulps(a: f64, b: f64, single: bool) -> u64 {
    if single {
        ulps32(a as f32, b as f32)
    } else {
        ulps64(a, b)
    }
}

/// Asserts that `c` (`m` x `n`, row-major) is the product of `a` (`m` x `k`) and `b` (`k` x `n`)
/// within the tensor cores' tolerance: per element `(K / 16) 2^-18 sum_k |a b|` (one rounding of
/// an `mma` per 16 of K, see `ferrocuda::device::mma`), against an `f64` reference.
pub fn assert_gemm_close(c: &[f32], (a, b): (&[f32], &[f32]), (m, n, k): (usize, usize, usize)) {
    let (expected, magnitude) =
        ferrocuda_examples::reference::matmul_with_magnitudes(a, b, m, k, n);
    let per_magnitude = (k / 16) as f64 * 2f64.powi(-18);
    assert_eq!(
        c.len(),
        m * n,
        "C has {} elements, expected {m} x {n}",
        c.len()
    );
    for (i, ((&got, &want), &size)) in c.iter().zip(&expected).zip(&magnitude).enumerate() {
        let error = (got as f64 - want).abs();
        assert!(
            error <= per_magnitude * size,
            "{m} x {n} x {k}: C[{}][{}] = {got}, expected {want} (error {error:e}, tolerance {:e})",
            i / n,
            i % n,
            per_magnitude * size
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_count_representable_steps_across_zero() {
        assert_eq!(ulps32(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulps32(-0.0, 0.0), 0);
        assert_eq!(ulps32(f32::from_bits(1), -f32::from_bits(1)), 2);
        assert_eq!(ulps64(f64::NAN, f64::NAN), 0);
        assert_eq!(ulps(1.0, 1.0 + f64::EPSILON, false), 1);
        assert_eq!(ulps(1.0, 1.0 + f64::EPSILON, true), 0);
    }

    #[test]
    fn assert_close_accepts_within_tolerance() {
        assert_close(&[1.0, 100.0], &[1.0005, 100.05], 1e-3);
    }

    #[test]
    #[should_panic(expected = "element 1: got NaN, expected 2")]
    fn assert_close_names_the_first_mismatch() {
        assert_close(&[1.0, f32::NAN, 5.0], &[1.0, 2.0, 3.0], 1e-3);
    }

    #[test]
    #[should_panic(expected = "lengths differ: 1 results, 2 expected")]
    fn assert_close_checks_lengths() {
        assert_close(&[1.0], &[1.0, 2.0], 0.0);
    }
}
