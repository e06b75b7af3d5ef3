//! Kernels for `#[kernel(max_block(...))]` (`tests/tests/max_block.rs`): a tiled transpose that
//! declares its 16 x 16 block, the same body without the bound (whose PTX the test compares),
//! and a one-dimensional kernel bounded at 128 threads that works with any block up to it.

use ferrocuda::prelude::*;

/// Side of the transpose's tile: its blocks are at most `TILE x TILE` threads.
pub const TILE: usize = 16;

/// The most threads per block of [`reverse_within_block`].
pub const REVERSE_MAX: u32 = 128;

/// `output` (`cols x rows`) = the transpose of `input` (`rows x cols`, row-major), a 16 x 16
/// tile per block through shared memory. Launch with blocks of 16 x 16 threads and a grid of
/// `ceil(cols / 16) x ceil(rows / 16)` blocks.
#[kernel(max_block(TILE, TILE))]
pub fn tile_transpose(input: &[f32], output: &mut [f32], rows: usize, cols: usize) {
    transpose_body(input, output, rows, cols);
}

/// [`tile_transpose`] without the bound: the same code, whose shared-tile checks stay.
#[kernel]
pub fn tile_transpose_unbounded(input: &[f32], output: &mut [f32], rows: usize, cols: usize) {
    transpose_body(input, output, rows, cols);
}

#[inline(always)]
fn transpose_body(input: &[f32], output: &mut [f32], rows: usize, cols: usize) {
    let mut tile = shared_array!(f32; TILE, TILE + 1);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let (first_col, first_row) = (block_idx().x as usize * TILE, block_idx().y as usize * TILE);
    let (row, col) = (first_row + ty, first_col + tx);
    if row < rows && col < cols {
        tile[(ty, tx)] = input[row * cols + col];
    }
    syncthreads();
    // The output tile: row `first_col + ty` of the transpose, column `first_row + tx`.
    let (out_row, out_col) = (first_col + ty, first_row + tx);
    if out_row < cols && out_col < rows {
        output[out_row * rows + out_col] = tile[(tx, ty)];
    }
}

/// Reverses each block's segment of `data` (of `block_dim().x` elements, shorter at the end)
/// through shared memory; blocks of at most [`REVERSE_MAX`] threads, with room for 4 of them per
/// multiprocessor (`min_blocks_per_sm`).
#[kernel(max_block(REVERSE_MAX), min_blocks_per_sm(4))]
pub fn reverse_within_block(data: &mut [u32]) {
    let mut staged = shared_array!(u32; REVERSE_MAX as usize);
    let tx = thread_idx().x as usize;
    let block = block_dim().x as usize;
    let first = block_idx().x as usize * block;
    let len = data.len().saturating_sub(first).min(block);
    if tx < len {
        staged[tx] = data[first + tx];
    }
    syncthreads();
    if tx < len {
        data[first + tx] = staged[len - 1 - tx];
    }
}
