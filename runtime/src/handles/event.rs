//! [`Event`]: a marker in a stream, for ordering and timing.

use crate::backend::{DeviceBackend, EventHandle};
use crate::handles::device::Device;
use crate::handles::stream::Stream;
use crate::vocabulary::error::Result;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// The device the event belongs to.
    pub(crate) device: Device,
    /// The backend's event.
    pub(crate) handle: EventHandle,
    /// The key of the stream it was last recorded on (`u64::MAX`: never recorded).
    stream: AtomicU64,
    /// The device's newest launch token when it was recorded: the launches it follows.
    up_to: AtomicU64,
}

impl Event {
    /// A new timing-capable event on `device`, not yet recorded.
    pub fn new(device: &Device) -> Result<Event> {
        Ok(Event {
            device: device.clone(),
            handle: device.operate(DeviceBackend::new_event)?,
            stream: AtomicU64::new(u64::MAX),
            up_to: AtomicU64::new(0),
        })
    }

    /// Records the event at the current end of `stream`'s work.
    pub fn record(&self, stream: &Stream) -> Result<()> {
        self.device
            .expect_same(&stream.device, || "the stream".to_string())?;
        stream.refuse_if_capturing("Event::record")?;
        self.device
            .operate(|_| self.handle.record(&stream.handle))?;
        self.up_to
            .store(self.device.newest_token(), Ordering::Relaxed);
        self.stream.store(stream.key, Ordering::Relaxed);
        Ok(())
    }

    /// Waits until the work before the event has completed, then reports a kernel panic or
    /// simulator fault of this thread's launches on the event's stream before it was recorded,
    /// as [`Stream::synchronize`] does for all of that stream's launches.
    pub fn synchronize(&self) -> Result<()> {
        self.device.refuse_while_capturing("Event::synchronize")?;
        self.device.operate(|_| self.handle.synchronize())?;
        match self.stream.load(Ordering::Relaxed) {
            u64::MAX => Ok(()),
            stream => self
                .device
                .check_scope(Some(stream), self.up_to.load(Ordering::Relaxed)),
        }
    }

    /// Whether the work before the event has completed.
    pub fn is_complete(&self) -> Result<bool> {
        self.device.operate(|_| self.handle.is_complete())
    }

    /// Milliseconds between this event and the later event `end` (both recorded and complete).
    ///
    /// # Errors
    /// [`Error::EventNotRecorded`](crate::Error::EventNotRecorded) on the simulator when either
    /// event has not been recorded; the driver's error on a GPU.
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32> {
        self.device
            .expect_same(&end.device, || "the end event".to_string())?;
        self.device.operate(|_| self.handle.elapsed_ms(&end.handle))
    }
}

impl Stream {
    /// Makes later work on this stream wait until `event` has completed (`cudaStreamWaitEvent`).
    pub fn wait_event(&self, event: &Event) -> Result<()> {
        self.device
            .expect_same(&event.device, || "the event".to_string())?;
        self.refuse_if_capturing("Stream::wait_event")?;
        self.device
            .operate(|_| self.handle.wait_event(&event.handle))
    }

    /// Records a new event on this stream and returns it.
    pub fn record_event(&self) -> Result<Event> {
        let event = Event::new(&self.device)?;
        event.record(self)?;
        Ok(event)
    }

    /// [`Stream::synchronize`] with a time limit: waits at most `limit` for the work queued on
    /// this stream so far, then returns [`Error::Timeout`](crate::Error::Timeout) if it has not
    /// finished (it keeps running). It polls an event recorded on the stream, sleeping a little
    /// longer each time (up to a millisecond). On the simulator all work has finished when its
    /// launch returned, so this is `synchronize`.
    pub fn synchronize_timeout(&self, limit: std::time::Duration) -> Result<()> {
        let marker = self.record_event()?;
        wait_for(&marker, limit, "Stream::synchronize_timeout")?;
        self.synchronize()
    }
}

impl Device {
    /// [`Device::synchronize`] with a time limit: waits at most `limit` for the work queued on
    /// the device so far (an event on the legacy default stream follows the work of every
    /// blocking stream), then returns [`Error::Timeout`](crate::Error::Timeout) if it has not
    /// finished. See [`Stream::synchronize_timeout`].
    pub fn synchronize_timeout(&self, limit: std::time::Duration) -> Result<()> {
        let marker = self.default_stream().record_event()?;
        wait_for(&marker, limit, "Device::synchronize_timeout")?;
        self.synchronize()
    }
}

/// Polls `marker` until it completes or `limit` passes.
fn wait_for(marker: &Event, limit: std::time::Duration, operation: &'static str) -> Result<()> {
    let start = std::time::Instant::now();
    let mut pause = std::time::Duration::from_micros(20);
    while !marker.is_complete()? {
        let waited = start.elapsed();
        if waited >= limit {
            return Err(crate::vocabulary::error::Error::Timeout {
                operation,
                limit_ms: limit.as_millis(),
                waited_ms: waited.as_millis(),
            });
        }
        std::thread::sleep(pause.min(limit - waited));
        pause = (pause * 2).min(std::time::Duration::from_millis(1));
    }
    Ok(())
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("device", &self.device)
            .finish()
    }
}
