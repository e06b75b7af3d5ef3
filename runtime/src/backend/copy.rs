//! The description of one asynchronous copy, shared by the backends.

/// An asynchronous copy between device memory and page-locked host memory.
#[derive(Clone, Copy, Debug)]
pub(crate) enum AsyncCopy {
    /// `bytes` bytes from host `source` to device address `destination`.
    ToDevice {
        /// Device address.
        destination: u64,
        /// Page-locked host memory.
        source: *const u8,
        /// Length in bytes.
        bytes: usize,
    },
    /// `bytes` bytes from device address `source` to host `destination`.
    ToHost {
        /// Page-locked host memory.
        destination: *mut u8,
        /// Device address.
        source: u64,
        /// Length in bytes.
        bytes: usize,
    },
}
