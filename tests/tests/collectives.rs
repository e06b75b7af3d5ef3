//! The warp and block collectives (`test_kernels::collectives`) against sequential CPU folds, on
//! random inputs, for block sizes that are and are not multiples of 32, 1-D, 2-D and 3-D blocks,
//! on the simulator and the GPU; and their misuses, which the simulator reports.

use ferrocuda::prelude::*;
use ferrocuda::{Error, SimulatorFault};
use ferrocuda_tests::{blocks, device_tests, expect_panic, random_f32, rng};
use rand::Rng;
use test_kernels::collectives::*;

/// The block shapes the collectives run on: one thread, partial single warps, exact warps, a
/// partial last warp of 1, 4 and 8 lanes, the largest block, and 2-D and 3-D blocks.
const SHAPES: [(u32, u32, u32); 13] = [
    (1, 1, 1),
    (31, 1, 1),
    (32, 1, 1),
    (33, 1, 1),
    (96, 1, 1),
    (100, 1, 1),
    (256, 1, 1),
    (1000, 1, 1),
    (1024, 1, 1),
    (32, 3, 1),
    (10, 10, 1),
    (7, 5, 3),
    (16, 16, 4),
];

/// Blocks per launch: each block scans its own part of the input.
const BLOCKS: u32 = 3;

/// `op` folded left to right over `values` (not empty): the sequential reference.
fn fold<T: Copy>(values: &[T], op: impl Fn(T, T) -> T) -> T {
    values[1..].iter().fold(values[0], |acc, &v| op(acc, v))
}

/// The CPU reference of `collectives_*` for a grid of [`BLOCKS`] blocks of `threads` threads:
/// `COLLECTIVE_RESULTS` values per thread, each a sequential fold (in rank order) of the values
/// it combines.
fn expected<T: Copy>(
    input: &[T],
    threads: usize,
    identity: T,
    op: impl Fn(T, T) -> T + Copy,
) -> Vec<T> {
    let mut rows = Vec::with_capacity(COLLECTIVE_RESULTS * input.len());
    for (b, block) in input.chunks(threads).enumerate() {
        let block_source = block_broadcast_source(b as u32, threads as u32) as usize;
        for r in 0..threads {
            let (w, l) = (r / 32, r % 32);
            let warp = &block[32 * w..(32 * w + 32).min(threads)];
            let warp_source = warp_broadcast_source(b as u32, w as u32, warp.len() as u32) as usize;
            rows.extend([
                fold(warp, op),
                fold(&warp[..=l], op),
                if l == 0 {
                    identity
                } else {
                    fold(&warp[..l], op)
                },
                warp[warp_source],
                fold(block, op),
                fold(&block[..=r], op),
                if r == 0 {
                    identity
                } else {
                    fold(&block[..r], op)
                },
                fold(block, op),
                block[block_source],
            ]);
        }
    }
    rows
}

/// The threads of a block shape.
fn threads((x, y, z): (u32, u32, u32)) -> usize {
    (x * y * z) as usize
}

/// Compares a kernel's rows with the reference's, naming the first thread and result that
/// differ.
fn assert_rows<T: PartialEq + std::fmt::Debug>(
    actual: &[T],
    expected: &[T],
    shape: (u32, u32, u32),
    what: &str,
) {
    const NAMES: [&str; COLLECTIVE_RESULTS] = [
        "warp_reduce",
        "warp_inclusive_scan",
        "warp_exclusive_scan",
        "warp_broadcast",
        "block_reduce",
        "block_inclusive_scan",
        "block_exclusive_scan prefix",
        "block_exclusive_scan aggregate",
        "block_broadcast",
    ];
    assert_eq!(actual.len(), expected.len());
    if let Some(k) = (0..actual.len()).find(|&k| actual[k] != expected[k]) {
        let (i, n) = (k / COLLECTIVE_RESULTS, k % COLLECTIVE_RESULTS);
        let block = threads(shape);
        panic!(
            "{what}, block {shape:?}: {} of thread {} of block {}: got {:?}, expected {:?}",
            NAMES[n],
            i % block,
            i / block,
            actual[k],
            expected[k]
        );
    }
}

