//! Asynchronous copies between a [`DeviceBuffer`] and a [`PinnedBuffer`] on a [`Stream`].

use crate::DeviceCopy;
use crate::backend::copy::AsyncCopy;
use crate::handles::buffer::DeviceBuffer;
use crate::handles::pinned::PinnedBuffer;
use crate::handles::stream::Stream;
use crate::vocabulary::error::{Error, Result};

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Queues a copy of the page-locked `src` into this buffer on `stream`
    /// (`cuMemcpyHtoDAsync`) and returns without waiting for it.
    ///
    /// The copy runs in `stream`'s order: after the work already queued on it, before the work
    /// queued after it. As every stream is the legacy default stream or a blocking stream, it
    /// also runs after the work already queued on the device's default stream (so a buffer just made
    /// by [`zeros`](Self::zeros) is not zeroed over the copy), and the default stream's later
    /// work (freeing this buffer included) waits for it.
    ///
    /// Copies of one pinned buffer are ordered as host accesses to it would be, whatever their
    /// streams: a copy from it comes after the pending copies into it, a copy into it after all
    /// its pending copies. Ordering with other device work on other streams (a kernel writing
    /// this buffer on another stream, say) is yours to express with events, as in CUDA.
    ///
    /// It is complete after the stream's next synchronization (or the device's, or an event's
    /// recorded after it). `src` may be read on the host meanwhile, but writing or dropping it
    /// waits for the copy: see [`PinnedBuffer`]'s rule. On the simulator the copy is done
    /// before this returns.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `src` has this buffer's length;
    /// [`Error::DeviceMismatch`] unless `src` and `stream` belong to this buffer's device.
    pub fn copy_from_async(&mut self, src: &PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        self.check_async("DeviceBuffer::copy_from_async", src, stream)?;
        if self.is_empty() {
            return Ok(());
        }
        let copy = AsyncCopy::ToDevice {
            destination: self.device_ptr(),
            source: src.host_ptr().cast::<u8>().cast_const(),
            bytes: src.len() * size_of::<T>(),
        };
        // Copies still writing `src` (device to host, maybe on other streams) finish first:
        // the copy waits for them on the device.
        // SAFETY: `source` is `len` elements of page-locked memory that stays alive and
        // unwritten until this copy completes (PinnedBuffer waits for it before any write or
        // free); `destination` is this buffer's allocation of `len` elements, which the default
        // stream frees only after the copy.
        unsafe { ordered_copy(stream, src, false, copy) }
    }

    /// Queues a copy of this buffer into the page-locked `dst` on `stream`
    /// (`cuMemcpyDtoHAsync`) and returns without waiting for it.
    ///
    /// Ordering and completion as for [`copy_from_async`](Self::copy_from_async). Reading,
    /// writing or dropping `dst` on the host waits for the copy, so the host never sees it
    /// half-written: see [`PinnedBuffer`]'s rule. On the simulator the copy is done before
    /// this returns.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless `dst` has this buffer's length;
    /// [`Error::DeviceMismatch`] unless `dst` and `stream` belong to this buffer's device.
    pub fn copy_to_async(&self, dst: &mut PinnedBuffer<T>, stream: &Stream) -> Result<()> {
        self.check_async("DeviceBuffer::copy_to_async", dst, stream)?;
        if self.is_empty() {
            return Ok(());
        }
        let copy = AsyncCopy::ToHost {
            destination: dst.host_ptr().cast::<u8>(),
            source: self.device_ptr(),
            bytes: dst.len() * size_of::<T>(),
        };
        // Copies still reading or writing `dst` (maybe on other streams) finish first: the
        // copy waits for them on the device.
        // SAFETY: `destination` is `len` elements of page-locked memory that no one reads,
        // writes or frees until this copy completes (PinnedBuffer waits for it); `source` is
        // this buffer's allocation of `len` elements, freed by the default stream only after
        // the copy.
        unsafe { ordered_copy(stream, dst, true, copy) }
    }

    /// Checks that `host` and `stream` suit an asynchronous copy of this buffer.
    fn check_async(
        &self,
        operation: &'static str,
        host: &PinnedBuffer<T>,
        stream: &Stream,
    ) -> Result<()> {
        self.device()
            .expect_same(stream.device(), || "the stream".to_string())?;
        self.device()
            .expect_same(host.device(), || "the pinned buffer".to_string())?;
        if host.len() != self.len() {
            return Err(Error::LengthMismatch {
                operation,
                expected: self.len(),
                actual: host.len(),
            });
        }
        Ok(())
    }
}

/// Queues `copy`, which reads (`writes == false`) or writes `pinned`, on `stream`, and registers
/// it as a pending use of `pinned`.
///
/// The copy is ordered:
/// - after the pending copies of `pinned` it could race with (those that write it, or all of
///   them when it writes), as host accesses would be;
/// - after the work queued so far on the device's default stream, and before the default
///   stream's later work: every [`Stream`] is the legacy default stream or a blocking stream,
///   which the driver orders with it (see [`Stream`]).
///
/// # Safety
/// Both sides of `copy` stay alive; `pinned` is the host side and registers the copy as a
/// pending use, which keeps host accesses and frees from racing with it.
unsafe fn ordered_copy<T: DeviceCopy>(
    stream: &Stream,
    pinned: &PinnedBuffer<T>,
    writes: bool,
    copy: AsyncCopy,
) -> Result<()> {
    stream.refuse_if_capturing("a pinned copy (DeviceBuffer::copy_from_async, copy_to_async)")?;
    let wait_for = || pinned.queue_wait_for_pending(&stream.handle, writes);
    let done = stream.device().operate(|backend| {
        // SAFETY: the caller keeps both sides alive; `pinned` waits for the returned event
        // before any host access that could race with the copy, and before freeing the memory.
        unsafe { stream.handle.copy_async(backend, copy, wait_for) }
    })?;
    if let Some(done) = done {
        pinned.note_pending(stream, done, writes);
    }
    Ok(())
}
