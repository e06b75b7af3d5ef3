//! Small kernels exercising every part of the kernel-side API: static and dynamic shared memory,
//! atomics on global and shared memory, warp shuffles and votes, math, device printing,
//! constant memory and matrix views. `tests/tests/device_api.rs` checks each against a CPU
//! reference; `tests/tests/ptx.rs`-style checks look for the PTX they must produce.

use core::ops::Div;
use ferrocuda::device::__math_operand;
use ferrocuda::device::math::__table_support::Literal;
use ferrocuda::prelude::*;

/// Block size of the shared-memory kernels with static arrays.
pub const API_BLOCK: usize = 256;

/// Reverses each block's chunk of `input` into `output` through a static shared array
/// (`output[start + k] = input[start + count - 1 - k]`). Blocks of at most 256 threads.
#[kernel]
pub fn api_shared_reverse(input: &[f32], output: &mut [f32]) {
    let mut tile = shared_array!(f32; API_BLOCK);
    let t = thread_idx().x as usize;
    let start = block_idx().x as usize * block_dim().x as usize;
    let count = input
        .len()
        .saturating_sub(start)
        .min(block_dim().x as usize);
    if t < count {
        tile[t] = input[start + t];
    }
    syncthreads();
    if t < count {
        output[start + t] = tile.get(count - 1 - t);
    }
}

/// Transposes a `height` x `width` row-major matrix into `output` (`width` x `height`) through a
/// 16x17 shared tile (the padding column avoids bank conflicts). Blocks of 16 x 16 threads.
#[kernel]
pub fn api_shared_transpose(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    let mut tile = shared_array!(f32; 16, 17);
    let (w, h) = (width as usize, height as usize);
    let source = Matrix::new(input, h, w);
    let mut target = MatrixMut::new(output, w, h);
    let (bx, by) = (block_idx().x as usize * 16, block_idx().y as usize * 16);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    if bx + tx < w && by + ty < h {
        tile[(ty, tx)] = source[(by + ty, bx + tx)];
    }
    syncthreads();
    // Output block (by, bx): thread (tx, ty) writes output row bx + ty, column by + tx.
    if bx + ty < w && by + tx < h {
        target[(bx + ty, by + tx)] = tile[(tx, ty)];
    }
}

/// Per-block sums of `input` in `partial[block]` by a tree reduction in dynamic shared memory
/// (one `f32` per thread, sized at launch). Any power-of-two block size.
#[kernel]
pub fn api_dynamic_block_sum(input: &[f32], partial: &mut [f32]) {
    let mut cache = dynamic_shared_array::<f32>();
    let t = thread_idx().x as usize;
    let i = grid!(1);
    cache[t] = if i < input.len() { input[i] } else { 0.0 };
    syncthreads();
    let mut stride = block_dim().x as usize / 2;
    while stride > 0 {
        if t < stride {
            cache[t] += cache[t + stride];
        }
        syncthreads();
        stride /= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = cache[0];
    }
}

/// Two arrays carved out of dynamic shared memory (`f64` then `u16`, so the second needs no
/// padding and the first its 8-byte alignment): `out[i] = xs[k] * ks[count - 1 - k]` within each
/// block, where `xs`, `ks` are the block's chunks of `a` and `b`.
#[kernel]
pub fn api_dynamic_carve(a: &[f64], b: &[u16], out: &mut [f64]) {
    let mut carve = DynamicShared::new();
    let _pad = carve.take::<u8>(3);
    let mut xs = carve.take::<f64>(block_dim().x as usize);
    let mut ks = carve.take::<u16>(block_dim().x as usize);
    let t = thread_idx().x as usize;
    let start = block_idx().x as usize * block_dim().x as usize;
    let count = out.len().saturating_sub(start).min(block_dim().x as usize);
    if t < count {
        xs[t] = a[start + t];
        ks[t] = b[start + t];
    }
    syncthreads();
    if t < count {
        out[start + t] = xs[t] * ks[count - 1 - t] as f64;
    }
}

/// Counts `data[i] % bins.len()` into `bins` with global atomics.
#[kernel]
pub fn api_histogram_global(data: &[u32], bins: &mut [u32]) {
    let i = grid!(1);
    if i < data.len() {
        let bin = data[i] as usize % bins.len();
        bins.atomic_add(bin, 1);
    }
}

