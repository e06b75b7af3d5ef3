//! Copies queued on a stream (and recorded by a graph capture): [`Stream::copy_buffer`] between
//! two buffers of one device, [`Stream::copy_from_host`] from host memory into a buffer.

use crate::DeviceCopy;
use crate::handles::buffer::DeviceBuffer;
use crate::handles::stream::Stream;
use crate::vocabulary::error::{Error, Result};

impl Stream {
    /// Queues a copy of all of `src` into `dst` on this stream (`cuMemcpyDtoDAsync`) and
    /// returns without waiting for it; while the stream captures a graph, the copy is recorded
    /// instead (see [`Graph`](crate::Graph)). On the simulator the copy is done before this
    /// returns (or recorded).
    ///
    /// The copy runs in this stream's order, after the work already queued on the device's
    /// default stream (every stream is ordered with it), like a launch on the stream.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless both buffers have the same length;
    /// [`Error::DeviceMismatch`] unless both belong to this stream's device.
    pub fn copy_buffer<T: DeviceCopy>(
        &self,
        src: &DeviceBuffer<T>,
        dst: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.device
            .expect_same(src.device(), || "the source buffer".to_string())?;
        self.device
            .expect_same(dst.device(), || "the destination buffer".to_string())?;
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch {
                operation: "Stream::copy_buffer",
                expected: dst.len(),
                actual: src.len(),
            });
        }
        let bytes = src.len() * size_of::<T>();
        if bytes == 0 {
            return Ok(());
        }
        self.queue_device_copy(dst.device_ptr(), src.device_ptr(), bytes)
    }

    /// Queues a copy of the host slice `src` into `dst` on this stream, in the stream's order.
    /// Outside a capture, the bytes are taken before this returns (the driver stages them,
    /// after the work already queued on the stream), so `src` may change at once. While the
    /// stream captures a graph, the graph keeps a page-locked copy of `src` as it is now, and
    /// every replay copies that snapshot into `dst` (an update takes the new capture's data).
    /// On the simulator the copy is done before this returns (or recorded).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] unless both have the same length; [`Error::DeviceMismatch`]
    /// unless `dst` belongs to this stream's device.
    pub fn copy_from_host<T: DeviceCopy>(
        &self,
        src: &[T],
        dst: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        self.device
            .expect_same(dst.device(), || "the destination buffer".to_string())?;
        if src.len() != dst.len() {
            return Err(Error::LengthMismatch {
                operation: "Stream::copy_from_host",
                expected: dst.len(),
                actual: src.len(),
            });
        }
        // SAFETY: `T: DeviceCopy` is plain data: its bytes can be read as they are.
        let bytes = unsafe {
            std::slice::from_raw_parts(src.as_ptr().cast::<u8>(), std::mem::size_of_val(src))
        };
        if bytes.is_empty() {
            return Ok(());
        }
        self.queue_host_copy(dst.device_ptr(), bytes)
    }
}
