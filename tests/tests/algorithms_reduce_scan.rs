//! The device-wide reduce and scans (`kernels_algorithms::{reduce, scan}`) against sequential
//! CPU folds on random data: every element type and operator, the awkward lengths 0, 1, 31, a
//! partial tile or group, several tiles, and 2^20 + 7, whole buffers and sub-slices at offsets
//! that are not 16-byte aligned; and their errors.
//!
//! Integers are compared exactly (sums wrap); float minima and maxima exactly; float sums
//! against an `f64` sum, within `1e-5` (f32) or `1e-12` (f64) of the sum of the magnitudes of
//! the elements combined (the kernels sum in a fixed tree, not left to right).
//!
//! The scans' look-back: the simulator runs blocks one after another, so there every tile finds
//! its predecessor's inclusive prefix at once; on the GPU the tiles of the larger lengths (up to
//! 513 tiles for 2^20 + 7) run concurrently, and the `gpu` variants exercise the walk over
//! aggregates and the waits.

use ferrocuda::prelude::*;
use ferrocuda_tests::device_tests;
use ferrocuda_tests::inputs::rng;
use kernels_algorithms::reduce::{
    BitAnd, BitOr, BitXor, Max, Min, ReduceScratch, Reducible, Sum, reduce, reduce_into,
};
use kernels_algorithms::scan::{
    ScanScratch, Scannable, exclusive_scan, exclusive_scan_with, inclusive_scan,
    inclusive_scan_with,
};
use rand::Rng;
use rand::distr::{Distribution, StandardUniform};

/// The lengths every algorithm runs at: empty, one, one short warp, less than a tile, a
/// partial group of the reduce and several scan tiles, and one past several whole ones.
const LENGTHS: [usize; 7] = [0, 1, 31, 1000, 4099, 70_001, (1 << 20) + 7];

/// `n` random values: integers over their whole range, floats in `[-1, 1)`.
fn random<T>(seed: &str, n: usize) -> Vec<T>
where
    StandardUniform: Distribution<T>,
{
    let mut rng = rng(seed);
    (0..n).map(|_| rng.random()).collect()
}

/// `n` random floats in `[-1, 1)` (`f64` values, narrowed by the caller).
fn random_unit(seed: &str, n: usize) -> Vec<f64> {
    let mut rng = rng(seed);
    (0..n).map(|_| rng.random_range(-1.0..1.0)).collect()
}

/// Checks `reduce` with `Op` against `expected` (a sequential fold) for every length and three
/// sub-slices of each.
fn check_reduce<T, Op>(
    device: &Device,
    what: &str,
    data: &[T],
    op: Op,
    expected: impl Fn(&[T]) -> T,
    equal: impl Fn(T, T, &[T]) -> bool,
) where
    T: DeviceCopy + std::fmt::Debug,
    Op: Reducible<T>,
{
    let stream = device.default_stream();
    for len in LENGTHS {
        let data = &data[..len];
        let buffer = DeviceBuffer::from_slice(device, data).unwrap();
        let got = reduce(&stream, &buffer, op).unwrap();
        let want = expected(data);
        assert!(
            equal(got, want, data),
            "{what}, length {len}: got {got:?}, expected {want:?}"
        );
        // Sub-slices that start off the 16-byte alignment and end early.
        for (start, end) in [(1, len), (3, len.saturating_sub(2)), (len / 3, len / 2)] {
            let (start, end) = (start.min(len), end.max(start.min(len)));
            let got = reduce(&stream, buffer.slice(start..end), op).unwrap();
            let want = expected(&data[start..end]);
            assert!(
                equal(got, want, &data[start..end]),
                "{what}, length {len}, slice {start}..{end}: got {got:?}, expected {want:?}"
            );
        }
    }
}

/// Exact equality.
fn exact<T: PartialEq>(a: T, b: T, _: &[T]) -> bool {
    a == b
}

