//! [`Stream`]: an ordered queue of device work.

use crate::backend::{DeviceBackend, StreamHandle};
use crate::handles::device::Device;
use crate::handles::pending::DEFAULT_STREAM_KEY;
use crate::vocabulary::error::Result;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The last key given to a stream made by [`Device::new_stream`].
static NEXT_STREAM_KEY: AtomicU64 = AtomicU64::new(DEFAULT_STREAM_KEY);

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
    /// Which stream this is, for the panic bookkeeping: [`DEFAULT_STREAM_KEY`], or unique in the
    /// process for a new stream (never reused, unlike the driver's handles).
    pub(crate) key: u64,
    /// Shared by the clones of this handle: when the last one is dropped, a graph capture left
    /// running on the stream is ended (see `handles/graph.rs`).
    pub(crate) alive: Arc<()>,
}

impl Device {
    /// The device's default stream (CUDA's legacy default stream, ordered with all others).
    pub fn default_stream(&self) -> Stream {
        Stream {
            device: self.clone(),
            handle: self.backend_ops().default_stream(),
            key: DEFAULT_STREAM_KEY,
            alive: Arc::new(()),
        }
    }

    /// A new stream, for work that may overlap with other new streams. It is a blocking stream:
    /// ordered with the default stream both ways, so buffers made, read or freed by synchronous
    /// operations are safe to use on it (see [`Stream`]).
    pub fn new_stream(&self) -> Result<Stream> {
        Ok(Stream {
            device: self.clone(),
            handle: self.operate(DeviceBackend::new_stream)?,
            key: NEXT_STREAM_KEY.fetch_add(1, Ordering::Relaxed) + 1,
            alive: Arc::new(()),
        })
    }
}

impl Stream {
    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits for everything queued on this stream, then reports a kernel panic or simulator
    /// fault of this thread's launches on this stream not reported yet.
    ///
    /// A panic is reported exactly once, to the thread that launched the kernel, naming that
    /// kernel, at the first synchronization of its stream or of the device
    /// ([`Device::synchronize`]); never to another stream's synchronization or another
    /// thread's. When several launches covered failed, the earliest is returned and each other
    /// one by a later synchronization.
    pub fn synchronize(&self) -> Result<()> {
        // Also on a stream that does not capture: the panic report reads the device's records
        // through the default stream.
        self.device.refuse_while_capturing("Stream::synchronize")?;
        self.device.operate(|_| self.handle.synchronize())?;
        self.device.check_scope(Some(self.key), u64::MAX)
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}
