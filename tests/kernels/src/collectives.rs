//! The warp and block collectives (`warp_reduce`, `block_exclusive_scan`, ...) on one value per
//! thread, for `tests/tests/collectives.rs`, which checks them against sequential CPU folds; and
//! their misuses, which the simulator must report.

use ferrocuda::device::shared::{Shape, Shared};
use ferrocuda::prelude::*;

/// Results per thread in the output of the `collectives_*` kernels, in this order: warp reduce,
/// warp inclusive scan, warp exclusive scan, warp broadcast, block reduce, block inclusive scan,
/// block exclusive scan (prefix, then aggregate), block broadcast.
pub const COLLECTIVE_RESULTS: usize = 9;

/// The lane each warp broadcasts from: `(block * 7 + warp * 3) % lanes`.
pub fn warp_broadcast_source(block: u32, warp: u32, lanes: u32) -> u32 {
    (block * 7 + warp * 3) % lanes
}

/// The thread each block broadcasts from: `(block * 37 + 11) % threads`.
pub fn block_broadcast_source(block: u32, threads: u32) -> u32 {
    (block * 37 + 11) % threads
}

/// Every collective on `input[i]` for the thread of rank `r` in block `b` of a 1-D grid of
/// blocks of any shape, `i = b * threads + r`; `out[9i..9i+9]` gets the results in the order of
/// [`COLLECTIVE_RESULTS`]. `input` holds one value per thread of the grid.
#[inline(always)]
fn all_collectives<T: ShuffleValue, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    input: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Copy,
    out: &mut [T],
) {
    let d = block_dim();
    let threads = d.x * d.y * d.z;
    let block = block_idx().x;
    let i = (block * threads + thread_rank()) as usize;
    let value = input[i];
    let lanes = warp_lane_count();
    let warp_source = warp_broadcast_source(block, warp_id(), lanes);
    let (prefix, aggregate) = block_exclusive_scan(scratch, value, identity, op);
    let results = [
        warp_reduce(value, op),
        warp_inclusive_scan(value, op),
        warp_exclusive_scan(value, identity, op),
        warp_broadcast(value, warp_source),
        block_reduce(scratch, value, op),
        block_inclusive_scan(scratch, value, op),
        prefix,
        aggregate,
        block_broadcast(scratch, value, block_broadcast_source(block, threads)),
    ];
    out[COLLECTIVE_RESULTS * i..COLLECTIVE_RESULTS * (i + 1)].copy_from_slice(&results);
}

/// `f` then `g` for affine maps `x -> a x + b` on `u32` (wrapping), packed `b << 32 | a`: the
/// map `x -> a_g (a_f x + b_f) + b_g`. Associative, not commutative; identity `1` (`a = 1`,
/// `b = 0`).
#[inline(always)]
pub fn compose_affine(f: u64, g: u64) -> u64 {
    let (af, bf) = (f as u32, (f >> 32) as u32);
    let (ag, bg) = (g as u32, (g >> 32) as u32);
    let a = ag.wrapping_mul(af);
    let b = ag.wrapping_mul(bf).wrapping_add(bg);
    ((b as u64) << 32) | a as u64
}

/// What the `u32` sum's exclusive scans give the first lane and thread: not the identity of the
/// sum, which shows that the collectives return it without combining it.
pub const EXCLUSIVE_FIRST_U32: u32 = 0xdead_beef;

/// The collectives with the wrapping sum of `u32`, with [`EXCLUSIVE_FIRST_U32`] as the
/// exclusive scans' first value (scratch: a static shared array).
#[kernel]
pub fn collectives_sum_u32(input: &[u32], out: &mut [u32]) {
    let mut scratch = shared_array!(u32; BLOCK_SCRATCH_LEN);
    all_collectives(
        &mut scratch,
        input,
        EXCLUSIVE_FIRST_U32,
        u32::wrapping_add,
        out,
    );
}

/// The collectives with the wrapping sum of `i32` (scratch: a static shared array).
#[kernel]
pub fn collectives_sum_i32(input: &[i32], out: &mut [i32]) {
    let mut scratch = shared_array!(i32; BLOCK_SCRATCH_LEN);
    all_collectives(&mut scratch, input, 0, i32::wrapping_add, out);
}

/// The collectives with the maximum of `i32` (identity `i32::MIN`; scratch: a static shared
/// array).
#[kernel]
pub fn collectives_max_i32(input: &[i32], out: &mut [i32]) {
    let mut scratch = shared_array!(i32; BLOCK_SCRATCH_LEN);
    all_collectives(&mut scratch, input, i32::MIN, i32::max, out);
}

/// The collectives with the sum of `f32`; the scratch is the launch's dynamic shared memory
/// (one `f32` per warp).
#[kernel]
pub fn collectives_sum_f32(input: &[f32], out: &mut [f32]) {
    let mut scratch = dynamic_shared_array::<f32>();
    all_collectives(&mut scratch, input, 0.0, |a, b| a + b, out);
}

/// The collectives with [`compose_affine`], associative but not commutative (scratch: a static
/// shared array).
#[kernel]
pub fn collectives_affine_u64(input: &[u64], out: &mut [u64]) {
    let mut scratch = shared_array!(u64; BLOCK_SCRATCH_LEN);
    all_collectives(&mut scratch, input, 1, compose_affine, out);
}

/// Misuses of the collectives, by `mode`: 0, `warp_reduce` in lanes 0-15 only; 1,
/// `block_reduce` in warp 0 only; 2, `block_reduce` with a scratch of 2 elements; 3,
/// `warp_broadcast` from lane 40; 4, `block_broadcast` from thread 5000. `out[rank]` gets the
/// result where there is one.
#[kernel]
pub fn collectives_misuse(mode: u32, out: &mut [u32]) {
    let mut scratch = shared_array!(u32; BLOCK_SCRATCH_LEN);
    let mut small = shared_array!(u32; 2);
    let rank = thread_rank() as usize;
    let result = match mode {
        0 if thread_idx().x < 16 => warp_reduce(1, u32::wrapping_add),
        1 if warp_id() == 0 => block_reduce(&mut scratch, 1, u32::wrapping_add),
        2 => block_reduce(&mut small, 1, u32::wrapping_add),
        3 => warp_broadcast(1u32, 40),
        4 => block_broadcast(&mut scratch, 1u32, 5000),
        _ => 0,
    };
    out[rank] = result;
}

/// `sums[b]` = the wrapping sum of block `b`'s part of `input` (1-D blocks; threads past the end
/// add 0): `block_reduce` alone, as a kernel would use it (and the instance whose registers
/// `ptxas -v` reports).
#[kernel]
pub fn collectives_block_sums(input: &[u32], sums: &mut [u32]) {
    let mut scratch = shared_array!(u32; BLOCK_SCRATCH_LEN);
    let i = grid!(1);
    let value = if i < input.len() { input[i] } else { 0 };
    let total = block_reduce(&mut scratch, value, u32::wrapping_add);
    if thread_idx().x == 0 {
        sums[block_idx().x as usize] = total;
    }
}
