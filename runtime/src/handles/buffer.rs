//! [`DeviceBuffer`]: an array in device memory, and borrowed views of part of one.

use crate::DeviceCopy;
use crate::backend::Allocation;
use crate::handles::device::Device;
use crate::vocabulary::error::{Error, Result, bytes_of};
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

/// An array of `len` elements of `T` in the memory of one [`Device`].
///
/// ```ignore
/// let a = DeviceBuffer::from_slice(&device, &[1.0f32, 2.0, 3.0])?;
/// let mut c = DeviceBuffer::<f32>::zeros(&device, 3)?;
/// launch!(double[1, 3](&a, &mut c))?;
/// assert_eq!(c.to_vec()?, vec![2.0, 4.0, 6.0]);
/// ```
///
/// Copies to and from the host run on the device's default stream, after the work already
/// queued there and on every stream from [`Device::new_stream`] (see [`Stream`](crate::Stream));
/// copies back to the host are synchronizations, so they report kernel panics.
pub struct DeviceBuffer<T: DeviceCopy> {
    /// The device holding the buffer.
    device: Device,
    /// Number of elements.
    len: usize,
    /// The address of the first element (0 when empty).
    address: u64,
    /// The memory, `None` when empty (zero-length buffers own nothing).
    pub(crate) memory: Option<Allocation>,
    /// The buffer holds `T`s.
    _element: PhantomData<T>,
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// `len` zeroed elements on `device`.
    pub fn zeros(device: &Device, len: usize) -> Result<Self> {
        let bytes = bytes_of::<T>("DeviceBuffer allocation", len)?;
        if bytes == 0 {
            return Ok(Self::with_memory(device, len, None));
        }
        device.refuse_while_capturing("DeviceBuffer::zeros")?;
        let memory = device.operate(|backend| backend.allocate_zeroed(bytes, align_of::<T>()))?;
        Ok(Self::with_memory(device, len, Some(memory)))
    }

    /// A copy of `data` on `device`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let bytes = bytes_of::<T>("DeviceBuffer allocation", data.len())?;
        if bytes == 0 {
            return Ok(Self::with_memory(device, data.len(), None));
        }
        device.refuse_while_capturing("DeviceBuffer::from_slice")?;
        let memory = device.operate(|backend| {
            // SAFETY: every byte is written by the copy below before any read.
            unsafe { backend.allocate_uninit(bytes, align_of::<T>()) }
        })?;
        let mut buffer = Self::with_memory(device, data.len(), Some(memory));
        buffer.copy_from(data)?;
        Ok(buffer)
    }

    /// A buffer of `len` elements in `memory`.
    fn with_memory(device: &Device, len: usize, memory: Option<Allocation>) -> Self {
        DeviceBuffer {
            device: device.clone(),
            len,
            address: memory.as_ref().map_or(0, Allocation::address),
            memory,
            _element: PhantomData,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The device holding the buffer.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The device address of the first element (a host address on the simulator; 0 when empty).
    pub fn device_ptr(&self) -> u64 {
        self.address
    }

    /// Copies the whole buffer into a new `Vec` (waits for earlier work on the default stream).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len);
        // SAFETY: `copy_to_raw` writes all `len` elements (DeviceCopy: any copied bits are valid).
        unsafe {
            self.copy_to_raw(0, self.len, out.as_mut_ptr())?;
            out.set_len(self.len);
        }
        self.device.check_pending()?;
        Ok(out)
    }

    /// Copies the whole buffer into `out`, which must have the same length.
    pub fn copy_to(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len {
            return Err(Error::LengthMismatch {
                operation: "DeviceBuffer::copy_to",
                expected: self.len,
                actual: out.len(),
            });
        }
        // SAFETY: `out` has room for `len` elements.
        unsafe { self.copy_to_raw(0, self.len, out.as_mut_ptr())? };
        self.device.check_pending()
    }

    /// Overwrites the whole buffer with `data`, which must have the same length.
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch {
                operation: "DeviceBuffer::copy_from",
                expected: self.len,
                actual: data.len(),
            });
        }
        self.write_range(0, data)
    }

    /// Overwrites elements `offset..offset + data.len()` (in bounds: checked by the callers).
    pub(crate) fn write_range(&mut self, offset: usize, data: &[T]) -> Result<()> {
        if data.is_empty() || self.memory.is_none() {
            return Ok(());
        }
        self.device
            .refuse_while_capturing("a copy from the host (DeviceBuffer::copy_from)")?;
        let address = self.address + (offset * size_of::<T>()) as u64;
        // SAFETY: `T: DeviceCopy` is plain data, so its bytes can be read as they are.
        let bytes =
            unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), size_of_val(data)) };
        self.device.operate(|backend| {
            // SAFETY: the range is inside the allocation (the callers check `offset + len <= len`).
            unsafe { backend.copy_to_device(address, bytes) }
        })
    }

    /// Copies `len` elements starting at `offset` to `out`.
    ///
    /// # Safety
    /// `out` must be valid for `len` writes; `offset + len <= self.len`.
    pub(crate) unsafe fn copy_to_raw(&self, offset: usize, len: usize, out: *mut T) -> Result<()> {
        if len == 0 || self.memory.is_none() {
            return Ok(());
        }
        self.device
            .refuse_while_capturing("a copy to the host (DeviceBuffer::to_vec, copy_to)")?;
        let address = self.address + (offset * size_of::<T>()) as u64;
        // SAFETY: the caller guarantees `out` is valid for `len` elements, that is
        // `len * size_of::<T>()` bytes; any bits written are a valid `T` (DeviceCopy).
        let out = unsafe { std::slice::from_raw_parts_mut(out.cast::<u8>(), len * size_of::<T>()) };
        self.device.operate(|backend| {
            // SAFETY: the caller guarantees the range is inside the allocation.
            unsafe { backend.copy_to_host(address, out) }
        })
    }

    /// A read-only view of `range`, usable where a kernel takes `&[T]`.
    ///
    /// # Panics
    /// If the range is out of bounds, like slice indexing.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceSlice<'_, T> {
        let (offset, len) = resolve(range, self.len);
        DeviceSlice {
            buffer: self,
            offset,
            len,
        }
    }

    /// A mutable view of `range`, usable where a kernel takes `&mut [T]`.
    ///
    /// # Panics
    /// If the range is out of bounds, like slice indexing.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceSliceMut<'_, T> {
        let (offset, len) = resolve(range, self.len);
        DeviceSliceMut {
            buffer: self,
            offset,
            len,
        }
    }

    /// Device address of element `offset`.
    pub(crate) fn address_of(&self, offset: usize) -> u64 {
        if self.address == 0 {
            0
        } else {
            self.address + (offset * std::mem::size_of::<T>()) as u64
        }
    }
}

