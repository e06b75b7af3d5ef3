//! [`Stream::copy_buffer`]: a copy between two buffers of one device, queued on a stream (and
//! recorded by a graph capture).

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
}
