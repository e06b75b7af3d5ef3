//! Streams and events on a GPU.

use super::CudaDevice;
use super::driver::{driver, make_current};
use crate::vocabulary::error::Result;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaStream, result};
use std::sync::Arc;

/// A stream of one GPU: the legacy default stream, or a blocking stream this crate made.
#[derive(Clone)]
pub(crate) struct CudaStreamHandle {
    /// The cudarc handle. Declared before `_owner`, so a dropping clone releases it first.
    pub(crate) stream: Arc<CudaStream>,
    /// For a stream made by [`CudaDevice::new_stream`]: destroys it once the last clone is gone.
    _owner: Option<Arc<OwnedStream>>,
}

/// A blocking stream this crate created, which cudarc can only wrap as a borrowed handle:
/// destroys the stream when the last handle is dropped.
struct OwnedStream {
    /// The same handle as [`CudaStreamHandle::stream`].
    stream: Arc<CudaStream>,
}

impl Drop for OwnedStream {
    fn drop(&mut self) {
        // A clone of the cudarc handle (from `Stream::cuda_stream`) may still be in use: then
        // the stream is left to the context, which frees it with itself.
        if Arc::get_mut(&mut self.stream).is_none()
            || super::context_loss::is_abandoned(self.stream.context())
        {
            return;
        }
        if make_current(self.stream.context()).is_ok() {
            // SAFETY: created by `CudaDevice::new_stream` and destroyed only here, once no
            // handle to it remains. Work still queued on it completes first (the driver frees
            // it after).
            let _ = unsafe { result::stream::destroy(self.stream.cu_stream()) };
        }
    }
}

impl CudaStreamHandle {
    /// Whether two handles are the same stream.
    pub(crate) fn same_as(&self, other: &CudaStreamHandle) -> bool {
        self.stream.cu_stream() == other.stream.cu_stream()
    }

    /// Waits for everything queued on the stream.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.stream
            .synchronize()
            .map_err(driver("cuStreamSynchronize"))
    }

    /// Makes later work on the stream wait for `event`.
    pub(crate) fn wait(&self, event: &CudaEvent) -> Result<()> {
        self.stream.wait(event).map_err(driver("cuStreamWaitEvent"))
    }

    /// Records a new event at the current end of the stream.
    pub(crate) fn record_new_event(&self) -> Result<CudaEvent> {
        self.stream
            .record_event(None)
            .map_err(driver("cuEventRecord"))
    }
}

impl CudaDevice {
    /// The legacy default stream.
    pub(crate) fn default_stream_handle(&self) -> CudaStreamHandle {
        CudaStreamHandle {
            stream: self.default_stream.clone(),
            _owner: None,
        }
    }

    /// A new blocking stream (`CU_STREAM_DEFAULT`, ordered with the legacy default stream).
    pub(crate) fn new_stream(&self) -> Result<CudaStreamHandle> {
        self.bind()?;
        // cudarc's `new_stream` makes CU_STREAM_NON_BLOCKING streams, which race with the
        // synchronous copies and frees of the legacy default stream.
        let raw = result::stream::create(result::stream::StreamKind::Default)
            .map_err(driver("cuStreamCreate"))?;
        // SAFETY: `raw` is a live stream of this context, just created; `OwnedStream` destroys
        // it only after every clone of the wrapper is gone.
        let stream = unsafe { self.context.wrap_borrowed_stream(raw) };
        Ok(CudaStreamHandle {
            stream: stream.clone(),
            _owner: Some(Arc::new(OwnedStream { stream })),
        })
    }

    /// A new timing-capable event.
    pub(crate) fn new_event(&self) -> Result<CudaEvent> {
        self.context
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(driver("cuEventCreate"))
    }
}

/// Records `event` at the current end of `stream`.
pub(crate) fn record_event(event: &CudaEvent, stream: &CudaStreamHandle) -> Result<()> {
    event
        .record(&stream.stream)
        .map_err(driver("cuEventRecord"))
}

/// Waits for the work before `event`.
pub(crate) fn synchronize_event(event: &CudaEvent) -> Result<()> {
    event.synchronize().map_err(driver("cuEventSynchronize"))
}

/// Whether the work before `event` has completed.
pub(crate) fn event_is_complete(event: &CudaEvent) -> Result<bool> {
    event.try_is_complete().map_err(driver("cuEventQuery"))
}

/// Milliseconds between two recorded, completed events.
pub(crate) fn elapsed_ms(start: &CudaEvent, end: &CudaEvent) -> Result<f32> {
    start.elapsed_ms(end).map_err(driver("cuEventElapsedTime"))
}

/// The CUDA event type, for the backend's event handle.
pub(crate) use cudarc::driver::CudaEvent;