/// Float atomics: `sums[0] += x`, `extremes[0] = min`, `extremes[1] = max` over `values` (f32),
/// and the same in f64 in `sums64` and `extremes64`; shared-memory float atomics produce
/// `block_sums[block]`.
#[kernel]
pub fn api_atomic_floats(
    values: &[f32],
    sums: &mut [f32],
    extremes: &mut [f32],
    sums64: &mut [f64],
    extremes64: &mut [f64],
    block_sums: &mut [f32],
) {
    let mut block_total = shared_array!(f32; 1);
    if thread_idx().x == 0 {
        block_total.set(0, 0.0);
    }
    syncthreads();
    let i = grid!(1);
    if i < values.len() {
        let x = values[i];
        sums.atomic_add(0, x);
        extremes.atomic_min(0, x);
        extremes.atomic_max(1, x);
        sums64.atomic_add(0, x as f64);
        sums64.atomic_sub(1, x as f64);
        extremes64.atomic_min(0, x as f64);
        extremes64.atomic_max(1, x as f64);
        block_total.atomic_add(0, x);
    }
    syncthreads();
    if thread_idx().x == 0 {
        block_sums[block_idx().x as usize] = block_total.get(0);
    }
}

/// Integer atomics over `values` (i32) into `ints` and (as u64) into `longs`:
/// `ints = [sum, min, max, and, or, xor, -sum (sub), last exchange, CAS counter]`,
/// `longs = [sum, max, and, or, xor, ordered sum, CAS counter]`.
#[kernel]
pub fn api_atomic_integers(values: &[i32], ints: &mut [i32], longs: &mut [u64]) {
    let i = grid!(1);
    if i < values.len() {
        let v = values[i];
        ints.atomic_add(0, v);
        ints.atomic_min(1, v);
        ints.atomic_max(2, v);
        ints.atomic_and(3, v);
        ints.atomic_or(4, v);
        ints.atomic_xor(5, v);
        ints.atomic_sub(6, v);
        ints.atomic_exchange(7, v);
        // A counter incremented by a compare-and-swap loop.
        let mut seen = ints.atomic_load(8);
        loop {
            let old = ints.atomic_cas(8, seen, seen + 1);
            if old == seen {
                break;
            }
            seen = old;
        }
        let w = v as u32 as u64;
        longs.atomic_add(0, w);
        longs.atomic_max(1, w);
        longs.atomic_and(2, w);
        longs.atomic_or(3, w);
        longs.atomic_xor(4, w);
        longs.atomic_add_ordered(5, w, Ordering::AcqRel);
        let mut seen = longs.atomic_load_ordered(6, Ordering::Acquire);
        loop {
            let old = longs.atomic_cas_ordered(6, seen, seen + 1, Ordering::SeqCst);
            if old == seen {
                break;
            }
            seen = old;
        }
    }
}

/// Warp sums of `input` by `shfl_down_sync` (f32) and `shfl_xor_sync` (f64): lane 0 of each
/// warp adds its warp's sum to `sum32[0]`, every lane's butterfly total lands in `sum64[i]`.
/// Blocks must be multiples of 32 threads; lanes past the end contribute 0.
#[kernel]
pub fn api_warp_reduce(input: &[f32], sum32: &mut [f32], sum64: &mut [f64]) {
    let i = grid!(1);
    let x = if i < input.len() { input[i] } else { 0.0 };
    let mut s = x;
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        s += shfl_down_sync(FULL_MASK, s, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        sum32.atomic_add(0, s);
    }
    let mut d = x as f64;
    let mut mask = 1;
    while mask < WARP_SIZE {
        d += shfl_xor_sync(FULL_MASK, d, mask);
        mask *= 2;
    }
    if i < sum64.len() {
        sum64[i] = d;
    }
}

/// Shuffle variants on 64-bit and 32-bit values, for each thread `i` (blocks of multiples of
/// 32): `out[4i..4i+4] = [lane 3's value (broadcast in groups of 8), value of lane - 1 (up),
/// value of lane + 2 in groups of 16 (down), value of lane ^ 5 (xor)]` for `i64`, and
/// `out32[2i..2i+2] = [lane 0's u32, lane + 1's i32 (down)]`.
#[kernel]
pub fn api_warp_shuffles(input: &[i64], out: &mut [i64], out32: &mut [u32]) {
    let i = grid!(1);
    let v = if i < input.len() { input[i] } else { -1 };
    let broadcast = shfl_sync_width(FULL_MASK, v, 3, 8);
    let up = shfl_up_sync(FULL_MASK, v, 1);
    let down = shfl_down_sync_width(FULL_MASK, v, 2, 16);
    let xor = shfl_xor_sync(FULL_MASK, v, 5);
    let first = shfl_sync(FULL_MASK, v as u32, 0);
    let next = shfl_down_sync(FULL_MASK, v as i32, 1);
    if i < input.len() {
        out[4 * i] = broadcast;
        out[4 * i + 1] = up;
        out[4 * i + 2] = down;
        out[4 * i + 3] = xor;
        out32[2 * i] = first;
        out32[2 * i + 1] = next as u32;
    }
}

