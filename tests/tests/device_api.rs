//! The kernel-side API (`test_kernels::device_api`) against CPU references: shared memory,
//! atomics, warp operations, math, printing, constant memory and matrix views, on random inputs
//! whose sizes are not multiples of the block, on the simulator and the GPU.

use ferrocuda::SimulatorFault;
use ferrocuda::device::__math_operand;
use ferrocuda::prelude::*;
use ferrocuda_tests::{
    assert_close, blocks, device_tests, expect_panic, random_f32, random_u32, rng, ulps,
};
use rand::Rng;
use test_kernels::device_api::*;

/// Inputs of the math tests besides the random ones in [-10, 10): signed zeros, halves, small,
/// large (`e^80` is finite in `f32`), infinities and NaN.
const SPECIAL_INPUTS: [f64; 12] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.5,
    -2.5,
    1e-3,
    80.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// One expected output of the math kernel: the function, std's value, the tolerance in ulp.
type Expected<T> = (&'static str, T, u64);

/// Std's result of one function, flattened like the kernel's output row (`sin_cos` is two).
trait Flatten<T> {
    fn push_into(self, name: &'static str, tolerance: u64, rows: &mut Vec<Expected<T>>);
}

impl<T> Flatten<T> for T {
    fn push_into(self, name: &'static str, tolerance: u64, rows: &mut Vec<Expected<T>>) {
        rows.push((name, self, tolerance));
    }
}

impl<T> Flatten<T> for (T, T) {
    fn push_into(self, name: &'static str, tolerance: u64, rows: &mut Vec<Expected<T>>) {
        rows.push((name, self.0, tolerance));
        rows.push((name, self.1, tolerance));
    }
}

/// The CPU reference of the math kernel, from the same table: for each line, std's method of the
/// same name (or the line's `std[...]`) on the line's operands, with the line's tolerance.
macro_rules! math_expectations {
    ([$t:ident] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:tt,
        lower[$($lower:tt)*], test[$first:tt $(, $op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        |x: $t| -> Vec<Expected<$t>> {
            let mut rows = Vec::new();
            $(
                let value = math_expectations!(@reference $t, x, $name, [$first $(, $op)*], [$($($std)*)?]);
                let tolerance = [$($ulp,)? ferrocuda::device::math::MATH_ULP_TOLERANCE][0];
                Flatten::push_into(value, stringify!($name), tolerance, &mut rows);
            )*
            rows
        }
    };
    (@reference $t:ident, $x:ident, $name:ident, [$first:tt $(, $op:tt)*], []) => {
        $t::$name(__math_operand!($x, $first) $(, __math_operand!($x, $op))*)
    };
    (@reference $t:ident, $x:ident, $name:ident, [$first:tt $(, $op:tt)*], [$($std:tt)+]) => {{
        let reference: fn($t) -> $t = $($std)+;
        reference(__math_operand!($x, $first))
    }};
}

/// CPU reference of `api_shuffle_kinds`: lane `l` of warp `w` reads the lane named by each kind.
fn expected_shuffles<T: Copy>(input: &[T], fill: T) -> Vec<T> {
    let value = |j: usize| input.get(j).copied().unwrap_or(fill);
    let mut expected = Vec::with_capacity(4 * input.len());
    for i in 0..input.len() {
        let (base, lane) = (i - i % 32, i % 32);
        expected.push(value(base + lane / 8 * 8 + 3));
        expected.push(if lane >= 1 { value(i - 1) } else { value(i) });
        expected.push(if lane % 16 + 2 < 16 {
            value(i + 2)
        } else {
            value(i)
        });
        expected.push(value(base + (lane ^ 5)));
    }
    expected
}

/// CPU model of `api_shuffle_widths`, from CUDA's definition of a width: lane `l` belongs to the
/// group of `width` lanes starting at `l / width * width`; `up`/`down` sources outside the group
/// and `xor` sources in a later group give the lane its own value (an earlier group is read).
fn expected_shuffle_widths(input: &[u32], width: usize) -> Vec<u32> {
    let value = |j: usize| input.get(j).copied().unwrap_or(u32::MAX);
    let row = |i: usize, width: usize| {
        let (base, lane) = (i - i % 32, i % 32);
        let group = lane / width * width;
        let xor = |lane_mask: usize| {
            let source = lane ^ lane_mask;
            if source / width <= lane / width {
                value(base + source)
            } else {
                value(i)
            }
        };
        [
            value(base + group + 5 % width),
            if lane % width >= 3 {
                value(i - 3)
            } else {
                value(i)
            },
            if lane % width + 3 < width {
                value(i + 3)
            } else {
                value(i)
            },
            xor(6),
            xor(9),
        ]
    };
    (0..input.len())
        .flat_map(|i| row(i, width).into_iter().chain(row(i, 32)))
        .collect()
}

/// Runs `api_shuffle_kinds` for every type of the shuffle table and checks it bit for bit.
macro_rules! shuffle_checks {
    ([$device:ident, $rng:ident] $($t:ty => $carrier:ident, $to:expr, $from:expr;)*) => {$(
        let (n, block) = (200usize, 64usize);
        let input: Vec<$t> = (0..n).map(|_| $rng.random()).collect();
        let fill: $t = $rng.random();
        let mut out = DeviceBuffer::<$t>::zeros($device, 4 * n).unwrap();
        launch!(api_shuffle_kinds::<$t>[blocks(n, block), block as u32](&input, fill, &mut out)).unwrap();
        let expected = expected_shuffles(&input, fill);
        assert_eq!(out.to_vec().unwrap(), expected, "shuffles of {}", stringify!($t));
    )*};
}

/// Compares one output row of the math kernel with std's values (`single`: in `f32` ulps).
fn check_math_row<T: Into<f64> + Copy>(x: f64, got: &[T], expected: &[Expected<T>], single: bool) {
    assert_eq!(got.len(), expected.len(), "outputs per input");
    for (&got, &(name, want, tolerance)) in got.iter().zip(expected) {
        let (got, want) = (got.into(), want.into());
        assert!(
            ulps(got, want, single) <= tolerance,
            "{name}({x:e}): got {got:e}, std {want:e} ({} ulp, tolerance {tolerance})",
            ulps(got, want, single)
        );
    }
}

device_tests! {
    fn static_shared_array_reverses_blocks(device) {
        let mut rng = rng("shared_reverse");
        for (n, block) in [(1, 256), (255, 256), (257, 256), (1000, 100), (4099, 256)] {
            let input = random_f32(&mut rng, n);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            launch!(api_shared_reverse[blocks(n, block), block as u32](&input, &mut out)).unwrap();
            let mut expected = Vec::with_capacity(n);
            for chunk in input.chunks(block) {
                expected.extend(chunk.iter().rev());
            }
            assert_eq!(out.to_vec().unwrap(), expected, "n = {n}, block = {block}");
        }
    }

    fn shared_tile_transposes(device) {
        let mut rng = rng("shared_transpose");
        for (w, h) in [(16usize, 16usize), (37, 19), (64, 1), (1, 50), (100, 33)] {
            let input = random_f32(&mut rng, w * h);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; w * h]).unwrap();
            let grid = (blocks(w, 16), blocks(h, 16));
            launch!(api_shared_transpose[grid, (16, 16)](&input, &mut out, w as u32, h as u32)).unwrap();
            let mut expected = vec![0.0; w * h];
            for r in 0..h {
                for c in 0..w {
                    expected[c * h + r] = input[r * w + c];
                }
            }
            assert_eq!(out.to_vec().unwrap(), expected, "{w} x {h}");
        }
    }

    fn dynamic_shared_block_sums(device) {
        let mut rng = rng("dynamic_block_sum");
        for (n, block) in [(1usize, 32usize), (1000, 128), (4099, 256)] {
            let input = random_f32(&mut rng, n);
            let grid = blocks(n, block);
            let mut partial = DeviceBuffer::from_slice(device, &vec![f32::NAN; grid as usize]).unwrap();
            launch!(api_dynamic_block_sum[grid, block as u32, &device.default_stream(), (block * 4) as u32](
                &input, &mut partial
            ))
            .unwrap();
            let expected: Vec<f32> = input.chunks(block).map(|c| c.iter().sum()).collect();
            assert_close(&partial.to_vec().unwrap(), &expected, 1e-5);
        }
    }

    fn dynamic_shared_carved_arrays(device) {
        let mut rng = rng("dynamic_carve");
        for (n, block) in [(5usize, 64usize), (300, 64), (1000, 96)] {
            let a: Vec<f64> = (0..n).map(|_| rng.random_range(-1.0..1.0)).collect();
            let b: Vec<u16> = (0..n).map(|_| rng.random()).collect();
            let mut out = DeviceBuffer::from_slice(device, &vec![f64::NAN; n]).unwrap();
            // 3 bytes, padding to 8, then `block` f64s and `block` u16s.
            let bytes = 8 + 10 * block as u32;
            launch!(api_dynamic_carve[blocks(n, block), block as u32, &device.default_stream(), bytes](
                &a, &b, &mut out
            ))
            .unwrap();
            let mut expected = Vec::with_capacity(n);
            for (xs, ks) in a.chunks(block).zip(b.chunks(block)) {
                expected.extend(xs.iter().zip(ks.iter().rev()).map(|(x, k)| x * *k as f64));
            }
            assert_eq!(out.to_vec().unwrap(), expected, "n = {n}");
        }
    }

    fn dynamic_shared_too_small_panics(device) {
        // Device buffers, not host slices: a launch with host slices is synchronous and would
        // return the panic itself.
        let a = DeviceBuffer::from_slice(device, &[1.0f64; 64]).unwrap();
        let b = DeviceBuffer::from_slice(device, &[1u16; 64]).unwrap();
        let mut out = DeviceBuffer::<f64>::zeros(device, 64).unwrap();
        launch!(api_dynamic_carve[1, 64, &device.default_stream(), 100](&a, &b, &mut out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert!(panic.message.starts_with("dynamic shared memory too small"), "{}", panic.message);
        if device.is_simulator() {
            assert!(panic.message.contains("needs 520 bytes, but the launch gave 100 bytes"), "{}", panic.message);
        }
        assert!(panic.file.ends_with("device_api.rs"), "{}", panic.file);

        // No dynamic shared memory at all: `cache[t]` is out of bounds of an empty array.
        let mut partial = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
        let ones = DeviceBuffer::from_slice(device, &[1.0f32; 32]).unwrap();
        launch!(api_dynamic_block_sum[1, 32](&ones, &mut partial)).unwrap();
        let panic = expect_panic(device.synchronize());
        // The same text on both backends (the GPU records the index and the length).
        assert!(
            panic.message.starts_with("shared array index out of bounds: the index is"),
            "{}",
            panic.message
        );
        assert!(panic.message.ends_with("but the length is 0"), "{}", panic.message);
        device.synchronize().unwrap();
    }

    fn histogram_with_global_atomics(device) {
        let mut rng = rng("histogram_global");
        let data = random_u32(&mut rng, 100_003, u32::MAX);
        let mut bins = DeviceBuffer::<u32>::zeros(device, 37).unwrap();
        launch!(api_histogram_global[blocks(data.len(), 256), 256](&data, &mut bins)).unwrap();
        let mut expected = vec![0u32; 37];
        for v in &data {
            expected[*v as usize % 37] += 1;
        }
        assert_eq!(bins.to_vec().unwrap(), expected);
    }

    fn float_atomics(device) {
        let mut rng = rng("atomic_floats");
        let n = 10_001;
        let block = 128;
        let values = random_f32(&mut rng, n);
        let mut sums = DeviceBuffer::from_slice(device, &[0.0f32]).unwrap();
        let mut extremes = DeviceBuffer::from_slice(device, &[f32::INFINITY, f32::NEG_INFINITY]).unwrap();
        let mut sums64 = DeviceBuffer::from_slice(device, &[0.0f64, 0.0]).unwrap();
        let mut extremes64 = DeviceBuffer::from_slice(device, &[f64::INFINITY, f64::NEG_INFINITY]).unwrap();
        let grid = blocks(n, block);
        let mut block_sums = DeviceBuffer::<f32>::zeros(device, grid as usize).unwrap();
        launch!(api_atomic_floats[grid, block as u32](
            &values, &mut sums, &mut extremes, &mut sums64, &mut extremes64, &mut block_sums
        ))
        .unwrap();
        let total: f64 = values.iter().map(|&v| v as f64).sum();
        let min = values.iter().copied().fold(f32::INFINITY, f32::min);
        let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let sums = sums.to_vec().unwrap();
        assert!((sums[0] as f64 - total).abs() < 1e-2, "{} vs {total}", sums[0]);
        assert_eq!(extremes.to_vec().unwrap(), [min, max]);
        let sums64 = sums64.to_vec().unwrap();
        assert!((sums64[0] - total).abs() < 1e-9 && (sums64[1] + total).abs() < 1e-9, "{sums64:?} vs {total}");
        assert_eq!(extremes64.to_vec().unwrap(), [min as f64, max as f64]);
        let expected: Vec<f32> = values.chunks(block).map(|c| c.iter().sum()).collect();
        assert_close(&block_sums.to_vec().unwrap(), &expected, 1e-4);
    }

    fn integer_atomics(device) {
        let mut rng = rng("atomic_integers");
        let n = 5_003;
        let values: Vec<i32> = (0..n).map(|_| rng.random_range(-1_000_000..1_000_000)).collect();
        let mut ints = DeviceBuffer::from_slice(device, &[0, i32::MAX, i32::MIN, -1, 0, 0, 0, 12_345_678, 0]).unwrap();
        let mut longs = DeviceBuffer::from_slice(device, &[0, 0, u64::MAX, 0, 0, 0, 0]).unwrap();
        launch!(api_atomic_integers[blocks(n, 64), 64](&values, &mut ints, &mut longs)).unwrap();
        let ints = ints.to_vec().unwrap();
        let sum = values.iter().fold(0i32, |a, &v| a.wrapping_add(v));
        assert_eq!(ints[0], sum);
        assert_eq!(ints[1], *values.iter().min().unwrap());
        assert_eq!(ints[2], *values.iter().max().unwrap());
        assert_eq!(ints[3], values.iter().fold(-1, |a, &v| a & v));
        assert_eq!(ints[4], values.iter().fold(0, |a, &v| a | v));
        assert_eq!(ints[5], values.iter().fold(0, |a, &v| a ^ v));
        assert_eq!(ints[6], sum.wrapping_neg());
        assert!(values.contains(&ints[7]), "exchange left {}", ints[7]);
        assert_eq!(ints[8], n as i32, "compare-and-swap counter");
        let wide: Vec<u64> = values.iter().map(|&v| v as u32 as u64).collect();
        let longs = longs.to_vec().unwrap();
        let wide_sum = wide.iter().fold(0u64, |a, &v| a.wrapping_add(v));
        assert_eq!(longs[0], wide_sum);
        assert_eq!(longs[1], *wide.iter().max().unwrap());
        assert_eq!(longs[2], wide.iter().fold(u64::MAX, |a, &v| a & v));
        assert_eq!(longs[3], wide.iter().fold(0, |a, &v| a | v));
        assert_eq!(longs[4], wide.iter().fold(0, |a, &v| a ^ v));
        assert_eq!(longs[5], wide_sum, "ordered add");
        assert_eq!(longs[6], n as u64, "ordered compare-and-swap counter");
    }

    fn warp_reductions(device) {
        let mut rng = rng("warp_reduce");
        for (n, block) in [(1000usize, 64usize), (33, 32), (4099, 256)] {
            let input = random_f32(&mut rng, n);
            let grid = blocks(n, block);
            let mut sum32 = DeviceBuffer::from_slice(device, &[0.0f32]).unwrap();
            let mut sum64 = DeviceBuffer::from_slice(device, &vec![f64::NAN; n]).unwrap();
            launch!(api_warp_reduce[grid, block as u32](&input, &mut sum32, &mut sum64)).unwrap();
            let total: f32 = input.iter().sum();
            assert!((sum32.to_vec().unwrap()[0] - total).abs() < 1e-3);
            // The butterfly in f64, as each lane computes it.
            let threads = grid as usize * block;
            let mut lanes: Vec<f64> = (0..threads).map(|i| input.get(i).map_or(0.0, |&x| x as f64)).collect();
            let mut mask = 1;
            while mask < 32 {
                lanes = (0..threads).map(|i| lanes[i] + lanes[i ^ mask]).collect();
                mask *= 2;
            }
            assert_eq!(sum64.to_vec().unwrap(), lanes[..n], "n = {n}");
        }
    }

    fn warp_shuffle_variants(device) {
        let mut rng = rng("warp_shuffles");
        let (n, block) = (200usize, 64usize);
        let input: Vec<i64> = (0..n).map(|_| rng.random()).collect();
        let mut out = DeviceBuffer::<i64>::zeros(device, 4 * n).unwrap();
        let mut out32 = DeviceBuffer::<u32>::zeros(device, 2 * n).unwrap();
        launch!(api_warp_shuffles[blocks(n, block), block as u32](&input, &mut out, &mut out32)).unwrap();
        let value = |j: usize| input.get(j).copied().unwrap_or(-1);
        let mut expected = Vec::new();
        let mut expected32 = Vec::new();
        for i in 0..n {
            let (base, lane) = (i - i % 32, i % 32);
            expected.push(value(base + lane / 8 * 8 + 3));
            expected.push(if lane >= 1 { value(i - 1) } else { value(i) });
            expected.push(if lane % 16 + 2 < 16 { value(i + 2) } else { value(i) });
            expected.push(value(base + (lane ^ 5)));
            expected32.push(value(base) as u32);
            expected32.push(if lane + 1 < 32 { value(i + 1) as i32 as u32 } else { value(i) as i32 as u32 });
        }
        assert_eq!(out.to_vec().unwrap(), expected);
        assert_eq!(out32.to_vec().unwrap(), expected32);
    }

    fn shuffle_kinds_on_every_shuffle_type(device) {
        let mut rng = rng("shuffle_kinds");
        ferrocuda::device::__shuffle_values!(shuffle_checks, [device, rng]);
    }

    fn shuffle_widths_and_the_default_width(device) {
        let mut rng = rng("shuffle_widths");
        let (n, block) = (150usize, 64usize);
        let input: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        for width in [1u32, 2, 8, 16, 32] {
            let mut out = DeviceBuffer::<u32>::zeros(device, 10 * n).unwrap();
            launch!(api_shuffle_widths[blocks(n, block), block as u32](&input, width, &mut out)).unwrap();
            let expected = expected_shuffle_widths(&input, width as usize);
            assert_eq!(out.to_vec().unwrap(), expected, "width {width}");
        }
    }

    fn warp_votes_and_lanes(device) {
        let mut rng = rng("warp_votes");
        let (n, block) = (200usize, 64usize);
        let input: Vec<i32> = (0..n).map(|_| rng.random_range(-5..200)).collect();
        let mut out = DeviceBuffer::<u32>::zeros(device, 6 * n).unwrap();
        launch!(api_warp_votes[blocks(n, block), block as u32](&input, &mut out)).unwrap();
        let value = |j: usize| input.get(j).copied().unwrap_or(0);
        let mut expected = Vec::new();
        for i in 0..n {
            let base = i - i % 32;
            let warp: Vec<i32> = (base..base + 32).map(value).collect();
            let ballot = warp.iter().enumerate().fold(0u32, |m, (l, &v)| m | (((v > 0) as u32) << l));
            expected.extend([
                ballot,
                warp.iter().any(|&v| v > 100) as u32,
                warp.iter().all(|&v| v >= 0) as u32,
                (i % 32) as u32,
                (i % block / 32) as u32,
                u32::MAX,
            ]);
        }
        assert_eq!(out.to_vec().unwrap(), expected);
    }

    fn math_f32_matches_std(device) {
        let mut input: Vec<f32> = {
            let mut rng = rng("math_f32");
            (0..3001).map(|_| rng.random_range(-10.0..10.0)).collect()
        };
        input.extend(SPECIAL_INPUTS.map(|x| x as f32));
        let mut out = DeviceBuffer::<f32>::zeros(device, API_MATH_RESULTS * input.len()).unwrap();
        launch!(api_math::<f32>[blocks(input.len(), 128), 128](&input, &mut out)).unwrap();
        let out = out.to_vec().unwrap();
        let expected = ferrocuda::device::__math_functions!(math_expectations, [f32]);
        for (i, &x) in input.iter().enumerate() {
            check_math_row(x as f64, &out[API_MATH_RESULTS * i..][..API_MATH_RESULTS], &expected(x), true);
        }
    }

    fn math_f64_matches_std(device) {
        let mut input: Vec<f64> = {
            let mut rng = rng("math_f64");
            (0..3001).map(|_| rng.random_range(-10.0..10.0)).collect()
        };
        input.extend(SPECIAL_INPUTS);
        let mut out = DeviceBuffer::<f64>::zeros(device, API_MATH_RESULTS * input.len()).unwrap();
        launch!(api_math::<f64>[blocks(input.len(), 128), 128](&input, &mut out)).unwrap();
        let out = out.to_vec().unwrap();
        let expected = ferrocuda::device::__math_functions!(math_expectations, [f64]);
        for (i, &x) in input.iter().enumerate() {
            check_math_row(x, &out[API_MATH_RESULTS * i..][..API_MATH_RESULTS], &expected(x), false);
        }
    }

    fn fast_math_is_close(device) {
        let mut rng = rng("fast_math");
        let input: Vec<f32> = (0..2000).map(|_| rng.random_range(-3.0..3.0)).collect();
        let n = input.len();
        let mut out = DeviceBuffer::<f32>::zeros(device, 7 * n).unwrap();
        launch!(api_fast_math[blocks(n, 128), 128](&input, &mut out)).unwrap();
        let out = out.to_vec().unwrap();
        for (i, &x) in input.iter().enumerate() {
            let expected = [x.sin(), x.cos(), x.exp2(), x.abs().log2(), x.exp(), x.tanh(), 1.0 / x.abs().sqrt()];
            // Absolute error for sin, cos, log2, tanh; relative for the others.
            let relative = [false, false, true, false, true, false, true];
            // tanh.approx (sm_75 and newer) has a relative error of 2^-11.
            let tolerance = [2e-6, 2e-6, 4e-6, 2e-6, 2e-5, 1e-3, 2e-6];
            for k in 0..7 {
                let (got, e) = (out[7 * i + k], expected[k]);
                let error = if relative[k] { ((got - e) / e).abs() } else { (got - e).abs() };
                assert!(error <= tolerance[k], "fast function {k} of {x}: got {got}, std {e}");
            }
        }
    }

    fn device_printing_runs(device) {
        launch!(api_print[1, 4](&[1.5f32, -0.25, 3.0])).unwrap();
        device.synchronize().unwrap();
    }

    fn constant_memory_written_by_the_host(device) {
        let mut rng = rng("constant_scale");
        let factors = [1.5f32, 2.0, -1.0, 0.25];
        API_FACTORS.write(device, &factors).unwrap();
        API_OFFSET.write(device, &0.125).unwrap();
        assert_eq!(API_FACTORS.read(device).unwrap(), factors);
        assert_eq!(API_OFFSET.read(device).unwrap(), 0.125);
        let (n, block) = (150usize, 32usize);
        let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let mut c = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
        launch!(api_constant_scale[blocks(n, block), block as u32](&a, &b, &mut c)).unwrap();
        let expected: Vec<f32> =
            (0..n).map(|i| (a[i] + b[i]) * factors[i / block % 4] + 0.125).collect();
        assert_close(&c.to_vec().unwrap(), &expected, 1e-6);
        assert_eq!(API_FACTORS.name(), "API_FACTORS");
        assert_eq!(*API_FACTORS.initial_value(), [1.0, 2.0, 3.0, 4.0]);
    }

    fn matrix_views_multiply(device) {
        let mut rng = rng("matmul");
        for (m, n, p, pad) in [(37usize, 19usize, 23usize, 3usize), (1, 1, 1, 0), (16, 40, 5, 1)] {
            let a = random_f32(&mut rng, m * (n + pad));
            let b = random_f32(&mut rng, n * p);
            let mut c = DeviceBuffer::from_slice(device, &vec![f32::NAN; m * p]).unwrap();
            let grid = (blocks(p, 16), blocks(m, 16));
            launch!(api_matmul[grid, (16, 16)](&a, &b, &mut c, m as u32, n as u32, p as u32, pad as u32)).unwrap();
            let mut expected = vec![0.0f32; m * p];
            for r in 0..m {
                for col in 0..p {
                    expected[r * p + col] = (0..n).map(|k| a[r * (n + pad) + k] * b[k * p + col]).sum();
                }
            }
            assert_close(&c.to_vec().unwrap(), &expected, 1e-5);
        }
    }

    fn matrix_shape_checks_panic(device) {
        // A 4 x 5 view (stride 5 + 2) needs 26 elements of `a`, which has 20.
        let a = DeviceBuffer::<f32>::zeros(device, 20).unwrap();
        let b = DeviceBuffer::<f32>::zeros(device, 5).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, 4).unwrap();
        launch!(api_matmul[1, (16, 16)](&a, &b, &mut c, 4u32, 5u32, 1u32, 2u32)).unwrap();
        let panic = expect_panic(device.synchronize());
        if device.is_simulator() {
            assert_eq!(panic.message, "a 4 x 5 matrix with row stride 7 needs 26 elements, but the slice has 20");
        } else {
            assert!(panic.message.starts_with("matrix shape larger than its slice"), "{}", panic.message);
        }
        assert!(panic.file.ends_with("device_api.rs"), "{}", panic.file);
        device.synchronize().unwrap();
    }
}

/// Plain accesses to shared memory are reported to the simulator's race detector (atomics are
/// not: the histogram tests would fail otherwise).
#[test]
fn simulator_rejects_a_shuffle_width_that_is_not_a_power_of_two() {
    let device = Device::simulator();
    for width in [0u32, 12, 33, 64] {
        let input = DeviceBuffer::from_slice(&device, &[1u32; 32]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(&device, 320).unwrap();
        launch!(api_shuffle_widths[1, 32](&input, width, &mut out)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(
            panic.message,
            format!("shuffle width {width} is not a power of two from 1 to 32")
        );
        // The kernel's line, not the device crate's.
        assert!(panic.file.ends_with("device_api.rs"), "{}", panic.file);
    }
}

#[test]
fn simulator_reports_shared_memory_races() {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<f32>::zeros(&device, 64).unwrap();
    launch!(api_shared_race[1, 64](&mut out)).unwrap();
    match device.synchronize() {
        Err(Error::SimulatorFault(fault)) => match *fault {
            SimulatorFault::DataRace {
                kernel,
                first,
                second,
                ..
            } => {
                assert_eq!(kernel, "api_shared_race");
                assert!(first.write || second.write, "{first:?} {second:?}");
                assert!(first.site.file.ends_with("device_api.rs"), "{first:?}");
                assert!(second.site.file.ends_with("device_api.rs"), "{second:?}");
            }
            other => panic!("expected a data race, got {other}"),
        },
        other => panic!("expected a data race, got {other:?}"),
    }
}
