//! Loads moved above the bounds checks that guard them (`nvptx-builder`'s load speculation):
//! in the PTX, the loads of an unrolled loop of checked gathers stand together instead of one
//! between each pair of checks; on both backends the results are right and a failed check is
//! reported exactly as before: the first check that fails, with its own index and length, on
//! its line, by the right thread, with no access outside the buffers (an empty slice included)
//! and the device usable afterwards. The same holds for checked loads behind a user's condition
//! (`smooth5`'s `if inside { sum += w * x[j] }` taps).

use ferrocuda::prelude::*;
use ferrocuda_tests::ptx_text::entry_body;
use ferrocuda_tests::{device_tests, expect_panic, random_f32, rng};
use test_kernels::check_faults::{SMOOTH_WEIGHTS, gather_rows, smooth5, stage_pairs};

/// The line of the first occurrence of `needle` in the kernels' `check_faults.rs`.
fn line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(include_str!("../kernels/src/check_faults.rs"), needle)
}

/// The CPU's `gather_rows`.
fn gather_on_cpu(offsets: &[u32], indices: &[u32], values: &[f32]) -> Vec<f32> {
    offsets
        .windows(2)
        .map(|w| (w[0]..w[1]).fold(0.0f32, |sum, k| sum + values[indices[k as usize] as usize]))
        .collect()
}

#[test]
fn the_gathers_loads_stand_together_in_the_ptx() {
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "gather_rows");
    // The longest run of global loads with no branch between them: 4 without the pass (each
    // load of the unrolled loop behind its own check), 12 with it.
    let mut longest = 0;
    let mut run = 0;
    for line in body.lines().map(str::trim) {
        if line.starts_with("ld.global") {
            run += 1;
            longest = longest.max(run);
        } else if line.contains("bra") {
            run = 0;
        }
    }
    assert!(
        longest >= 8,
        "longest run of loads between branches: {longest}\n{body}"
    );
    assert!(body.contains("ferrocuda_speculation_pad"), "{body}");
}

