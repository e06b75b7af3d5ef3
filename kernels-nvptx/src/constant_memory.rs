//! Constant memory: per-block factors that every thread of a block reads, kept
//! in the GPU's constant memory (cached and broadcast to a warp in one transaction) and written
//! by the host before the launch.

use ferrocuda::prelude::*;

/// Most blocks [`add_and_scale_per_block`] has a factor for.
pub const MAX_FACTOR_BLOCKS: usize = 64;

/// The factor of each block, set from the host with `FACTORS.write(&device, &values)` (see the
/// `constant_memory` example). Blocks past the end of the table use the last factor.
#[constant]
pub static FACTORS: [f32; MAX_FACTOR_BLOCKS] = [1.0; MAX_FACTOR_BLOCKS];

/// `c[i] = (a[i] + b[i]) * FACTORS[block]`, for blocks `0..64` (block indices past the table
/// use `FACTORS[63]`).
#[kernel]
pub fn add_and_scale_per_block(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid!(1);
    if i < c.len() {
        let block = (block_idx().x as usize).min(MAX_FACTOR_BLOCKS - 1);
        c[i] = (a[i] + b[i]) * FACTORS[block];
    }
}
