//! [`Stream`]: an ordered queue of device work.

use crate::device_handle::Device;
use crate::error::{Result, driver};
use crate::event::Event;
use cudarc::driver::CudaStream;
use std::sync::Arc;

/// A queue of launches and copies that run in order; work on different streams may overlap.
/// Cheap to clone (shared handle). On the simulator every operation completes before it returns.
#[derive(Clone)]
pub struct Stream {
    pub(crate) device: Device,
    pub(crate) cuda: Option<Arc<CudaStream>>,
}

impl Stream {
    pub(crate) fn default_for(device: &Device) -> Stream {
        Stream {
            device: device.clone(),
            cuda: device.cuda().map(|c| c.default_stream.clone()),
        }
    }

    pub(crate) fn new(device: &Device) -> Result<Stream> {
        let cuda = match device.cuda() {
            Some(c) => Some(c.context.new_stream().map_err(driver("cuStreamCreate"))?),
            None => None,
        };
        Ok(Stream {
            device: device.clone(),
            cuda,
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

    /// The underlying cudarc stream (None on the simulator).
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
