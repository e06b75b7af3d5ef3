//! A dynamic-programming row sweep in the style of Rodinia's PathFinder: the cheapest path from
//! the top row of a grid of weights to each cell of the bottom row, moving down one row at a
//! time to the cell below or one of its two diagonal neighbours. Each block of 256 threads keeps
//! a 256-wide row segment in shared memory and advances it `iteration` rows per launch (the
//! pyramid: the valid part shrinks by one cell on each side per row, so neighbouring segments
//! overlap by `2 iteration` cells).
//!
//! Written the way a new user writes it: `isize`/`usize` indices, checked indexing of the slices
//! and shared arrays. The CUDA C twin is `pathfinder_cuda` in `bench/idiomatic.cu`.

use ferrocuda::prelude::*;

/// Threads per block and width of the shared row segments (Rodinia's `BLOCK_SIZE`).
pub const BLOCK: usize = 256;

/// The launch grid of [`pathfinder`] for rows of `cols` cells advanced `iteration` rows per
/// launch: `ceil(cols / (256 - 2 iteration))` blocks of 256 threads (Rodinia's `blockCols`), the
/// same for the CUDA C twin.
pub fn launch_blocks(cols: usize, iteration: usize) -> u32 {
    cols.div_ceil(BLOCK - 2 * iteration) as u32
}

/// Advances the cheapest path costs `src` (one row of `cols` cells, the costs to reach row
/// `start_step`) by `iteration` rows into `results`, adding the weights of rows
/// `start_step + 1 ..= start_step + iteration`, which `wall` holds from its row `start_step`
/// on (`wall` is the grid without its top row, `cols` cells per row). Blocks of 256 threads, a
/// grid of `ceil(cols / (256 - 2 iteration))` blocks; `border` is `iteration`, which is 1 to
/// 127.
#[kernel(max_block(BLOCK))]
pub fn pathfinder(
    iteration: u32,
    wall: &[i32],
    src: &[i32],
    results: &mut [i32],
    cols: u32,
    start_step: u32,
    border: u32,
) {
    let mut prev = shared_array!(i32; BLOCK);
    let mut result = shared_array!(i32; BLOCK);

    let iteration = iteration as usize;
    let cols = cols as isize;
    let bx = block_idx().x as isize;
    let tx = thread_idx().x as usize;

    // The segment of this block: its first cell, which may lie before the row.
    let small_block_cols = (BLOCK - iteration * 2) as isize;
    let blk_x = small_block_cols * bx - border as isize;
    let blk_x_max = blk_x + BLOCK as isize - 1;
    let x = blk_x + tx as isize;

    // The part of the segment inside the row, and each thread's neighbours, clamped to it.
    let valid_x_min = if blk_x < 0 { (-blk_x) as usize } else { 0 };
    let valid_x_max = if blk_x_max > cols - 1 {
        BLOCK - 1 - (blk_x_max - cols + 1) as usize
    } else {
        BLOCK - 1
    };
    let west = tx.saturating_sub(1).max(valid_x_min);
    let east = (tx + 1).min(valid_x_max);
    let is_valid = (valid_x_min..=valid_x_max).contains(&tx);

    if x >= 0 && x < cols {
        prev[tx] = src[x as usize];
    }
    syncthreads();

    let mut computed = false;
    for i in 0..iteration {
        computed = false;
        if (i + 1..=BLOCK - i - 2).contains(&tx) && is_valid {
            computed = true;
            let shortest = prev[west].min(prev[tx]).min(prev[east]);
            let index = cols as usize * (start_step as usize + i) + x as usize;
            result[tx] = shortest + wall[index];
        }
        syncthreads();
        if i == iteration - 1 {
            break;
        }
        if computed {
            prev[tx] = result[tx];
        }
        syncthreads();
    }
    if computed {
        results[x as usize] = result[tx];
    }
}