/// Every shuffle kind on every shuffle type, for each thread `i` (blocks of multiples of 32):
/// `out[4i..4i+4] = [lane 3's value (groups of 8), the value of lane - 1 (up), of lane + 2 in
/// groups of 16 (down), of lane ^ 5 (xor)]`; lanes past the end of `input` shuffle `fill`.
///
/// The instances are the types of the shuffle table (`ferrocuda::device::__shuffle_values!`):
/// `tests/tests/device_api.rs` launches one per line of the table, so a type missing here does
/// not compile there.
#[kernel(instances(i32, u32, f32, i64, u64, f64))]
pub fn api_shuffle_kinds<T: ShuffleValue>(input: &[T], fill: T, out: &mut [T]) {
    let i = grid!(1);
    let v = if i < input.len() { input[i] } else { fill };
    let results = [
        shfl_sync_width(FULL_MASK, v, 3, 8),
        shfl_up_sync(FULL_MASK, v, 1),
        shfl_down_sync_width(FULL_MASK, v, 2, 16),
        shfl_xor_sync(FULL_MASK, v, 5),
    ];
    if i < input.len() {
        out[4 * i..4 * i + 4].copy_from_slice(&results);
    }
}

/// Shuffles at a width given at launch and at CUDA's default width, for each thread `i` (blocks
/// of multiples of 32): `out[10i..10i+5]` = [lane 5 of the group, the lane 3 below, the lane 3
/// above, lane ^ 6, lane ^ 9] through the `_width` forms with `width`, and `out[10i+5..10i+10]`
/// the same through the plain forms (width 32). Lanes past the end of `input` shuffle
/// `u32::MAX`.
#[kernel]
pub fn api_shuffle_widths(input: &[u32], width: u32, out: &mut [u32]) {
    let i = grid!(1);
    let v = if i < input.len() { input[i] } else { u32::MAX };
    let row = [
        shfl_sync_width(FULL_MASK, v, 5, width),
        shfl_up_sync_width(FULL_MASK, v, 3, width),
        shfl_down_sync_width(FULL_MASK, v, 3, width),
        shfl_xor_sync_width(FULL_MASK, v, 6, width),
        shfl_xor_sync_width(FULL_MASK, v, 9, width),
        shfl_sync(FULL_MASK, v, 5),
        shfl_up_sync(FULL_MASK, v, 3),
        shfl_down_sync(FULL_MASK, v, 3),
        shfl_xor_sync(FULL_MASK, v, 6),
        shfl_xor_sync(FULL_MASK, v, 9),
    ];
    if i < input.len() {
        out[10 * i..10 * i + 10].copy_from_slice(&row);
    }
}

/// Votes per warp, for each thread `i` (blocks of multiples of 32): `out[6i..6i+6] =
/// [ballot(v > 0), any(v > 100), all(v >= 0), lane_id, warp_id, active_mask]`, the active mask
/// taken first, while the whole warp runs.
#[kernel]
pub fn api_warp_votes(input: &[i32], out: &mut [u32]) {
    let active = active_mask();
    let i = grid!(1);
    let v = if i < input.len() { input[i] } else { 0 };
    let ballot = ballot_sync(FULL_MASK, v > 0);
    let any = any_sync(FULL_MASK, v > 100);
    let all = all_sync(FULL_MASK, v >= 0);
    if i < input.len() {
        let row = &mut out[6 * i..6 * i + 6];
        row[0] = ballot;
        row[1] = any as u32;
        row[2] = all as u32;
        row[3] = lane_id();
        row[4] = warp_id();
        row[5] = active;
    }
}

/// Writes one math function's result into the output row: one value, or two (`sin_cos`).
pub trait MathResult<T> {
    /// How many values it writes.
    const COUNT: usize;
    /// Writes them at the start of `out`.
    fn write_results(self, out: &mut [T]);
}

impl<T> MathResult<T> for T {
    const COUNT: usize = 1;
    #[inline(always)]
    fn write_results(self, out: &mut [T]) {
        out[0] = self;
    }
}

impl<T> MathResult<T> for (T, T) {
    const COUNT: usize = 2;
    #[inline(always)]
    fn write_results(self, out: &mut [T]) {
        out[0] = self.0;
        out[1] = self.1;
    }
}

