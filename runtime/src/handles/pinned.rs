//! [`PinnedBuffer`]: page-locked host memory, the source and destination of asynchronous copies.

use crate::DeviceCopy;
use crate::backend::{EventHandle, PinnedAllocation, StreamHandle};
#[cfg(doc)]
use crate::handles::buffer::DeviceBuffer;
use crate::handles::device::Device;
use crate::handles::stream::Stream;
use crate::vocabulary::error::{Result, bytes_of};
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

/// An asynchronous copy that may still be using the buffer: completed once `event` is.
struct PendingUse {
    /// Keeps the stream alive (a stream is destroyed with its last clone), so that its handle
    /// identifies it while the entry exists.
    stream: Stream,
    /// Recorded on `stream` after the latest copy on it that uses this buffer.
    event: EventHandle,
    /// Whether one of those copies writes the buffer (device to host).
    writes: bool,
}

/// `len` elements of `T` in page-locked ("pinned") host memory, which the GPU's copy engines
/// read and write directly: the memory [`DeviceBuffer::copy_from_async`] and
/// [`DeviceBuffer::copy_to_async`] copy from and to, so that copies run asynchronously and
/// overlap with kernels and with other copies (CuPy's `cupyx.empty_pinned`, PyCUDA's
/// `pagelocked_empty`).
///
/// ```ignore
/// let mut host = PinnedBuffer::from_slice(&device, &data)?;
/// let mut dev = DeviceBuffer::<f32>::zeros(&device, data.len())?;
/// let stream = device.new_stream()?;
/// dev.copy_from_async(&host, &stream)?;   // returns at once
/// launch!(kernel[grid, block, &stream](&mut dev))?;
/// dev.copy_to_async(&mut host, &stream)?; // returns at once
/// stream.synchronize()?;
/// println!("{:?}", &host[..4]);           // waits for the copy if it has not finished yet
/// ```
///
/// # The rule that keeps asynchronous copies sound
///
/// A copy that is still running on the device is a *pending use* of the buffer. The buffer
/// remembers each pending use (with an event recorded after the copy on its stream), and
/// every host access waits for the uses it could race with:
/// - reading ([`as_slice`](Self::as_slice), `Deref`) waits for pending copies that *write* the
///   buffer (device to host); copies that only read it may go on;
/// - writing ([`as_mut_slice`](Self::as_mut_slice), `DerefMut`) waits for every pending copy;
/// - dropping the buffer waits for every pending copy before the memory is freed.
///
/// So host code never sees a half-written buffer and never frees memory a copy engine is still
/// using, whatever order it synchronizes in. Synchronizing the stream, the device or an event
/// recorded after the copy also completes it; the buffer then notices at no cost. Waiting
/// only happens on a GPU: on the simulator every copy completes before it returns.
///
/// On the simulator a `PinnedBuffer` is ordinary host memory.
pub struct PinnedBuffer<T: DeviceCopy> {
    /// The device the memory is pinned for.
    device: Device,
    /// The first element (dangling but aligned when empty).
    ptr: *mut T,
    /// Number of elements.
    len: usize,
    /// The memory, `None` when empty; freed when the buffer is dropped, after its `Drop` has
    /// waited for the pending copies.
    _memory: Option<PinnedAllocation>,
    /// Copies that may still use the buffer, one entry per stream (the latest copy on a
    /// stream completes after every earlier one on it).
    pending: Mutex<Vec<PendingUse>>,
    /// Fast path: false when `pending` is known to be empty.
    has_pending: AtomicBool,
    /// The buffer holds `T`s.
    _element: PhantomData<T>,
}

// SAFETY: the buffer owns its memory like a `Vec<T>`; the pending list is behind a mutex.
unsafe impl<T: DeviceCopy + Send> Send for PinnedBuffer<T> {}
// SAFETY: shared access only reads the elements (after waiting for pending writes).
unsafe impl<T: DeviceCopy + Sync> Sync for PinnedBuffer<T> {}

impl<T: DeviceCopy> PinnedBuffer<T> {
    /// `len` zeroed elements of page-locked host memory, pinned for `device`.
    pub fn new(device: &Device, len: usize) -> Result<Self> {
        let bytes = bytes_of::<T>("PinnedBuffer allocation", len)?;
        let (ptr, memory) = if bytes == 0 {
            (std::ptr::NonNull::<T>::dangling().as_ptr(), None)
        } else {
            let memory =
                device.operate(|backend| backend.allocate_pinned(bytes, align_of::<T>()))?;
            let ptr = memory.as_ptr().cast::<T>();
            assert!(
                ptr.is_aligned(),
                "page-locked memory is page-aligned, so aligned for any element type"
            );
            (ptr, Some(memory))
        };
        Ok(PinnedBuffer {
            device: device.clone(),
            ptr,
            len,
            _memory: memory,
            pending: Mutex::new(Vec::new()),
            has_pending: AtomicBool::new(false),
            _element: PhantomData,
        })
    }

