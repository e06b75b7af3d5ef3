//! Deliberately broken kernels: each shows one bug that ferrocuda reports as an error instead of
//! a hang or silent garbage. The tests check the reports; do not copy these.
//!
//! The barrier and shared-memory bugs are found by the CPU simulator (a GPU would hang or
//! return whatever it finds). Where a bug has a one-line fix, the fixed kernel follows the
//! broken one, so the tests can show that the simulator accepts correct code of the same shape.

use ferrocuda::prelude::*;

/// Most threads per block of the shared-memory kernels below (the size of their static arrays).
pub const FAULT_BLOCK: usize = 256;

/// Thread `culprit` of the grid indexes one past the end of `out`: a bounds-check panic.
/// Every other thread writes its own element, to show they still run.
#[kernel]
pub fn index_out_of_bounds(out: &mut [f32], culprit: u32) {
    let i = grid!(1);
    if i == culprit as usize {
        let past_end = out.len();
        out[past_end] = 1.0;
    } else if i < out.len() {
        out[i] = i as f32;
    }
}

/// Panics with a fixed message in thread 3 of block 2.
#[kernel]
pub fn explicit_panic(out: &mut [u32]) {
    let (b, t) = (block_idx().x, thread_idx().x);
    if b == 2 && t == 3 {
        panic!("thread 3 of block 2 gives up");
    }
    let i = grid!(1);
    if i < out.len() {
        out[i] = 7;
    }
}

/// `assert!` that every input is non-negative.
#[kernel]
pub fn assert_non_negative(values: &[i32], out: &mut [i32]) {
    let i = grid!(1);
    if i < values.len() {
        assert!(values[i] >= 0, "negative input");
        out[i] = values[i];
    }
}

/// In block `bad_block`, the odd threads skip the first `syncthreads` and wait at the second,
/// while the even threads wait at the first: a divergent barrier. Every other block passes both
/// barriers together. Each thread that gets past them writes `out[i] = i`.
#[kernel]
pub fn divergent_syncthreads(out: &mut [u32], bad_block: u32) {
    let skips_first = block_idx().x == bad_block && thread_idx().x % 2 == 1;
    if !skips_first {
        syncthreads();
    }
    syncthreads();
    let i = grid!(1);
    if i < out.len() {
        out[i] = i as u32;
    }
}

/// Per-block sums of `input` in `partial[block]` by an interleaved tree reduction, with the
/// barrier inside the branch that only the active threads take: the threads that leave the
/// branch never reach it (the classic divergent `__syncthreads`). Fixed in
/// [`reduce_barrier_outside_branch`].
#[kernel]
pub fn reduce_barrier_in_branch(input: &[f32], partial: &mut [f32]) {
    let mut cache = shared_array!(f32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    let threads = block_dim().x as usize;
    cache[t] = if i < input.len() { input[i] } else { 0.0 };
    syncthreads();
    let mut stride = 1;
    while stride < threads {
        if t.is_multiple_of(2 * stride) && t + stride < threads {
            cache[t] += cache[t + stride];
            syncthreads();
        }
        stride *= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = cache[0];
    }
}

/// [`reduce_barrier_in_branch`] with the barrier after the branch, where every thread reaches
/// it. Any block size up to [`FAULT_BLOCK`].
#[kernel]
pub fn reduce_barrier_outside_branch(input: &[f32], partial: &mut [f32]) {
    let mut cache = shared_array!(f32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    let threads = block_dim().x as usize;
    cache[t] = if i < input.len() { input[i] } else { 0.0 };
    syncthreads();
    let mut stride = 1;
    while stride < threads {
        if t.is_multiple_of(2 * stride) && t + stride < threads {
            cache[t] += cache[t + stride];
        }
        syncthreads();
        stride *= 2;
    }
    if t == 0 {
        partial[block_idx().x as usize] = cache[0];
    }
}

/// Rotates each block's chunk of `input` left by one through shared memory:
/// `out[start + k] = input[start + (k + 1) % count]` for the block's `count` elements. The
/// threads past the end of `input` return before the barrier the others wait at, so every
/// length that is not a multiple of the block size leaves the last block divergent. Fixed in
/// [`rotate_guarded`].
#[kernel]
pub fn rotate_early_return(input: &[f32], out: &mut [f32]) {
    let mut tile = shared_array!(f32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    if i >= input.len() {
        return;
    }
    tile[t] = input[i];
    syncthreads();
    let start = i - t;
    let count = (input.len() - start).min(block_dim().x as usize);
    out[i] = tile[(t + 1) % count];
}

/// [`rotate_early_return`] with the loads and stores guarded instead, so that every thread
/// reaches the barrier. Any block size up to [`FAULT_BLOCK`].
#[kernel]
pub fn rotate_guarded(input: &[f32], out: &mut [f32]) {
    let mut tile = shared_array!(f32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    if i < input.len() {
        tile[t] = input[i];
    }
    syncthreads();
    if i < input.len() {
        let start = i - t;
        let count = (input.len() - start).min(block_dim().x as usize);
        out[i] = tile[(t + 1) % count];
    }
}

/// In every block, the thread of linear rank `writer` stores `100 + block` in a shared flag
/// and the thread of rank `reader` copies the flag to `seen[block]`. Block `racy_block` skips
/// the barrier between the two: unless `writer == reader`, a data race.
#[kernel]
pub fn shared_flag_race(seen: &mut [u32], racy_block: u32, writer: u32, reader: u32) {
    let mut flag = shared_array!(u32; 1);
    let (b, t) = (block_idx().x, thread_rank());
    if t == writer {
        flag.set(0, 100 + b);
    }
    if b != racy_block {
        syncthreads();
    }
    if t == reader {
        seen[b as usize] = flag.get(0);
    }
}

/// Every pair of threads `2k`, `2k + 1` writes the same shared element (`tile[t / 2] = t`), then
/// each thread copies its element to `out[i]`: two plain writes to one element, a data race.
#[kernel]
pub fn shared_write_race(out: &mut [u32]) {
    let mut tile = shared_array!(u32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    tile[t / 2] = t as u32;
    syncthreads();
    let i = grid!(1);
    if i < out.len() {
        out[i] = tile[t / 2];
    }
}

/// `out[i] = input[i] + input[i + 1]` (0 past the end) through a shared tile of the block's
/// elements, with no barrier between the writes of the tile and the reads of a neighbour's
/// element: a data race. Fixed in [`stencil_with_barrier`].
#[kernel]
pub fn stencil_missing_barrier(input: &[f32], out: &mut [f32]) {
    let mut tile = shared_array!(f32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    if i < input.len() {
        tile[t] = input[i];
        // Missing: a `syncthreads()` before reading the neighbour's element.
        let right = if i + 1 == input.len() {
            0.0
        } else if t + 1 < block_dim().x as usize {
            tile[t + 1]
        } else {
            input[i + 1]
        };
        out[i] = tile[t] + right;
    }
}

/// [`stencil_missing_barrier`] with the `syncthreads` it needs. Any block size up to
/// [`FAULT_BLOCK`].
#[kernel]
pub fn stencil_with_barrier(input: &[f32], out: &mut [f32]) {
    let mut tile = shared_array!(f32; FAULT_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    if i < input.len() {
        tile[t] = input[i];
    }
    syncthreads();
    if i < input.len() {
        let right = if i + 1 == input.len() {
            0.0
        } else if t + 1 < block_dim().x as usize {
            tile[t + 1]
        } else {
            input[i + 1]
        };
        out[i] = tile[t] + right;
    }
}