fn resolve(range: impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    let start = match range.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s + 1,
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&e) => e + 1,
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    assert!(
        start <= end && end <= len,
        "range {start}..{end} out of bounds for a DeviceBuffer of length {len}"
    );
    (start, end - start)
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if let Some(memory) = self.memory.take() {
            // Freed now, or kept by a graph that uses it (see `handles/graph.rs`).
            crate::handles::graph::release_allocation(
                &self.device,
                memory,
                self.len * size_of::<T>(),
            );
        }
    }
}

impl<T: DeviceCopy + std::fmt::Debug> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("device", &self.device)
            .field("len", &self.len)
            .field("element", &std::any::type_name::<T>())
            .finish()
    }
}

/// A read-only view of part of a [`DeviceBuffer`] (from [`DeviceBuffer::slice`]).
pub struct DeviceSlice<'a, T: DeviceCopy> {
    pub(crate) buffer: &'a DeviceBuffer<T>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

impl<T: DeviceCopy> DeviceSlice<'_, T> {
    /// Number of elements in the view.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Copies the view into a new `Vec`.
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len);
        // SAFETY: in bounds by construction; all elements written.
        unsafe {
            self.buffer
                .copy_to_raw(self.offset, self.len, out.as_mut_ptr())?;
            out.set_len(self.len);
        }
        self.buffer.device.check_pending()?;
        Ok(out)
    }
}

/// A mutable view of part of a [`DeviceBuffer`] (from [`DeviceBuffer::slice_mut`]).
pub struct DeviceSliceMut<'a, T: DeviceCopy> {
    pub(crate) buffer: &'a mut DeviceBuffer<T>,
    pub(crate) offset: usize,
    pub(crate) len: usize,
}

impl<T: DeviceCopy> DeviceSliceMut<'_, T> {
    /// Number of elements in the view.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether the view is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Overwrites the view with `data`, which must have the same length.
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        if data.len() != self.len {
            return Err(Error::LengthMismatch {
                operation: "DeviceSliceMut::copy_from",
                expected: self.len,
                actual: data.len(),
            });
        }
        self.buffer.write_range(self.offset, data)
    }
}
