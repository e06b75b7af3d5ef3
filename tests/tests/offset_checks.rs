//! Checks of offset indices narrowed after the check of their base (`nvptx-builder`'s
//! `offset_checks`): in the PTX, the bounds checks of `input[i - 1]`, `input[i + 1]`,
//! `input[i - row]` and `input[i + row]` are 32-bit compares once `input[i]` has passed its
//! 64-bit check;
//! on both backends the sums are right and a failed offset check is reported exactly (its own
//! index and the length, its line, the thread), with the device usable afterwards.

use ferrocuda::prelude::*;
use ferrocuda_tests::ptx_text::entry_body;
use ferrocuda_tests::{device_tests, expect_panic, random_f32, rng};
use test_kernels::offset_checks::five_point_sums;

/// The line of the first occurrence of `needle` in the kernels' `offset_checks.rs`.
fn line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(include_str!("../kernels/src/offset_checks.rs"), needle)
}

/// The CPU's `five_point_sums`.
fn sums_on_cpu(input: &[f32], count: usize, first: usize, row: usize) -> Vec<f32> {
    (first..first + count)
        .map(|i| input[i] + input[i - 1] + input[i + 1] + input[i - row] + input[i + row])
        .collect()
}

#[test]
fn the_offset_checks_compare_32_bit_values() {
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "five_point_sums");
    let compares: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("setp."))
        .collect();
    // 64-bit: the guard `t < output.len()`, the base's check `i < input.len()` and the overflow
    // checks of `i - 1` and `i - row` (the test kernels are built with overflow checks). Without
    // the pass the bounds checks of `i + 1`, `i - row` and `i + row` were three more (7).
    let wide = compares.iter().filter(|l| l.contains("64")).count();
    assert_eq!(wide, 4, "64-bit compares\n{body}");
    let narrow = compares.iter().filter(|l| l.contains(".u32")).count();
    assert!(narrow >= 3, "32-bit compares\n{body}");
}

device_tests! {
    fn sums_match_the_cpu(device) {
        let mut rng = rng("five_point_sums_match_the_cpu");
        // Rows of 1 (the two offsets coincide with +-1), 37 and 1000 elements; the last
        // element summed is the last whose `i + row` is in the input.
        for (n, row) in [(3usize, 1usize), (1000, 37), (5000, 1000)] {
            let input = random_f32(&mut rng, n);
            let first = row.max(1);
            let count = n - first - row.max(1);
            let expected = sums_on_cpu(&input, count, first, row);
            let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut d_out = DeviceBuffer::<f32>::zeros(device, count).unwrap();
            let blocks = (count as u32).div_ceil(256).max(1);
            launch!(five_point_sums[blocks, 256](&d_input, &mut d_out, first as u32, row as u32))
                .unwrap();
            assert_eq!(d_out.to_vec().unwrap(), expected, "{n} elements, rows of {row}");
        }
    }

    fn a_failed_offset_check_is_reported_exactly(device) {
        let n = 1000usize;
        let input = vec![1.0f32; n];
        let d_input = DeviceBuffer::from_slice(device, &input).unwrap();
        let line = line_of("output[t] = input[i]");

        // Rows of 10 from element 10, 981 sums: only the last thread (980: block 3, thread
        // 212) reads past the end, through `input[i + row]` with i = 990.
        let mut d_out = DeviceBuffer::<f32>::zeros(device, 981).unwrap();
        launch!(five_point_sums[4, 256](&d_input, &mut d_out, 10, 10)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 1000 but the index is 1000");
        assert_eq!(panic.line, line);
        assert_eq!((panic.block.x, panic.thread.x), (3, 212));
        assert_eq!(panic.other_panics, 0);

        // Rows of 0 from element 1, 999 sums: the last thread (998: block 3, thread 230) fails
        // on `input[i + 1]` with i = 999.
        let mut d_out = DeviceBuffer::<f32>::zeros(device, 999).unwrap();
        launch!(five_point_sums[4, 256](&d_input, &mut d_out, 1, 0)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 1000 but the index is 1000");
        assert_eq!(panic.line, line);
        assert_eq!((panic.block.x, panic.thread.x), (3, 230));

        // From element 999 with rows of 0: `input[i]` passes, `input[i + 1]` fails first.
        let mut d_out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
        launch!(five_point_sums[1, 32](&d_input, &mut d_out, 999, 0)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 1000 but the index is 1000");
        assert_eq!((panic.block.x, panic.thread.x), (0, 0));

        // The base itself out of range: its own check reports it.
        launch!(five_point_sums[1, 32](&d_input, &mut d_out, 1000, 0)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 1000 but the index is 1000");

        // The device still computes the right sums afterwards.
        let mut d_out = DeviceBuffer::<f32>::zeros(device, 980).unwrap();
        launch!(five_point_sums[4, 256](&d_input, &mut d_out, 10, 10)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(d_out.to_vec().unwrap(), vec![5.0f32; 980]);
    }
}