/// Reduces every integer type with every operator.
macro_rules! check_integer_reduces {
    ($device:ident, $($t:ty),*) => {$({
        let data: Vec<$t> = random(concat!("reduce_", stringify!($t)), LENGTHS[6]);
        let name = stringify!($t);
        check_reduce($device, &format!("{name} sum"), &data, Sum, |d| d.iter().fold(0, |a: $t, &b| a.wrapping_add(b)), exact);
        check_reduce($device, &format!("{name} min"), &data, Min, |d| d.iter().copied().min().unwrap_or(<$t>::MAX), exact);
        check_reduce($device, &format!("{name} max"), &data, Max, |d| d.iter().copied().max().unwrap_or(<$t>::MIN), exact);
        check_reduce($device, &format!("{name} and"), &data, BitAnd, |d| d.iter().fold(!0, |a: $t, &b| a & b), exact);
        // Small values, so that `and` of a few of them is not always 0.
        let dense: Vec<$t> = data.iter().map(|&x| x | (<$t>::MAX >> 3)).collect();
        check_reduce($device, &format!("{name} and (dense)"), &dense, BitAnd, |d| d.iter().fold(!0, |a: $t, &b| a & b), exact);
        check_reduce($device, &format!("{name} or"), &data, BitOr, |d| d.iter().fold(0, |a: $t, &b| a | b), exact);
        check_reduce($device, &format!("{name} xor"), &data, BitXor, |d| d.iter().fold(0, |a: $t, &b| a ^ b), exact);
    })*};
}

/// Reduces a float type with the sum, min and max.
macro_rules! check_float_reduces {
    ($device:ident, $t:ty, $tolerance:expr) => {{
        let name = stringify!($t);
        let data: Vec<$t> = random_unit(concat!("reduce_", stringify!($t)), LENGTHS[6])
            .into_iter()
            .map(|x| x as $t)
            .collect();
        let close = |got: $t, want: $t, d: &[$t]| {
            let magnitude: f64 = d.iter().map(|x| (*x as f64).abs()).sum();
            ((got as f64) - (want as f64)).abs() <= $tolerance * magnitude + 1e-30
        };
        check_reduce(
            $device,
            &format!("{name} sum"),
            &data,
            Sum,
            |d| d.iter().map(|&x| x as f64).sum::<f64>() as $t,
            close,
        );
        check_reduce(
            $device,
            &format!("{name} min"),
            &data,
            Min,
            |d| d.iter().copied().fold(<$t>::INFINITY, <$t>::min),
            exact,
        );
        check_reduce(
            $device,
            &format!("{name} max"),
            &data,
            Max,
            |d| d.iter().copied().fold(<$t>::NEG_INFINITY, <$t>::max),
            exact,
        );
    }};
}

/// Checks both scans with `Op` against sequential scans for every length and a sub-slice.
#[expect(
    clippy::too_many_arguments,
    reason = "the data, the operator and the reference of one check"
)]
fn check_scan<T, Op>(
    device: &Device,
    what: &str,
    data: &[T],
    op: Op,
    initial: T,
    identity: T,
    fold: impl Fn(T, T) -> T,
    close: impl Fn(T, T, f64) -> bool,
    magnitude: impl Fn(T) -> f64,
) where
    T: DeviceCopy + std::fmt::Debug,
    Op: Scannable<T>,
{
    let stream = device.default_stream();
    for len in LENGTHS {
        for (start, end) in [(0, len), (1.min(len), len), (len / 5, len / 2)] {
            let input = &data[start..end];
            let n = input.len();
            let buffer = DeviceBuffer::from_slice(device, &data[..len]).unwrap();
            // The output is a sub-slice too, at another offset of a larger buffer.
            let mut out = DeviceBuffer::from_slice(device, &vec![identity; n + 3]).unwrap();
            inclusive_scan(&stream, buffer.slice(start..end), out.slice_mut(3..), op).unwrap();
            let got = out.to_vec().unwrap();
            let (mut running, mut scale) = (identity, 0.0);
            for (i, &x) in input.iter().enumerate() {
                running = fold(running, x);
                scale += magnitude(x);
                assert!(
                    close(got[3 + i], running, scale),
                    "{what} inclusive, length {len}, slice {start}..{end}, element {i}: got {:?}, expected {running:?}",
                    got[3 + i]
                );
            }
            let mut out = DeviceBuffer::from_slice(device, &vec![identity; n]).unwrap();
            exclusive_scan(&stream, buffer.slice(start..end), &mut out, initial, op).unwrap();
            let got = out.to_vec().unwrap();
            let (mut running, mut scale) = (initial, magnitude(initial));
            for (i, &x) in input.iter().enumerate() {
                assert!(
                    close(got[i], running, scale),
                    "{what} exclusive, length {len}, slice {start}..{end}, element {i}: got {:?}, expected {running:?}",
                    got[i]
                );
                running = fold(running, x);
                scale += magnitude(x);
            }
        }
    }
}

