//! Device-to-device copy: [`copy`] copies a buffer or a sub-slice into another of the same
//! length, on a stream, as `cudaMemcpyAsync(..., cudaMemcpyDeviceToDevice)` does, with a kernel
//! of 16-byte vector loads and stores (so it runs on the simulator too).
//!
//! ```ignore
//! use kernels_algorithms::copy::copy;
//! let a = DeviceBuffer::from_slice(&device, &[1u32, 2, 3, 4, 5])?;
//! let mut b = DeviceBuffer::<u32>::zeros(&device, 8)?;
//! copy(&stream, a.slice(1..4), b.slice_mut(5..))?;   // b = [0, 0, 0, 0, 0, 2, 3, 4]
//! copy(&stream, &a, b.slice_mut(..5))?;             // b = [1, 2, 3, 4, 5, 2, 3, 4]
//! ```
//!
//! # Overlap
//! The source and the destination never overlap: a `DeviceSliceMut` of a buffer cannot exist
//! beside any other view of it (Rust's borrows), so a copy between two parts of one buffer
//! does not compile; copy through a second buffer.
//!
//! # The kernel
//! `copy_elements`: a grid-stride loop of 256-thread blocks ([`COPY_BLOCK_THREADS`], at most
//! [`COPY_BLOCKS_PER_SM`] per multiprocessor), each thread loading [`COPY_UNROLL`] chunks of
//! [`COPY_CHUNK`] elements before storing them (16-byte vectors for 4-byte elements, two for
//! 8-byte ones). When the source and the destination are not equally aligned, or for 1- and
//! 2-byte elements, it copies one element per thread and step.

use ferrocuda::device::block_io::{VectorChunks, split_at_alignment, store_blocked};
use ferrocuda::prelude::*;

/// Threads per block of the copy, fill and sequence kernels.
pub const COPY_BLOCK_THREADS: u32 = 256;
/// The most blocks per multiprocessor of those kernels (a grid-stride loop covers the rest).
pub const COPY_BLOCKS_PER_SM: u32 = 8;
/// Consecutive elements per chunk.
pub const COPY_CHUNK: usize = 4;
/// Chunks a thread loads before storing them.
pub const COPY_UNROLL: usize = 4;

/// This thread's index in the 1-D grid and the number of threads of the grid.
#[inline(always)]
pub(crate) fn grid_position() -> (usize, usize, usize) {
    let threads = block_dim().x as usize;
    let thread = block_idx().x as usize * threads + thread_idx().x as usize;
    (thread, grid_dim().x as usize * threads, threads)
}

/// `dst[i] = src[i]` for `i < min(src.len(), dst.len())`, over the whole grid.
#[inline(always)]
fn copy_slice<T: Copy>(src: &[T], dst: &mut [T]) {
    let n = src.len().min(dst.len());
    let (src, dst) = (&src[..n], &mut dst[..n]);
    let (thread, stride, threads) = grid_position();
    let (src_head, src_body) = split_at_alignment(src);
    let head = src_head.len();
    let equally_aligned = (dst.as_ptr() as usize + size_of_val(src_head)).is_multiple_of(16);
    if equally_aligned && let Some((chunks, tail)) = VectorChunks::<T, COPY_CHUNK>::new(src_body) {
        let (dst_head, dst_body) = dst.split_at_mut(head);
        if let (Some(slot), Some(&value)) = (dst_head.get_mut(thread), src_head.get(thread)) {
            *slot = value;
        }
        let group = threads * COPY_UNROLL;
        let rank = thread % threads;
        let mut base = thread / threads * group;
        while base < chunks.len() {
            // Every load of the group first, then the stores: several loads in flight.
            let mut loaded = [[src_body[0]; COPY_CHUNK]; COPY_UNROLL];
            #[expect(
                clippy::needless_range_loop,
                reason = "constant indices keep the arrays in registers on the GPU"
            )]
            for u in 0..COPY_UNROLL {
                let index = base + u * threads + rank;
                if index < chunks.len() {
                    loaded[u] = chunks.load(index);
                }
            }
            #[expect(
                clippy::needless_range_loop,
                reason = "constant indices keep the arrays in registers on the GPU"
            )]
            for u in 0..COPY_UNROLL {
                let index = base + u * threads + rank;
                if index < chunks.len() {
                    store_blocked(dst_body, index, &loaded[u]);
                }
            }
            base += stride * COPY_UNROLL;
        }
        let done = chunks.len() * COPY_CHUNK;
        if let (Some(slot), Some(&value)) = (dst_body.get_mut(done + thread), tail.get(thread)) {
            *slot = value;
        }
        return;
    }
    let mut i = thread;
    while i < n {
        dst[i] = src[i];
        i += stride;
    }
}

