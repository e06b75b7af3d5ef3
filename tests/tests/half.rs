//! Half precision (`test_kernels::half`) against CPU references built on the `half` crate and on
//! exact integer arithmetic, on the simulator and the GPU: every correctly rounded operation is
//! compared bit for bit (NaN results by class), on inputs chosen to catch rounding mistakes: ties
//! (1 + 2^-11, 3 * 683 = 2049 in `f16`), subnormals, overflow to infinity, signed zeros, NaN.

use ferrocuda::prelude::*;
use ferrocuda_tests::{blocks, device_tests, rng};
use rand::Rng;
use rand::rngs::StdRng;
use test_kernels::half::*;

/// A 16-bit format under test: its kernel-side type and its reference in the `half` crate.
trait Format: Copy + DeviceCopy + std::fmt::Debug {
    /// `f16` or `bf16`.
    const NAME: &'static str;
    /// Bit patterns that catch rounding and special-value mistakes.
    const SPECIALS: &'static [u16];
    /// The reference rounding from `f64` (the `half` crate, one rounding).
    fn reference_from_f64(x: f64) -> u16;
    /// The reference rounding from `f32`.
    fn reference_from_f32(x: f32) -> u16;
    /// The reference's exact value.
    fn reference_to_f64(bits: u16) -> f64;
    /// Exactly `a * b + c` rounded once, for the inputs of [`Format::fma_inputs`].
    fn reference_mul_add(a: u16, b: u16, c: u16) -> u16;
    /// Random finite values for the fused multiply-add.
    fn fma_inputs(rng: &mut StdRng, n: usize) -> Vec<u16>;
    /// `(a, b, c, expected)` cases of the fused multiply-add that need a single rounding.
    const FMA_CASES: &'static [(u16, u16, u16, u16)];
}

impl Format for f16 {
    const NAME: &'static str = "f16";
    const SPECIALS: &'static [u16] = &[
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x7c00, 0xfc00, 0x7e00, 0x7bff, 0xfbff, 0x0001, 0x8001,
        0x03ff, 0x0400, 0x3c01, 0x3555, 0x4248, 0x7800, 0x0200, 0x1400, 0xc000, 0x3800, 0x6800,
        0x5a00, 0x13ff, 0x0002, 0x7bfe,
    ];
    fn reference_from_f64(x: f64) -> u16 {
        nearest::<Self>(x, half::f16::from_f64(x).to_bits(), 65520.0)
    }
    fn reference_from_f32(x: f32) -> u16 {
        half::f16::from_f32(x).to_bits()
    }
    fn reference_to_f64(bits: u16) -> f64 {
        half::f16::from_bits(bits).to_f64()
    }
    fn reference_mul_add(a: u16, b: u16, c: u16) -> u16 {
        exact_f16_mul_add(a, b, c)
    }
    fn fma_inputs(rng: &mut StdRng, n: usize) -> Vec<u16> {
        (0..n)
            .map(|_| {
                loop {
                    let bits: u16 = rng.random();
                    if bits & 0x7c00 != 0x7c00 {
                        break bits;
                    }
                }
            })
            .collect()
    }
    const FMA_CASES: &'static [(u16, u16, u16, u16)] = &[
        // 3 * 683 = 2049, a tie between 2048 and 2050: to even, up with +2^-24, down with -2^-24.
        (0x4200, 0x6156, 0x0000, 0x6800),
        (0x4200, 0x6156, 0x0001, 0x6801),
        (0x4200, 0x6156, 0x8001, 0x6800),
        // 256 * 256 - 1 = 65535 overflows; 255 * 257 - 1... 65504 + 15 stays finite, + 16 is inf.
        (0x5c00, 0x5c00, 0xbc00, 0x7c00),
        (0x7bff, 0x3c00, 0x4b80, 0x7bff),
        (0x7bff, 0x3c00, 0x4c00, 0x7c00),
        // 2^-12 * 2^-12 = 2^-24, the smallest subnormal; half of it (a tie) goes to zero.
        (0x0c00, 0x0c00, 0x0000, 0x0001),
        (0x0c00, 0x0800, 0x0000, 0x0000),
        (0x0c00, 0x0800, 0x0001, 0x0002),
        // Signed zeros: +0 * -1 + -0 = -0; +0 * 1 + -0 = +0.
        (0x0000, 0xbc00, 0x8000, 0x8000),
        (0x0000, 0x3c00, 0x8000, 0x0000),
    ];
}

