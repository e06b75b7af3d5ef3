//! What a device can run: its kind ([`Backend`]) and the limits a launch is checked against.

use crate::Dim3;

/// Which kind of device a [`Device`](crate::Device) is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA GPU, through the driver API.
    Cuda,
    /// The CPU simulator.
    Simulator,
}

/// The limits a launch is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Most threads in one block (1024 on every current GPU).
    pub max_threads_per_block: u32,
    /// Largest block along x, y, z.
    pub max_block_dim: Dim3,
    /// Largest grid along x, y, z.
    pub max_grid_dim: Dim3,
    /// Shared memory a block may use without opting in, in bytes (48 KiB).
    pub max_shared_memory_per_block: u32,
    /// Shared memory a block may use after opting in, in bytes (227 KiB on an H100); ferrocuda
    /// opts in automatically when a launch asks for more than the default.
    pub max_shared_memory_per_block_optin: u32,
    /// Threads per warp (32).
    pub warp_size: u32,
    /// Number of multiprocessors.
    pub multiprocessor_count: u32,
}

/// What a device says about itself when it is opened.
pub(crate) struct DeviceDescription {
    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// How messages name the device: `NVIDIA H100 80GB HBM3 (GPU 0)`.
    pub label: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (u32, u32),
    /// Total memory in bytes.
    pub total_memory: usize,
    /// The limits launches are checked against.
    pub limits: DeviceLimits,
}
