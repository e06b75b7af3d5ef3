//! The device-wide even-bin histogram (`kernels_algorithms::histogram`) and stream compaction
//! (`kernels_algorithms::select`) against CPU references, on the simulator and the GPU, at the
//! lengths 0, 1, 31, 1000, a few tiles plus a ragged one, and 2^20 + 7; and their errors.

use ferrocuda::Error;
use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic, rng};
use kernels_algorithms::histogram::histogram_even;
use kernels_algorithms::select::{
    Predicate, SELECT_THREADS, SELECT_TILE, select_count, select_if, select_nonzero,
};
use rand::Rng;

/// The lengths of both tests.
const LENGTHS: [usize; 6] = [0, 1, 31, 1000, 3 * SELECT_TILE + 5, (1 << 20) + 7];

/// The histogram on the CPU in exact integer arithmetic: the test's samples and levels are
/// multiples of 2^-8 well inside 2^30, so `x - lower` and `upper - lower` are exact integers of
/// 2^-8 steps, and the bin is the integer quotient `(x - lower) * bins / (upper - lower)`.
fn cpu_histogram(samples: &[f64], lower: f64, upper: f64, bins: u32) -> Vec<u32> {
    let mut counts = vec![0u32; bins as usize];
    for &x in samples {
        if !(lower <= x && x < upper) {
            continue;
        }
        let offset = ((x - lower) * 256.0) as u128;
        let width = ((upper - lower) * 256.0) as u128;
        counts[(offset * u128::from(bins) / width) as usize] += 1;
    }
    counts
}

/// A reason the call is an error.
fn launch_error(result: ferrocuda::Result<()>) -> String {
    match result {
        Err(error @ Error::Launch(_)) => error.to_string(),
        other => panic!("expected a launch error, got {other:?}"),
    }
}

