//! Sums: the tutorial's shared-memory tree sum and the reduction a CUDA programmer writes next.
//!
//! - [`block_sum_shared`]: the tutorial's per-block tree sum in 256 floats of static shared
//!   memory; the host adds up the per-block partial sums.
//! - [`sum_warp_shuffle`]: the whole sum on the GPU: a grid-stride loop with 16-byte loads, a
//!   tree of warp shuffles inside each warp, one shared slot per warp, and one atomic add per
//!   block into the result.

use ferrocuda::prelude::*;

/// Most threads per block of [`block_sum_shared`] (the size of its shared array).
pub const SUM_BLOCK: usize = 256;

/// `partial[b]` = the sum of block `b`'s chunk of `input` (`block_dim().x` elements from
/// `b * block_dim().x`; missing elements count as 0), by a tree reduction in shared memory.
/// Blocks of at most 256 threads, of any size (not only powers of two).
#[kernel]
pub fn block_sum_shared(input: &[f32], partial: &mut [f32]) {
    let threads = block_dim().x as usize;
    assert!(
        threads <= SUM_BLOCK,
        "block_sum_shared takes blocks of at most 256 threads"
    );
    let mut cache = shared_array!(f32; SUM_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    cache[t] = if i < input.len() { input[i] } else { 0.0 };
    syncthreads();
    // Halve the active range each step; `active` need not be a power of two.
    let mut active = threads;
    while active > 1 {
        let half = active.div_ceil(2);
        if t + half < active {
            cache[t] += cache[t + half];
        }
        syncthreads();
        active = half;
    }
    if t == 0 {
        partial[block_idx().x as usize] = cache[0];
    }
}

/// Four `f32` read as one 16-byte load.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Float4([f32; 4]);

/// The sum of a warp's 32 values of `x`, in lane 0 (other lanes get partial sums).
#[inline(always)]
fn warp_sum(mut x: f32) -> f32 {
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        x += shfl_down_sync(FULL_MASK, x, offset);
        offset /= 2;
    }
    x
}

/// `out[0] += sum(input)`: every thread sums a grid-stride share of `input` (in 16-byte loads
/// where the data is aligned), warps reduce with shuffles, and each block adds its total to
/// `out[0]` with one atomic add. `out[0]` must start at 0 (or at the value to add to). Blocks of
/// a multiple of 32 threads (up to 1024), any grid, any length.
#[kernel]
pub fn sum_warp_shuffle(input: &[f32], out: &mut [f32]) {
    let threads = block_dim().x as usize;
    assert!(
        threads.is_multiple_of(WARP_SIZE as usize),
        "sum_warp_shuffle needs a block size that is a multiple of 32"
    );
    let mut warp_sums = shared_array!(f32; 32);
    // SAFETY: every bit pattern is a valid f32, so the aligned middle of `input` can be read as
    // groups of four.
    let (head, body, tail) = unsafe { input.align_to::<Float4>() };
    let i = grid!(1);
    let stride = gridsize!(1);
    let mut sum = 0.0f32;
    let mut k = i;
    while k < body.len() {
        let Float4(v) = body[k];
        sum += (v[0] + v[1]) + (v[2] + v[3]);
        k += stride;
    }
    // At most three unaligned elements at each end.
    if i < head.len() {
        sum += head[i];
    }
    if i < tail.len() {
        sum += tail[i];
    }
    sum = warp_sum(sum);
    let (lane, warp) = (
        lane_id() as usize,
        thread_idx().x as usize / WARP_SIZE as usize,
    );
    if lane == 0 {
        warp_sums.set(warp, sum);
    }
    syncthreads();
    if warp == 0 {
        let warps = threads / WARP_SIZE as usize;
        let x = if lane < warps {
            warp_sums.get(lane)
        } else {
            0.0
        };
        let total = warp_sum(x);
        if lane == 0 {
            out.atomic_add(0, total);
        }
    }
}
