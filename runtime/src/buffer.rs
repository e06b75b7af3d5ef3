//! [`DeviceBuffer`]: an array in device memory, and borrowed views of part of one.

use crate::DeviceCopy;
use crate::device_handle::Device;
use crate::error::{Error, Result, driver};
use cudarc::driver::{CudaSlice, DevicePtr, result};
use std::alloc::Layout;
use std::marker::PhantomData;
use std::ops::{Bound, RangeBounds};

/// Where a buffer's bytes live.
enum Memory {
    /// Zero-length buffers own nothing.
    Empty,
    Cuda(CudaSlice<u8>),
    /// Owned only to be freed on drop; the buffer addresses it through `address`.
    Host(#[allow(dead_code)] HostAllocation),
}

/// Zeroed, over-aligned host memory standing in for device memory on the simulator.
pub(crate) struct HostAllocation {
    ptr: *mut u8,
    layout: Layout,
}

// SAFETY: plain owned memory.
unsafe impl Send for HostAllocation {}
unsafe impl Sync for HostAllocation {}

impl HostAllocation {
    pub(crate) fn zeroed(bytes: usize, align: usize) -> Result<HostAllocation> {
        let layout =
            Layout::from_size_align(bytes.max(1), align.max(16)).map_err(|_| Error::Driver {
                call: "simulator allocation",
                name: "CUDA_ERROR_OUT_OF_MEMORY".to_string(),
                description: format!("cannot allocate {bytes} bytes"),
            })?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::Driver {
                call: "simulator allocation",
                name: "CUDA_ERROR_OUT_OF_MEMORY".to_string(),
                description: format!("out of host memory allocating {bytes} bytes"),
            });
        }
        Ok(HostAllocation { ptr, layout })
    }

    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

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
    device: Device,
    len: usize,
    address: u64,
    memory: Memory,
    _element: PhantomData<T>,
}

fn bytes_of<T>(len: usize) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::Driver {
            call: "DeviceBuffer allocation",
            name: "CUDA_ERROR_OUT_OF_MEMORY".to_string(),
            description: format!(
                "{len} elements of {} bytes overflow the address space",
                std::mem::size_of::<T>()
            ),
        })
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// `len` zeroed elements on `device`.
    pub fn zeros(device: &Device, len: usize) -> Result<Self> {
        let bytes = bytes_of::<T>(len)?;
        if bytes == 0 {
            return Ok(Self::empty(device, len));
        }
        match device.cuda() {
            Some(cuda) => {
                let slice = cuda
                    .default_stream
                    .alloc_zeros::<u8>(bytes)
                    .map_err(driver("cuMemAlloc"))?;
                Ok(Self::from_cuda(device, len, slice))
            }
            None => {
                let host = HostAllocation::zeroed(bytes, std::mem::align_of::<T>())?;
                Ok(DeviceBuffer {
                    device: device.clone(),
                    len,
                    address: host.as_ptr() as u64,
                    memory: Memory::Host(host),
                    _element: PhantomData,
                })
            }
        }
    }

    /// A copy of `data` on `device`.
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        let bytes = bytes_of::<T>(data.len())?;
        if bytes == 0 {
            return Ok(Self::empty(device, data.len()));
        }
        match device.cuda() {
            Some(cuda) => {
                // SAFETY: every byte is written by the copy below before any read.
                let slice = unsafe { cuda.default_stream.alloc::<u8>(bytes) }
                    .map_err(driver("cuMemAlloc"))?;
                let mut buffer = Self::from_cuda(device, data.len(), slice);
                buffer.copy_from(data)?;
                Ok(buffer)
            }
            None => {
                let mut buffer = Self::zeros(device, data.len())?;
                buffer.copy_from(data)?;
                Ok(buffer)
            }
        }
    }

    fn empty(device: &Device, len: usize) -> Self {
        DeviceBuffer {
            device: device.clone(),
            len,
            address: 0,
            memory: Memory::Empty,
            _element: PhantomData,
        }
    }

    fn from_cuda(device: &Device, len: usize, slice: CudaSlice<u8>) -> Self {
        let address = slice.device_ptr(slice.stream()).0;
        DeviceBuffer {
            device: device.clone(),
            len,
            address,
            memory: Memory::Cuda(slice),
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

    /// The underlying cudarc allocation, as bytes (None on the simulator or when empty).
    pub fn cuda_slice(&self) -> Option<&CudaSlice<u8>> {
        match &self.memory {
            Memory::Cuda(slice) => Some(slice),
            _ => None,
        }
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

    pub(crate) fn write_range(&mut self, offset: usize, data: &[T]) -> Result<()> {
        if data.is_empty() {
            return Ok(());
        }
        let address = self.address + (offset * std::mem::size_of::<T>()) as u64;
        match &self.memory {
            Memory::Cuda(_) => {
                self.bind()?;
                // SAFETY: the range is inside the allocation (checked by the callers).
                unsafe { result::memcpy_htod_sync(address, data) }.map_err(driver("cuMemcpyHtoD"))
            }
            Memory::Host(_) => {
                // SAFETY: as above; host memory.
                unsafe {
                    std::ptr::copy_nonoverlapping(data.as_ptr(), address as *mut T, data.len())
                };
                Ok(())
            }
            Memory::Empty => Ok(()),
        }
    }

    /// Copies `len` elements starting at `offset` to `out`.
    ///
    /// # Safety
    /// `out` must be valid for `len` writes; `offset + len <= self.len`.
    pub(crate) unsafe fn copy_to_raw(&self, offset: usize, len: usize, out: *mut T) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        let address = self.address + (offset * std::mem::size_of::<T>()) as u64;
        match &self.memory {
            Memory::Cuda(_) => {
                self.bind()?;
                // SAFETY: the caller guarantees `out`; the range is inside the allocation.
                let out = unsafe { std::slice::from_raw_parts_mut(out, len) };
                unsafe { result::memcpy_dtoh_sync(out, address) }.map_err(driver("cuMemcpyDtoH"))
            }
            Memory::Host(_) => {
                // SAFETY: as above.
                unsafe { std::ptr::copy_nonoverlapping(address as *const T, out, len) };
                Ok(())
            }
            Memory::Empty => Ok(()),
        }
    }

    fn bind(&self) -> Result<()> {
        match self.device.cuda() {
            Some(cuda) => cuda
                .context
                .bind_to_thread()
                .map_err(driver("cuCtxSetCurrent")),
            None => Ok(()),
        }
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