/// The test kernel of the math table: every `DeviceFloat` method on the operands its table line
/// names, in the table's order.
macro_rules! math_kernel {
    ([] $(
        $(#[$doc:meta])*
        $name:ident($($param:ident: $pty:ty),*) -> $ret:tt,
        lower[$($lower:tt)*], test[$first:tt $(, $op:tt)*] $(, std[$($std:tt)*])? $(, ulp[$ulp:literal])?;
    )*) => {
        /// Number of results per input of [`api_math`]: one per line of the math table, two
        /// for `sin_cos`.
        pub const API_MATH_RESULTS: usize = 0 $(+ math_kernel!(@count $ret))*;

        /// Every `DeviceFloat` method (the lines of `ferrocuda::device::__math_functions!`) on
        /// `x = input[i]`: `out[API_MATH_RESULTS * i..]` holds the results in the table's order,
        /// each computed on the operands its line names (`x`, `|x|`, `x / 16` or literals).
        #[kernel(instances(f32, f64))]
        pub fn api_math<T: DeviceFloat + Literal + Div<Output = T>>(input: &[T], out: &mut [T]) {
            let i = grid!(1);
            if i < input.len() {
                let x = input[i];
                let row = &mut out[API_MATH_RESULTS * i..API_MATH_RESULTS * (i + 1)];
                let mut k = 0;
                $(
                    let result = DeviceFloat::$name(
                        __math_operand!(x, $first) $(, __math_operand!(x, $op))*
                    );
                    MathResult::write_results(result, &mut row[k..]);
                    k += math_kernel!(@count $ret);
                )*
                let _ = k;
            }
        }
    };
    (@count ($($tuple:tt)*)) => {
        2
    };
    (@count $single:tt) => {
        1
    };
}
ferrocuda::device::__math_functions!(math_kernel, []);

/// The approximate functions on `x = input[i]`: `out[7i..7i+7] = [fast_sin, fast_cos,
/// fast_exp2, fast_log2(|x|), fast_exp, fast_tanh, fast_rsqrt(|x|)]`.
#[kernel]
pub fn api_fast_math(input: &[f32], out: &mut [f32]) {
    let i = grid!(1);
    if i < input.len() {
        let x = input[i];
        let results = [
            fast_sin(x),
            fast_cos(x),
            fast_exp2(x),
            fast_log2(x.abs()),
            fast_exp(x),
            fast_tanh(x),
            fast_rsqrt(x.abs()),
        ];
        out[7 * i..7 * i + 7].copy_from_slice(&results);
    }
}

/// A `&'static str` chosen at run time, printed through a `{}` placeholder.
fn parity(i: usize) -> &'static str {
    if i.is_multiple_of(2) { "even" } else { "odd" }
}

/// Prints one line per element of `values` with every kind of placeholder.
#[kernel]
pub fn api_print(values: &[f32]) {
    let i = grid!(1);
    if i < values.len() {
        let x = values[i];
        gpu_println!(
            "idx = {} value = {} ({:.2}) hex {:x}/{:X} neg {} big {} ok {} {} {} 100% {{done}}",
            i,
            x,
            x as f64,
            i as u32 + 250,
            -(i as i16) - 1,
            -(i as i64) - 1,
            u64::MAX - i as u64,
            x > 0.0,
            parity(i),
            "literal"
        );
        gpu_print!("no newline {}", i);
        gpu_println!("");
    }
}

/// Per-block factors in constant memory, written by the host.
#[constant]
pub static API_FACTORS: [f32; 4] = [1.0, 2.0, 3.0, 4.0];

/// An offset in constant memory, read whole with `.get()`.
#[constant]
pub static API_OFFSET: f32 = 0.5;

/// `c[i] = (a[i] + b[i]) * API_FACTORS[block % 4] + API_OFFSET`: the constant-memory tutorial program, with a scalar constant beside the array.
#[kernel]
pub fn api_constant_scale(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid!(1);
    if i < c.len() {
        let k = block_idx().x as usize % 4;
        // Indexing in place and copying the whole array out read the same value.
        let factor = (API_FACTORS[k] + API_FACTORS.get()[k]) * 0.5;
        c[i] = (a[i] + b[i]) * factor + API_OFFSET.get();
    }
}

/// `C = A B` for an `m` x `n` matrix `A` and an `n` x `p` matrix `B`, one thread per element of
/// `C`, through matrix views; `A` is read with a row stride `n + pad` (padded rows).
#[kernel]
pub fn api_matmul(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, p: u32, pad: u32) {
    let (m, n, p) = (m as usize, n as usize, p as usize);
    let a = Matrix::with_stride(a, m, n, n + pad as usize);
    let b = Matrix::new(b, n, p);
    let mut c = MatrixMut::new(c, m, p);
    let (col, row) = grid!(2);
    if row < m && col < p {
        let mut sum = 0.0;
        let a_row = a.row(row);
        for (k, a_value) in a_row.iter().enumerate() {
            sum += a_value * b[(k, col)];
        }
        c[(row, col)] = sum;
    }
}

/// Reads a neighbour's element of a shared array with no barrier after the writes: a data race,
/// which the simulator's race detector reports (a GPU would return whatever it finds).
#[kernel]
pub fn api_shared_race(out: &mut [f32]) {
    let mut tile = shared_array!(f32; 64);
    let t = thread_idx().x as usize;
    tile[t] = t as f32;
    out[t] = tile[(t + 1) % 64];
}
