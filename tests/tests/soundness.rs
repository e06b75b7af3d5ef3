//! Safe kernels that once wrote past their slices on the GPU because an optimisation was
//! unsound (`tests/kernels/src/soundness.rs`), run on both backends: a failed check is
//! reported, nothing past the slice changes, and values are the CPU's.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic, random_f32, rng};
use test_kernels::soundness::{
    Nothing, after_empty_parameter, between_empty_parameters, column_sums, matrix_vector,
    switch_guard,
};

device_tests! {
    fn a_guard_on_one_way_in_does_not_decide_a_check_on_the_others(device) {
        // 100 elements of a 256-element buffer, `i < n` with n = 100, 128 threads: with
        // `sel` one of the switch's cases, threads 100..128 reach the store past `i < n`.
        for sel in [3u32, 7, 12] {
            let mut buffer = DeviceBuffer::<f32>::zeros(device, 256).unwrap();
            let result = launch!(switch_guard[1, 128](buffer.slice_mut(..100), 100, sel))
                .and_then(|()| device.synchronize());
            let panic = expect_panic(result);
            let index: usize = panic
                .message
                .strip_prefix("index out of bounds: the len is 100 but the index is ")
                .and_then(|i| i.parse().ok())
                .unwrap_or_else(|| panic!("sel {sel}: {}", panic.message));
            assert!((100..128).contains(&index), "sel {sel}: {}", panic.message);
            assert_eq!(panic.other_panics, 27, "sel {sel}");
            let out = buffer.to_vec().unwrap();
            assert!(out[100..].iter().all(|&x| x == 0.0), "sel {sel}: written past the slice");
        }
        // Other selectors: only `i < n` stores, and the slice is whole.
        for (sel, n) in [(0u32, 100u32), (5, 100), (13, 37), (3, 0)] {
            let mut buffer = DeviceBuffer::<f32>::zeros(device, 128).unwrap();
            let result = launch!(switch_guard[1, 128](&mut buffer, n, sel));
            result.and_then(|()| device.synchronize()).unwrap();
            let out = buffer.to_vec().unwrap();
            let all = sel == 3;
            for (i, &x) in out.iter().enumerate() {
                let stored = all || i < n as usize;
                assert_eq!(x, if stored { 1.0 } else { 0.0 }, "sel {sel}, n {n}, element {i}");
            }
        }
    }

    fn zero_sized_parameters_shift_nothing(device) {
        for len in [0usize, 1, 16, 300] {
            let mut a = DeviceBuffer::<u32>::zeros(device, len + 64).unwrap();
            launch!(after_empty_parameter[4, 128]([], a.slice_mut(..len), 1000)).unwrap();
            device.synchronize().unwrap();
            let out = a.to_vec().unwrap();
            let expected: Vec<u32> = (0..len as u32).map(|i| 1000 + i).chain([0; 64]).collect();
            assert_eq!(out, expected, "len {len}");

            let mut b = DeviceBuffer::<u32>::zeros(device, len + 64).unwrap();
            launch!(between_empty_parameters[4, 128](Nothing {}, b.slice_mut(..len), [], 7)).unwrap();
            device.synchronize().unwrap();
            let out = b.to_vec().unwrap();
            let expected: Vec<u32> = (0..len as u32).map(|i| 7 + i).chain([0; 64]).collect();
            assert_eq!(out, expected, "len {len}");
        }
    }

    fn a_loop_bound_decides_checks_only_for_slices_long_enough(device) {
        // Exact lengths (the checks all pass, the entry test holds), then one element short
        // (the last column's last read fails, reported as the simulator reports it), then
        // exact again: the same kernel, its test decided anew for each launch.
        let mut rng = rng("a_loop_bound_decides_checks_only_for_slices_long_enough");
        for (m, n) in [(1usize, 1usize), (37, 5), (300, 17), (0, 4), (5, 0), (129, 64)] {
            let data = random_f32(&mut rng, n * m);
            let expected: Vec<f32> = (0..m)
                .map(|j| (0..n).fold(0.0f32, |s, i| s + data[i * m + j]))
                .collect();
            let input = DeviceBuffer::from_slice(device, &data).unwrap();
            let blocks = m.div_ceil(128).max(1) as u32;
            for short in [false, true, false] {
                if short && n * m == 0 {
                    continue;
                }
                let len = n * m - usize::from(short);
                let mut sums = DeviceBuffer::<f32>::zeros(device, m).unwrap();
                let result = launch!(column_sums[blocks, 128](
                    input.slice(..len), &mut sums, m as u32, n as u32
                ))
                .and_then(|()| device.synchronize());
                let out = sums.to_vec().unwrap();
                if short {
                    let panic = expect_panic(result);
                    assert_eq!(
                        panic.message,
                        format!("index out of bounds: the len is {len} but the index is {len}"),
                        "m {m}, n {n}"
                    );
                    assert_eq!(panic.other_panics, 0, "m {m}, n {n}");
                    assert_eq!(out[..m - 1], expected[..m - 1], "m {m}, n {n}");
                    assert_eq!(out[m - 1], 0.0, "m {m}, n {n}: the failed thread wrote");
                } else {
                    result.unwrap();
                    assert_eq!(out, expected, "m {m}, n {n}");
                }
            }
        }
    }

    fn a_counter_reaching_the_length_fails_its_check(device) {
        // `x[j]` for `j < n`: with `x` one short, every row's last read fails.
        let mut rng = rng("a_counter_reaching_the_length_fails_its_check");
        for (rows, n) in [(1usize, 1usize), (70, 33), (256, 7), (3, 200)] {
            let a = random_f32(&mut rng, rows * n);
            let x = random_f32(&mut rng, n);
            let expected: Vec<f32> = (0..rows)
                .map(|i| (0..n).fold(0.0f32, |s, j| s + a[i * n + j] * x[j]))
                .collect();
            let a = DeviceBuffer::from_slice(device, &a).unwrap();
            let x = DeviceBuffer::from_slice(device, &x).unwrap();
            let blocks = rows.div_ceil(128) as u32;
            for short in [false, true, false] {
                let len = n - usize::from(short);
                let mut out = DeviceBuffer::<f32>::zeros(device, rows).unwrap();
                let result = launch!(matrix_vector[blocks, 128](
                    &a, x.slice(..len), &mut out, n as u32, rows as u32
                ))
                .and_then(|()| device.synchronize());
                let values = out.to_vec().unwrap();
                if short {
                    let panic = expect_panic(result);
                    assert_eq!(
                        panic.message,
                        format!("index out of bounds: the len is {len} but the index is {len}"),
                        "rows {rows}, n {n}"
                    );
                    assert_eq!(panic.other_panics as usize, rows - 1, "rows {rows}, n {n}");
                    assert!(values.iter().all(|&v| v == 0.0), "rows {rows}, n {n}: a failed thread wrote");
                } else {
                    result.unwrap();
                    assert_eq!(values, expected, "rows {rows}, n {n}");
                }
            }
        }
    }
}
