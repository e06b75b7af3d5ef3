//! Zeroed, over-aligned host memory standing in for device memory (and for page-locked memory)
//! on the simulator.
//!
//! Device memory is counted against the simulated device's total
//! ([`Simulator::total_memory`](super::Simulator::total_memory)) as a GPU counts it: an
//! allocation beyond what is free fails with [`Error::OutOfMemory`], `memory_info` reports what
//! is allocated, and dropping an allocation frees its bytes. Page-locked memory is host memory
//! on a GPU too, so it is not counted against the device.

use super::Simulator;
use crate::backend::copy::AsyncCopy;
use crate::vocabulary::error::{Error, Result};
use std::alloc::Layout;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The name of the simulator in error messages.
const SIMULATOR_NAME: &str = "the ferrocuda CPU simulator";

/// Bytes of simulated device memory allocated now, in the whole process (the simulator is one
/// device).
static DEVICE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// Bytes of simulated device memory allocated now.
pub(crate) fn device_bytes_in_use() -> usize {
    DEVICE_BYTES.load(Ordering::Relaxed)
}

/// Reserves `bytes` of the simulated device's `total`, or says how many were free.
///
/// A compare-exchange loop written out: `AtomicUsize::fetch_update` does the same, but the stable
/// a fresh rustup installed on 2026-11-23 (1.99.1) deprecates it for `try_update`, which older
/// compilers lack, and the workspace must build without warnings on whatever stable a user has.
fn reserve(bytes: usize, total: usize) -> std::result::Result<(), usize> {
    let mut used = DEVICE_BYTES.load(Ordering::Relaxed);
    loop {
        let after = used.checked_add(bytes).filter(|&after| after <= total);
        let Some(after) = after else {
            return Err(total.saturating_sub(used));
        };
        match DEVICE_BYTES.compare_exchange_weak(used, after, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => return Ok(()),
            Err(now) => used = now,
        }
    }
}

/// An owned, zeroed host allocation, freed on drop.
pub(crate) struct HostAllocation {
    /// The first byte.
    ptr: *mut u8,
    /// The layout it was allocated with.
    layout: Layout,
    /// The bytes counted as simulated device memory (0 for page-locked memory).
    device_bytes: usize,
}

// SAFETY: plain owned memory; the value only hands out its address.
unsafe impl Send for HostAllocation {}
// SAFETY: as above: `&HostAllocation` gives only the address, never access to the bytes.
unsafe impl Sync for HostAllocation {}

impl HostAllocation {
    /// `bytes` zeroed bytes of simulated device memory aligned to at least `align` (and 16),
    /// counted against the device's `total`.
    pub(crate) fn device(bytes: usize, align: usize, total: usize) -> Result<HostAllocation> {
        reserve(bytes, total).map_err(|available| out_of_memory(bytes, available))?;
        let mut allocation = HostAllocation::zeroed(bytes, align).inspect_err(|_| {
            DEVICE_BYTES.fetch_sub(bytes, Ordering::Relaxed);
        })?;
        allocation.device_bytes = bytes;
        Ok(allocation)
    }

    /// `bytes` zeroed bytes of host memory aligned to at least `align` (and 16), not counted as
    /// device memory.
    pub(crate) fn zeroed(bytes: usize, align: usize) -> Result<HostAllocation> {
        let available = || Simulator::total_memory().saturating_sub(device_bytes_in_use());
        let layout = Layout::from_size_align(bytes.max(1), align.max(16))
            .map_err(|_| out_of_memory(bytes, available()))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(out_of_memory(bytes, available()));
        }
        Ok(HostAllocation {
            ptr,
            layout,
            device_bytes: 0,
        })
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
        DEVICE_BYTES.fetch_sub(self.device_bytes, Ordering::Relaxed);
    }
}

/// The error for `requested` bytes when `available` were free.
fn out_of_memory(requested: usize, available: usize) -> Error {
    Error::OutOfMemory {
        device: SIMULATOR_NAME.to_string(),
        requested,
        available,
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