    /// A page-locked copy of `data`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let mut buffer = Self::new(device, data.len())?;
        // A new buffer has no pending copies: this does not wait.
        buffer.as_mut_slice()?.copy_from_slice(data);
        Ok(buffer)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device the memory is pinned for.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The elements, after waiting for pending device-to-host copies into the buffer.
    pub fn as_slice(&self) -> Result<&[T]> {
        self.wait(false)?;
        // SAFETY: `len` initialised elements (zeroed at allocation), no copy writes them now,
        // and no `&mut` exists while `&self` is borrowed.
        Ok(unsafe { std::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The elements, mutably, after waiting for every pending copy from or to the buffer.
    pub fn as_mut_slice(&mut self) -> Result<&mut [T]> {
        self.wait(true)?;
        // SAFETY: as above, and no copy reads them now either.
        Ok(unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) })
    }

    /// Copies the elements into a new `Vec` (after waiting for pending writes).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        Ok(self.as_slice()?.to_vec())
    }

    /// Waits for every copy that may still use the buffer.
    pub fn synchronize(&self) -> Result<()> {
        self.wait(true)
    }

    /// Host address of the first element, for the copies (dangling but aligned when empty).
    pub(crate) fn host_ptr(&self) -> *mut T {
        self.ptr
    }

    fn lock_pending(&self) -> MutexGuard<'_, Vec<PendingUse>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits for the pending copies that write the buffer, or for all of them.
    fn wait(&self, all: bool) -> Result<()> {
        if !self.has_pending.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut pending = self.lock_pending();
        // Keep the lock while waiting: another thread must not find the list empty (and read
        // or free the buffer) before the copies have finished.
        while let Some(i) = pending.iter().position(|p| all || p.writes) {
            pending[i].event.synchronize()?;
            pending.swap_remove(i);
        }
        self.has_pending
            .store(!pending.is_empty(), Ordering::Release);
        Ok(())
    }

    /// Makes `stream` wait, on the device and without blocking the host, for the pending copies
    /// that write the buffer, or for all of them (`all`): what a new copy that reads it, or
    /// writes it, must come after.
    pub(crate) fn queue_wait_for_pending(&self, stream: &StreamHandle, all: bool) -> Result<()> {
        if !self.has_pending.load(Ordering::Acquire) {
            return Ok(());
        }
        for entry in self.lock_pending().iter().filter(|p| all || p.writes) {
            stream.wait_event(&entry.event)?;
        }
        Ok(())
    }

    /// Notes that a copy which reads (`writes == false`) or writes the buffer has been queued
    /// on `stream` and completes with `event`, recorded after it on that stream.
    pub(crate) fn note_pending(&self, stream: &Stream, event: EventHandle, writes: bool) {
        let mut pending = self.lock_pending();
        match pending
            .iter_mut()
            .find(|p| p.stream.handle.same_as(&stream.handle))
        {
            // The new event is later on the same stream: it completes after the old one.
            Some(entry) => {
                entry.event = event;
                entry.writes |= writes;
            }
            None => pending.push(PendingUse {
                stream: stream.clone(),
                event,
                writes,
            }),
        }
        self.has_pending.store(true, Ordering::Release);
    }
}

impl<T: DeviceCopy> Drop for PinnedBuffer<T> {
    fn drop(&mut self) {
        // Every copy that uses the memory must finish before it is freed. If waiting fails the
        // context is unusable (a sticky error), and no copy of it runs any more.
        // The memory itself is freed after this, when `_memory` is dropped.
        let _ = self.wait(true);
    }
}

impl<T: DeviceCopy> Deref for PinnedBuffer<T> {
    type Target = [T];

    /// [`as_slice`](PinnedBuffer::as_slice).
    ///
    /// # Panics
    /// If the driver fails while waiting for a pending copy (a broken context); use
    /// `as_slice` to get that as an error.
    fn deref(&self) -> &[T] {
        match self.as_slice() {
            Ok(slice) => slice,
            Err(error) => {
                panic!("PinnedBuffer: waiting for a pending asynchronous copy failed: {error}")
            }
        }
    }
}

impl<T: DeviceCopy> DerefMut for PinnedBuffer<T> {
    /// [`as_mut_slice`](PinnedBuffer::as_mut_slice).
    ///
    /// # Panics
    /// If the driver fails while waiting for a pending copy (a broken context); use
    /// `as_mut_slice` to get that as an error.
    fn deref_mut(&mut self) -> &mut [T] {
        match self.as_mut_slice() {
            Ok(slice) => slice,
            Err(error) => {
                panic!("PinnedBuffer: waiting for a pending asynchronous copy failed: {error}")
            }
        }
    }
}

impl<T: DeviceCopy + std::fmt::Debug> std::fmt::Debug for PinnedBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("device", &self.device)
            .field("len", &self.len)
            .field("element", &std::any::type_name::<T>())
            .finish()
    }
}