device_tests! {
    fn gathers_match_the_cpu(device) {
        let mut rng = rng("gathers_match_the_cpu");
        // Row lengths 0 to 13 (not multiples of the unrolling), 1000 rows: 3.9 blocks of 256.
        for rows in [0usize, 1, 1000] {
            let lengths: Vec<u32> = (0..rows).map(|r| (r * 7 % 14) as u32).collect();
            let mut offsets = vec![0u32];
            for l in &lengths {
                offsets.push(offsets.last().unwrap() + l);
            }
            let nnz = *offsets.last().unwrap() as usize;
            let values = random_f32(&mut rng, 777);
            let indices = ferrocuda_tests::random_u32(&mut rng, nnz, values.len() as u32);
            let expected = gather_on_cpu(&offsets, &indices, &values);
            let d_offsets = DeviceBuffer::from_slice(device, &offsets).unwrap();
            let d_indices = DeviceBuffer::from_slice(device, &indices).unwrap();
            let d_values = DeviceBuffer::from_slice(device, &values).unwrap();
            let mut d_out = DeviceBuffer::<f32>::zeros(device, rows).unwrap();
            let blocks = rows.div_ceil(256).max(1) as u32;
            launch!(gather_rows[blocks, 256](&d_offsets, &d_indices, &d_values, &mut d_out))
                .unwrap();
            assert_eq!(d_out.to_vec().unwrap(), expected, "{rows} rows");
        }
    }

    fn the_first_failing_check_is_reported(device) {
        // Row 300 (block 1, thread 44) selects value 777 of 777: the value's check fails.
        let rows = 400usize;
        let offsets: Vec<u32> = (0..=rows as u32).map(|r| r * 5).collect();
        let mut indices: Vec<u32> = (0..rows as u32 * 5).map(|k| k % 777).collect();
        indices[300 * 5 + 3] = 777;
        let values = vec![1.0f32; 777];
        let d_offsets = DeviceBuffer::from_slice(device, &offsets).unwrap();
        let d_indices = DeviceBuffer::from_slice(device, &indices).unwrap();
        let d_values = DeviceBuffer::from_slice(device, &values).unwrap();
        let mut d_out = DeviceBuffer::<f32>::zeros(device, rows).unwrap();
        launch!(gather_rows[2, 256](&d_offsets, &d_indices, &d_values, &mut d_out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 777 but the index is 777");
        assert_eq!(panic.line, line_of("sum += values[indices[k] as usize];"));
        assert_eq!((panic.block.x, panic.thread.x), (1, 44));
        assert_eq!(panic.other_panics, 0);

        // Row 399's range ends past the indices (2000 of them): the index check fails first,
        // although the value it would select is out of range too.
        let mut short = offsets.clone();
        short[rows] = 2003;
        indices[300 * 5 + 3] = 3;
        let d_short = DeviceBuffer::from_slice(device, &short).unwrap();
        let d_indices = DeviceBuffer::from_slice(device, &indices).unwrap();
        launch!(gather_rows[2, 256](&d_short, &d_indices, &d_values, &mut d_out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 2000 but the index is 2000");
        assert_eq!(panic.line, line_of("sum += values[indices[k] as usize];"));
        assert_eq!((panic.block.x, panic.thread.x), (1, 143));

        // No values at all: every row with an element fails on an empty slice, without a
        // memory fault, and the device still computes the right answer afterwards.
        let empty = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        launch!(gather_rows[2, 256](&d_offsets, &d_indices, &empty, &mut d_out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(
            panic.message.starts_with("index out of bounds: the len is 0 but the index is "),
            "{}",
            panic.message
        );
        launch!(gather_rows[2, 256](&d_offsets, &d_indices, &d_values, &mut d_out)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(d_out.to_vec().unwrap(), vec![5.0f32; rows]);
    }
}

/// The CPU's `stage_pairs` for blocks of `block` threads.
fn stage_on_cpu(a: &[f32], b: &[f32], block: usize) -> Vec<f32> {
    (0..a.len())
        .map(|i| {
            let left = if i % block == 0 { i } else { i - 1 };
            a[i] * b[i] + a[left]
        })
        .collect()
}

#[test]
fn staged_loads_are_issued_before_the_first_shared_store() {
    // Without the pass (seen failing): load a, store to shared, check b, load b.
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "stage_pairs");
    let lines: Vec<&str> = body.lines().map(str::trim).collect();
    let first_store = lines
        .iter()
        .position(|l| l.starts_with("st.shared"))
        .unwrap_or_else(|| panic!("no shared store\n{body}"));
    let loads_before = lines[..first_store]
        .iter()
        .filter(|l| l.starts_with("ld.global"))
        .count();
    assert_eq!(
        loads_before, 2,
        "global loads before the first shared store\n{body}"
    );
}

device_tests! {
    fn staged_pairs_match_the_cpu(device) {
        let mut rng = rng("staged_pairs_match_the_cpu");
        for (n, block) in [(0usize, 256u32), (1, 256), (1000, 256), (777, 100)] {
            let a = random_f32(&mut rng, n);
            let b = random_f32(&mut rng, n);
            let expected = stage_on_cpu(&a, &b, block as usize);
            let d_a = DeviceBuffer::from_slice(device, &a).unwrap();
            let d_b = DeviceBuffer::from_slice(device, &b).unwrap();
            let mut d_out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
            let blocks = (n as u32).div_ceil(block).max(1);
            launch!(stage_pairs[blocks, block](&d_a, &d_b, &mut d_out)).unwrap();
            assert_eq!(d_out.to_vec().unwrap(), expected, "{n} elements, blocks of {block}");
        }
    }

    fn the_first_failing_staged_load_is_reported(device) {
        // `b` one element short: only the last thread (block 3, thread 231 of 256) fails, on
        // `b`'s check, although its load of `b` was issued before `a`'s check.
        let n = 1000usize;
        let a = vec![1.0f32; n];
        let d_a = DeviceBuffer::from_slice(device, &a).unwrap();
        let d_short = DeviceBuffer::from_slice(device, &a[..n - 1]).unwrap();
        let mut d_out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        launch!(stage_pairs[4, 256](&d_a, &d_short, &mut d_out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 999 but the index is 999");
        assert_eq!(panic.line, line_of("tile_b[t] = b[i];"));
        assert_eq!((panic.block.x, panic.thread.x), (3, 231));
        assert_eq!(panic.other_panics, 0);

        // Both short: `a`'s check comes first.
        launch!(stage_pairs[4, 256](&d_short, &d_short, &mut d_out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.line, line_of("tile_a[t] = a[i];"));
        assert_eq!((panic.block.x, panic.thread.x), (3, 231));

        // `b` empty: every thread fails on it without a memory fault; the device is usable.
        let empty = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        launch!(stage_pairs[4, 256](&d_a, &empty, &mut d_out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(
            panic.message.starts_with("index out of bounds: the len is 0 but the index is "),
            "{}",
            panic.message
        );
        launch!(stage_pairs[4, 256](&d_a, &d_a, &mut d_out)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(d_out.to_vec().unwrap(), vec![2.0f32; n]);
    }
}

/// The CPU's `smooth5` over `x`, for `outputs` outputs and taps inside `0..n`.
fn smooth_on_cpu(x: &[f32], outputs: usize, n: usize) -> Vec<f32> {
    (0..outputs)
        .map(|i| {
            let mut sum = 0.0f32;
            for (k, w) in SMOOTH_WEIGHTS.iter().enumerate() {
                let j = i as isize + k as isize - 2;
                if j >= 0 && j < n as isize {
                    sum += w * x[j as usize];
                }
            }
            sum
        })
        .collect()
}

device_tests! {
    fn guarded_taps_match_the_cpu(device) {
        let mut rng = rng("guarded_taps_match_the_cpu");
        for (n, block) in [(0usize, 256u32), (1, 256), (2, 256), (1000, 256), (777, 100)] {
            let x = random_f32(&mut rng, n);
            let expected = smooth_on_cpu(&x, n, n);
            let d_x = DeviceBuffer::from_slice(device, &x).unwrap();
            let mut d_out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
            let blocks = (n as u32).div_ceil(block).max(1);
            launch!(smooth5[blocks, block](&d_x, &mut d_out, n as u32)).unwrap();
            assert_eq!(d_out.to_vec().unwrap(), expected, "{n} elements, blocks of {block}");
        }
    }

    fn the_first_failing_guarded_tap_is_reported(device) {
        // `x` two elements shorter than `n`, 997 outputs: only output 996 (block 3, thread
        // 228) reaches a tap past `x`'s end, its last (index 998).
        let n = 1000usize;
        let x = vec![1.0f32; n - 2];
        let d_x = DeviceBuffer::from_slice(device, &x).unwrap();
        let mut d_out = DeviceBuffer::<f32>::zeros(device, n - 3).unwrap();
        launch!(smooth5[4, 256](&d_x, &mut d_out, n as u32)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 998 but the index is 998");
        assert_eq!(panic.line, line_of("sum += w * x[j as usize];"));
        assert_eq!((panic.block.x, panic.thread.x), (3, 228));
        assert_eq!(panic.other_panics, 0);

        // One output more: output 997's taps 998 and 999 both fail; each failing output
        // reports its first, 998.
        let mut d_out = DeviceBuffer::<f32>::zeros(device, n - 2).unwrap();
        launch!(smooth5[4, 256](&d_x, &mut d_out, n as u32)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "index out of bounds: the len is 998 but the index is 998");
        assert!(matches!(panic.thread.x, 228 | 229), "{:?}", panic.thread);

        // An empty `x` with no tap inside `0..n`: nothing is read, nothing fails.
        let empty = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        let mut d_out = DeviceBuffer::from_slice(device, &[7.0f32; 300]).unwrap();
        launch!(smooth5[2, 256](&empty, &mut d_out, 0)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(d_out.to_vec().unwrap(), vec![0.0f32; 300]);

        // An empty `x` with taps inside: every output fails on it, without a memory fault,
        // and the device computes the right answer afterwards.
        launch!(smooth5[2, 256](&empty, &mut d_out, 300)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(
            panic.message.starts_with("index out of bounds: the len is 0 but the index is "),
            "{}",
            panic.message
        );
        let x: Vec<f32> = (0..300).map(|v| v as f32).collect();
        let d_x = DeviceBuffer::from_slice(device, &x).unwrap();
        launch!(smooth5[2, 256](&d_x, &mut d_out, 300)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(d_out.to_vec().unwrap(), smooth_on_cpu(&x, 300, 300));
    }
}
