//! What the simulated device reports about itself.

use crate::Dim3;
use crate::vocabulary::limits::DeviceLimits;

/// The limits launches on the simulator are checked against (those of an H100: 48 KiB of shared
/// memory per block without opting in, 227 KiB with).
pub(super) const LIMITS: DeviceLimits = DeviceLimits {
    max_threads_per_block: 1024,
    max_block_dim: Dim3::new(1024, 1024, 64),
    max_grid_dim: Dim3::new(2147483647, 65535, 65535),
    max_shared_memory_per_block: 48 * 1024,
    max_shared_memory_per_block_optin: 227 * 1024,
    warp_size: 32,
    multiprocessor_count: 1,
};
