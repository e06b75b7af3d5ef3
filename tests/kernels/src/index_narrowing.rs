//! Kernels for the index-narrowing tests: a HotSpot-like 2-D thermal stencil written the way a
//! new user writes it (`usize`/`isize` indices, checked slice and shared-array indexing, no
//! hand-narrowing, no load reordering), whose PTX `tests/tests/index_narrowing.rs` inspects, and
//! kernels that index buffers longer than `u32::MAX` bytes or elements (`large_buffers`).

use ferrocuda::prelude::*;

/// The side of the stencil's square block (threads per block along x and y).
pub const STENCIL_BLOCK: usize = 16;

/// One step of a 2-D heat stencil over a `rows x cols` grid (row-major): each block loads a
/// `(STENCIL_BLOCK + 2)^2` tile of `temperature` with a one-cell halo into shared memory
/// (cells outside the grid take the nearest edge value), then every thread inside the grid
/// writes `power + t + k * (north + south + east + west - 4 t)` for its cell.
///
/// Launch with blocks of `STENCIL_BLOCK x STENCIL_BLOCK` threads covering the grid.
#[kernel]
pub fn heat_stencil(
    temperature: &[f32],
    power: &[f32],
    next: &mut [f32],
    rows: usize,
    cols: usize,
    k: f32,
) {
    const TILE: usize = STENCIL_BLOCK + 2;
    let mut tile = shared_array!(f32; TILE, TILE);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let (col, row) = grid!(2);
    // The tile's first cell is one row and one column before the block's first cell.
    let origin_row = (block_idx().y as usize * STENCIL_BLOCK) as isize - 1;
    let origin_col = (block_idx().x as usize * STENCIL_BLOCK) as isize - 1;
    let (last_row, last_col) = (rows as isize - 1, cols as isize - 1);
    // Each thread loads up to four tile cells: (ty, tx) and its copies shifted by a block.
    let mut r = ty;
    while r < TILE {
        let mut c = tx;
        while c < TILE {
            let src_row = (origin_row + r as isize).clamp(0, last_row) as usize;
            let src_col = (origin_col + c as isize).clamp(0, last_col) as usize;
            tile[(r, c)] = temperature[src_row * cols + src_col];
            c += STENCIL_BLOCK;
        }
        r += STENCIL_BLOCK;
    }
    syncthreads();
    if row < rows && col < cols {
        let (r, c) = (ty + 1, tx + 1);
        let t = tile[(r, c)];
        let around = tile[(r - 1, c)] + tile[(r + 1, c)] + tile[(r, c - 1)] + tile[(r, c + 1)];
        let i = row * cols + col;
        next[i] = power[i] + t + k * (around - 4.0 * t);
    }
}

/// Adds `offset` to `data[start + grid!(1)]` where that is in the slice: a plain kernel, whose
/// slice lengths and `usize` arguments the launch bounds by `u32::MAX` (its element byte offsets
/// may still pass 2^32: 2^30 `f32`s are 4 GiB).
#[kernel]
pub fn add_from(data: &mut [f32], start: usize, offset: f32) {
    let i = start + grid!(1);
    if i < data.len() {
        data[i] += offset;
    }
}

/// [`add_from`] over bytes, for the launch-check tests: a plain kernel, so a slice of more than
/// `u32::MAX` bytes is rejected at launch.
#[kernel]
pub fn add_from_bytes(data: &mut [u8], start: usize, offset: u8) {
    let i = start + grid!(1);
    if i < data.len() {
        data[i] = data[i].wrapping_add(offset);
    }
}

/// [`add_from_bytes`] for slices of any length (`large_buffers`): indices past `u32::MAX`.
#[kernel(large_buffers)]
pub fn add_from_large(data: &mut [u8], start: usize, offset: u8) {
    let i = start + grid!(1);
    if i < data.len() {
        data[i] = data[i].wrapping_add(offset);
    }
}

/// Copies `source[i]` to `target[i]` for every `i` of the grid that is in both: the PTX test's
/// pattern (two lengths, a `min` and a compare, all 32-bit once narrowed).
#[kernel]
pub fn copy_within_grid(source: &[u32], target: &mut [u32]) {
    let i = grid!(1);
    if i < source.len() && i < target.len() {
        target[i] = source[i];
    }
}
