//! Kernels generated from scalar functions (`#[elementwise]`, `#[reduction]`,
//! `tests/kernels/src/generated.rs`) against CPU references on random data, on the simulator and
//! the GPU: lengths 0, 1, 31, 257 (not a multiple of the block) and 2^20 + 7 on both backends
//! (the generated launches' grid-stride loops keep the simulator's thread count small: a few
//! thousand threads, not one per element); broadcast scalars, two outputs, one generic
//! instance per type, integer and float reductions, row reductions of rows of 1, 31 and 1000 elements and 0, 1 and many
//! rows, and the length errors.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, random_u8, rng};
use test_kernels::generated::{
    count_above, dot_f64, max_f32, negate, saxpy, scale_shift, subtract_row, sum_and_difference,
    sum_of_magnitudes, sum_of_squares, to_unit, wrapping_sum,
};

/// The lengths every test runs on.
const LENGTHS: [usize; 5] = [0, 1, 31, 257, (1 << 20) + 7];

/// A device buffer of `values`.
fn upload<T: DeviceCopy>(device: &Device, values: &[T]) -> DeviceBuffer<T> {
    DeviceBuffer::from_slice(device, values).unwrap()
}

/// `n` NaNs: an output every element of which the kernel must write.
fn poisoned(device: &Device, n: usize) -> DeviceBuffer<f32> {
    upload(device, &vec![f32::NAN; n])
}

/// Asserts `got` is within `relative` of the f64 reference `expected`, relative to the sum of
/// the magnitudes `scale` (the bound of a float sum's rounding error, whatever the order).
fn assert_sum_close(what: &str, got: f64, expected: f64, scale: f64, relative: f64) {
    assert!(
        (got - expected).abs() <= relative * scale.max(1e-30),
        "{what}: got {got}, expected {expected} (scale {scale})"
    );
}