impl Format for bf16 {
    const NAME: &'static str = "bf16";
    const SPECIALS: &'static [u16] = &[
        0x0000, 0x8000, 0x3f80, 0xbf80, 0x7f80, 0xff80, 0x7fc0, 0x7f7f, 0xff7f, 0x0001, 0x8001,
        0x007f, 0x0080, 0x3f81, 0x3eab, 0x4049, 0x7f00, 0x0040, 0x3c00, 0xc000, 0x3f00, 0x4380,
        0x0002, 0x7f7e, 0x3f01, 0x00ff,
    ];
    fn reference_from_f64(x: f64) -> u16 {
        let threshold = (2.0 - 2f64.powi(-8)) * 2f64.powi(127);
        nearest::<Self>(x, half::bf16::from_f64(x).to_bits(), threshold)
    }
    fn reference_from_f32(x: f32) -> u16 {
        half::bf16::from_f32(x).to_bits()
    }
    fn reference_to_f64(bits: u16) -> f64 {
        half::bf16::from_bits(bits).to_f64()
    }
    /// Inputs in [2^-8, 2^9) make `a * b + c` exact in `f64` (multiples of 2^-30 below 2^19),
    /// so `f64::mul_add` then one rounding is the reference.
    fn reference_mul_add(a: u16, b: u16, c: u16) -> u16 {
        let [a, b, c] = [a, b, c].map(Self::reference_to_f64);
        Self::reference_from_f64(a.mul_add(b, c))
    }
    fn fma_inputs(rng: &mut StdRng, n: usize) -> Vec<u16> {
        (0..n)
            .map(|_| {
                let exponent: u16 = rng.random_range(127 - 8..127 + 9);
                let sign: u16 = rng.random_range(0..2);
                (sign << 15) | (exponent << 7) | rng.random_range(0..128u16)
            })
            .collect()
    }
    const FMA_CASES: &'static [(u16, u16, u16, u16)] = &[
        // 7 * 37 = 259, a tie between 258 and 260; scaled by 2^100 an addend of -2^-100 is far
        // below f64's resolution, so only a single rounding gives 258 * 2^100.
        (0x59e0, 0x5b14, 0x0000, 0x7582),
        (0x59e0, 0x5b14, 0x8d80, 0x7581),
        (0x59e0, 0x5b14, 0x0d80, 0x7582),
        // Overflow and the smallest subnormal.
        (0x7f7f, 0x4000, 0xff7f, 0x7f7f),
        (0x7f7f, 0x3f80, 0x7f7f, 0x7f80),
        (0x0001, 0x3f00, 0x0000, 0x0000),
        (0x0001, 0x3f00, 0x0001, 0x0002),
        (0x0000, 0xbf80, 0x8000, 0x8000),
    ];
}

/// The value of the format nearest to `x`, ties to the even bit pattern, found by comparing
/// `guess` (the `half` crate's conversion, which rounds twice for some `f64` inputs, e.g.
/// 1 + 2^-11 + 2^-40 becomes 1.0) with its neighbours; `overflow` is the smallest magnitude that
/// rounds to infinity (the largest finite value plus half an ulp).
fn nearest<T: Format>(x: f64, guess: u16, overflow: f64) -> u16 {
    if x.is_nan() {
        return 0x7fff;
    }
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let magnitude = x.abs();
    let max_finite = (0..=0x7fffu16)
        .rev()
        .find(|&b| T::reference_to_f64(b).is_finite())
        .unwrap();
    if magnitude >= overflow {
        return sign | (max_finite + 1);
    }
    let guess = (guess & 0x7fff).min(max_finite);
    let candidates = [guess.saturating_sub(1), guess, (guess + 1).min(max_finite)];
    // Differences of nearby values are exact in f64 (Sterbenz), and far ones are not the minimum.
    let best = candidates
        .into_iter()
        .min_by(|&p, &q| {
            let (dp, dq) = (
                (T::reference_to_f64(p) - magnitude).abs(),
                (T::reference_to_f64(q) - magnitude).abs(),
            );
            dp.partial_cmp(&dq).unwrap().then((p & 1).cmp(&(q & 1)))
        })
        .unwrap();
    sign | best
}

