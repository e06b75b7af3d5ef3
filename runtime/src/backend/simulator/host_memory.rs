//! Zeroed, over-aligned host memory standing in for device memory (and for page-locked memory)
//! on the simulator.

use crate::backend::copy::AsyncCopy;
use crate::vocabulary::error::{Error, Result};
use std::alloc::Layout;

/// The name of the simulator in error messages.
const SIMULATOR_NAME: &str = "the ferrocuda CPU simulator";

/// An owned, zeroed host allocation, freed on drop.
pub(crate) struct HostAllocation {
    /// The first byte.
    ptr: *mut u8,
    /// The layout it was allocated with.
    layout: Layout,
}

// SAFETY: plain owned memory; the value only hands out its address.
unsafe impl Send for HostAllocation {}
// SAFETY: as above: `&HostAllocation` gives only the address, never access to the bytes.
unsafe impl Sync for HostAllocation {}

impl HostAllocation {
    /// `bytes` zeroed bytes aligned to at least `align` (and 16).
    pub(crate) fn zeroed(bytes: usize, align: usize) -> Result<HostAllocation> {
        let layout = Layout::from_size_align(bytes.max(1), align.max(16)).map_err(|_| {
            Error::OutOfMemory {
                device: SIMULATOR_NAME.to_string(),
                requested: bytes,
            }
        })?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(Error::OutOfMemory {
                device: SIMULATOR_NAME.to_string(),
                requested: bytes,
            });
        }
        Ok(HostAllocation { ptr, layout })
    }

    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr
    }
}

impl Drop for HostAllocation {
    fn drop(&mut self) {
        // SAFETY: allocated by `zeroed` with this layout, freed only here.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Performs an "asynchronous" copy at once: on the simulator both sides are host memory.
///
/// # Safety
/// Both sides are live, at least `bytes` long, and do not overlap.
pub(crate) unsafe fn copy_now(copy: AsyncCopy) {
    let (destination, source, bytes) = match copy {
        AsyncCopy::ToDevice {
            destination,
            source,
            bytes,
        } => (destination as *mut u8, source, bytes),
        AsyncCopy::ToHost {
            destination,
            source,
            bytes,
        } => (destination, source as *const u8, bytes),
    };
    // SAFETY: the caller guarantees both ranges.
    unsafe { std::ptr::copy_nonoverlapping(source, destination, bytes) };
}