device_tests! {
    fn saxpy_broadcasts_the_scalar(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated saxpy");
        for n in LENGTHS {
            let (x, y) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
            let mut out = poisoned(device, n);
            saxpy::launch(&stream, 2.5, &upload(device, &x), &upload(device, &y), &mut out).unwrap();
            let expected: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
            assert_eq!(out.to_vec().unwrap(), expected, "n = {n}");
            // The scalar function itself stays callable.
            assert_eq!(saxpy(2.0, 3.0, 1.0), 7.0);
        }
    }

    fn two_outputs(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated two outputs");
        for n in LENGTHS {
            let (x, y) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
            let (mut sum, mut difference) = (poisoned(device, n), poisoned(device, n));
            sum_and_difference::launch(&stream, &upload(device, &x), &y, &mut sum, &mut difference)
                .unwrap();
            let sums: Vec<f32> = x.iter().zip(&y).map(|(x, y)| x + y).collect();
            let differences: Vec<f32> = x.iter().zip(&y).map(|(x, y)| x - y).collect();
            assert_eq!(sum.to_vec().unwrap(), sums, "n = {n}");
            assert_eq!(difference.to_vec().unwrap(), differences, "n = {n}");
        }
    }

    fn generic_instances(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated generic");
        let n = 1000;
        let x = random_f32(&mut rng, n);
        let mut out = poisoned(device, n);
        scale_shift::launch(&stream, &x, 3.0f32, -1.0, &mut out).unwrap();
        let expected: Vec<f32> = x.iter().map(|x| x * 3.0 - 1.0).collect();
        assert_eq!(out.to_vec().unwrap(), expected);

        let x64: Vec<f64> = x.iter().map(|&x| f64::from(x) / 3.0).collect();
        let mut out64 = upload(device, &vec![f64::NAN; n]);
        scale_shift::launch::<f64>(&stream, &x64, 7.0, 0.5, &mut out64).unwrap();
        let expected: Vec<f64> = x64.iter().map(|x| x * 7.0 + 0.5).collect();
        assert_eq!(out64.to_vec().unwrap(), expected);

        let xi: Vec<i32> = (0..n as i32).map(|i| i * 7 - 3000).collect();
        let mut outi = upload(device, &vec![i32::MIN; n]);
        scale_shift::launch(&stream, &xi, -3, 11, &mut outi).unwrap();
        let expected: Vec<i32> = xi.iter().map(|x| x * -3 + 11).collect();
        assert_eq!(outi.to_vec().unwrap(), expected);

        let xu: Vec<u64> = (0..n as u64).map(|i| i << 33).collect();
        let mut outu = upload(device, &vec![u64::MAX; n]);
        scale_shift::launch(&stream, &xu, 3u64, 1, &mut outu).unwrap();
        let expected: Vec<u64> = xu.iter().map(|x| x * 3 + 1).collect();
        assert_eq!(outu.to_vec().unwrap(), expected);
    }

    fn element_types_convert_and_sub_slices_work(device) {
        let stream = device.default_stream();
        let bytes = random_u8(&mut rng("generated to_unit"), 300);
        let input = upload(device, &bytes);
        let mut out = poisoned(device, 300);
        // A sub-slice in, a sub-slice out: elements 100..231.
        to_unit::launch(&stream, input.slice(100..231), out.slice_mut(100..231)).unwrap();
        let got = out.to_vec().unwrap();
        for (i, value) in got.iter().enumerate() {
            if (100..231).contains(&i) {
                assert_eq!(*value, f32::from(bytes[i]) / 255.0, "element {i}");
            } else {
                assert!(value.is_nan(), "element {i} outside the slice was written");
            }
        }
    }

    fn large_buffer_kernels(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated large buffers");
        for n in LENGTHS {
            let x: Vec<f64> = random_f32(&mut rng, n).into_iter().map(f64::from).collect();
            let mut out = upload(device, &vec![f64::NAN; n]);
            negate::launch(&stream, &x, &mut out).unwrap();
            let expected: Vec<f64> = x.iter().map(|v| -v).collect();
            assert_eq!(out.to_vec().unwrap(), expected, "n = {n}");
            let got = sum_of_magnitudes::reduce(&stream, &x).unwrap();
            let expected: f64 = x.iter().map(|v| v.abs()).sum();
            assert_sum_close("sum of magnitudes", got, expected, expected, 1e-12);
        }
    }

    fn per_row_operands(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated per row");
        for (rows, cols) in [(0, 5), (1, 1), (1, 31), (7, 31), (37, 1000)] {
            let x = random_f32(&mut rng, rows * cols);
            let offsets = random_f32(&mut rng, rows);
            let mut out = poisoned(device, rows * cols);
            subtract_row::launch(&stream, cols, &upload(device, &x), &offsets, &mut out).unwrap();
            let expected: Vec<f32> = x
                .iter()
                .enumerate()
                .map(|(i, v)| v - offsets[i / cols])
                .collect();
            assert_eq!(out.to_vec().unwrap(), expected, "{rows} x {cols}");
        }
        let x = upload(device, &[0.0f32; 30]);
        let mut out = poisoned(device, 30);
        let error = subtract_row::launch(&stream, 10, &x, &[0.0f32; 4], &mut out)
            .unwrap_err()
            .to_string();
        assert!(error.contains("`offset` has 4 elements but `out` has 3 rows of 10"), "{error}");
    }

    fn length_mismatch_is_an_error_naming_both(device) {
        let stream = device.default_stream();
        let x = upload(device, &[1.0f32; 32]);
        let y = upload(device, &[1.0f32; 31]);
        let mut out = poisoned(device, 32);
        let error = saxpy::launch(&stream, 1.0, &x, &y, &mut out).unwrap_err().to_string();
        assert!(error.contains("`y` has 31 elements but `out` has 32"), "{error}");
        let mut one = DeviceBuffer::<f32>::zeros(device, 2).unwrap();
        let mut scratch = DeviceBuffer::zeros(device, sum_of_squares::scratch_len(device)).unwrap();
        let error = sum_of_squares::reduce_into(&stream, &x, &mut one, &mut scratch)
            .unwrap_err()
            .to_string();
        assert!(error.contains("`out` has 2 elements"), "{error}");
        let mut rows = DeviceBuffer::<f32>::zeros(device, 3).unwrap();
        let error = sum_of_squares::rows(&stream, &x, 10, &mut rows).unwrap_err().to_string();
        assert!(error.contains("`x` has 32 elements but a matrix of 3 rows"), "{error}");
    }

    fn sum_of_squares_matches_f64(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated sum of squares");
        for n in LENGTHS {
            let x = random_f32(&mut rng, n);
            let got = sum_of_squares::reduce(&stream, &upload(device, &x)).unwrap();
            let expected: f64 = x.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
            // f32 accumulation over a tree: a relative error well below 1e-5 of the total.
            assert_sum_close("sum of squares", f64::from(got), expected, expected, 1e-5);
            if n == 0 {
                assert_eq!(got, 0.0);
            }
        }
    }

    fn dot_of_two_slices_and_reduce_into(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated dot");
        let mut out = DeviceBuffer::<f64>::zeros(device, 1).unwrap();
        let mut scratch = DeviceBuffer::zeros(device, dot_f64::scratch_len(device)).unwrap();
        for n in LENGTHS {
            let x: Vec<f64> = random_f32(&mut rng, n).into_iter().map(f64::from).collect();
            let y: Vec<f64> = random_f32(&mut rng, n).into_iter().map(f64::from).collect();
            dot_f64::reduce_into(&stream, &upload(device, &x), &y, &mut out, &mut scratch).unwrap();
            let got = out.to_vec().unwrap()[0];
            let expected: f64 = x.iter().zip(&y).map(|(x, y)| x * y).sum();
            let scale: f64 = x.iter().zip(&y).map(|(x, y)| (x * y).abs()).sum();
            assert_sum_close("dot", got, expected, scale, 1e-12);
        }
    }

    fn max_and_count_reductions(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated max");
        for n in LENGTHS {
            let x = random_f32(&mut rng, n);
            let max = max_f32::reduce(&stream, &x).unwrap();
            let expected = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            assert_eq!(max, expected, "n = {n}");
            let count = count_above::reduce(&stream, &x, 0.25).unwrap();
            assert_eq!(count as usize, x.iter().filter(|&&v| v > 0.25).count(), "n = {n}");
        }
    }

    fn generic_reduction_instances(device) {
        let stream = device.default_stream();
        let values: Vec<u32> = (0..70_001u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
        let got = wrapping_sum::reduce(&stream, &values).unwrap();
        assert_eq!(got, values.iter().fold(0u32, |a, &b| a.wrapping_add(b)));
        let wide: Vec<u64> = values.iter().map(|&v| u64::from(v) << 20).collect();
        let got = wrapping_sum::reduce::<u64>(&stream, &wide).unwrap();
        assert_eq!(got, wide.iter().fold(0u64, |a, &b| a.wrapping_add(b)));
    }

    fn row_reductions(device) {
        let stream = device.default_stream();
        let mut rng = rng("generated rows");
        for cols in [1, 31, 1000] {
            for rows in [0, 1, 37] {
                let x = random_f32(&mut rng, rows * cols);
                let mut sums = poisoned(device, rows);
                sum_of_squares::rows(&stream, &upload(device, &x), cols, &mut sums).unwrap();
                let mut maxima = poisoned(device, rows);
                max_f32::rows(&stream, &x, cols, &mut maxima).unwrap();
                let (sums, maxima) = (sums.to_vec().unwrap(), maxima.to_vec().unwrap());
                for (r, row) in x.chunks(cols).enumerate() {
                    let expected: f64 = row.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
                    assert_sum_close("row sum of squares", f64::from(sums[r]), expected, expected, 1e-5);
                    let max = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    assert_eq!(maxima[r], max, "row {r} of {rows} x {cols}");
                }
            }
        }
    }
}