device_tests! {
    fn histogram_even_matches_the_cpu(device) {
        let stream = device.default_stream();
        let mut rng = rng("histogram_even");
        for n in LENGTHS {
            // u8: an image's intensities, 256 bins of 0..256 cannot be said in u8, so 255 bins
            // of 0..255 (255 is left out, as CUB does) and 16 bins of 10..200.
            let pixels: Vec<u8> = (0..n).map(|_| rng.random()).collect();
            let wide: Vec<f64> = pixels.iter().map(|&p| f64::from(p)).collect();
            let buffer = DeviceBuffer::from_slice(device, &pixels).unwrap();
            for (lower, upper, bins) in [(0u8, 255u8, 255u32), (10, 200, 16), (0, 255, 1)] {
                let mut counts = DeviceBuffer::from_slice(device, &vec![7u32; bins as usize]).unwrap();
                histogram_even(&stream, &buffer, lower, upper, &mut counts).unwrap();
                assert_eq!(
                    counts.to_vec().unwrap(),
                    cpu_histogram(&wide, f64::from(lower), f64::from(upper), bins),
                    "u8, n = {n}, {bins} bins of {lower}..{upper}"
                );
            }
            // u32 over a range wider than the samples' (some fall outside on both sides), and
            // more bins than shared memory holds (global atomics).
            let samples: Vec<u32> = (0..n).map(|_| rng.random_range(0..5000)).collect();
            let wide: Vec<f64> = samples.iter().map(|&s| f64::from(s)).collect();
            let buffer = DeviceBuffer::from_slice(device, &samples).unwrap();
            for (lower, upper, bins) in [(100u32, 4900u32, 7u32), (0, 20_000, 20_000)] {
                let mut counts = DeviceBuffer::<u32>::zeros(device, bins as usize).unwrap();
                histogram_even(&stream, &buffer, lower, upper, &mut counts).unwrap();
                assert!(
                    counts.to_vec().unwrap() == cpu_histogram(&wide, f64::from(lower), f64::from(upper), bins),
                    "u32, n = {n}, {bins} bins of {lower}..{upper}"
                );
            }
            // f32: multiples of 1/256 in -10..10 (exact), NaNs and infinities left out.
            let samples: Vec<f32> = (0..n)
                .map(|i| match i % 97 {
                    0 => f32::NAN,
                    1 => f32::INFINITY,
                    _ => rng.random_range(-2560i32..2560) as f32 / 256.0,
                })
                .collect();
            let wide: Vec<f64> = samples.iter().map(|&s| f64::from(s)).collect();
            let buffer = DeviceBuffer::from_slice(device, &samples).unwrap();
            for (lower, upper, bins) in [(-4.0f32, 6.0f32, 10u32), (-10.0, 10.0, 3), (-1.5, 2.25, 100)] {
                let mut counts = DeviceBuffer::<u32>::zeros(device, bins as usize).unwrap();
                histogram_even(&stream, &buffer, lower, upper, &mut counts).unwrap();
                assert_eq!(
                    counts.to_vec().unwrap(),
                    cpu_histogram(&wide, f64::from(lower), f64::from(upper), bins),
                    "f32, n = {n}, {bins} bins of {lower}..{upper}"
                );
            }
        }
    }

    fn histogram_rejects_bad_levels_and_bins(device) {
        let stream = device.default_stream();
        let samples = DeviceBuffer::from_slice(device, &[1.0f32, 2.0]).unwrap();
        let mut counts = DeviceBuffer::<u32>::zeros(device, 4).unwrap();
        let text = launch_error(histogram_even(&stream, &samples, 2.0, 1.0, &mut counts));
        assert!(text.contains("lower = 2.0, upper = 1.0; lower must be below upper"), "{text}");
        let text = launch_error(histogram_even(&stream, &samples, 0.0, f32::INFINITY, &mut counts));
        assert!(text.contains("both finite"), "{text}");
        let mut none = DeviceBuffer::<u32>::zeros(device, 0).unwrap();
        let text = launch_error(histogram_even(&stream, &samples, 0.0, 1.0, &mut none));
        assert!(text.contains("the histogram has 0 bins"), "{text}");
    }

    fn select_keeps_what_the_predicate_keeps_in_order(device) {
        let stream = device.default_stream();
        let mut rng = rng("select");
        for n in LENGTHS {
            // Half zeros, so runs of kept and dropped elements cross thread and tile edges.
            let values: Vec<u32> = (0..n).map(|_| if rng.random() { 0 } else { rng.random() }).collect();
            let input = DeviceBuffer::from_slice(device, &values).unwrap();
            let mut out = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            let count = select_count(&stream, &input, Predicate::NonZero, &mut out).unwrap();
            let want: Vec<u32> = values.iter().copied().filter(|&v| v != 0).collect();
            assert_eq!(count, want.len(), "u32 non-zero count, n = {n}");
            assert!(out.to_vec().unwrap()[..count] == want[..], "u32 non-zero, n = {n}");

            let threshold = u32::MAX / 4 * 3;
            let count = select_count(&stream, &input, Predicate::GreaterThan(threshold), &mut out).unwrap();
            let want: Vec<u32> = values.iter().copied().filter(|&v| v > threshold).collect();
            assert_eq!(count, want.len(), "u32 greater count, n = {n}");
            assert!(out.to_vec().unwrap()[..count] == want[..], "u32 greater, n = {n}");

            // f32 with negative values, both zeros and NaN; flagged i32 and u64.
            let floats: Vec<f32> = (0..n)
                .map(|i| match i % 13 {
                    0 => -0.0,
                    1 => 0.0,
                    2 => f32::NAN,
                    _ => rng.random_range(-1.0f32..1.0),
                })
                .collect();
            let input = DeviceBuffer::from_slice(device, &floats).unwrap();
            let mut out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
            let count = select_count(&stream, &input, Predicate::GreaterThan(-0.25), &mut out).unwrap();
            let want: Vec<u32> = floats.iter().filter(|&&v| v > -0.25).map(|v| v.to_bits()).collect();
            let got: Vec<u32> = out.to_vec().unwrap()[..count].iter().map(|v| v.to_bits()).collect();
            assert!(got == want, "f32 greater than -0.25, n = {n}");
            let count = select_count(&stream, &input, Predicate::NonZero, &mut out).unwrap();
            let want: Vec<u32> = floats.iter().filter(|&&v| v != 0.0).map(|v| v.to_bits()).collect();
            let got: Vec<u32> = out.to_vec().unwrap()[..count].iter().map(|v| v.to_bits()).collect();
            assert!(got == want, "f32 non-zero (NaN kept, both zeros dropped), n = {n}");

            let flags: Vec<u8> = (0..n).map(|_| rng.random_range(0..3)).collect();
            let flag_buffer = DeviceBuffer::from_slice(device, &flags).unwrap();
            let ints: Vec<i32> = (0..n).map(|_| rng.random()).collect();
            let input = DeviceBuffer::from_slice(device, &ints).unwrap();
            let mut out = DeviceBuffer::<i32>::zeros(device, n).unwrap();
            let mut count = DeviceBuffer::<u64>::from_slice(device, &[99]).unwrap();
            select_if(&stream, &input, Predicate::Flagged(&flag_buffer), &mut out, &mut count).unwrap();
            let want: Vec<i32> = ints.iter().zip(&flags).filter(|(_, f)| **f != 0).map(|(v, _)| *v).collect();
            let count = count.to_vec().unwrap()[0] as usize;
            assert_eq!(count, want.len(), "i32 flagged count, n = {n}");
            assert!(out.to_vec().unwrap()[..count] == want[..], "i32 flagged, n = {n}");

            let longs: Vec<u64> = (0..n as u64).map(|i| i * 0x1_0000_0001).collect();
            let input = DeviceBuffer::from_slice(device, &longs).unwrap();
            let mut out = DeviceBuffer::<u64>::zeros(device, n).unwrap();
            let count = select_count(&stream, &input, Predicate::Flagged(&flag_buffer), &mut out).unwrap();
            let want: Vec<u64> = longs.iter().zip(&flags).filter(|(_, f)| **f != 0).map(|(v, _)| *v).collect();
            assert!(out.to_vec().unwrap()[..count] == want[..], "u64 flagged, n = {n}");
        }
    }

    fn select_into_checks_its_launch_contract(device) {
        // `select_nonzero` is `select_into` in a kernel, as a user's own kernel calls it.
        let stream = device.default_stream();
        let n = 2 * SELECT_TILE + 5;
        let values: Vec<u32> = (0..n as u32).map(|i| i % 3).collect();
        let input = DeviceBuffer::from_slice(device, &values).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        let mut count = DeviceBuffer::<u64>::from_slice(device, &[7]).unwrap();
        let run = |input: &DeviceBuffer<u32>,
                   out: &mut DeviceBuffer<u32>,
                   count: &mut DeviceBuffer<u64>,
                   grid: u32,
                   block: u32| {
            let mut control = DeviceBuffer::<u64>::zeros(device, 1 + grid as usize).unwrap();
            launch!(select_nonzero::<u32>[grid, block, &stream](input, out, count, &mut control))
                .unwrap();
            stream.synchronize()
        };
        for block in [128, 512] {
            let panic = expect_panic(run(&input, &mut out, &mut count, 6, block));
            assert_eq!(panic.message, "select_into: launch it with blocks of SELECT_THREADS (256) threads");
        }
        // Three tiles need three blocks: two would leave the count unwritten.
        let panic = expect_panic(run(&input, &mut out, &mut count, 2, SELECT_THREADS));
        assert!(panic.message.starts_with("select_into: launch it with at least one block per"), "{}", panic.message);
        assert_eq!(count.to_vec().unwrap(), vec![7]);
        // The contract kept, with a block to spare; and an empty input, which counts 0.
        run(&input, &mut out, &mut count, 4, SELECT_THREADS).unwrap();
        let want: Vec<u32> = values.iter().copied().filter(|&v| v != 0).collect();
        assert_eq!(count.to_vec().unwrap(), vec![want.len() as u64]);
        assert!(out.to_vec().unwrap()[..want.len()] == want[..]);
        let empty = DeviceBuffer::<u32>::zeros(device, 0).unwrap();
        run(&empty, &mut out, &mut count, 1, SELECT_THREADS).unwrap();
        assert_eq!(count.to_vec().unwrap(), vec![0]);
    }

    fn select_rejects_short_buffers(device) {
        let stream = device.default_stream();
        let input = DeviceBuffer::from_slice(device, &[1u32, 0, 2]).unwrap();
        let mut short = DeviceBuffer::<u32>::zeros(device, 2).unwrap();
        let mut count = DeviceBuffer::<u64>::zeros(device, 1).unwrap();
        let text = launch_error(select_if(&stream, &input, Predicate::NonZero, &mut short, &mut count));
        assert!(text.contains("the output holds 2 elements, the input has 3"), "{text}");
        let mut out = DeviceBuffer::<u32>::zeros(device, 3).unwrap();
        let flags = DeviceBuffer::from_slice(device, &[1u8]).unwrap();
        let text = launch_error(select_if(&stream, &input, Predicate::Flagged(&flags), &mut out, &mut count));
        assert!(text.contains("1 flags for 3 elements"), "{text}");
        let mut no_count = DeviceBuffer::<u64>::zeros(device, 0).unwrap();
        let text = launch_error(select_if(&stream, &input, Predicate::NonZero, &mut out, &mut no_count));
        assert!(text.contains("the count buffer is empty"), "{text}");
    }
}