/// `a * b + c` for finite `f16` operands, exactly in units of 2^-48 (`f16` values are multiples
/// of 2^-24 below 2^16), rounded to nearest-even by comparing exact candidates.
fn exact_f16_mul_add(a: u16, b: u16, c: u16) -> u16 {
    let [fa, fb, fc] = [a, b, c].map(f16::reference_to_f64);
    if !(fa.is_finite() && fb.is_finite() && fc.is_finite()) {
        return f16::reference_from_f64(fa * fb + fc);
    }
    let units = |x: f64| (x * 2f64.powi(24)) as i128; // exact: a multiple of 2^-24
    let exact = units(fa) * units(fb) + units(fc) * (1 << 24);
    if exact == 0 {
        // An exact zero is -0.0 only when both the (exact, signed) product and `c` are -0.0.
        let product = fa * fb;
        let negative = product == 0.0 && product.is_sign_negative() && fc.is_sign_negative();
        return if negative { 0x8000 } else { 0x0000 };
    }
    let sign = if exact < 0 { 0x8000 } else { 0 };
    let magnitude = exact.abs();
    let value_of = |bits: u16| units(f16::reference_to_f64(bits)) * (1 << 24);
    if magnitude >= units(65520.0) * (1 << 24) {
        return sign | 0x7c00;
    }
    let guess = half::f16::from_f64(magnitude as f64 * 2f64.powi(-48))
        .to_bits()
        .min(0x7bff);
    let candidates = [guess.saturating_sub(1), guess, (guess + 1).min(0x7bff)];
    let best = candidates
        .into_iter()
        .min_by_key(|&bits| ((value_of(bits) - magnitude).abs(), bits & 1))
        .unwrap();
    sign | best
}

/// Whether `got` is `expected` bit for bit, or both are NaN.
fn same<T: Format>(got: u16, expected: u16) -> bool {
    let nan = |bits: u16| T::reference_to_f64(bits).is_nan();
    got == expected || (nan(got) && nan(expected))
}

/// The reference `min`/`max`: a NaN operand ignored, -0.0 below +0.0.
fn reference_min_max<T: Format>(a: u16, b: u16, max: bool) -> u16 {
    let (x, y) = (T::reference_to_f64(a), T::reference_to_f64(b));
    if y.is_nan() {
        return a;
    }
    if x.is_nan() {
        return b;
    }
    let a_first = if x == y {
        (a & 0x8000 != 0) != max
    } else {
        (x < y) != max
    };
    if a_first { a } else { b }
}

/// Operand triples: every pair of specials (with a rotating third operand), then random bits.
fn operand_triples<T: Format>(rng: &mut StdRng, random: usize) -> [Vec<u16>; 3] {
    let specials = T::SPECIALS;
    let [mut a, mut b, mut c] = [Vec::new(), Vec::new(), Vec::new()];
    for (i, &x) in specials.iter().enumerate() {
        for (j, &y) in specials.iter().enumerate() {
            a.push(x);
            b.push(y);
            c.push(specials[(i + 2 * j) % specials.len()]);
        }
    }
    for _ in 0..random {
        a.push(rng.random());
        b.push(rng.random());
        c.push(rng.random());
    }
    [a, b, c]
}

/// The reference row of `half_arithmetic` (without the fused multiply-add, checked apart).
fn reference_row<T: Format>(a: u16, b: u16) -> [u16; ARITHMETIC_OUTPUTS] {
    let (x, y) = (T::reference_to_f64(a), T::reference_to_f64(b));
    [
        T::reference_from_f64(x + y),
        T::reference_from_f64(x - y),
        T::reference_from_f64(x * y),
        T::reference_from_f64(x / y),
        0, // mul_add
        T::reference_from_f64(x.sqrt()),
        reference_min_max::<T>(a, b, false),
        reference_min_max::<T>(a, b, true),
        a ^ 0x8000,
        a & 0x7fff,
        T::reference_from_f64(if x < y { 1.0 } else { 0.0 }),
    ]
}

