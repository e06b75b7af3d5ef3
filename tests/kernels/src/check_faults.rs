//! Kernels whose bounds checks fail: core's range check and the device library's containers.
//! On both backends the report names the index and the length (the GPU records the integers and
//! the host formats them).

use ferrocuda::prelude::*;

/// Thread 0 takes `&data[start..end]` and writes its length: a range check that fails when the
/// range does not fit.
#[kernel]
pub fn slice_range_out_of_bounds(data: &[u32], out: &mut [u32], start: u32, end: u32) {
    if grid!(1) == 0 {
        let part = &data[start as usize..end as usize];
        out[0] = part.len() as u32;
    }
}

/// Thread 0 adds 1 to `bins[index]` atomically: the atomic slice's check fails past the end.
#[kernel]
pub fn atomic_index_out_of_bounds(bins: &mut [u32], index: u32) {
    if grid!(1) == 0 {
        bins.atomic_add(index as usize, 1);
    }
}

/// Thread 0 reads element `(0, col)` of `data` seen as a `rows x cols` matrix: the matrix's
/// column check fails when `col >= cols`.
#[kernel]
pub fn matrix_column_out_of_bounds(data: &[f32], out: &mut [f32], rows: u32, cols: u32, col: u32) {
    if grid!(1) == 0 {
        let matrix = Matrix::new(data, rows as usize, cols as usize);
        out[0] = matrix[(0, col as usize)];
    }
}

/// `out[r] = sum of values[indices[k]]` for `k` in `offsets[r]..offsets[r + 1]`, one thread per
/// row: checked loads whose index is itself loaded, in a loop that LLVM unrolls. The builder
/// moves these loads above their checks ([`nvptx_builder`'s load speculation]); a failed check
/// must still be reported as the first one that fails, with its own index and length.
///
/// [`nvptx_builder`'s load speculation]: https://docs.rs/nvptx-builder
#[kernel]
pub fn gather_rows(offsets: &[u32], indices: &[u32], values: &[f32], out: &mut [f32]) {
    let row = grid!(1);
    if row < out.len() {
        let mut sum = 0.0f32;
        for k in offsets[row] as usize..offsets[row + 1] as usize {
            sum += values[indices[k] as usize];
        }
        out[row] = sum;
    }
}

/// Stages `a[i]` and `b[i]` in two shared arrays, then writes `out[i] = a[i] * b[i] +
/// a[i - 1 or i]` (the left neighbour's element from the tile, the thread's own for the first
/// thread of a block): a checked global load, a store to shared memory, another checked load
/// and store, as in HotSpot's tile loads. The build moves the second load above the first
/// check and the first store (`b` is global memory, which no shared store can change), so that
/// both loads are in flight together; a failed check must still be the first one in program
/// order, with its own index and length. Blocks of at most 256 threads.
#[kernel(max_block(256))]
pub fn stage_pairs(a: &[f32], b: &[f32], out: &mut [f32]) {
    let mut tile_a = shared_array!(f32; 256);
    let mut tile_b = shared_array!(f32; 256);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    if i < out.len() {
        tile_a[t] = a[i];
        tile_b[t] = b[i];
    }
    syncthreads();
    if i < out.len() {
        out[i] = tile_a[t] * tile_b[t] + tile_a[t.saturating_sub(1)];
    }
}

/// Weights of [`smooth5`]'s five taps.
pub const SMOOTH_WEIGHTS: [f32; 5] = [0.0625, 0.25, 0.375, 0.25, 0.0625];

/// `out[i] = sum over k of SMOOTH_WEIGHTS[k] * x[i + k - 2]`, the taps outside `0..n` left
/// out: a 1-D convolution whose taps are guarded checked loads (`if inside { sum += w * x[j] }`),
/// as in a 2-D convolution's filter row. A failed check must be the first one in program
/// order, with its own index and length, and a tap outside `0..n` must read nothing.
#[kernel]
pub fn smooth5(x: &[f32], out: &mut [f32], n: u32) {
    let i = grid!(1);
    if i < out.len() {
        let mut sum = 0.0f32;
        for (k, w) in SMOOTH_WEIGHTS.iter().enumerate() {
            let j = i as isize + k as isize - 2;
            if j >= 0 && j < n as isize {
                sum += w * x[j as usize];
            }
        }
        out[i] = sum;
    }
}
