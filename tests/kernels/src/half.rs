//! Half-precision kernels (`f16`, `bf16`, `f16x2`, `bf16x2`) checked by `tests/tests/half.rs`
//! against CPU references: arithmetic, conversions, math, shared memory, atomics and shuffles.
//!
//! They use no instruction newer than sm_70 unconditionally: where an operation needs sm_80 or
//! sm_90 (`fma.rn.bf16`, `add.rn.bf16`, ...), the device crate picks it from the target features
//! of `FERROCUDA_ARCH` and otherwise computes the same bits in software, so every kernel here
//! builds and runs for sm_70 (`cargo test`) and sm_90 (the GPU bundle) alike.

use ferrocuda::prelude::*;

/// The scalar operations the generic kernels call, for both half types.
pub trait HalfScalar:
    ShuffleValue
    + Atomic
    + DeviceCopy
    + core::ops::Add<Output = Self>
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::Div<Output = Self>
    + core::ops::Neg<Output = Self>
    + PartialOrd
{
    /// `from_f32`.
    fn from_f32(x: f32) -> Self;
    /// `from_f64`.
    fn from_f64(x: f64) -> Self;
    /// `to_f32`.
    fn to_f32(self) -> f32;
    /// `mul_add`.
    fn mul_add(self, a: Self, b: Self) -> Self;
    /// `sqrt`.
    fn sqrt(self) -> Self;
    /// `min`.
    fn min(self, other: Self) -> Self;
    /// `max`.
    fn max(self, other: Self) -> Self;
    /// `abs`.
    fn abs(self) -> Self;
    /// `exp`, `ln`, `sin`, `cos`, `tanh`.
    fn transcendental(self) -> [Self; 5];
    /// 1.0.
    const ONE: Self;
}

macro_rules! half_scalar {
    ($($t:ident),*) => {$(
        impl HalfScalar for $t {
            fn from_f32(x: f32) -> Self { $t::from_f32(x) }
            fn from_f64(x: f64) -> Self { $t::from_f64(x) }
            fn to_f32(self) -> f32 { $t::to_f32(self) }
            fn mul_add(self, a: Self, b: Self) -> Self { $t::mul_add(self, a, b) }
            fn sqrt(self) -> Self { $t::sqrt(self) }
            fn min(self, other: Self) -> Self { $t::min(self, other) }
            fn max(self, other: Self) -> Self { $t::max(self, other) }
            fn abs(self) -> Self { $t::abs(self) }
            fn transcendental(self) -> [Self; 5] {
                [self.exp(), self.ln(), self.sin(), self.cos(), self.tanh()]
            }
            const ONE: Self = $t::ONE;
        }
    )*};
}
half_scalar!(f16, bf16);

/// Outputs per element of [`half_arithmetic`].
pub const ARITHMETIC_OUTPUTS: usize = 11;

/// For each `i`: `out[11i..11i+11] = [a+b, a-b, a*b, a/b, a.mul_add(b, c), a.sqrt(), a.min(b),
/// a.max(b), -a, a.abs(), 1.0 if a < b else 0.0]`.
#[kernel(instances(f16, bf16))]
pub fn half_arithmetic<T: HalfScalar>(a: &[T], b: &[T], c: &[T], out: &mut [T]) {
    let i = grid!(1);
    if i < a.len() {
        let (x, y, z) = (a[i], b[i], c[i]);
        let less = if x < y { T::ONE } else { T::from_f32(0.0) };
        let row = [
            x + y,
            x - y,
            x * y,
            x / y,
            x.mul_add(y, z),
            x.sqrt(),
            x.min(y),
            x.max(y),
            -x,
            x.abs(),
            less,
        ];
        out[ARITHMETIC_OUTPUTS * i..ARITHMETIC_OUTPUTS * (i + 1)].copy_from_slice(&row);
    }
}

/// For each `i`: `rounded[2i] = T::from_f32(x32[i])`, `rounded[2i+1] = T::from_f64(x64[i])`,
/// `widened[i] = rounded[2i].to_f32()`.
#[kernel(instances(f16, bf16))]
pub fn half_convert<T: HalfScalar>(
    x32: &[f32],
    x64: &[f64],
    rounded: &mut [T],
    widened: &mut [f32],
) {
    let i = grid!(1);
    if i < x32.len() {
        let r = T::from_f32(x32[i]);
        rounded[2 * i] = r;
        rounded[2 * i + 1] = T::from_f64(x64[i]);
        widened[i] = r.to_f32();
    }
}

/// For each `i`: `out[5i..5i+5] = [exp, ln, sin, cos, tanh]` of `x[i]`.
#[kernel(instances(f16, bf16))]
pub fn half_math<T: HalfScalar>(x: &[T], out: &mut [T]) {
    let i = grid!(1);
    if i < x.len() {
        out[5 * i..5 * i + 5].copy_from_slice(&x[i].transcendental());
    }
}

/// For each `i`: `out[4i..4i+4] = [a+b, a-b, a*b, a.mul_add(b, c)]` on `f16x2`, and
/// `converted[i] = f16x2::from_f32s(x[2i], x[2i+1])`.
#[kernel]
pub fn half_pairs_f16x2(
    a: &[f16x2],
    b: &[f16x2],
    c: &[f16x2],
    x: &[f32],
    out: &mut [f16x2],
    converted: &mut [f16x2],
) {
    let i = grid!(1);
    if i < a.len() {
        let (p, q, r) = (a[i], b[i], c[i]);
        out[4 * i..4 * i + 4].copy_from_slice(&[p + q, p - q, p * q, p.mul_add(q, r)]);
        converted[i] = f16x2::from_f32s(x[2 * i], x[2 * i + 1]);
    }
}

