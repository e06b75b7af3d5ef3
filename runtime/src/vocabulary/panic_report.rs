//! Device panics as host errors.

use crate::Dim3;

/// A kernel thread panicked: an out-of-bounds index, a failed `assert!`, a `panic!`.
///
/// Returned (inside [`crate::Error::KernelPanic`]) by the first synchronization after the
/// launch: `Device::synchronize`, `Stream::synchronize`, a copy back to the host, or a launch
/// that copies host slices back. The device stays usable: the panicking thread ended, the other
/// threads of the launch ran to completion, and the next launch works.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "kernel `{kernel}` panicked at {file}:{line}:{column}, block {block}, thread {thread}: {message}{}",
    if *other_panics > 0 { format!(" ({other_panics} other thread(s) panicked too)") } else { String::new() }
)]
pub struct KernelPanic {
    /// The kernel's entry name (or the kernels that may have panicked, when several launches
    /// ran since the last synchronization).
    pub kernel: String,
    /// The panic message, or the kind of panic when the message was formatted at run time
    /// (device code does not carry a formatter).
    pub message: String,
    /// Source file of the panic.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// Source column.
    pub column: u32,
    /// `blockIdx` of the (first) panicking thread.
    pub block: Dim3,
    /// `threadIdx` of the (first) panicking thread.
    pub thread: Dim3,
    /// How many other threads panicked in the same launch(es).
    pub other_panics: u32,
}

/// The message for a GPU panic whose text was built with `format_args!` at run time (bounds
/// checks, `panic!("{}", x)`): the device records location but not the formatted text.
pub(crate) const FORMATTED_MESSAGE: &str = "panic with a run-time formatted message (an index out of bounds, an arithmetic overflow, or a formatted panic!/assert!); the simulator shows the full text";
