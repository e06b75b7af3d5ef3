//! Coalesced matrix transpose: a block reads a tile of the input row by row
//! (coalesced), parks it in shared memory, and writes it out row by row of the output (coalesced
//! too), reading the tile column-wise. The tile rows are one element longer than the tile
//! (`[16][17]`, `[32][33]`) so that a column of the tile spreads over all 32 shared-memory banks
//! instead of hitting one bank 16 or 32 times.

use ferrocuda::prelude::*;

/// `output = inputᵀ` for a row-major `height` x `width` `input` (so `output` is `width` x
/// `height`), through a 16x17 shared tile, in blocks of 16x16 threads and
/// `grid = (ceil(width / 16), ceil(height / 16))`. Any sizes.
#[kernel]
pub fn transpose_tiled16(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    assert!(
        block_dim().x == 16 && block_dim().y == 16,
        "transpose_tiled16 needs blocks of 16 x 16 threads"
    );
    let mut tile = shared_array!(f32; 16, 17);
    let (w, h) = (width as usize, height as usize);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let (bx, by) = (block_idx().x as usize * 16, block_idx().y as usize * 16);
    if bx + tx < w && by + ty < h {
        tile[(ty, tx)] = input[(by + ty) * w + bx + tx];
    }
    syncthreads();
    // The output tile at (bx, by) transposed: output row bx + ty, column by + tx.
    if by + tx < h && bx + ty < w {
        output[(bx + ty) * h + by + tx] = tile[(tx, ty)];
    }
}

/// `output = inputᵀ` like [`transpose_tiled16`] but through a 32x33 tile in blocks of 32x8
/// threads, each moving 4 elements (`grid = (ceil(width / 32), ceil(height / 32))`): the shape
/// fast transposes use on current GPUs. Any sizes.
#[kernel]
pub fn transpose_tiled32(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    assert!(
        block_dim().x == 32 && block_dim().y == 8,
        "transpose_tiled32 needs blocks of 32 x 8 threads"
    );
    let mut tile = shared_array!(f32; 32, 33);
    let (w, h) = (width as usize, height as usize);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let (bx, by) = (block_idx().x as usize * 32, block_idx().y as usize * 32);
    let (x, y) = (bx + tx, by + ty);
    // Issue the four loads before the first store, so their latencies overlap.
    let mut staged = [0.0f32; 4];
    for (k, value) in staged.iter_mut().enumerate() {
        if x < w && y + 8 * k < h {
            *value = input[(y + 8 * k) * w + x];
        }
    }
    for (k, value) in staged.into_iter().enumerate() {
        if x < w && y + 8 * k < h {
            tile[(ty + 8 * k, tx)] = value;
        }
    }
    syncthreads();
    let (x, y) = (by + tx, bx + ty);
    for k in 0..4 {
        if x < h && y + 8 * k < w {
            output[(y + 8 * k) * h + x] = tile[(tx, ty + 8 * k)];
        }
    }
}