const OPERATIONS: [&str; ARITHMETIC_OUTPUTS] = [
    "add", "sub", "mul", "div", "mul_add", "sqrt", "min", "max", "neg", "abs", "less",
];

/// Launches `half_arithmetic::<$t>` and returns the outputs' bits.
macro_rules! run_arithmetic {
    ($t:ty, $device:expr, $a:expr, $b:expr, $c:expr) => {{
        let [a, b, c]: [Vec<$t>; 3] = [$a, $b, $c].map(|v: &Vec<u16>| v.iter().map(|&x| <$t>::from_bits(x)).collect());
        let mut out = DeviceBuffer::<$t>::zeros($device, ARITHMETIC_OUTPUTS * a.len()).unwrap();
        launch!(half_arithmetic::<$t>[blocks(a.len(), 128), 128](&a, &b, &c, &mut out)).unwrap();
        out.to_vec().unwrap().into_iter().map(<$t>::to_bits).collect::<Vec<u16>>()
    }};
}

/// Checks every output of `half_arithmetic` but the fused multiply-add.
fn check_arithmetic<T: Format>(a: &[u16], b: &[u16], out: &[u16]) {
    for i in 0..a.len() {
        let expected = reference_row::<T>(a[i], b[i]);
        let got = &out[ARITHMETIC_OUTPUTS * i..ARITHMETIC_OUTPUTS * (i + 1)];
        for k in 0..ARITHMETIC_OUTPUTS {
            if k == 4 {
                continue;
            }
            assert!(
                same::<T>(got[k], expected[k]),
                "{} {}({:#06x} = {:e}, {:#06x} = {:e}): got {:#06x}, expected {:#06x}",
                T::NAME,
                OPERATIONS[k],
                a[i],
                T::reference_to_f64(a[i]),
                b[i],
                T::reference_to_f64(b[i]),
                got[k],
                expected[k]
            );
        }
    }
}

/// Checks the fused multiply-adds of `half_arithmetic` against `expected`.
fn check_mul_add<T: Format>(a: &[u16], b: &[u16], c: &[u16], out: &[u16], expected: &[u16]) {
    for i in 0..a.len() {
        let got = out[ARITHMETIC_OUTPUTS * i + 4];
        assert!(
            same::<T>(got, expected[i]),
            "{} mul_add({:#06x}, {:#06x}, {:#06x}): got {got:#06x}, expected {:#06x}",
            T::NAME,
            a[i],
            b[i],
            c[i],
            expected[i]
        );
    }
}

/// The arithmetic test of one format: specials and random bits for everything, then the
/// fused multiply-add on its reference's inputs and its hand-checked single-rounding cases.
macro_rules! arithmetic_test {
    ($t:ty, $device:expr, $seed:literal) => {{
        let mut rng = rng($seed);
        let [a, b, c] = operand_triples::<$t>(&mut rng, 3000);
        let out = run_arithmetic!($t, $device, &a, &b, &c);
        check_arithmetic::<$t>(&a, &b, &out);
        // The specials' fused multiply-adds against the exact reference (f16), or NaN/inf-free
        // consistency with `f64` where that is exact (bf16 inputs from `fma_inputs`).
        let [a, b, c] = [0, 1, 2].map(|_| <$t as Format>::fma_inputs(&mut rng, 3000));
        let (mut a, mut b, mut c) = (a, b, c);
        let mut expected: Vec<u16> = (0..a.len())
            .map(|i| <$t as Format>::reference_mul_add(a[i], b[i], c[i]))
            .collect();
        for &(x, y, z, e) in <$t as Format>::FMA_CASES {
            a.push(x);
            b.push(y);
            c.push(z);
            expected.push(e);
        }
        let out = run_arithmetic!($t, $device, &a, &b, &c);
        check_mul_add::<$t>(&a, &b, &c, &out, &expected);
    }};
}

