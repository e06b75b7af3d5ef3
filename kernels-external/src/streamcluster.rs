//! The gain of opening a candidate center, after Rodinia's streamcluster (`pgain`'s kernel
//! `kernel_compute_cost` of `streamcluster_cuda.cu`).
//!
//! `num` points of `dim` coordinates, stored dimension-major as Rodinia transposes them
//! (coordinate `d` of point `i` at `coord[d * num + i]`); each point has a weight, the index of
//! the point that is its current center (`assign`) and its cost (distance to that center times
//! its weight). `center_table[c]` gives the slot (`0..k`) of center point `c`. For a candidate
//! center `x`, point `i`'s cost of moving to `x` is
//! `x_cost = (sum over d of (coord[d][i] - coord[d][x])^2) * weight` (the sum in order of `d`);
//! then, in point `i`'s row of `work_mem` (`stride = k + 1` slots from `i * stride`):
//!
//! - if `x_cost < cost`, the point would move: `switch_membership[i] = true` and
//!   `work_mem[i * stride + k] += x_cost - cost`;
//! - else closing its center would cost the difference:
//!   `work_mem[i * stride + center_table[assign]] += cost - x_cost`.
//!
//! Launch, as Rodinia's: [`THREADS`] (512) threads per block, one thread per point, the blocks
//! numbered `block_idx().x + grid_dim().x * block_idx().y` (Rodinia spreads more than 65535
//! blocks over a 2-D grid; [`launch_grid`] gives its grid).

use ferrocuda::prelude::*;

/// Threads per block (Rodinia's `THREADS_PER_BLOCK`).
pub const THREADS: usize = 512;

/// Rodinia's grid for `num` points: `ceil(num / 512)` blocks, spread over `y` when there are
/// more than 65535 (`num_blocks_y = ceil(blocks / 65535)`, as `pgain` computes it).
pub fn launch_grid(num: usize) -> (u32, u32) {
    let blocks = num.div_ceil(THREADS).max(1);
    let y = blocks.div_ceil(65535);
    let x = blocks.div_ceil(y);
    (x as u32, y as u32)
}

/// A point as the kernel sees it (Rodinia's `Point`, without its host coordinate pointer).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct Point {
    /// The point's weight.
    pub weight: f32,
    /// The index of the point that is its current center.
    pub assign: u32,
    /// Its current cost: its distance to that center times its weight.
    pub cost: f32,
}

/// Rodinia's `kernel_compute_cost` for candidate center `x` (see the module documentation):
/// thread `i` (one per point of `points`) compares its cost with the cost of moving to `x`
/// and adds the saving or the loss into its row of `work_mem`.
///
/// `coord` holds `dim * points.len()` coordinates, dimension-major; `work_mem`
/// `points.len() * stride` slots with `stride >= k + 1`; `switch_membership` one flag per point.
/// Launch: `[launch_grid(points.len()), THREADS]`.
#[kernel(max_block(THREADS))]
pub fn compute_cost(
    dim: u32,
    x: u32,
    points: &[Point],
    k: u32,
    stride: u32,
    coord: &[f32],
    work_mem: &mut [f32],
    center_table: &[u32],
    switch_membership: &mut [bool],
) {
    let num = points.len();
    let bid = block_idx().x as usize + grid_dim().x as usize * block_idx().y as usize;
    let tid = block_dim().x as usize * bid + thread_idx().x as usize;
    if tid < num {
        let (dim, x, k, stride) = (dim as usize, x as usize, k as usize, stride as usize);
        let lower = tid * stride;
        let mut distance = 0.0f32;
        for d in 0..dim {
            let diff = coord[d * num + tid] - coord[d * num + x];
            distance += diff * diff;
        }
        let point = points[tid];
        let x_cost = distance * point.weight;
        if x_cost < point.cost {
            switch_membership[tid] = true;
            work_mem[lower + k] += x_cost - point.cost;
        } else {
            let slot = center_table[point.assign as usize] as usize;
            work_mem[lower + slot] += point.cost - x_cost;
        }
    }
}