/// [`half_pairs_f16x2`] on `bf16x2`.
#[kernel]
pub fn half_pairs_bf16x2(
    a: &[bf16x2],
    b: &[bf16x2],
    c: &[bf16x2],
    x: &[f32],
    out: &mut [bf16x2],
    converted: &mut [bf16x2],
) {
    let i = grid!(1);
    if i < a.len() {
        let (p, q, r) = (a[i], b[i], c[i]);
        out[4 * i..4 * i + 4].copy_from_slice(&[p + q, p - q, p * q, p.mul_add(q, r)]);
        converted[i] = bf16x2::from_f32s(x[2 * i], x[2 * i + 1]);
    }
}

/// Block size of [`half_shared_reverse_f16`] and [`half_shared_reverse_bf16`].
pub const HALF_BLOCK: usize = 128;

/// The body of `half_shared_reverse_<t>` (a shared array cannot be generic, so each kernel
/// declares its own): reverses each block's elements through `tile` (blocks of [`HALF_BLOCK`]).
fn shared_reverse<T: HalfScalar>(
    tile: &mut SharedArray<T, HALF_BLOCK>,
    input: &[T],
    output: &mut [T],
) {
    let t = thread_idx().x as usize;
    let start = block_idx().x as usize * HALF_BLOCK;
    let count = input.len().saturating_sub(start).min(HALF_BLOCK);
    if t < count {
        tile[t] = input[start + t];
    }
    syncthreads();
    if t < count {
        output[start + t] = tile.get(count - 1 - t);
    }
}

/// [`shared_reverse`] on `f16`.
#[kernel]
pub fn half_shared_reverse_f16(input: &[f16], output: &mut [f16]) {
    let mut tile = shared_array!(f16; HALF_BLOCK);
    shared_reverse(&mut tile, input, output);
}

/// [`shared_reverse`] on `bf16`.
#[kernel]
pub fn half_shared_reverse_bf16(input: &[bf16], output: &mut [bf16]) {
    let mut tile = shared_array!(bf16; HALF_BLOCK);
    shared_reverse(&mut tile, input, output);
}

/// The body of `half_atomics_<t>`: thread `i` adds `values[i]` to `sums[i % len]`, subtracts it
/// from `differences[i % len]`, folds it into `maxima[i % len]` by atomic maximum, and adds it to
/// the shared `total`, whose value block `b` writes to `shared_sums[b]`.
fn atomics<T: HalfScalar>(
    total: &mut SharedArray<T, 1>,
    values: &[T],
    sums: &mut [T],
    differences: &mut [T],
    maxima: &mut [T],
    shared_sums: &mut [T],
) {
    let i = grid!(1);
    if thread_idx().x == 0 {
        total.set(0, T::from_f32(0.0));
    }
    syncthreads();
    if i < values.len() {
        let v = values[i];
        sums.atomic_add(i % sums.len(), v);
        differences.atomic_sub(i % differences.len(), v);
        maxima.atomic_max(i % maxima.len(), v);
        total.atomic_add(0, v);
    }
    syncthreads();
    if thread_idx().x == 0 {
        shared_sums[block_idx().x as usize] = total.get(0);
    }
}

/// [`atomics`] on `f16`.
#[kernel]
pub fn half_atomics_f16(
    values: &[f16],
    sums: &mut [f16],
    differences: &mut [f16],
    maxima: &mut [f16],
    shared_sums: &mut [f16],
) {
    let mut total = shared_array!(f16; 1);
    atomics(&mut total, values, sums, differences, maxima, shared_sums);
}

/// [`atomics`] on `bf16`.
#[kernel]
pub fn half_atomics_bf16(
    values: &[bf16],
    sums: &mut [bf16],
    differences: &mut [bf16],
    maxima: &mut [bf16],
    shared_sums: &mut [bf16],
) {
    let mut total = shared_array!(bf16; 1);
    atomics(&mut total, values, sums, differences, maxima, shared_sums);
}

/// Thread `i` adds `(values[i], 2 * values[i])` to `f16_pairs[i % len]` and the same in `bf16`
/// to `bf16_pairs[i % len]`.
#[kernel]
pub fn half_pair_atomics(values: &[f32], f16_pairs: &mut [f16x2], bf16_pairs: &mut [bf16x2]) {
    let i = grid!(1);
    if i < values.len() {
        let v = values[i];
        f16_pairs.atomic_add(i % f16_pairs.len(), f16x2::from_f32s(v, 2.0 * v));
        bf16_pairs.atomic_add(i % bf16_pairs.len(), bf16x2::from_f32s(v, 2.0 * v));
    }
}

/// For each thread `i` (blocks of multiples of 32): `out[3i..3i+3] = [the value of lane ^ 1,
/// of lane + 1 (down), lane 0's]`; lanes past the end shuffle `fill`.
#[kernel(instances(f16, bf16, f16x2, bf16x2))]
pub fn half_shuffles<T: ShuffleValue + DeviceCopy>(input: &[T], fill: T, out: &mut [T]) {
    let i = grid!(1);
    let v = if i < input.len() { input[i] } else { fill };
    let row = [
        shfl_xor_sync(FULL_MASK, v, 1),
        shfl_down_sync(FULL_MASK, v, 1),
        shfl_sync(FULL_MASK, v, 0),
    ];
    if i < input.len() {
        out[3 * i..3 * i + 3].copy_from_slice(&row);
    }
}