/// `f32` and `f64` inputs for the conversions: random values over the whole range of both
/// formats, the ties just above 1.0, the overflow threshold, subnormal ties, and `f64` values a
/// hair above an `f16` tie (through `f32` they would round twice).
fn conversion_inputs(rng: &mut StdRng) -> (Vec<f32>, Vec<f64>) {
    let mut x32: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        1.0 + 2f32.powi(-8),
        1.0 + 3.0 * 2f32.powi(-8),
        65504.0,
        65519.996,
        65520.0,
        -65520.0,
        2f32.powi(-25),
        3.0 * 2f32.powi(-26),
        2f32.powi(-134),
        3.0 * 2f32.powi(-135),
        f32::MAX,
        f32::MIN_POSITIVE,
        1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    let mut x64: Vec<f64> = x32.iter().map(|&x| x as f64).collect();
    x64[2] = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    x64[4] = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    x64[10] = 2f64.powi(-25) + 2f64.powi(-60);
    for _ in 0..4000 {
        let bits: u32 = rng.random();
        let x = f32::from_bits(bits);
        // Exponents from 2^-140 to 2^20 (f16's range and beyond, bf16's subnormals).
        let x = if x.is_finite() {
            f32::from_bits((bits & 0x807f_ffff) | (rng.random_range(0x07..0x94u32) << 23))
        } else {
            x
        };
        x32.push(x);
        x64.push(x as f64 * (1.0 + rng.random_range(-1e-9..1e-9)));
    }
    (x32, x64)
}

/// Launches `half_convert::<$t>` and checks it against the `half` crate.
macro_rules! conversion_test {
    ($t:ty, $device:expr, $seed:literal) => {{
        let (x32, x64) = conversion_inputs(&mut rng($seed));
        let n = x32.len();
        let mut rounded = DeviceBuffer::<$t>::zeros($device, 2 * n).unwrap();
        let mut widened = DeviceBuffer::<f32>::zeros($device, n).unwrap();
        launch!(half_convert::<$t>[blocks(n, 128), 128](&x32, &x64, &mut rounded, &mut widened)).unwrap();
        let (rounded, widened) = (rounded.to_vec().unwrap(), widened.to_vec().unwrap());
        for i in 0..n {
            let (from32, from64) = (rounded[2 * i].to_bits(), rounded[2 * i + 1].to_bits());
            let expected32 = <$t as Format>::reference_from_f32(x32[i]);
            let expected64 = <$t as Format>::reference_from_f64(x64[i]);
            assert!(same::<$t>(from32, expected32), "{}::from_f32({:e}): got {from32:#06x}, expected {expected32:#06x}", stringify!($t), x32[i]);
            assert!(same::<$t>(from64, expected64), "{}::from_f64({:e}): got {from64:#06x}, expected {expected64:#06x}", stringify!($t), x64[i]);
            let back = <$t as Format>::reference_to_f64(from32) as f32;
            assert!(widened[i] == back || (widened[i].is_nan() && back.is_nan()), "{}::to_f32({from32:#06x}): got {:e}, expected {back:e}", stringify!($t), widened[i]);
        }
    }};
}

/// The distance in representable values between two finite values of a format.
fn ulp_distance(a: u16, b: u16) -> u32 {
    let ordered = |bits: u16| {
        if bits & 0x8000 != 0 {
            -((bits & 0x7fff) as i32)
        } else {
            bits as i32
        }
    };
    ordered(a).abs_diff(ordered(b))
}

/// Launches `half_math::<$t>` and checks it within 1 ulp of `f32`'s functions, rounded.
macro_rules! math_test {
    ($t:ty, $device:expr, $seed:literal) => {{
        let mut rng = rng($seed);
        let mut x: Vec<f32> = vec![0.0, -0.0, 1.0, -1.0, 0.5, 3.0, f32::INFINITY, f32::NEG_INFINITY, f32::NAN, 1e-3];
        x.extend((0..2000).map(|_| rng.random_range(-6.0f32..6.0)));
        let input: Vec<$t> = x.iter().map(|&v| <$t>::from_f32(v)).collect();
        let mut out = DeviceBuffer::<$t>::zeros($device, 5 * input.len()).unwrap();
        launch!(half_math::<$t>[blocks(input.len(), 128), 128](&input, &mut out)).unwrap();
        let out = out.to_vec().unwrap();
        let functions: [(&str, fn(f32) -> f32); 5] =
            [("exp", f32::exp), ("ln", f32::ln), ("sin", f32::sin), ("cos", f32::cos), ("tanh", f32::tanh)];
        for (i, v) in input.iter().enumerate() {
            let v32 = <$t as Format>::reference_to_f64(v.to_bits()) as f32;
            for (k, (name, f)) in functions.iter().enumerate() {
                let got = out[5 * i + k].to_bits();
                let expected = <$t as Format>::reference_from_f32(f(v32));
                let finite = |bits: u16| <$t as Format>::reference_to_f64(bits).is_finite();
                let close = if finite(got) && finite(expected) {
                    ulp_distance(got, expected) <= 1
                } else {
                    same::<$t>(got, expected)
                };
                assert!(close, "{} {name}({v32:e}): got {got:#06x}, expected {expected:#06x}", stringify!($t));
            }
        }
    }};
}