/// Scans an integer type with the sum, min and max.
macro_rules! check_integer_scans {
    ($device:ident, $($t:ty),*) => {$({
        let name = stringify!($t);
        let data: Vec<$t> = random(concat!("scan_", stringify!($t)), LENGTHS[6]);
        let exact = |a: $t, b: $t, _| a == b;
        let none = |_| 0.0;
        check_scan($device, &format!("{name} sum"), &data, Sum, 7 as $t, 0, |a: $t, b| a.wrapping_add(b), exact, none);
        check_scan($device, &format!("{name} max"), &data, Max, <$t>::MIN, <$t>::MIN, |a: $t, b| a.max(b), exact, none);
        check_scan($device, &format!("{name} min"), &data, Min, <$t>::MAX, <$t>::MAX, |a: $t, b| a.min(b), exact, none);
    })*};
}

/// Scans a float type with the sum and max.
macro_rules! check_float_scans {
    ($device:ident, $t:ty, $tolerance:expr) => {{
        let name = stringify!($t);
        let data: Vec<$t> = random_unit(concat!("scan_", stringify!($t)), LENGTHS[6])
            .into_iter()
            .map(|x| x as $t)
            .collect();
        // The reference sums in f64 (then rounds); the tolerance scales with the magnitudes.
        let close = |got: $t, want: $t, scale: f64| {
            ((got as f64) - (want as f64)).abs() <= $tolerance * scale + 1e-30
        };
        let exact = |a: $t, b: $t, _| a == b;
        let magnitude = |x: $t| (x as f64).abs();
        check_scan(
            $device,
            &format!("{name} sum"),
            &data,
            Sum,
            0.5 as $t,
            0.0,
            |a: $t, b| ((a as f64) + (b as f64)) as $t,
            close,
            magnitude,
        );
        check_scan(
            $device,
            &format!("{name} max"),
            &data,
            Max,
            -0.75 as $t,
            <$t>::NEG_INFINITY,
            |a: $t, b| a.max(b),
            exact,
            magnitude,
        );
    }};
}

