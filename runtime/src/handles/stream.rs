//! [`Stream`]: an ordered queue of device work.

use crate::backend::{DeviceBackend, StreamHandle};
use crate::handles::device::Device;
use crate::vocabulary::error::Result;

/// A queue of launches and copies that run in order; work on different streams may overlap.
/// Cheap to clone (shared handle). On the simulator every operation completes before it returns.
///
/// # Ordering with the default stream
///
/// [`Device::default_stream`] is CUDA's legacy default stream, where the synchronous operations
/// run: [`DeviceBuffer::from_slice`](crate::DeviceBuffer::from_slice),
/// [`zeros`](crate::DeviceBuffer::zeros), [`to_vec`](crate::DeviceBuffer::to_vec),
/// [`copy_from`](crate::DeviceBuffer::copy_from), launches without a stream, and the freeing of
/// a dropped buffer. Streams from [`Device::new_stream`] are *blocking* streams
/// (`CU_STREAM_DEFAULT`, as `cudaStreamCreate` makes them), which the legacy default stream
/// synchronizes with:
/// - work queued on a new stream starts after everything queued on the default stream before it
///   (a buffer filled by `from_slice` or `zeros` is ready for a kernel on any stream);
/// - work on the default stream, synchronous copies included, starts after everything queued on
///   every new stream before it (`to_vec` right after a launch on a stream sees the kernel's
///   results, and a buffer dropped while a stream's kernel uses it is freed after that kernel).
///
/// Work on two new streams is not ordered: use [`Event`](crate::Event)s ([`Stream::record_event`],
/// [`Stream::wait_event`]) or [`Stream::synchronize`] between them. For overlap, keep the
/// default stream idle while the streams run: any default-stream operation waits for all of them.
#[derive(Clone)]
pub struct Stream {
    /// The device the stream belongs to.
    pub(crate) device: Device,
    /// The backend's stream.
    pub(crate) handle: StreamHandle,
}

impl Device {
    /// The device's default stream (CUDA's legacy default stream, ordered with all others).
    pub fn default_stream(&self) -> Stream {
        Stream {
            device: self.clone(),
            handle: self.backend_ops().default_stream(),
        }
    }

    /// A new stream, for work that may overlap with other new streams. It is a blocking stream:
    /// ordered with the default stream both ways, so buffers made, read or freed by synchronous
    /// operations are safe to use on it (see [`Stream`]).
    pub fn new_stream(&self) -> Result<Stream> {
        Ok(Stream {
            device: self.clone(),
            handle: self.operate(DeviceBackend::new_stream)?,
        })
    }
}

impl Stream {
    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits for everything queued on this stream, then reports the first kernel panic or
    /// simulator fault since the last synchronization.
    pub fn synchronize(&self) -> Result<()> {
        self.device.operate(|_| self.handle.synchronize())?;
        self.device.check_pending()
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}