/// Launches `half_pairs_<pair>` and checks each lane against the scalar references.
macro_rules! pair_test {
    ($pair:ident, $scalar:ty, $kernel:ident, $device:expr, $seed:literal) => {{
        let mut rng = rng($seed);
        let [a, b, _] = operand_triples::<$scalar>(&mut rng, 2000);
        let n = a.len() / 2;
        let fma = [0, 1, 2].map(|_| <$scalar as Format>::fma_inputs(&mut rng, 2 * n));
        let pack = |v: &[u16]| -> Vec<$pair> {
            v.chunks(2).map(|p| $pair::new(<$scalar>::from_bits(p[0]), <$scalar>::from_bits(p[1]))).collect()
        };
        let (pa, pb) = (pack(&a[..2 * n]), pack(&b[..2 * n]));
        // The fused multiply-add's operands come from the reference's input range.
        let (fa, fb, fc) = (pack(&fma[0]), pack(&fma[1]), pack(&fma[2]));
        let x: Vec<f32> = (0..2 * n).map(|i| f32::from_bits(rng.random::<u32>() & 0xbfff_ffff) * if i % 3 == 0 { 1e-30 } else { 1.0 }).collect();
        let mut out = DeviceBuffer::<$pair>::zeros($device, 4 * n).unwrap();
        let mut converted = DeviceBuffer::<$pair>::zeros($device, n).unwrap();
        launch!($kernel[blocks(n, 128), 128](&pa, &pb, &pb, &x, &mut out, &mut converted)).unwrap();
        let out = out.to_vec().unwrap();
        let mut fma_out = DeviceBuffer::<$pair>::zeros($device, 4 * n).unwrap();
        launch!($kernel[blocks(n, 128), 128](&fa, &fb, &fc, &x, &mut fma_out, &mut converted)).unwrap();
        let (fma_out, converted) = (fma_out.to_vec().unwrap(), converted.to_vec().unwrap());
        for i in 0..n {
            for lane in 0..2 {
                let j = 2 * i + lane;
                let pick = |p: $pair| if lane == 0 { p.low().to_bits() } else { p.high().to_bits() };
                let row = reference_row::<$scalar>(a[j], b[j]);
                for (k, op) in [(0, "add"), (1, "sub"), (2, "mul")] {
                    let got = pick(out[4 * i + k]);
                    assert!(same::<$scalar>(got, row[k]), "{} lane {lane} {op}({:#06x}, {:#06x}): got {got:#06x}, expected {:#06x}", stringify!($pair), a[j], b[j], row[k]);
                }
                let expected = <$scalar as Format>::reference_mul_add(fma[0][j], fma[1][j], fma[2][j]);
                let got = pick(fma_out[4 * i + 3]);
                assert!(same::<$scalar>(got, expected), "{} lane {lane} mul_add: got {got:#06x}, expected {expected:#06x}", stringify!($pair));
                let expected = <$scalar as Format>::reference_from_f32(x[j]);
                let got = pick(converted[i]);
                assert!(same::<$scalar>(got, expected), "{}::from_f32s lane {lane} of {:e}: got {got:#06x}, expected {expected:#06x}", stringify!($pair), x[j]);
            }
        }
    }};
}

