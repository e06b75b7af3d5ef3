//! Device memory, page-locked host memory, and the copies between them on a GPU.

use super::CudaDevice;
use super::context_loss::is_abandoned;
use super::driver::{driver, make_current};
use super::stream::CudaStreamHandle;
use crate::backend::copy::AsyncCopy;
use crate::vocabulary::error::{Error, Result};
use cudarc::driver::{CudaContext, CudaEvent, CudaSlice, DevicePtr, result};
use std::mem::ManuallyDrop;
use std::sync::Arc;

/// A device allocation (freed on the default stream when dropped, unless its context was
/// abandoned by a reset: see [`super::context_loss`]).
pub(crate) struct CudaAllocation {
    /// The cudarc allocation, as bytes.
    pub(crate) slice: ManuallyDrop<CudaSlice<u8>>,
}

impl Drop for CudaAllocation {
    fn drop(&mut self) {
        if is_abandoned(self.slice.context()) {
            return; // The reset freed the memory; freeing it again could free a new allocation.
        }
        // SAFETY: dropped once, here; the field is not used after.
        unsafe { ManuallyDrop::drop(&mut self.slice) }
    }
}

impl CudaAllocation {
    /// The device address of the first byte.
    pub(crate) fn address(&self) -> u64 {
        self.slice.device_ptr(self.slice.stream()).0
    }
}

/// `cuMemHostAlloc` memory, freed with `cuMemFreeHost` in the context that allocated it.
pub(crate) struct PinnedHostMemory {
    /// The first byte (page-aligned).
    ptr: *mut u8,
    /// The context that allocated it.
    context: Arc<CudaContext>,
}

// SAFETY: the memory is plain bytes owned by this value; the driver calls that free it may be
// made from any thread once the context is current there.
unsafe impl Send for PinnedHostMemory {}
// SAFETY: `&PinnedHostMemory` gives only the address, never access to the bytes.
unsafe impl Sync for PinnedHostMemory {}

impl PinnedHostMemory {
    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for PinnedHostMemory {
    fn drop(&mut self) {
        if is_abandoned(&self.context) {
            return; // Freed by the reset of the context (see `super::context_loss`).
        }
        // The owner has waited for every copy that uses the memory (PinnedBuffer's drop).
        let _ = make_current(&self.context);
        // SAFETY: allocated by cuMemHostAlloc in this context; no copy uses it any more.
        let _ = unsafe { result::free_host(self.ptr.cast()) };
    }
}

impl CudaDevice {
    /// `bytes > 0` zeroed bytes of device memory (zeroed on the default stream).
    pub(crate) fn allocate_zeroed(&self, bytes: usize) -> Result<CudaAllocation> {
        // cudarc makes the context current itself, past `make_current`'s check.
        super::driver::check_not_forked("an allocation on a device handle of the parent process")?;
        let slice = self
            .default_stream
            .alloc_zeros::<u8>(bytes)
            .map_err(driver("cuMemAlloc"))?;
        Ok(CudaAllocation {
            slice: ManuallyDrop::new(slice),
        })
    }

    /// `bytes > 0` bytes of device memory, not initialised.
    ///
    /// # Safety
    /// The caller writes every byte before any read.
    pub(crate) unsafe fn allocate_uninit(&self, bytes: usize) -> Result<CudaAllocation> {
        super::driver::check_not_forked("an allocation on a device handle of the parent process")?;
        // SAFETY: the caller writes every byte before reading one.
        let slice =
            unsafe { self.default_stream.alloc::<u8>(bytes) }.map_err(driver("cuMemAlloc"))?;
        Ok(CudaAllocation {
            slice: ManuallyDrop::new(slice),
        })
    }

    /// Copies `data` to device address `address`, synchronously, after the default stream's work.
    ///
    /// # Safety
    /// `address..address + data.len()` lies inside a live allocation of this device.
    pub(crate) unsafe fn copy_to_device(&self, address: u64, data: &[u8]) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller guarantees the destination range.
        unsafe { result::memcpy_htod_sync(address, data) }.map_err(driver("cuMemcpyHtoD"))
    }

    /// Copies device memory at `address` into `out`, synchronously, after the default stream's
    /// work.
    ///
    /// # Safety
    /// `address..address + out.len()` lies inside a live allocation of this device.
    pub(crate) unsafe fn copy_to_host(&self, address: u64, out: &mut [u8]) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller guarantees the source range.
        unsafe { result::memcpy_dtoh_sync(out, address) }.map_err(driver("cuMemcpyDtoH"))
    }

    /// `bytes > 0` zeroed bytes of page-locked host memory.
    pub(crate) fn allocate_pinned(&self, bytes: usize) -> Result<PinnedHostMemory> {
        self.bind()?;
        // SAFETY: a plain allocation of `bytes > 0` bytes; flags 0 gives ordinary cached
        // page-locked memory (not write-combined, so host reads stay fast).
        let raw = unsafe { result::malloc_host(bytes, 0) }.map_err(driver("cuMemHostAlloc"))?;
        let ptr = raw.cast::<u8>();
        if ptr.is_null() || !(ptr as usize).is_multiple_of(16) {
            // Cannot happen (the driver returns page-aligned memory), but the typed slices of
            // `PinnedBuffer` rely on it.
            // SAFETY: returned by cuMemHostAlloc just above and not used since.
            let _ = unsafe { result::free_host(raw) };
            return Err(Error::DriverContract {
                call: "cuMemHostAlloc",
                problem: format!("returned a misaligned pointer {raw:p}"),
            });
        }
        // SAFETY: `bytes` writable bytes, just allocated.
        unsafe { std::ptr::write_bytes(ptr, 0, bytes) };
        Ok(PinnedHostMemory {
            ptr,
            context: self.context.clone(),
        })
    }

    /// Queues `copy` on `stream` after `wait_for` has made the stream wait for what the copy
    /// must follow; returns an event recorded after the copy.
    ///
    /// # Safety
    /// Both sides of the copy stay alive, and the host side is neither written (nor, for a copy
    /// to the host, read) until the returned event has completed.
    pub(crate) unsafe fn copy_async(
        &self,
        stream: &CudaStreamHandle,
        copy: AsyncCopy,
        wait_for: impl FnOnce() -> Result<()>,
    ) -> Result<CudaEvent> {
        self.bind()?;
        wait_for()?;
        let raw = stream.stream.cu_stream();
        let queued = match copy {
            AsyncCopy::ToDevice {
                destination,
                source,
                bytes,
            } => {
                // SAFETY: the caller keeps `source` alive and unwritten until the copy is done.
                let source = unsafe { std::slice::from_raw_parts(source, bytes) };
                // SAFETY: as above; `destination` is a live allocation of `bytes` bytes.
                unsafe { result::memcpy_htod_async(destination, source, raw) }
                    .map_err(driver("cuMemcpyHtoDAsync"))
            }
            AsyncCopy::ToHost {
                destination,
                source,
                bytes,
            } => {
                // SAFETY: the caller keeps `destination` alive and untouched until the copy is
                // done.
                let destination = unsafe { std::slice::from_raw_parts_mut(destination, bytes) };
                // SAFETY: as above; `source` is a live allocation of `bytes` bytes.
                unsafe { result::memcpy_dtoh_async(destination, source, raw) }
                    .map_err(driver("cuMemcpyDtoHAsync"))
            }
        };
        queued?;
        stream.record_new_event().inspect_err(|_| {
            // The copy is queued but cannot be tracked: finish it before the caller may touch
            // or free either side (if this fails too, the context is broken and runs nothing).
            let _ = stream.synchronize();
        })
    }
}