device_tests! {
    fn u32_sum_matches_sequential_folds(device) {
        let mut rng = rng("collectives_u32_sum");
        for shape in SHAPES {
            let n = threads(shape) * BLOCKS as usize;
            // Large values, so the sums wrap.
            let input: Vec<u32> = (0..n).map(|_| rng.random()).collect();
            let mut out = DeviceBuffer::<u32>::zeros(device, COLLECTIVE_RESULTS * n).unwrap();
            launch!(collectives_sum_u32[BLOCKS, shape](&input, &mut out)).unwrap();
            let reference = expected(&input, threads(shape), EXCLUSIVE_FIRST_U32, u32::wrapping_add);
            assert_rows(&out.to_vec().unwrap(), &reference, shape, "u32 sum");
        }
    }

    fn i32_sum_and_max_match_sequential_folds(device) {
        let mut rng = rng("collectives_i32");
        for shape in SHAPES {
            let n = threads(shape) * BLOCKS as usize;
            let input: Vec<i32> = (0..n).map(|_| rng.random()).collect();
            let mut out = DeviceBuffer::<i32>::zeros(device, COLLECTIVE_RESULTS * n).unwrap();
            launch!(collectives_sum_i32[BLOCKS, shape](&input, &mut out)).unwrap();
            let reference = expected(&input, threads(shape), 0, i32::wrapping_add);
            assert_rows(&out.to_vec().unwrap(), &reference, shape, "i32 sum");

            launch!(collectives_max_i32[BLOCKS, shape](&input, &mut out)).unwrap();
            let reference = expected(&input, threads(shape), i32::MIN, i32::max);
            assert_rows(&out.to_vec().unwrap(), &reference, shape, "i32 max");
        }
    }

    fn non_commutative_scans_combine_in_rank_order(device) {
        let mut rng = rng("collectives_affine");
        for shape in SHAPES {
            let n = threads(shape) * BLOCKS as usize;
            let input: Vec<u64> = (0..n).map(|_| rng.random()).collect();
            let mut out = DeviceBuffer::<u64>::zeros(device, COLLECTIVE_RESULTS * n).unwrap();
            launch!(collectives_affine_u64[BLOCKS, shape](&input, &mut out)).unwrap();
            let reference = expected(&input, threads(shape), 1, compose_affine);
            assert_rows(&out.to_vec().unwrap(), &reference, shape, "affine maps");
        }
    }

    fn f32_sum_is_within_rounding_of_the_sequential_sum(device) {
        let mut rng = rng("collectives_f32");
        for shape in SHAPES {
            let threads = threads(shape);
            let n = threads * BLOCKS as usize;
            let input = random_f32(&mut rng, n);
            let mut out = DeviceBuffer::<f32>::zeros(device, COLLECTIVE_RESULTS * n).unwrap();
            // One f32 of scratch per warp, from the dynamic shared memory.
            let scratch = (threads.div_ceil(32) * 4) as u32;
            launch!(collectives_sum_f32[BLOCKS, shape, &device.default_stream(), scratch](&input, &mut out)).unwrap();
            let actual = out.to_vec().unwrap();
            // The reference in f64, and the sum of the magnitudes each result combines: a
            // result of k terms is within about k * 2^-24 of the sum of their magnitudes.
            let wide: Vec<f64> = input.iter().map(|&x| x as f64).collect();
            let magnitudes: Vec<f64> = wide.iter().map(|x| x.abs()).collect();
            let reference = expected(&wide, threads, 0.0, |a, b| a + b);
            let bound = expected(&magnitudes, threads, 0.0, |a, b| a + b);
            for (k, ((&got, &want), &magnitude)) in actual.iter().zip(&reference).zip(&bound).enumerate() {
                let tolerance = magnitude * 2f64.powi(-18);
                assert!(
                    (got as f64 - want).abs() <= tolerance,
                    "block {shape:?}: result {} of thread {}: got {got}, expected {want} (tolerance {tolerance})",
                    k % COLLECTIVE_RESULTS,
                    k / COLLECTIVE_RESULTS
                );
            }
            // The exclusive scans' first elements are the identity exactly.
            for (i, row) in actual.chunks(COLLECTIVE_RESULTS).enumerate() {
                if (i % threads).is_multiple_of(32) {
                    assert_eq!(row[2].to_bits(), 0f32.to_bits(), "warp exclusive scan of thread {i}");
                }
                if i % threads == 0 {
                    assert_eq!(row[6].to_bits(), 0f32.to_bits(), "block exclusive scan of thread {i}");
                }
            }
        }
    }

    fn block_sums_of_a_tail_that_is_not_a_whole_block(device) {
        let mut rng = rng("collectives_block_sums");
        for (n, block) in [(1usize, 32usize), (1000, 256), (5003, 100), (70_001, 1024)] {
            let input: Vec<u32> = (0..n).map(|_| rng.random()).collect();
            let grid = blocks(n, block);
            let mut sums = DeviceBuffer::<u32>::zeros(device, grid as usize).unwrap();
            launch!(collectives_block_sums[grid, block as u32](&input, &mut sums)).unwrap();
            let expected: Vec<u32> = input
                .chunks(block)
                .map(|c| c.iter().fold(0u32, |a, &b| a.wrapping_add(b)))
                .collect();
            assert_eq!(sums.to_vec().unwrap(), expected, "n = {n}, block = {block}");
        }
    }

    fn scratch_too_small_panics_naming_the_sizes(device) {
        let mut out = DeviceBuffer::<u32>::zeros(device, 96).unwrap();
        launch!(collectives_misuse[1, 96](2, &mut out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(panic.message.starts_with("block collective scratch too small"), "{}", panic.message);
        if device.is_simulator() {
            assert!(
                panic.message.contains("block_reduce on a block of 96 threads needs 3 elements, the scratch has 2"),
                "{}",
                panic.message
            );
        }
        assert!(panic.file.ends_with("collectives.rs"), "{}", panic.file);
        device.synchronize().unwrap();
    }

    fn broadcast_from_a_missing_lane_or_thread_panics(device) {
        // Lane 40 of a warp, then a lane of a partial warp that does not exist (block of 36: the
        // second warp has lanes 0 to 3).
        for threads in [32, 36] {
            let mut out = DeviceBuffer::<u32>::zeros(device, threads).unwrap();
            launch!(collectives_misuse[1, threads as u32](3, &mut out)).unwrap();
            let panic = expect_panic(device.synchronize());
            assert!(panic.message.starts_with("warp_broadcast: the source lane is not a lane of this warp"), "{}", panic.message);
            if device.is_simulator() {
                assert!(panic.message.contains("lane 40, but the warp has lanes 0 to"), "{}", panic.message);
            }
        }
        let mut out = DeviceBuffer::<u32>::zeros(device, 64).unwrap();
        launch!(collectives_misuse[1, 64](4, &mut out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(panic.message.starts_with("block_broadcast: the source thread is not a thread of this block"), "{}", panic.message);
        if device.is_simulator() {
            assert!(panic.message.contains("rank 5000, but the block has ranks 0 to 63"), "{}", panic.message);
        }
        device.synchronize().unwrap();
    }
}

/// Launches the misuse kernel on the simulator and returns its fault.
fn misuse_fault(mode: u32, threads: u32) -> SimulatorFault {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<u32>::zeros(&device, threads as usize).unwrap();
    match launch!(collectives_misuse[1, threads](mode, &mut out))
        .and_then(|()| device.synchronize())
    {
        Err(Error::SimulatorFault(fault)) => *fault,
        other => panic!("expected a simulator fault, got {other:?}"),
    }
}

/// A warp collective called by half of the warp is a divergent warp operation, reported at the
/// line of the call (a GPU would hang or compute garbage: simulator only).
#[test]
fn warp_reduce_in_half_a_warp_is_a_divergent_warp_operation() {
    let fault = misuse_fault(0, 32);
    let text = fault.to_string();
    assert!(
        matches!(fault, SimulatorFault::DivergentWarpOperation { .. }),
        "{text}"
    );
    assert!(
        text.contains("collectives.rs"),
        "the fault names the call: {text}"
    );
    assert!(text.contains("exited without reaching it"), "{text}");
}

/// A block collective called by one warp of two is a divergent barrier.
#[test]
fn block_reduce_in_one_warp_of_two_is_a_divergent_barrier() {
    let fault = misuse_fault(1, 64);
    let text = fault.to_string();
    assert!(
        matches!(fault, SimulatorFault::DivergentBarrier { .. }),
        "{text}"
    );
    assert!(
        text.contains("collectives.rs"),
        "the fault names the call: {text}"
    );
}