/// Launches `half_shared_reverse_<t>` and checks the reversal bit for bit.
macro_rules! shared_test {
    ($t:ty, $kernel:ident, $device:expr, $seed:literal) => {{
        let mut rng = rng($seed);
        for n in [1usize, 127, 128, 300] {
            let input: Vec<$t> = (0..n).map(|_| <$t>::from_bits(rng.random())).collect();
            let mut out = DeviceBuffer::<$t>::zeros($device, n).unwrap();
            launch!($kernel[blocks(n, HALF_BLOCK), HALF_BLOCK as u32](&input, &mut out)).unwrap();
            let got: Vec<u16> = out.to_vec().unwrap().into_iter().map(<$t>::to_bits).collect();
            let mut expected = Vec::new();
            for chunk in input.chunks(HALF_BLOCK) {
                expected.extend(chunk.iter().rev().map(|v| v.to_bits()));
            }
            assert_eq!(got, expected, "{} n = {n}", stringify!($t));
        }
    }};
}

/// Launches `half_atomics_<t>` on multiples of 0.5 whose partial sums stay exact in both
/// formats (below 128), so the order of the additions cannot change the result.
macro_rules! atomics_test {
    ($t:ty, $kernel:ident, $device:expr, $seed:literal) => {{
        let mut rng = rng($seed);
        let (n, bins) = (1000usize, 16usize);
        let values: Vec<f32> = (0..n).map(|_| rng.random_range(-2..=2) as f32 * 0.5).collect();
        let input: Vec<$t> = values.iter().map(|&v| <$t>::from_f32(v)).collect();
        let mut sums = DeviceBuffer::<$t>::zeros($device, bins).unwrap();
        let mut differences = DeviceBuffer::<$t>::zeros($device, bins).unwrap();
        let mut maxima = DeviceBuffer::from_slice($device, &vec![<$t>::NEG_INFINITY; bins]).unwrap();
        let blocks_n = blocks(n, HALF_BLOCK);
        let mut shared_sums = DeviceBuffer::<$t>::zeros($device, blocks_n as usize).unwrap();
        launch!($kernel[blocks_n, HALF_BLOCK as u32](&input, &mut sums, &mut differences, &mut maxima, &mut shared_sums)).unwrap();
        let to_f32 = |v: Vec<$t>| v.into_iter().map(|x| x.to_f32()).collect::<Vec<f32>>();
        let mut expected_sums = vec![0.0f32; bins];
        let mut expected_maxima = vec![f32::NEG_INFINITY; bins];
        for (i, &v) in values.iter().enumerate() {
            expected_sums[i % bins] += v;
            expected_maxima[i % bins] = expected_maxima[i % bins].max(v);
        }
        let expected_differences: Vec<f32> = expected_sums.iter().map(|s| 0.0 - s).collect();
        let expected_shared: Vec<f32> = values.chunks(HALF_BLOCK).map(|c| c.iter().sum()).collect();
        assert_eq!(to_f32(sums.to_vec().unwrap()), expected_sums, "{} atomic_add", stringify!($t));
        assert_eq!(to_f32(differences.to_vec().unwrap()), expected_differences, "{} atomic_sub", stringify!($t));
        assert_eq!(to_f32(maxima.to_vec().unwrap()), expected_maxima, "{} atomic_max", stringify!($t));
        assert_eq!(to_f32(shared_sums.to_vec().unwrap()), expected_shared, "{} shared atomic_add", stringify!($t));
    }};
}

/// Launches `half_shuffles::<$t>` on random bits and checks the lanes read.
macro_rules! shuffle_test {
    ($t:ty, $device:expr, $seed:literal) => {{
        let mut rng = rng($seed);
        let n = 200usize;
        let input: Vec<$t> = (0..n).map(|_| <$t>::from_bits(rng.random())).collect();
        let fill = <$t>::from_bits(rng.random());
        let mut out = DeviceBuffer::<$t>::zeros($device, 3 * n).unwrap();
        launch!(half_shuffles::<$t>[blocks(n, 64), 64](&input, fill, &mut out)).unwrap();
        let value = |j: usize| input.get(j).copied().unwrap_or(fill).to_bits();
        let got: Vec<_> = out.to_vec().unwrap().into_iter().map(<$t>::to_bits).collect();
        for i in 0..n {
            let (base, lane) = (i - i % 32, i % 32);
            let down = if lane + 1 < 32 { value(i + 1) } else { value(i) };
            let expected = [value(base + (lane ^ 1)), down, value(base)];
            assert_eq!(got[3 * i..3 * i + 3], expected, "{} thread {i}", stringify!($t));
        }
    }};
}

