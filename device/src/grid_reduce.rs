//! Grid-wide reduction, the device side: [`grid_stride_block_reduce`] combines the share of a
//! slice that this block covers in a grid-stride loop, with 16-byte vector loads and several
//! loads in flight per thread, and returns the block's result in every thread. A kernel writes
//! one partial per block; a second launch of one block (or the host) combines the partials.
//! `kernels_algorithms::reduce` is built on it; a kernel crate uses it with its own operator:
//!
//! ```ignore
//! #[kernel]
//! pub fn max_partials(input: &[f32], partials: &mut [f32]) {
//!     let mut scratch = shared_array!(f32; BLOCK_SCRATCH_LEN);
//!     let m = grid_stride_block_reduce(&mut scratch, input, f32::NEG_INFINITY, f32::max);
//!     if thread_rank() == 0 {
//!         partials[block_idx().x as usize] = m;
//!     }
//! }
//! ```
//!
//! # Order
//! The operator must be associative and commutative: each thread combines its chunks position
//! by position, then the positions, then the block combines its threads
//! ([`block_reduce`]). The order depends on the grid, the block and the alignment of the
//! slice, not on timing: the same launch gives the same bits.

use crate::block_collectives::block_reduce;
use crate::block_io::{VectorChunks, split_at_alignment};
use crate::index::{block_dim, block_idx, grid_dim, thread_rank};
use crate::shared::{Shape, Shared};
use crate::warp::ShuffleValue;

/// Consecutive elements a thread loads at once (one 16-byte vector of 4-byte elements).
pub const CHUNK: usize = 4;
/// Chunks a thread loads before combining them: the loads in flight per thread.
pub const UNROLL: usize = 4;

/// Combines into `acc` (position by position) the chunks `0 .. chunks` of this block's share:
/// the groups of `threads * UNROLL` chunks numbered `block, block + blocks, ...`, chunk
/// `base + u * threads + rank` for this thread.
#[inline(always)]
fn accumulate_chunks<T: Copy>(
    acc: &mut [T; CHUNK],
    chunks: usize,
    threads: usize,
    rank: usize,
    op: &impl Fn(T, T) -> T,
    load: impl Fn(usize) -> [T; CHUNK],
) {
    let group = threads * UNROLL;
    let step = grid_dim().x as usize * group;
    let mut base = block_idx().x as usize * group;
    // Whole groups: every load exists, so all of them are issued before any is combined.
    // (Index loops with constant bounds: an array iterator would go through local memory.)
    #[expect(
        clippy::needless_range_loop,
        reason = "constant indices keep the arrays in registers on the GPU"
    )]
    while base + group <= chunks {
        let mut loaded = [acc[0]; UNROLL].map(|x| [x; CHUNK]);
        for u in 0..UNROLL {
            loaded[u] = load(base + u * threads + rank);
        }
        for u in 0..UNROLL {
            for j in 0..CHUNK {
                acc[j] = op(acc[j], loaded[u][j]);
            }
        }
        base += step;
    }
    // The last, partial group (one block at most gets here with chunks left).
    if base < chunks {
        for u in 0..UNROLL {
            let index = base + u * threads + rank;
            if index < chunks {
                let chunk = load(index);
                for j in 0..CHUNK {
                    acc[j] = op(acc[j], chunk[j]);
                }
            }
        }
    }
}

/// The device-side building block of a grid-wide reduction: `op` over the share of `input` that
/// this block covers in a grid-stride loop (1-D grid), in every thread of the block.
///
/// Block `b` of `B` covers the groups of `threads * UNROLL` chunks of [`CHUNK`] elements
/// numbered `b, b + B, b + 2B, ...`, plus, spread over the grid's first threads, the short
/// unaligned head and the tail of `input`; so the blocks' results, combined in any order, give
/// `op` over all of `input`. Each thread loads [`UNROLL`] chunks with 16-byte vector loads
/// before combining; the block ends with [`block_reduce`] over `scratch`, which needs one
/// element per warp ([`block_scratch_len`](crate::block_collectives::block_scratch_len)).
///
/// `op` must be associative and commutative, `identity` its identity. Every thread of the
/// block must call it (it holds barriers). A grid of more than one dimension panics (its
/// blocks of the same `x` would cover the same share).
///
/// ```ignore
/// #[kernel]
/// pub fn sum_of_squares_partials(input: &[f32], partials: &mut [f32]) {
///     let mut scratch = shared_array!(f32; BLOCK_SCRATCH_LEN);
///     let total = grid_stride_block_reduce(&mut scratch, input, 0.0, |a, b| a + b);
///     ...
/// }
/// ```
#[inline(always)]
#[track_caller]
pub fn grid_stride_block_reduce<T: ShuffleValue, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    input: &[T],
    identity: T,
    op: impl Fn(T, T) -> T + Copy,
) -> T {
    let g = grid_dim();
    if g.y != 1 || g.z != 1 {
        panic!("grid_stride_block_reduce needs a 1-D grid (grid_dim().y and .z equal to 1)");
    }
    let d = block_dim();
    let threads = (d.x * d.y * d.z) as usize;
    let rank = thread_rank() as usize;
    let block = block_idx().x as usize;
    let (head, body) = split_at_alignment(input);
    let mut acc = [identity; CHUNK];
    let tail = match VectorChunks::<T, CHUNK>::new(body) {
        Some((chunks, tail)) => {
            accumulate_chunks(&mut acc, chunks.len(), threads, rank, &op, |i| {
                chunks.load(i)
            });
            tail
        }
        // Elements whose size does not divide 16 bytes: a plain grid-stride loop.
        None => {
            let stride = grid_dim().x as usize * threads;
            let mut i = block * threads + rank;
            while let Some(&x) = body.get(i) {
                acc[0] = op(acc[0], x);
                i += stride;
            }
            &[]
        }
    };
    // The unaligned head and the tail after the last whole chunk: fewer than CHUNK each.
    let thread = block * threads + rank;
    if let Some(&x) = head.get(thread) {
        acc[0] = op(acc[0], x);
    }
    if let Some(&x) = tail.get(thread) {
        acc[1 % CHUNK] = op(acc[1 % CHUNK], x);
    }
    let mut value = acc[0];
    #[expect(
        clippy::needless_range_loop,
        reason = "constant indices keep the array in registers on the GPU"
    )]
    for j in 1..CHUNK {
        value = op(value, acc[j]);
    }
    block_reduce(scratch, value, op)
}
