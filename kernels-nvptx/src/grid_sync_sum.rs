//! A whole sum in one launch: every block sums a grid-stride share of the input and writes a
//! partial, a grid barrier (`grid_sync`, a cooperative launch) waits for all of them, and block
//! 0 sums the partials. The two-launch version of the same reduction is
//! `kernels_algorithms::reduce`; `examples/grid_sync_reduce.rs` runs this one and
//! `examples/bench_cooperative.rs` times both.

use ferrocuda::prelude::*;

/// `out[0] = sum(input)` and `partials[b]` = the sum of block `b`'s grid-stride share of
/// `input` ([`grid_stride_block_reduce`]), in one cooperative launch. `partials` holds at least
/// one element per block; 1-dimensional grid and blocks (a multiple of 32 threads, at most
/// 1024). Grids larger than the device holds at once are refused at launch
/// (`max_cooperative_blocks` gives the largest).
#[kernel(cooperative)]
pub fn grid_sync_sum(input: &[f32], partials: &mut [f32], out: &mut [f32]) {
    let mut scratch = shared_array!(f32; BLOCK_SCRATCH_LEN);
    let block = block_idx().x as usize;
    let rank = thread_rank() as usize;
    let share = grid_stride_block_reduce(&mut scratch, input, 0.0, |a, b| a + b);
    if rank == 0 {
        partials[block] = share;
    }
    grid_sync();
    if block == 0 {
        let blocks = grid_dim().x as usize;
        let threads = block_dim().x as usize;
        let mut sum = 0.0f32;
        let mut k = rank;
        while k < blocks {
            sum += partials[k];
            k += threads;
        }
        let total = block_reduce(&mut scratch, sum, |a, b| a + b);
        if rank == 0 {
            out[0] = total;
        }
    }
}