/// `dst[i] = src[i]` for every `i` of the shorter slice (the host passes equal lengths).
#[kernel(instances(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, f16, bf16))]
pub fn copy_elements<T: Copy>(src: &[T], dst: &mut [T]) {
    copy_slice(src, dst);
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: [`copy`] and the grid of the element-wise kernels.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::slices::{DeviceInput, DeviceOutput};
    use ferrocuda::{DeviceSlice, DeviceSliceMut, Error};

    /// The blocks of an element-wise kernel over `len` elements on `device`: one chunk of
    /// [`COPY_CHUNK`] per thread, at least 1, at most [`COPY_BLOCKS_PER_SM`] per multiprocessor.
    pub(crate) fn grid_for(device: &Device, len: usize) -> u32 {
        let per_block = COPY_BLOCK_THREADS as usize * COPY_CHUNK;
        let most = (device.limits().multiprocessor_count.max(1) * COPY_BLOCKS_PER_SM) as usize;
        len.div_ceil(per_block).clamp(1, most) as u32
    }

    /// The element types [`copy`] and [`fill`](crate::fill::fill) have kernels for: `u8`,
    /// `i8`, `u16`, `i16`, `u32`, `i32`, `u64`, `i64`, `f32`, `f64`, `f16`, `bf16`.
    pub trait CopyElement: DeviceCopy {
        /// Launches `copy_elements::<Self>`.
        #[doc(hidden)]
        fn launch_copy(
            stream: &Stream,
            grid: u32,
            src: DeviceSlice<'_, Self>,
            dst: DeviceSliceMut<'_, Self>,
        ) -> ferrocuda::Result<()>;

        /// Launches `fill_value::<Self>`.
        #[doc(hidden)]
        fn launch_fill(
            stream: &Stream,
            grid: u32,
            out: DeviceSliceMut<'_, Self>,
            value: Self,
        ) -> ferrocuda::Result<()>;
    }

    /// Implements [`CopyElement`] for the kernels' instances.
    macro_rules! copy_elements {
        ($($t:ty),*) => {$(
            impl CopyElement for $t {
                fn launch_copy(
                    stream: &Stream,
                    grid: u32,
                    src: DeviceSlice<'_, $t>,
                    dst: DeviceSliceMut<'_, $t>,
                ) -> ferrocuda::Result<()> {
                    launch!(copy_elements::<$t>[grid, COPY_BLOCK_THREADS, stream](src, dst))
                }

                fn launch_fill(
                    stream: &Stream,
                    grid: u32,
                    out: DeviceSliceMut<'_, $t>,
                    value: $t,
                ) -> ferrocuda::Result<()> {
                    launch!(crate::fill::fill_value::<$t>[grid, COPY_BLOCK_THREADS, stream](out, value))
                }
            }
        )*};
    }
    copy_elements!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, f16, bf16);

    /// Copies `src` (a `&DeviceBuffer<T>` or a `DeviceSlice<T>`) into `dst` (a
    /// `&mut DeviceBuffer<T>` or a `DeviceSliceMut<T>`) of the same length, on `stream`,
    /// without waiting. Empty slices launch nothing.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] naming both lengths when they differ; the errors of a launch:
    /// slices of another device than the stream's ([`Error::DeviceMismatch`]), more than
    /// `u32::MAX` elements, a lost context.
    pub fn copy<'a, 'b, T: CopyElement + 'a + 'b>(
        stream: &Stream,
        src: impl DeviceInput<'a, T>,
        dst: impl DeviceOutput<'b, T>,
    ) -> ferrocuda::Result<()> {
        let (src, dst) = (src.device_slice(), dst.device_slice_mut());
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch {
                operation: "copy: the destination has one element per source element",
                expected: src.len(),
                actual: dst.len(),
            });
        }
        if src.is_empty() {
            return Ok(());
        }
        T::launch_copy(stream, grid_for(stream.device(), src.len()), src, dst)
    }
}
