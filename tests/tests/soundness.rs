//! Safe kernels that once wrote past their slices on the GPU because an optimisation was
//! unsound (`tests/kernels/src/soundness.rs`), run on both backends: a failed check is
//! reported, nothing past the slice changes, and values are the CPU's.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic};
use test_kernels::soundness::{
    Nothing, after_empty_parameter, between_empty_parameters, switch_guard,
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
}
