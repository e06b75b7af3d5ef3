//! Device-wide fills: [`fill`] sets every element of a buffer or sub-slice to one value
//! (`cudaMemsetAsync` for any element type, `thrust::fill`), [`sequence`] writes
//! `start, start + step, start + 2 step, ...` (`thrust::sequence`, CuPy's `arange`).
//!
//! ```ignore
//! use kernels_algorithms::fill::{fill, sequence};
//! let mut v = DeviceBuffer::<f32>::zeros(&device, 6)?;
//! fill(&stream, &mut v, 1.5)?;                   // [1.5; 6]
//! sequence(&stream, v.slice_mut(2..), 10.0, 0.5)?; // [1.5, 1.5, 10.0, 10.5, 11.0, 11.5]
//! ```
//!
//! Element `i` of a sequence is `start + i * step`: for integers with wrapping arithmetic (`i`
//! converted with `as`), for floats the product `(i as T) * step` rounded, then the sum rounded
//! (no fused multiply-add), so the host computes the same bits.
//!
//! The kernels write [`COPY_CHUNK`] consecutive elements per thread and step of a grid-stride
//! loop, with 16-byte vector stores where the slice is aligned ([`store_blocked`]), in the
//! grid of [`crate::copy`].

use crate::copy::{COPY_CHUNK, grid_position};
use ferrocuda::device::block_io::{split_at_alignment_mut, store_blocked};
use ferrocuda::prelude::*;

/// Writes `value_at(i)` to `out[i]` for every `i`, over the whole grid.
#[inline(always)]
fn fill_with<T: Copy>(out: &mut [T], value_at: impl Fn(usize) -> T) {
    let (thread, stride, _) = grid_position();
    let (head, body) = split_at_alignment_mut(out);
    let head_len = head.len();
    if let Some(slot) = head.get_mut(thread) {
        *slot = value_at(thread);
    }
    let chunks = body.len() / COPY_CHUNK;
    let mut chunk = thread;
    while chunk < chunks {
        let first = head_len + chunk * COPY_CHUNK;
        let items: [T; COPY_CHUNK] = core::array::from_fn(|k| value_at(first + k));
        store_blocked(body, chunk, &items);
        chunk += stride;
    }
    let done = chunks * COPY_CHUNK;
    if let Some(slot) = body.get_mut(done + thread) {
        *slot = value_at(head_len + done + thread);
    }
}

/// `out[i] = value` for every `i`.
#[kernel(instances(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, f16, bf16))]
pub fn fill_value<T: Copy>(out: &mut [T], value: T) {
    fill_with(out, |_| value);
}

/// The element types of [`sequence`]: element `i` is `start + i * step` (see the
/// [module documentation](self) for the rounding).
pub trait SequenceElement: Copy {
    /// `start + index * step`.
    fn at(start: Self, step: Self, index: usize) -> Self;
}

/// Implements [`SequenceElement`] for integers (wrapping).
macro_rules! integer_sequence {
    ($($t:ty),*) => {$(
        impl SequenceElement for $t {
            #[inline(always)]
            fn at(start: $t, step: $t, index: usize) -> $t {
                start.wrapping_add((index as $t).wrapping_mul(step))
            }
        }
    )*};
}
integer_sequence!(u32, i32, u64, i64);

/// Implements [`SequenceElement`] for floats.
macro_rules! float_sequence {
    ($($t:ty),*) => {$(
        impl SequenceElement for $t {
            #[inline(always)]
            fn at(start: $t, step: $t, index: usize) -> $t {
                start + index as $t * step
            }
        }
    )*};
}
float_sequence!(f32, f64);

/// `out[i] = start + i * step` ([`SequenceElement::at`]).
#[kernel(instances(u32, i32, u64, i64, f32, f64))]
pub fn sequence_values<T: SequenceElement>(out: &mut [T], start: T, step: T) {
    fill_with(out, |i| T::at(start, step, i));
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: [`fill`] and [`sequence`].
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::copy::{COPY_BLOCK_THREADS, CopyElement, grid_for};
    use crate::slices::DeviceOutput;
    use ferrocuda::DeviceSliceMut;

    /// Sets every element of `out` (a `&mut DeviceBuffer<T>` or a `DeviceSliceMut<T>`) to
    /// `value`, on `stream`, without waiting. An empty slice launches nothing.
    ///
    /// # Errors
    /// Those of a launch: a slice of another device than the stream's
    /// ([`Error::DeviceMismatch`](ferrocuda::Error::DeviceMismatch)), more than `u32::MAX`
    /// elements, a lost context.
    pub fn fill<'a, T: CopyElement + 'a>(
        stream: &Stream,
        out: impl DeviceOutput<'a, T>,
        value: T,
    ) -> ferrocuda::Result<()> {
        let out = out.device_slice_mut();
        if out.is_empty() {
            return Ok(());
        }
        T::launch_fill(stream, grid_for(stream.device(), out.len()), out, value)
    }

    /// The element types [`sequence`] has kernels for: `u32`, `i32`, `u64`, `i64`, `f32`,
    /// `f64`.
    pub trait SequenceKernel: SequenceElement + DeviceCopy {
        /// Launches `sequence_values::<Self>`.
        #[doc(hidden)]
        fn launch_sequence(
            stream: &Stream,
            grid: u32,
            out: DeviceSliceMut<'_, Self>,
            start: Self,
            step: Self,
        ) -> ferrocuda::Result<()>;
    }

    /// Implements [`SequenceKernel`] for the kernel's instances.
    macro_rules! sequence_kernels {
        ($($t:ty),*) => {$(
            impl SequenceKernel for $t {
                fn launch_sequence(
                    stream: &Stream,
                    grid: u32,
                    out: DeviceSliceMut<'_, $t>,
                    start: $t,
                    step: $t,
                ) -> ferrocuda::Result<()> {
                    launch!(sequence_values::<$t>[grid, COPY_BLOCK_THREADS, stream](out, start, step))
                }
            }
        )*};
    }
    sequence_kernels!(u32, i32, u64, i64, f32, f64);

    /// Writes `start + i * step` to element `i` of `out` (a `&mut DeviceBuffer<T>` or a
    /// `DeviceSliceMut<T>`), on `stream`, without waiting. An empty slice launches nothing.
    ///
    /// # Errors
    /// Those of [`fill`].
    pub fn sequence<'a, T: SequenceKernel + 'a>(
        stream: &Stream,
        out: impl DeviceOutput<'a, T>,
        start: T,
        step: T,
    ) -> ferrocuda::Result<()> {
        let out = out.device_slice_mut();
        if out.is_empty() {
            return Ok(());
        }
        T::launch_sequence(
            stream,
            grid_for(stream.device(), out.len()),
            out,
            start,
            step,
        )
    }
}
