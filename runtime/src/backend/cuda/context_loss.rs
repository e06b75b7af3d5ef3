//! A fresh primary context after a lost one, and the objects of the old one left alone.
//!
//! `cuDevicePrimaryCtxReset` destroys every allocation, stream, event and module of the device's
//! primary context; the next retain makes a new context, which may hand out the same addresses
//! and handles again. Freeing an object of the old context after the reset could therefore free
//! one of the new context. So the reset first marks the old [`CudaContext`] abandoned, and the
//! owners of driver objects ([`super::memory::CudaAllocation`], the pinned memory, the streams
//! this crate made) check [`is_abandoned`] when dropped and then leak their handle instead of
//! freeing it (the reset freed the memory already; what leaks is a few host bytes per object).
//! The old context object itself is leaked too (its drop would release the new primary
//! context).

use super::CudaDevice;
use super::driver::driver;
use crate::vocabulary::error::Result;
use cudarc::driver::CudaContext;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// The addresses of the abandoned contexts (never freed, so never reused).
static ABANDONED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// Whether any context was abandoned: until then a drop checks one flag, not the list.
static ANY_ABANDONED: AtomicBool = AtomicBool::new(false);

/// Whether `context` was abandoned by a reset of its device: its objects must not be freed.
pub(crate) fn is_abandoned(context: &CudaContext) -> bool {
    if !ANY_ABANDONED.load(Ordering::Acquire) {
        return false;
    }
    let address = std::ptr::from_ref(context) as usize;
    ABANDONED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&address)
}

impl CudaDevice {
    /// Abandons this device's context and resets the GPU's primary context; a later
    /// [`CudaDevice::open`] retains a fresh one.
    pub(crate) fn reset_primary_context(&self) -> Result<()> {
        let address = Arc::as_ptr(&self.context) as usize;
        ABANDONED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(address);
        ANY_ABANDONED.store(true, Ordering::Release);
        // Keeps the old context object alive for good: its drop would release (and could
        // destroy) the new primary context, and its address stays unique in `ABANDONED`.
        std::mem::forget(Arc::clone(&self.context));
        // SAFETY: resets the primary context of this context's device. Every object of the old
        // context is abandoned just above and never used again by this crate: the handles of
        // the old device fail fast (it is marked lost before this call), and owners skip
        // freeing abandoned objects.
        unsafe { cudarc::driver::sys::cuDevicePrimaryCtxReset_v2(self.context.cu_device()) }
            .result()
            .map_err(driver("cuDevicePrimaryCtxReset"))
    }
}
