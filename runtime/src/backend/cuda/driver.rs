//! Driver errors as [`Error::Driver`], and making a context current.

use crate::vocabulary::error::{Error, Result};
use cudarc::driver::{CudaContext, DriverError};

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

/// Makes `context` current on the calling thread: the one place the runtime does so.
#[inline]
pub(crate) fn make_current(context: &CudaContext) -> Result<()> {
    context.bind_to_thread().map_err(driver("cuCtxSetCurrent"))
}