device_tests! {
    fn reduce_integers_match_sequential_folds(device) {
        check_integer_reduces!(device, u32, i32, u64, i64);
    }

    fn reduce_floats_match_f64_sums_and_exact_extrema(device) {
        check_float_reduces!(device, f32, 1e-5);
        check_float_reduces!(device, f64, 1e-12);
    }

    fn float_sums_repeat_bit_for_bit(device) {
        // The order of combination is a fixed tree: the same input gives the same bits.
        let stream = device.default_stream();
        let data: Vec<f32> = random_unit("reduce_repeat", 300_001).into_iter().map(|x| x as f32 * 1e3).collect();
        let input = DeviceBuffer::from_slice(device, &data).unwrap();
        let first = reduce(&stream, &input, Sum).unwrap();
        for _ in 0..3 {
            assert_eq!(reduce(&stream, &input, Sum).unwrap().to_bits(), first.to_bits());
        }
    }

    fn reduce_into_writes_the_result_and_checks_its_lengths(device) {
        let stream = device.default_stream();
        let data: Vec<u32> = random("reduce_into", 100_000);
        let input = DeviceBuffer::from_slice(device, &data).unwrap();
        let mut scratch = ReduceScratch::new(device).unwrap();
        let mut out = DeviceBuffer::from_slice(device, &[0u32, 0, 0]).unwrap();
        reduce_into(&stream, &input, out.slice_mut(1..2), Max, &mut scratch).unwrap();
        stream.synchronize().unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![0, *data.iter().max().unwrap(), 0]);
        // An empty input writes the identity.
        reduce_into(&stream, input.slice(5..5), out.slice_mut(0..1), Min, &mut scratch).unwrap();
        assert_eq!(out.to_vec().unwrap()[0], u32::MAX);
        match reduce_into(&stream, &input, &mut out, Sum, &mut scratch) {
            Err(Error::LengthMismatch { expected: 1, actual: 3, operation }) => {
                assert!(operation.contains("reduce_into"), "{operation}");
            }
            other => panic!("a 3-element output must be a length mismatch, got {other:?}"),
        }
    }

    fn scan_integers_match_sequential_scans(device) {
        check_integer_scans!(device, u32, i32, u64, i64);
    }

    fn scan_floats_match_f64_scans(device) {
        check_float_scans!(device, f32, 1e-5);
        check_float_scans!(device, f64, 1e-12);
    }

    fn scans_with_caller_storage_reuse_it(device) {
        let stream = device.default_stream();
        let data: Vec<u32> = random("scan_with", 50_000);
        let input = DeviceBuffer::from_slice(device, &data).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, data.len()).unwrap();
        let mut scratch = ScanScratch::new(device, data.len()).unwrap();
        assert!(ScanScratch::<u32>::bytes(data.len()) >= 4 * ScanScratch::<u32>::tiles(data.len()));
        for round in 0..3u32 {
            exclusive_scan_with(&stream, &input, &mut out, round, Sum, &mut scratch).unwrap();
            let expected: Vec<u32> = data
                .iter()
                .scan(round, |s, &x| {
                    let before = *s;
                    *s = s.wrapping_add(x);
                    Some(before)
                })
                .collect();
            assert_eq!(out.to_vec().unwrap(), expected, "round {round}");
        }
        inclusive_scan_with(&stream, input.slice(..1000), out.slice_mut(..1000), Max, &mut scratch).unwrap();
        let expected: Vec<u32> = data[..1000].iter().scan(0, |s, &x| { *s = (*s).max(x); Some(*s) }).collect();
        assert_eq!(out.to_vec().unwrap()[..1000], expected[..]);
    }

    fn scans_reusing_storage_see_only_their_own_tiles(device) {
        // Each scan with a storage has its own epoch: what earlier scans published (other data,
        // other lengths) must not be taken for this scan's tiles. Longer and shorter scans
        // alternate, each with new data, so a stale prefix would change the results.
        let stream = device.default_stream();
        let capacity = (1 << 20) + 7;
        let mut scratch = ScanScratch::<u32>::new(device, capacity).unwrap();
        let mut scratch_wide = ScanScratch::<u64>::new(device, capacity).unwrap();
        for (round, len) in [capacity, 4000, capacity, 31, 70_001, capacity].into_iter().enumerate() {
            let data: Vec<u32> = random(&format!("scan_epochs_{round}"), len);
            let input = DeviceBuffer::from_slice(device, &data).unwrap();
            let mut out = DeviceBuffer::<u32>::zeros(device, len).unwrap();
            inclusive_scan_with(&stream, &input, &mut out, Sum, &mut scratch).unwrap();
            let expected: Vec<u32> = data.iter().scan(0u32, |s, &x| { *s = s.wrapping_add(x); Some(*s) }).collect();
            assert_eq!(out.to_vec().unwrap(), expected, "u32 round {round}, length {len}");
            let wide: Vec<u64> = data.iter().map(|&x| u64::from(x) << 20 | u64::from(x)).collect();
            let input = DeviceBuffer::from_slice(device, &wide).unwrap();
            let mut out = DeviceBuffer::<u64>::zeros(device, len).unwrap();
            exclusive_scan_with(&stream, &input, &mut out, round as u64, Sum, &mut scratch_wide).unwrap();
            let expected: Vec<u64> = wide.iter().scan(round as u64, |s, &x| { let before = *s; *s = s.wrapping_add(x); Some(before) }).collect();
            assert_eq!(out.to_vec().unwrap(), expected, "u64 round {round}, length {len}");
        }
    }

    fn scan_errors_name_the_lengths(device) {
        let stream = device.default_stream();
        let input = DeviceBuffer::from_slice(device, &[1.0f32; 10]).unwrap();
        let mut out = DeviceBuffer::<f32>::zeros(device, 9).unwrap();
        match inclusive_scan(&stream, &input, &mut out, Sum) {
            Err(Error::LengthMismatch { expected: 10, actual: 9, operation }) => {
                assert!(operation.contains("inclusive_scan"), "{operation}");
            }
            other => panic!("a shorter output must be a length mismatch, got {other:?}"),
        }
        let big = DeviceBuffer::from_slice(device, &vec![1.0f32; 5000]).unwrap();
        let mut big_out = DeviceBuffer::<f32>::zeros(device, 5000).unwrap();
        let mut small = ScanScratch::<f32>::new(device, 100).unwrap();
        match exclusive_scan_with(&stream, &big, &mut big_out, 0.0, Sum, &mut small) {
            Err(Error::LengthMismatch { expected: 5000, actual, operation }) => {
                assert_eq!(actual, small.capacity());
                assert!(operation.contains("ScanScratch"), "{operation}");
            }
            other => panic!("a small scratch must be a length mismatch, got {other:?}"),
        }
    }
}
