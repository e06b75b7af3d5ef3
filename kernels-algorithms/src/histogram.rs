//! Device-wide even-bin histogram: [`histogram_even`] counts how many samples fall in each of
//! `counts.len()` equal bins between `lower` (included) and `upper` (excluded), as CUB's
//! `DeviceHistogram::HistogramEven`, for `u8`, `u32` and `f32` samples into `u32` counts.
//!
//! ```ignore
//! let mut counts = DeviceBuffer::<u32>::zeros(&device, 256)?;
//! kernels_algorithms::histogram::histogram_even(&stream, &pixels, 0u8, 255u8, &mut counts)?;
//! ```
//!
//! # Which bin
//! A sample `x` with `lower <= x < upper` goes to bin `floor((x - lower) * bins / (upper -
//! lower))`, computed exactly for `u8` and `u32` (in 64-bit integers) and in `f64` for `f32`
//! (where `x - lower` and the product are exact, so only the division rounds); samples outside
//! the range (and NaNs) are not counted. ([`bin_of`] is that rule, on both sides.) As with CUB,
//! `upper` itself is outside: `histogram_even(.., 0u8, 255u8, ..)` with 255 bins leaves out 255;
//! pass 256 bins of `0..=255` through `u32` samples, or `upper = 255` and a last bin that
//! misses it.
//!
//! # The kernel
//! Blocks of [`HISTOGRAM_THREADS`] threads run a grid-stride loop over the samples (`u8` four
//! at a time, as one aligned `u32`), counting in
//! a private copy of the bins in shared memory (shared atomics), then add their copy to the
//! global counts (one global atomic per bin and block that counted something). Histograms of
//! more than [`MAX_SHARED_BINS`] bins count in global memory directly. The counts are zeroed
//! first, so the result replaces what `counts` held.

use ferrocuda::prelude::*;

/// Threads per block of the histogram kernels.
pub const HISTOGRAM_THREADS: u32 = 256;
/// The most bins counted privately in shared memory (48 KiB of `u32`); more go to global
/// atomics directly.
pub const MAX_SHARED_BINS: usize = 12 * 1024;
/// The most blocks of a histogram.
pub const MAX_HISTOGRAM_BLOCKS: u32 = 1024;

/// A sample type of the histogram: `u8`, `u32` or `f32`.
pub trait HistogramSample: Copy + DeviceCopy {
    /// The bin of `self` among `bins` even bins of `lower..upper`, or `None` outside.
    fn bin(self, lower: Self, upper: Self, bins: u32) -> Option<u32>;

    /// Calls `count(bin)` for the bin of every sample of `samples` that this thread reaches in
    /// a grid-stride loop over the grid's threads (and is in the range): one sample per thread
    /// and step.
    #[inline(always)]
    fn count_samples(
        samples: &[Self],
        lower: Self,
        upper: Self,
        bins: u32,
        mut count: impl FnMut(u32),
    ) {
        let stride = gridsize!(1);
        let mut i = grid!(1);
        while i < samples.len() {
            if let Some(bin) = samples[i].bin(lower, upper, bins) {
                count(bin);
            }
            i += stride;
        }
    }
}

impl HistogramSample for u8 {
    #[inline(always)]
    fn bin(self, lower: u8, upper: u8, bins: u32) -> Option<u32> {
        u32::from(self).bin(u32::from(lower), u32::from(upper), bins)
    }

    /// Four samples per thread and step, read as one aligned `u32` (a byte per load would
    /// move 32 bytes per warp instruction); the unaligned head and the tail, fewer than four
    /// samples each, go to thread 0 of the grid.
    #[inline(always)]
    fn count_samples(samples: &[u8], lower: u8, upper: u8, bins: u32, mut count: impl FnMut(u32)) {
        // SAFETY: every bit pattern of four bytes is a `u32`; `align_to` hands out only the
        // aligned middle as words.
        let (head, words, tail) = unsafe { samples.align_to::<u32>() };
        let first = grid!(1);
        if first == 0 {
            for &sample in head.iter().chain(tail) {
                if let Some(bin) = sample.bin(lower, upper, bins) {
                    count(bin);
                }
            }
        }
        let stride = gridsize!(1);
        let mut i = first;
        while i < words.len() {
            let word = words[i];
            for byte in 0..4 {
                // Little-endian: byte `k` of the word is sample `4i + k` of the middle.
                if let Some(bin) = ((word >> (8 * byte)) as u8).bin(lower, upper, bins) {
                    count(bin);
                }
            }
            i += stride;
        }
    }
}

impl HistogramSample for u32 {
    #[inline(always)]
    fn bin(self, lower: u32, upper: u32, bins: u32) -> Option<u32> {
        if self < lower || self >= upper {
            return None;
        }
        Some((u64::from(self - lower) * u64::from(bins) / u64::from(upper - lower)) as u32)
    }
}

impl HistogramSample for f32 {
    #[inline(always)]
    fn bin(self, lower: f32, upper: f32, bins: u32) -> Option<u32> {
        // `!(a <= b)` is also true for NaN, which goes nowhere.
        if !(lower <= self && self < upper) {
            return None;
        }
        let offset = f64::from(self) - f64::from(lower);
        let bin = (offset * f64::from(bins) / (f64::from(upper) - f64::from(lower))) as u32;
        // The quotient of a sample just below `upper` cannot round up to `bins`: it is below
        // `bins * (1 - 2^-24)`, far from `bins` in f64. The `min` makes that explicit.
        Some(bin.min(bins - 1))
    }
}

