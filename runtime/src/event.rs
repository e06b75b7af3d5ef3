//! [`Event`]: a marker in a stream, for ordering and timing.

use crate::device_handle::Device;
use crate::error::{Error, Result, driver};
use crate::stream::Stream;
use cudarc::driver::CudaEvent;
use cudarc::driver::sys::CUevent_flags;
use std::sync::Mutex;
use std::time::Instant;

/// A point in a stream's work: record it, wait for it, or time the work between two events.
///
/// ```ignore
/// let start = stream.record_event()?;
/// launch!(kernel[grid, block, &stream](...))?;
/// let end = stream.record_event()?;
/// end.synchronize()?;
/// println!("{:.3} ms", start.elapsed_ms(&end)?);
/// ```
pub struct Event {
    pub(crate) device: Device,
    pub(crate) cuda: Option<CudaEvent>,
    /// On the simulator: when the event was recorded (work is synchronous there).
    recorded_at: Mutex<Option<Instant>>,
}

impl Event {
    /// A new timing-capable event on `device`, not yet recorded.
    pub fn new(device: &Device) -> Result<Event> {
        let cuda = match device.cuda() {
            Some(c) => Some(
                c.context
                    .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(driver("cuEventCreate"))?,
            ),
            None => None,
        };
        Ok(Event {
            device: device.clone(),
            cuda,
            recorded_at: Mutex::new(None),
        })
    }

    /// Records the event at the current end of `stream`'s work.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.device
            .expect_same(&stream.device, || "the stream".to_string())?;
        match (&self.cuda, &stream.cuda) {
            (Some(event), Some(stream)) => event.record(stream).map_err(driver("cuEventRecord")),
            _ => {
                *self.recorded_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                Ok(())
            }
        }
    }

    /// Waits until the work before the event has completed, then reports kernel panics as
    /// [`Stream::synchronize`] does.
    pub fn synchronize(&self) -> Result<()> {
        if let Some(event) = &self.cuda {
            event.synchronize().map_err(driver("cuEventSynchronize"))?;
        }
        self.device.check_pending()
    }

    /// Whether the work before the event has completed.
    pub fn is_complete(&self) -> Result<bool> {
        match &self.cuda {
            Some(event) => event.try_is_complete().map_err(driver("cuEventQuery")),
            None => Ok(true),
        }
    }

    /// Milliseconds between this event and the later event `end` (both recorded and complete).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        self.device
            .expect_same(&end.device, || "the end event".to_string())?;
        match (&self.cuda, &end.cuda) {
            (Some(start), Some(end)) => start.elapsed_ms(end).map_err(driver("cuEventElapsedTime")),
            _ => {
                let start = *self.recorded_at.lock().unwrap_or_else(|e| e.into_inner());
                let stop = *end.recorded_at.lock().unwrap_or_else(|e| e.into_inner());
                match (start, stop) {
                    (Some(a), Some(b)) => Ok(b.saturating_duration_since(a).as_secs_f32() * 1e3),
                    _ => Err(Error::Driver {
                        call: "Event::elapsed_ms",
                        name: "CUDA_ERROR_INVALID_HANDLE".to_string(),
                        description:
                            "both events must be recorded before measuring the time between them"
                                .to_string(),
                    }),
                }
            }
        }
    }

    /// The underlying cudarc event (None on the simulator).
    pub fn cuda_event(&self) -> Option<&CudaEvent> {
        self.cuda.as_ref()
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("device", &self.device)
            .finish()
    }
}
