//! A 2-D thermal simulation step in the style of Rodinia's HotSpot: each 16x16 block loads a
//! tile of the temperature and power grids into shared memory, then advances the tile's inner
//! cells `iteration` times (the "pyramid": each step shrinks the valid region by one cell on
//! every side, so a block writes the inner `16 - 2 iteration` square of its tile and
//! neighbouring tiles overlap by `2 iteration` ghost cells). Cells on the grid's edge reuse their
//! own temperature for the missing neighbour.
//!
//! Written the way a new user writes it: `isize`/`usize` indices, checked indexing of the slices
//! and shared arrays. The CUDA C twin is `hotspot_cuda` in `bench/idiomatic.cu`.

use ferrocuda::prelude::*;

/// Edge of the block and of its shared tiles (Rodinia's `BLOCK_SIZE`).
pub const BLOCK: usize = 16;

/// Ambient temperature (Rodinia's `amb_temp`).
pub const AMBIENT: f32 = 80.0;

/// The physical coefficients of a `rows` x `cols` grid on Rodinia's 16 mm x 16 mm, 0.5 mm thick
/// silicon chip, computed as Rodinia's host code computes them (in `f32`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HotspotCoefficients {
    /// Thermal capacitance of a cell.
    pub cap: f32,
    /// Thermal resistance towards the east and west neighbours.
    pub rx: f32,
    /// Thermal resistance towards the north and south neighbours.
    pub ry: f32,
    /// Thermal resistance towards the ambient.
    pub rz: f32,
    /// Time step.
    pub step: f32,
}

impl HotspotCoefficients {
    /// The coefficients of a `rows` x `cols` grid.
    pub fn for_grid(rows: usize, cols: usize) -> Self {
        let (t_chip, chip_height, chip_width) = (0.0005f32, 0.016f32, 0.016f32);
        let (spec_heat_si, k_si, factor_chip) = (1.75e6f32, 100.0f32, 0.5f32);
        let (max_pd, precision) = (3.0e6f32, 0.001f32);
        let grid_height = chip_height / rows as f32;
        let grid_width = chip_width / cols as f32;
        let max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
        HotspotCoefficients {
            cap: factor_chip * spec_heat_si * t_chip * grid_width * grid_height,
            rx: grid_width / (2.0 * k_si * t_chip * grid_height),
            ry: grid_height / (2.0 * k_si * t_chip * grid_width),
            rz: t_chip / (k_si * chip_height * chip_width),
            step: precision / max_slope,
        }
    }
}

/// The launch grid of [`hotspot`] for a `rows` x `cols` grid advanced `iteration` steps per
/// launch: `(ceil(cols / (16 - 2 iteration)), ceil(rows / (16 - 2 iteration)))` blocks of 16x16
/// threads (Rodinia's `blockCols` x `blockRows`), the same for the CUDA C twin.
pub fn launch_grid(rows: usize, cols: usize, iteration: usize) -> (u32, u32) {
    let small_block = BLOCK - 2 * iteration;
    (
        cols.div_ceil(small_block) as u32,
        rows.div_ceil(small_block) as u32,
    )
}

/// Advances the temperatures `temp_src` (a `rows` x `cols` row-major grid) by `iteration`
/// steps into `temp_dst`, under the heat sources `power`. Blocks of 16x16 threads on a grid of
/// `ceil(cols / (16 - 2 iteration))` x `ceil(rows / (16 - 2 iteration))` blocks; `border_cols`
/// and `border_rows` are `iteration` (the ghost zone), and `iteration` is 1 to 7.
#[kernel(max_block(BLOCK, BLOCK))]
pub fn hotspot(
    iteration: u32,
    power: &[f32],
    temp_src: &[f32],
    temp_dst: &mut [f32],
    cols: u32,
    rows: u32,
    border_cols: u32,
    border_rows: u32,
    cap: f32,
    rx: f32,
    ry: f32,
    rz: f32,
    step: f32,
) {
    let mut temp_on_cuda = shared_array!(f32; BLOCK, BLOCK);
    let mut power_on_cuda = shared_array!(f32; BLOCK, BLOCK);
    let mut temp_t = shared_array!(f32; BLOCK, BLOCK);

    let iteration = iteration as usize;
    let (cols, rows) = (cols as isize, rows as isize);
    let step_div_cap = step / cap;
    let (rx_1, ry_1, rz_1) = (1.0 / rx, 1.0 / ry, 1.0 / rz);
    let (bx, by) = (block_idx().x as isize, block_idx().y as isize);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);

    // The tile of this block: its top-left cell in the grid, which may lie outside it.
    let small_block = (BLOCK - iteration * 2) as isize;
    let blk_y = small_block * by - border_rows as isize;
    let blk_x = small_block * bx - border_cols as isize;
    let blk_y_max = blk_y + BLOCK as isize - 1;
    let blk_x_max = blk_x + BLOCK as isize - 1;
    let y = blk_y + ty as isize;
    let x = blk_x + tx as isize;
    let index = (cols * y + x) as usize;

    let inside = y >= 0 && y < rows && x >= 0 && x < cols;
    if inside {
        temp_on_cuda[(ty, tx)] = temp_src[index];
        power_on_cuda[(ty, tx)] = power[index];
    }
    syncthreads();

    // The part of the tile inside the grid, and each thread's neighbours, clamped to it.
    let valid_y_min = if blk_y < 0 { (-blk_y) as usize } else { 0 };
    let valid_y_max = if blk_y_max > rows - 1 {
        BLOCK - 1 - (blk_y_max - rows + 1) as usize
    } else {
        BLOCK - 1
    };
    let valid_x_min = if blk_x < 0 { (-blk_x) as usize } else { 0 };
    let valid_x_max = if blk_x_max > cols - 1 {
        BLOCK - 1 - (blk_x_max - cols + 1) as usize
    } else {
        BLOCK - 1
    };
    let north = ty.saturating_sub(1).max(valid_y_min);
    let south = (ty + 1).min(valid_y_max);
    let west = tx.saturating_sub(1).max(valid_x_min);
    let east = (tx + 1).min(valid_x_max);

    let mut computed = false;
    for i in 0..iteration {
        computed = false;
        if (i + 1..=BLOCK - i - 2).contains(&tx)
            && (i + 1..=BLOCK - i - 2).contains(&ty)
            && (valid_x_min..=valid_x_max).contains(&tx)
            && (valid_y_min..=valid_y_max).contains(&ty)
        {
            computed = true;
            let center = temp_on_cuda[(ty, tx)];
            temp_t[(ty, tx)] = center
                + step_div_cap
                    * (power_on_cuda[(ty, tx)]
                        + (temp_on_cuda[(south, tx)] + temp_on_cuda[(north, tx)] - 2.0 * center)
                            * ry_1
                        + (temp_on_cuda[(ty, east)] + temp_on_cuda[(ty, west)] - 2.0 * center)
                            * rx_1
                        + (AMBIENT - center) * rz_1);
        }
        syncthreads();
        if i == iteration - 1 {
            break;
        }
        if computed {
            temp_on_cuda[(ty, tx)] = temp_t[(ty, tx)];
        }
        syncthreads();
    }
    if computed {
        temp_dst[index] = temp_t[(ty, tx)];
    }
}
