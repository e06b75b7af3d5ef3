//! 256-bin histograms of `u32` values (the tutorials' global-atomic and shared-atomic versions); a
//! value `v` falls in bin `v & 255`.
//!
//! - [`histogram_global`]: every thread adds into the global bins with an atomic add; simple,
//!   but all threads of the GPU contend for 256 words.
//! - [`histogram_shared`]: each block counts into its own 256 bins in shared memory (shared
//!   atomics are cheap), then adds its non-zero bins into the global ones once.
//!
//! Both use a grid-stride loop, so any grid covers any length, and any block size works (the
//! tutorial's shared version assumed 256 threads per block and a length that is a multiple of
//! it).

use ferrocuda::prelude::*;

/// Number of bins.
pub const BINS: usize = 256;

/// `bins[v & 255] += 1` for every `v` in `data`, with atomic adds on global memory. `bins` must
/// hold 256 counters (the launch panics otherwise).
#[kernel]
pub fn histogram_global(data: &[u32], bins: &mut [u32]) {
    assert!(bins.len() == BINS, "histogram_global needs 256 bins");
    let mut i = grid!(1);
    while i < data.len() {
        bins.atomic_add(data[i] as usize & (BINS - 1), 1);
        i += gridsize!(1);
    }
}

/// `bins[v & 255] += 1` for every `v` in `data`: a per-block histogram in shared memory with
/// shared atomics, merged into `bins` (256 counters) with one global atomic add per non-zero bin
/// and block. Any block size, any grid, any length.
#[kernel]
pub fn histogram_shared(data: &[u32], bins: &mut [u32]) {
    assert!(bins.len() == BINS, "histogram_shared needs 256 bins");
    let mut local = shared_array!(u32; BINS);
    let t = thread_idx().x as usize;
    let step = block_dim().x as usize;
    let mut k = t;
    while k < BINS {
        local.set(k, 0);
        k += step;
    }
    syncthreads();
    let mut i = grid!(1);
    let stride = gridsize!(1);
    while i < data.len() {
        local.atomic_add(data[i] as usize & (BINS - 1), 1);
        i += stride;
    }
    syncthreads();
    let mut k = t;
    while k < BINS {
        let count = local.get(k);
        if count > 0 {
            bins.atomic_add(k, count);
        }
        k += step;
    }
}