/// The bin of `sample` among `bins` even bins of `lower..upper` (see the
/// [module documentation](self)): the rule of the kernels, for the host's checks.
pub fn bin_of<T: HistogramSample>(sample: T, lower: T, upper: T, bins: u32) -> Option<u32> {
    sample.bin(lower, upper, bins)
}

/// Zeroes `counts` (grid-stride).
#[kernel]
pub fn histogram_clear(counts: &mut [u32]) {
    let stride = gridsize!(1);
    let mut i = grid!(1);
    while i < counts.len() {
        counts[i] = 0;
        i += stride;
    }
}

/// Adds the histogram of `samples` in `counts.len()` even bins of `lower..upper` to `counts`:
/// privately in the launch's dynamic shared memory when it holds `counts.len()` `u32`, else in
/// global memory directly.
#[kernel(instances(u8, u32, f32))]
pub fn histogram_even_counts<T: HistogramSample>(
    samples: &[T],
    lower: T,
    upper: T,
    counts: &mut [u32],
) {
    let bins = counts.len();
    let mut private = dynamic_shared_array::<u32>();
    if private.len() < bins {
        T::count_samples(samples, lower, upper, bins as u32, |bin| {
            counts.atomic_add(bin as usize, 1);
        });
        return;
    }
    let t = thread_rank() as usize;
    let threads = HISTOGRAM_THREADS as usize;
    let block = block_dim();
    if block.x * block.y * block.z != HISTOGRAM_THREADS {
        panic!("histogram_even_counts: launch it with blocks of HISTOGRAM_THREADS (256) threads");
    }
    let mut b = t;
    while b < bins {
        private[b] = 0;
        b += threads;
    }
    syncthreads();
    T::count_samples(samples, lower, upper, bins as u32, |bin| {
        private.atomic_add(bin as usize, 1);
    });
    syncthreads();
    let mut b = t;
    while b < bins {
        let count = private[b];
        if count != 0 {
            counts.atomic_add(b, count);
        }
        b += threads;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: [`histogram_even`] and the sample types.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use ferrocuda::LaunchError;

    mod sealed {
        /// Only `u8`, `u32` and `f32` are histogram samples on the host side.
        pub trait Sealed {}
        impl Sealed for u8 {}
        impl Sealed for u32 {}
        impl Sealed for f32 {}
    }

    /// A sample type [`histogram_even`] launches a kernel for.
    pub trait EvenSample: HistogramSample + PartialOrd + std::fmt::Debug + sealed::Sealed {
        /// Launches the counting kernel.
        #[doc(hidden)]
        fn launch_counts(
            stream: &Stream,
            grid: u32,
            shared: u32,
            samples: &DeviceBuffer<Self>,
            lower: Self,
            upper: Self,
            counts: &mut DeviceBuffer<u32>,
        ) -> ferrocuda::Result<()>;

        /// Whether the value is usable as a level (finite for floats).
        #[doc(hidden)]
        fn is_level(self) -> bool;
    }

    macro_rules! even_sample {
        ($t:ty, $finite:expr) => {
            impl EvenSample for $t {
                fn launch_counts(
                    stream: &Stream,
                    grid: u32,
                    shared: u32,
                    samples: &DeviceBuffer<$t>,
                    lower: $t,
                    upper: $t,
                    counts: &mut DeviceBuffer<u32>,
                ) -> ferrocuda::Result<()> {
                    launch!(histogram_even_counts::<$t>[grid, HISTOGRAM_THREADS, stream, shared](
                        samples, lower, upper, counts
                    ))
                }

                fn is_level(self) -> bool {
                    let finite: fn($t) -> bool = $finite;
                    finite(self)
                }
            }
        };
    }
    even_sample!(u8, |_| true);
    even_sample!(u32, |_| true);
    even_sample!(f32, f32::is_finite);

    /// Replaces `counts` by the histogram of `samples` in `counts.len()` even bins of
    /// `lower..upper`, on `stream` (see the [module documentation](super) for the bins).
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) when `counts` is empty or longer than
    /// `u32::MAX`, or `lower` is not below `upper` (or either is not finite); those of a launch.
    pub fn histogram_even<T: EvenSample>(
        stream: &Stream,
        samples: &DeviceBuffer<T>,
        lower: T,
        upper: T,
        counts: &mut DeviceBuffer<u32>,
    ) -> ferrocuda::Result<()> {
        let problem = if counts.is_empty() || counts.len() > u32::MAX as usize {
            format!(
                "the histogram has {} bins (counts.len()); it needs 1 to {}",
                counts.len(),
                u32::MAX
            )
        } else if !(lower.is_level() && upper.is_level() && lower < upper) {
            format!(
                "the levels are lower = {lower:?}, upper = {upper:?}; lower must be below upper, both finite"
            )
        } else {
            String::new()
        };
        if !problem.is_empty() {
            return Err(LaunchError {
                kernel: "histogram_even_counts",
                problem,
            }
            .into());
        }
        let bins = counts.len();
        let clear_grid = bins
            .div_ceil(HISTOGRAM_THREADS as usize)
            .min(MAX_HISTOGRAM_BLOCKS as usize) as u32;
        launch!(histogram_clear[clear_grid, HISTOGRAM_THREADS, stream](&mut *counts))?;
        if samples.is_empty() {
            return Ok(());
        }
        // Eight samples per thread before the grid-stride loop comes round.
        let grid = samples
            .len()
            .div_ceil(HISTOGRAM_THREADS as usize * 8)
            .min(MAX_HISTOGRAM_BLOCKS as usize) as u32;
        let shared = if bins <= MAX_SHARED_BINS {
            (bins * 4) as u32
        } else {
            0
        };
        T::launch_counts(stream, grid, shared, samples, lower, upper, counts)
    }
}
