//! [`Stream`]: an ordered queue of device work.

use crate::device_handle::Device;
use crate::error::{Result, driver};
use crate::event::Event;
use cudarc::driver::{CudaStream, result};
use std::sync::Arc;

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
/// Work on two new streams is not ordered: use [`Event`]s ([`Stream::record_event`],
/// [`Stream::wait_event`]) or [`Stream::synchronize`] between them. For overlap, keep the
/// default stream idle while the streams run: any default-stream operation waits for all of them.
#[derive(Clone)]
pub struct Stream {
    pub(crate) device: Device,
    /// The cudarc handle (None on the simulator). Declared before `_owner`, so a dropping clone
    /// releases it first.
    pub(crate) cuda: Option<Arc<CudaStream>>,
    /// For a stream made by [`Stream::new`]: destroys it once the last clone is gone.
    _owner: Option<Arc<OwnedStream>>,
}

/// A blocking stream this crate created, which cudarc can only wrap as a borrowed handle:
/// destroys the stream when the last [`Stream`] clone is dropped.
struct OwnedStream {
    /// The same handle as [`Stream::cuda`].
    cuda: Arc<CudaStream>,
}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        // A clone of the cudarc handle (from `Stream::cuda_stream`) may still be in use: then
        // the stream is left to the context, which frees it with itself.
        if Arc::get_mut(&mut self.cuda).is_none() {
            return;
        }
        let context = self.cuda.context();
        if context.bind_to_thread().is_ok() {
            // SAFETY: created by `Stream::new` and destroyed only here, once no handle to it
            // remains. Work still queued on it completes first (the driver frees it after).
            let _ = unsafe { result::stream::destroy(self.cuda.cu_stream()) };
        }
    }
}

impl Stream {
    pub(crate) fn default_for(device: &Device) -> Stream {
        Stream {
            device: device.clone(),
            cuda: device.cuda().map(|c| c.default_stream.clone()),
            _owner: None,
        }
    }

    /// A new blocking stream (see [Ordering with the default stream](Stream#ordering-with-the-default-stream)).
    pub(crate) fn new(device: &Device) -> Result<Stream> {
        let Some(cuda) = device.cuda() else {
            return Ok(Stream {
                device: device.clone(),
                cuda: None,
                _owner: None,
            });
        };
        cuda.context
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))?;
        // cudarc's `new_stream` makes CU_STREAM_NON_BLOCKING streams, which race with the
        // synchronous copies and frees of the legacy default stream.
        let raw = result::stream::create(result::stream::StreamKind::Default)
            .map_err(driver("cuStreamCreate"))?;
        // SAFETY: `raw` is a live stream of this context; `OwnedStream` destroys it only after
        // every clone of the wrapper is gone.
        let handle = unsafe { cuda.context.wrap_borrowed_stream(raw) };
        Ok(Stream {
            device: device.clone(),
            cuda: Some(handle.clone()),
            _owner: Some(Arc::new(OwnedStream { cuda: handle })),
        })
    }

    /// The device this stream belongs to.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Waits for everything queued on this stream, then reports the first kernel panic or
    /// simulator fault since the last synchronization.
    pub fn synchronize(&self) -> Result<()> {
        if let Some(stream) = &self.cuda {
            stream
                .synchronize()
                .map_err(driver("cuStreamSynchronize"))?;
        }
        self.device.check_pending()
    }

    /// Makes later work on this stream wait until `event` has completed (`cudaStreamWaitEvent`).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.device
            .expect_same(&event.device, || "the event".to_string())?;
        if let (Some(stream), Some(cuda_event)) = (&self.cuda, &event.cuda) {
            stream
                .wait(cuda_event)
                .map_err(driver("cuStreamWaitEvent"))?;
        }
        Ok(())
    }

    /// Records a new event on this stream and returns it.
    pub fn record_event(&self) -> Result<Event> {
        let event = Event::new(&self.device)?;
        event.record(self)?;
        Ok(event)
    }

    /// The underlying cudarc stream (None on the simulator). A stream from
    /// [`Device::new_stream`] is destroyed when its last `Stream` clone is dropped; if a clone of
    /// this cudarc handle is still alive then, the stream lives on until the device's context is
    /// released.
    pub fn cuda_stream(&self) -> Option<&Arc<CudaStream>> {
        self.cuda.as_ref()
    }

    pub(crate) fn raw(&self) -> cudarc::driver::sys::CUstream {
        self.cuda
            .as_ref()
            .map(|s| s.cu_stream())
            .unwrap_or(std::ptr::null_mut())
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("device", &self.device)
            .field("raw", &self.raw())
            .finish()
    }
}
