//! The particle filter's likelihood and resampling kernels, after Rodinia's `particlefilter`
//! (float version, `particlefilter_float.cu`: `likelihood_kernel` and `find_index_kernel`).
//!
//! A particle is a position `(x, y)` in a video of `nfr` frames of `isz_x x isz_y` `u8` pixels,
//! stored as Rodinia stores it: pixel `(px, py)` of frame `k` at `px * isz_y * nfr + py * nfr + k`.
//! The object is a disk, given as `count_ones` offsets `(dy, dx)` (`objxy[2 * d]` and
//! `objxy[2 * d + 1]`).
//!
//! [`likelihood_kernel`] (Rodinia's `likelihood_kernel`, without its random move of the particles,
//! which the caller does): for each particle, the pixel indices under the disk centred at its
//! rounded position, the likelihood
//! `sum over the disk of ((I - 100)^2 - (I - 228)^2) / 50`, divided by `count_ones`, and the
//! weight update `w[i] *= exp(likelihood)`; then each block sums its weights into
//! `partial_sums[block]` by a shared-memory tree. Launch: [`BLOCK`] (512) threads per block,
//! `ceil(n / 512)` blocks.
//!
//! [`find_index`] (Rodinia's `find_index_kernel`): for each `u[j]`, the first index `x` with
//! `cdf[x] >= u[j]` (the last particle if there is none), by a linear search over the CDF; the
//! new particle `j` is the old particle `x`. Launch: one thread per particle, [`BLOCK`]
//! threads per block.

use ferrocuda::prelude::*;

/// Threads per block of both kernels (Rodinia's `threads_per_block`).
pub const BLOCK: usize = 512;

/// Rodinia's `likelihood_kernel` (the same name), for `n = array_x.len()` particles: for particle `i` and disk
/// point `d` (`0..count_ones`),
///
/// ```text
/// px = round(array_x[i]) + objxy[2 d + 1],  py = round(array_y[i]) + objxy[2 d]
/// ind[i * count_ones + d] = |px * isz_y * nfr + py * nfr + k|, or 0 when that is >= max_size
/// likelihood[i] = (sum over d of ((I[ind] - 100)^2 - (I[ind] - 228)^2) / 50) / count_ones
/// weights[i] = weights[i] * exp(likelihood[i])
/// ```
///
/// (`round` halfway away from zero; the sum in order of `d`), then `partial_sums[b]` is the sum
/// of the new weights of block `b` (a tree over [`BLOCK`] slots, zero past the last particle).
///
/// Launch: `[n.div_ceil(BLOCK), BLOCK]`; `ind` holds `n * count_ones` elements,
/// `partial_sums` one per block.
#[kernel(max_block(BLOCK))]
pub fn likelihood_kernel(
    array_x: &[f32],
    array_y: &[f32],
    objxy: &[i32],
    image: &[u8],
    ind: &mut [i32],
    likelihood: &mut [f32],
    weights: &mut [f32],
    partial_sums: &mut [f32],
    count_ones: u32,
    max_size: i32,
    k: i32,
    isz_y: i32,
    nfr: i32,
) {
    let mut buffer = shared_array!(f32; BLOCK);
    let tx = thread_idx().x as usize;
    let i = grid!(1);
    let n = array_x.len();
    let count = count_ones as usize;
    let (max_size, k, isz_y, nfr) = (max_size as isize, k as isize, isz_y as isize, nfr as isize);

    let mut weight = 0.0f32;
    if i < n {
        let cx = array_x[i].round() as isize;
        let cy = array_y[i].round() as isize;
        let mut sum = 0.0f32;
        for d in 0..count {
            let px = cx + objxy[2 * d + 1] as isize;
            let py = cy + objxy[2 * d] as isize;
            let mut index = (px * isz_y * nfr + py * nfr + k).abs();
            if index >= max_size {
                index = 0;
            }
            ind[i * count + d] = index as i32;
            let pixel = image[index as usize] as f32;
            let low = pixel - 100.0;
            let high = pixel - 228.0;
            sum += (low * low - high * high) / 50.0;
        }
        let l = sum / count as f32;
        likelihood[i] = l;
        weight = weights[i] * l.exp();
        weights[i] = weight;
    }

    buffer[tx] = weight;
    syncthreads();
    let mut s = block_dim().x as usize / 2;
    while s > 0 {
        if tx < s {
            let other = buffer[tx + s];
            buffer[tx] += other;
        }
        syncthreads();
        s /= 2;
    }
    if tx == 0 {
        partial_sums[block_idx().x as usize] = buffer[0];
    }
}

/// Rodinia's `find_index_kernel`, for `n = cdf.len()` particles: thread `j` finds the first `x`
/// with `cdf[x] >= u[j]` (or `n - 1` when there is none) and writes `xj[j] = array_x[x]`,
/// `yj[j] = array_y[x]`.
///
/// Launch: `[u.len().div_ceil(BLOCK), BLOCK]`; `xj` and `yj` hold `u.len()` elements.
#[kernel(max_block(BLOCK))]
pub fn find_index(
    array_x: &[f32],
    array_y: &[f32],
    cdf: &[f32],
    u: &[f32],
    xj: &mut [f32],
    yj: &mut [f32],
) {
    let j = grid!(1);
    if j < u.len() {
        let n = cdf.len();
        let target = u[j];
        let mut index = n - 1;
        for (x, &c) in cdf.iter().enumerate() {
            if c >= target {
                index = x;
                break;
            }
        }
        xj[j] = array_x[index];
        yj[j] = array_y[index];
    }
}
