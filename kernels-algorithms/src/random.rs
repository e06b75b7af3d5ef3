//! Device-wide random fills: [`fill_uniform`] and [`fill_normal`] write a whole buffer of `f32`
//! or `f64` from Philox4x32-10 ([`ferrocuda::device::random`]), as cuRAND's
//! `curandGenerateUniform` and `curandGenerateNormal` do.
//!
//! # Which numbers
//! Every element is a function of the seed and its index alone, so the result does not depend
//! on the grid, the device or the backend, and a host computation gives the same bits. All
//! elements come from subsequence 0 of the seed, in order, block `b` of the stream being
//! `philox4x32_10([b_low, b_high, 0, 0], [seed_low, seed_high])`:
//!
//! | fill | element `i` | words per element |
//! |---|---|---|
//! | uniform `f32` | `Philox::new(seed, 0, i).uniform_f32()` | 1 |
//! | uniform `f64` | `Philox::new(seed, 0, 2 * i).uniform_f64()` | 2 |
//! | normal `f32` | `mean + std_dev * z`, `z` the first (`i` even) or second (`i` odd) normal of `Philox::new(seed, 0, i - i % 2)` | 1 |
//! | normal `f64` | `mean + std_dev * z`, `z` the first or second normal of `Philox::new(seed, 0, 2 * (i - i % 2))` | 2 |
//!
//! ([`element_uniform_f32`] and the other `element_*` functions compute them on the host.) The
//! uniforms lie in (0, 1]; the normals are Box-Muller pairs; `mean + std_dev * z` is a multiply
//! then an add, each rounded. An odd-length normal fill computes the last pair and keeps its
//! first half.
//!
//! # The kernels
//! One thread computes one Philox block (four `u32`) and writes the four `f32` or two `f64` it
//! gives, in a grid-stride loop over the blocks: 256 threads per block, at most
//! [`MAX_GRID_BLOCKS`] blocks. The kernels are `large_buffers` kernels: a buffer may have more
//! than `u32::MAX` elements.

use ferrocuda::device::random::{box_muller_f32, box_muller_f64, philox4x32_10};
use ferrocuda::device::random::{uniform_f32, uniform_f64};
use ferrocuda::prelude::*;

/// Threads per block of the fill kernels.
pub const FILL_BLOCK_THREADS: u32 = 256;
/// The most blocks a fill launches; larger buffers are covered by a grid-stride loop.
pub const MAX_GRID_BLOCKS: u32 = 4096;

/// The four words of block `block` of subsequence 0 of `seed`.
#[inline(always)]
fn philox_block(seed: u64, block: usize) -> [u32; 4] {
    let block = block as u64;
    philox4x32_10(
        [block as u32, (block >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    )
}

/// Writes `values(philox_block(seed, b))` to `out[b * N..]` for every block `b` that `out`
/// reaches, one block per thread and grid-stride step; the last block may be cut short.
#[inline(always)]
fn fill_blocks<T: Copy, const N: usize>(
    seed: u64,
    out: &mut [T],
    values: impl Fn([u32; 4]) -> [T; N],
) {
    let blocks = out.len().div_ceil(N);
    let stride = gridsize!(1);
    let mut block = grid!(1);
    while block < blocks {
        let base = block * N;
        let values = values(philox_block(seed, block));
        match out.get_mut(base..base + N) {
            Some(group) => group.copy_from_slice(&values),
            // The last, short group. Constant indices once the loop is unrolled, so `values`
            // stays in registers (an array iterator would go through local memory).
            None =>
            {
                #[expect(
                    clippy::needless_range_loop,
                    reason = "constant indices keep the array in registers on the GPU"
                )]
                for k in 0..N {
                    if let Some(slot) = out.get_mut(base + k) {
                        *slot = values[k];
                    }
                }
            }
        }
        block += stride;
    }
}

/// `out[i]` = element `i` of the uniform `f32` fill of `seed` (see the module documentation).
#[kernel(large_buffers)]
pub fn fill_uniform_f32(seed: u64, out: &mut [f32]) {
    fill_blocks(seed, out, |words| words.map(uniform_f32));
}

/// `out[i]` = element `i` of the uniform `f64` fill of `seed`.
#[kernel(large_buffers)]
pub fn fill_uniform_f64(seed: u64, out: &mut [f64]) {
    fill_blocks(seed, out, |[a, b, c, d]| {
        [uniform_f64(a, b), uniform_f64(c, d)]
    });
}

