//! The error type of every fallible runtime call.

use crate::Dim3;
use crate::panic_report::KernelPanic;

/// Result with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong on the host side of ferrocuda.
///
/// After any of these errors the device and every buffer stay usable: the next correct launch
/// works.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A CUDA driver call failed.
    #[error("CUDA driver call {call} failed: {name}: {description}")]
    Driver {
        /// The driver entry point, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The driver's error name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The driver's description of the error.
        description: String,
    },
    /// A launch configuration was rejected before reaching the device.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A kernel thread panicked (out-of-bounds index, `assert!`, `panic!`...).
    #[error(transparent)]
    KernelPanic(#[from] KernelPanic),
    /// The simulator detected a bug that would hang or corrupt memory on a GPU.
    #[error("kernel `{kernel}`: {message}")]
    KernelFault {
        /// The kernel that was running.
        kernel: String,
        /// What went wrong, with the blocks and threads involved.
        message: String,
    },
    /// No usable CUDA device.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// Buffers or streams of two different devices were used together.
    #[error("{what} belongs to device {found}, but this operation runs on device {expected}")]
    DeviceMismatch {
        /// What was on the wrong device.
        what: String,
        /// The device of the operation.
        expected: String,
        /// The device the object belongs to.
        found: String,
    },
    /// Two lengths that must agree do not.
    #[error("length mismatch in {operation}: expected {expected} elements, got {actual}")]
    LengthMismatch {
        /// The operation, e.g. `DeviceBuffer::copy_from`.
        operation: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A PTX module could not be loaded, or a kernel is missing from it.
    #[error("PTX module `{module}`: {message}")]
    Module {
        /// The kernel crate the module comes from.
        module: &'static str,
        /// What went wrong.
        message: String,
    },
}

/// A launch rejected by validation against the device's limits, before reaching the device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot launch kernel `{kernel}`: {problem}")]
pub struct LaunchError {
    /// The kernel's PTX entry name.
    pub kernel: &'static str,
    /// What is wrong and what the limit is.
    pub problem: String,
}

impl LaunchError {
    pub(crate) fn new(kernel: &'static str, problem: impl Into<String>) -> Self {
        LaunchError {
            kernel,
            problem: problem.into(),
        }
    }
}

/// Formats a shape as `2048 x 1 x 1`.
pub(crate) fn shape(d: Dim3) -> String {
    format!("{} x {} x {}", d.x, d.y, d.z)
}

impl Error {
    /// Wraps a driver error with the name of the call that returned it.
    pub(crate) fn driver(call: &'static str, error: cudarc::driver::DriverError) -> Self {
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
}

/// `.map_err(driver("cuXxx"))`.
pub(crate) fn driver(call: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
    move |e| Error::driver(call, e)
}