device_tests! {
    fn f16_arithmetic_is_correctly_rounded(device) {
        arithmetic_test!(f16, device, "half_f16_arithmetic");
    }

    fn bf16_arithmetic_is_correctly_rounded(device) {
        arithmetic_test!(bf16, device, "half_bf16_arithmetic");
    }

    fn f16_conversions_round_to_nearest_even(device) {
        conversion_test!(f16, device, "half_f16_convert");
    }

    fn bf16_conversions_round_to_nearest_even(device) {
        conversion_test!(bf16, device, "half_bf16_convert");
    }

    fn half_math_goes_through_f32(device) {
        math_test!(f16, device, "half_f16_math");
        math_test!(bf16, device, "half_bf16_math");
    }

    fn f16x2_lanes_match_the_scalars(device) {
        pair_test!(f16x2, f16, half_pairs_f16x2, device, "half_f16x2");
    }

    fn bf16x2_lanes_match_the_scalars(device) {
        pair_test!(bf16x2, bf16, half_pairs_bf16x2, device, "half_bf16x2");
    }

    fn half_shared_arrays_keep_bits(device) {
        shared_test!(f16, half_shared_reverse_f16, device, "half_shared_f16");
        shared_test!(bf16, half_shared_reverse_bf16, device, "half_shared_bf16");
    }

    fn half_atomics_add_sub_max(device) {
        atomics_test!(f16, half_atomics_f16, device, "half_atomics_f16");
        atomics_test!(bf16, half_atomics_bf16, device, "half_atomics_bf16");
    }

    fn half_pair_atomic_add(device) {
        let mut rng = rng("half_pair_atomics");
        let (n, bins) = (1000usize, 16usize);
        let values: Vec<f32> = (0..n).map(|_| rng.random_range(-2..=2) as f32 * 0.5).collect();
        let mut f16_pairs = DeviceBuffer::<f16x2>::zeros(device, bins).unwrap();
        let mut bf16_pairs = DeviceBuffer::<bf16x2>::zeros(device, bins).unwrap();
        launch!(half_pair_atomics[blocks(n, 128), 128](&values, &mut f16_pairs, &mut bf16_pairs)).unwrap();
        let mut expected = vec![(0.0f32, 0.0f32); bins];
        for (i, &v) in values.iter().enumerate() {
            expected[i % bins].0 += v;
            expected[i % bins].1 += 2.0 * v;
        }
        let f16_got: Vec<_> = f16_pairs.to_vec().unwrap().into_iter().map(f16x2::to_f32s).collect();
        let bf16_got: Vec<_> = bf16_pairs.to_vec().unwrap().into_iter().map(bf16x2::to_f32s).collect();
        assert_eq!(f16_got, expected, "f16x2 atomic_add");
        assert_eq!(bf16_got, expected, "bf16x2 atomic_add");
    }

    fn half_shuffles_move_bits(device) {
        shuffle_test!(f16, device, "half_shuffle_f16");
        shuffle_test!(bf16, device, "half_shuffle_bf16");
        shuffle_test!(f16x2, device, "half_shuffle_f16x2");
        shuffle_test!(bf16x2, device, "half_shuffle_bf16x2");
    }
}

/// The host conversions to and from the `half` crate keep the bits, and the types are the size
/// of their bits (buffers of them are plain `u16`/`u32` arrays).
#[test]
fn host_types_match_the_half_crate() {
    for bits in [0u16, 0x8000, 0x3c00, 0x7c00, 0x7e01, 0x0001, 0xfbff] {
        let ours = f16::from(half::f16::from_bits(bits));
        assert_eq!(ours.to_bits(), bits);
        assert_eq!(half::f16::from(ours).to_bits(), bits);
        let ours = bf16::from(half::bf16::from_bits(bits));
        assert_eq!(half::bf16::from(ours).to_bits(), bits);
    }
    assert_eq!(std::mem::size_of::<f16>(), 2);
    assert_eq!(std::mem::size_of::<bf16x2>(), 4);
    assert_eq!(f16::from_f32(1.5).to_string(), "1.5");
    assert_eq!(
        format!("{:?}", f16x2::from_f32s(1.0, -2.0)),
        "f16x2(1.0, -2.0)"
    );
    assert_eq!(f32::from(bf16::from_f32(3.0)), 3.0);
}
