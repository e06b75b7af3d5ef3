//! Driver errors as [`Error::Driver`], making a context current, and refusing the driver in a
//! child forked after it was initialised.

use crate::vocabulary::error::{Error, Result};
use cudarc::driver::{CudaContext, DriverError};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// Wraps a driver error with the name of the call that returned it.
pub(crate) fn driver_error(call: &'static str, error: DriverError) -> Error {
    Error::Driver {
        call,
        name: error
            .error_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|_| format!("{:?}", error.0)),
        description: error
            .error_string()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "unknown error".to_string()),
    }
}

/// `.map_err(driver("cuXxx"))`.
pub(crate) fn driver(call: &'static str) -> impl FnOnce(DriverError) -> Error {
    move |e| driver_error(call, e)
}

/// Makes `context` current on the calling thread: the one place the runtime does so, so the
/// one place a forked child is stopped for the handles it inherited ([`check_not_forked`]).
#[inline]
pub(crate) fn make_current(context: &CudaContext) -> Result<()> {
    check_not_forked("a GPU call on a device handle of the parent process")?;
    context.bind_to_thread().map_err(driver("cuCtxSetCurrent"))
}

/// The process that initialised the driver (0: not yet), and whether this process is a child
/// forked from it: set by the `pthread_atfork` child handler [`note_driver_init`] registers.
static DRIVER_PROCESS: AtomicU32 = AtomicU32::new(0);
/// See [`DRIVER_PROCESS`].
static FORKED: AtomicBool = AtomicBool::new(false);

/// Runs in the child of every `fork()` after the driver was initialised: one store.
extern "C" fn after_fork_in_child() {
    FORKED.store(true, Ordering::Relaxed);
}

/// Notes that this process initialises the driver (before `cuInit`): the first time, remembers
/// the process and registers [`after_fork_in_child`] with `pthread_atfork`.
pub(crate) fn note_driver_init() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        DRIVER_PROCESS.store(std::process::id(), Ordering::Relaxed);
        // SAFETY: registers a handler that only stores to an atomic (async-signal-safe, as a
        // handler run in a forked child must be); the other two handlers are none.
        unsafe { libc::pthread_atfork(None, None, Some(after_fork_in_child)) };
    });
}

/// [`Error::ForkedAfterCudaInit`] in a child forked after the driver was initialised: one
/// relaxed load otherwise.
#[inline]
pub(crate) fn check_not_forked(operation: &'static str) -> Result<()> {
    if FORKED.load(Ordering::Relaxed) {
        return Err(forked(operation));
    }
    Ok(())
}

#[cold]
fn forked(operation: &'static str) -> Error {
    Error::ForkedAfterCudaInit {
        operation,
        parent: DRIVER_PROCESS.load(Ordering::Relaxed),
    }
}
