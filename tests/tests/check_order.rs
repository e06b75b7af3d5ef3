//! Runs of index-only bounds checks (`tests/kernels/src/check_order.rs`): on both backends the
//! results match the CPU at awkward sizes (0, 1, sizes not multiples of the block), and a failed
//! check is reported as the first that fails in program order, with its own index and length,
//! on its line, by the right thread, with no memory fault (an empty slice included) and the
//! device usable afterwards. These pin the report for any change to how the build lays out such
//! checks (a combined-branch layout was tried and measured:
//! `bench/results/h100-2026-11-24-b-checks.md`).

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic, random_f32, rng};
use test_kernels::check_order::{neighbour_sum, window_sum};

/// The line of the first occurrence of `needle` in the kernels' `check_order.rs`.
fn line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(include_str!("../kernels/src/check_order.rs"), needle)
}

/// The CPU's `neighbour_sum`.
fn neighbour_sum_on_cpu(input: &[f32], n: usize, stride: usize) -> Vec<f32> {
    (0..n)
        .map(|i| input[i] + 2.0 * input[i + 1] + 3.0 * input[i + stride])
        .collect()
}

/// The CPU's `window_sum`.
fn window_sum_on_cpu(input: &[f32], n: usize, limit: usize) -> Vec<f32> {
    (0..n)
        .map(|i| {
            (0..5usize).fold(0.0f32, |sum, t| match (i + t).checked_sub(2) {
                Some(j) if j < limit => sum + (t + 1) as f32 * input[j],
                _ => sum,
            })
        })
        .collect()
}

device_tests! {
    fn neighbour_sums_match_the_cpu(device) {
        let mut rng = rng("neighbour_sums_match_the_cpu");
        for (n, stride) in [(0usize, 1usize), (1, 1), (1, 5), (1000, 3), (1000, 37)] {
            let input = random_f32(&mut rng, n + stride + 1);
            let expected = neighbour_sum_on_cpu(&input, n, stride);
            let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut d_out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
            let blocks = n.div_ceil(256).max(1) as u32;
            launch!(neighbour_sum[blocks, 256](&d_input, &mut d_out, n as u32, stride as u32))
                .unwrap();
            assert_eq!(d_out.to_vec().unwrap(), expected, "n {n}, stride {stride}");
        }
    }

    fn window_sums_match_the_cpu(device) {
        let mut rng = rng("window_sums_match_the_cpu");
        for n in [0usize, 1, 2, 5, 1000] {
            let input = random_f32(&mut rng, n);
            let expected = window_sum_on_cpu(&input, n, n);
            let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut d_out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
            let blocks = n.div_ceil(256).max(1) as u32;
            launch!(window_sum[blocks, 256](&d_input, &mut d_out, n as u32, n as u32)).unwrap();
            assert_eq!(d_out.to_vec().unwrap(), expected, "n {n}");
        }
    }

    fn the_first_failing_neighbour_check_is_reported(device) {
        // 1000 values, n 1000, stride 1: only thread 999 (block 3, thread 231) fails, at
        // `input[i + 1]` and at `input[i + stride]` (index 1000 both): the first is reported.
        let n = 1000usize;
        let input = vec![1.0f32; n];
        let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
        let mut d_out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        launch!(neighbour_sum[4, 256](&d_input, &mut d_out, n as u32, 1)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 1000 but the index is 1000");
        assert_eq!(panic.line, line_of("let next = input[i + 1];"));
        assert_eq!((panic.block.x, panic.thread.x), (3, 231));
        assert_eq!(panic.other_panics, 0);

        // Stride 20 with 1005 values: threads 985 to 999 fail at `input[i + stride]` alone.
        let input = vec![1.0f32; n + 5];
        let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
        launch!(neighbour_sum[4, 256](&d_input, &mut d_out, n as u32, 20)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.line, line_of("let far = input[i + stride as usize];"));
        let thread = panic.block.x as usize * 256 + panic.thread.x as usize;
        assert!((985..1000).contains(&thread), "thread {thread}");
        assert_eq!(
            panic.message,
            format!("index out of bounds: the len is 1005 but the index is {}", thread + 20)
        );
        assert_eq!(panic.other_panics, 14);

        // The output too short: the write's check, after every read passed.
        let input = vec![1.0f32; n + 2];
        let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
        let mut d_short = DeviceBuffer::<f32>::zeros(device, n - 1).unwrap();
        launch!(neighbour_sum[4, 256](&d_input, &mut d_short, n as u32, 1)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 999 but the index is 999");
        assert_eq!(panic.line, line_of("output[i] = here + 2.0 * next + 3.0 * far;"));

        // An empty input: every thread fails its first read, with no memory fault, and the
        // device computes the right answer afterwards.
        let empty = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        launch!(neighbour_sum[4, 256](&empty, &mut d_out, n as u32, 1)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(
            panic.message.starts_with("index out of bounds: the len is 0 but the index is "),
            "{}",
            panic.message
        );
        assert_eq!(panic.line, line_of("let here = input[i];"));
        let input: Vec<f32> = (0..n + 2).map(|v| v as f32).collect();
        let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
        launch!(neighbour_sum[4, 256](&d_input, &mut d_out, n as u32, 2)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(d_out.to_vec().unwrap(), neighbour_sum_on_cpu(&input, n, 2));
    }

    fn the_first_failing_tap_is_reported(device) {
        // 998 values, n 999, taps allowed up to 1000: thread 998 fails at its taps 2, 3 and 4
        // (indices 998, 999, 1000), thread 997 at taps 3 and 4 (998, 999), thread 996 at tap
        // 4 (998): whichever thread reports, its first failing tap has index 998.
        let input = vec![1.0f32; 998];
        let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
        let mut d_out = DeviceBuffer::<f32>::zeros(device, 999).unwrap();
        launch!(window_sum[4, 256](&d_input, &mut d_out, 999, 1001)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 998 but the index is 998");
        assert_eq!(panic.line, line_of("sum += (t + 1) as f32 * input[j as usize];"));
        let thread = panic.block.x as usize * 256 + panic.thread.x as usize;
        assert!((996..999).contains(&thread), "thread {thread}");
        assert_eq!(panic.other_panics, 2);
    }
}