/// `out[i]` = element `i` of the normal `f32` fill of `seed` with `mean` and `std_dev`.
#[kernel(large_buffers)]
pub fn fill_normal_f32(seed: u64, mean: f32, std_dev: f32, out: &mut [f32]) {
    fill_blocks(seed, out, |[a, b, c, d]| {
        let (z0, z1) = box_muller_f32(a, b);
        let (z2, z3) = box_muller_f32(c, d);
        [z0, z1, z2, z3].map(|z| mean + std_dev * z)
    });
}

/// `out[i]` = element `i` of the normal `f64` fill of `seed` with `mean` and `std_dev`.
#[kernel(large_buffers)]
pub fn fill_normal_f64(seed: u64, mean: f64, std_dev: f64, out: &mut [f64]) {
    fill_blocks(seed, out, |words| {
        let (z0, z1) = box_muller_f64(words);
        [z0, z1].map(|z| mean + std_dev * z)
    });
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the fill functions and the per-element references.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use ferrocuda::LaunchError;
    use ferrocuda::device::random::Philox;

    /// The element types a buffer can be filled with: `f32` and `f64`.
    pub trait RandomFloat: DeviceCopy + sealed::Sealed {
        /// Launches the uniform fill of `buffer` (non-empty) on `stream` with `grid` blocks.
        #[doc(hidden)]
        fn launch_uniform(
            stream: &Stream,
            grid: u32,
            buffer: &mut DeviceBuffer<Self>,
            seed: u64,
        ) -> ferrocuda::Result<()>;

        /// Launches the normal fill of `buffer` (non-empty).
        #[doc(hidden)]
        fn launch_normal(
            stream: &Stream,
            grid: u32,
            buffer: &mut DeviceBuffer<Self>,
            seed: u64,
            mean: Self,
            std_dev: Self,
        ) -> ferrocuda::Result<()>;

        /// Elements per Philox block (four words): 4 for `f32`, 2 for `f64`.
        #[doc(hidden)]
        const PER_BLOCK: usize;

        /// The PTX entry name of the normal fill, for errors.
        #[doc(hidden)]
        const NORMAL_KERNEL: &'static str;

        /// The value as an `f64` (exact), for checks.
        #[doc(hidden)]
        fn widen(self) -> f64;
    }

    mod sealed {
        /// Only `f32` and `f64` implement [`super::RandomFloat`].
        pub trait Sealed {}
        impl Sealed for f32 {}
        impl Sealed for f64 {}
    }

    /// The error for a mean or standard deviation that is not finite, or a negative standard
    /// deviation.
    fn check_parameters(kernel: &'static str, mean: f64, std_dev: f64) -> ferrocuda::Result<()> {
        let problem = if !mean.is_finite() {
            format!("the mean is {mean}; it must be finite")
        } else if !std_dev.is_finite() || std_dev < 0.0 {
            format!("the standard deviation is {std_dev}; it must be finite and at least 0")
        } else {
            return Ok(());
        };
        Err(LaunchError { kernel, problem }.into())
    }

    impl RandomFloat for f32 {
        const PER_BLOCK: usize = 4;
        const NORMAL_KERNEL: &'static str = "fill_normal_f32";

        fn widen(self) -> f64 {
            f64::from(self)
        }

        fn launch_uniform(
            stream: &Stream,
            grid: u32,
            buffer: &mut DeviceBuffer<f32>,
            seed: u64,
        ) -> ferrocuda::Result<()> {
            launch!(fill_uniform_f32[grid, FILL_BLOCK_THREADS, stream](seed, buffer))
        }

        fn launch_normal(
            stream: &Stream,
            grid: u32,
            buffer: &mut DeviceBuffer<f32>,
            seed: u64,
            mean: f32,
            std_dev: f32,
        ) -> ferrocuda::Result<()> {
            launch!(fill_normal_f32[grid, FILL_BLOCK_THREADS, stream](seed, mean, std_dev, buffer))
        }
    }

    impl RandomFloat for f64 {
        const PER_BLOCK: usize = 2;
        const NORMAL_KERNEL: &'static str = "fill_normal_f64";

        fn widen(self) -> f64 {
            self
        }

        fn launch_uniform(
            stream: &Stream,
            grid: u32,
            buffer: &mut DeviceBuffer<f64>,
            seed: u64,
        ) -> ferrocuda::Result<()> {
            launch!(fill_uniform_f64[grid, FILL_BLOCK_THREADS, stream](seed, buffer))
        }

        fn launch_normal(
            stream: &Stream,
            grid: u32,
            buffer: &mut DeviceBuffer<f64>,
            seed: u64,
            mean: f64,
            std_dev: f64,
        ) -> ferrocuda::Result<()> {
            launch!(fill_normal_f64[grid, FILL_BLOCK_THREADS, stream](seed, mean, std_dev, buffer))
        }
    }

    /// The grid of a fill of `len` elements, `PER_BLOCK` per thread: enough blocks of
    /// [`FILL_BLOCK_THREADS`] for one Philox block per thread, at most [`MAX_GRID_BLOCKS`].
    fn grid_for<T: RandomFloat>(len: usize) -> u32 {
        let threads = len.div_ceil(T::PER_BLOCK);
        threads
            .div_ceil(FILL_BLOCK_THREADS as usize)
            .min(MAX_GRID_BLOCKS as usize) as u32
    }

    /// Fills `buffer` with uniform numbers in (0, 1] from `seed`, on `stream` (asynchronously,
    /// like a launch): element `i` is [`element_uniform_f32`]`(seed, i)` or
    /// [`element_uniform_f64`]`(seed, i)`. An empty buffer launches nothing.
    ///
    /// # Errors
    /// Those of a launch: a buffer of another device than the stream's
    /// ([`Error::DeviceMismatch`](ferrocuda::Error::DeviceMismatch)), a lost context.
    ///
    /// ```ignore
    /// let mut noise = DeviceBuffer::<f32>::zeros(&device, 1 << 20)?;
    /// kernels_algorithms::random::fill_uniform(&device.default_stream(), &mut noise, 42)?;
    /// ```
    pub fn fill_uniform<T: RandomFloat>(
        stream: &Stream,
        buffer: &mut DeviceBuffer<T>,
        seed: u64,
    ) -> ferrocuda::Result<()> {
        if buffer.is_empty() {
            return Ok(());
        }
        T::launch_uniform(stream, grid_for::<T>(buffer.len()), buffer, seed)
    }

    /// Fills `buffer` with normal numbers of mean `mean` and standard deviation `std_dev` from
    /// `seed`, on `stream`: element `i` is [`element_normal_f32`]`(seed, i, mean, std_dev)` or
    /// [`element_normal_f64`]`(...)`. An empty buffer launches nothing (the parameters are
    /// checked all the same).
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) naming the value when `mean` is not finite or
    /// `std_dev` is not finite or negative; otherwise those of [`fill_uniform`].
    pub fn fill_normal<T: RandomFloat>(
        stream: &Stream,
        buffer: &mut DeviceBuffer<T>,
        seed: u64,
        mean: T,
        std_dev: T,
    ) -> ferrocuda::Result<()> {
        check_parameters(T::NORMAL_KERNEL, mean.widen(), std_dev.widen())?;
        if buffer.is_empty() {
            return Ok(());
        }
        T::launch_normal(
            stream,
            grid_for::<T>(buffer.len()),
            buffer,
            seed,
            mean,
            std_dev,
        )
    }

    /// Element `index` of the uniform `f32` fill of `seed`, computed on the host.
    pub fn element_uniform_f32(seed: u64, index: u64) -> f32 {
        Philox::new(seed, 0, index).uniform_f32()
    }

    /// Element `index` of the uniform `f64` fill of `seed`, computed on the host.
    pub fn element_uniform_f64(seed: u64, index: u64) -> f64 {
        Philox::new(seed, 0, 2 * index).uniform_f64()
    }

    /// Element `index` of the normal `f32` fill of `seed`, `mean`, `std_dev`, computed on the host.
    pub fn element_normal_f32(seed: u64, index: u64, mean: f32, std_dev: f32) -> f32 {
        let mut stream = Philox::new(seed, 0, index - index % 2);
        let first = stream.normal_f32();
        let z = if index.is_multiple_of(2) {
            first
        } else {
            stream.normal_f32()
        };
        mean + std_dev * z
    }

    /// Element `index` of the normal `f64` fill of `seed`, `mean`, `std_dev`, computed on the host.
    pub fn element_normal_f64(seed: u64, index: u64, mean: f64, std_dev: f64) -> f64 {
        let mut stream = Philox::new(seed, 0, 2 * (index - index % 2));
        let first = stream.normal_f64();
        let z = if index.is_multiple_of(2) {
            first
        } else {
            stream.normal_f64()
        };
        mean + std_dev * z
    }
}
