//! What the simulated device reports about itself: the limits of a launch and of a multiprocessor.

use crate::Dim3;
use crate::vocabulary::limits::DeviceLimits;
use crate::vocabulary::occupancy::MultiprocessorLimits;

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

/// The multiprocessor occupancy is computed against on the simulator: an H100's (compute
/// capability 9.0: 2048 threads, 32 blocks, 228 KiB of shared memory with 1 KiB reserved per
/// block, 65536 registers in 4 sub-partitions).
pub(super) const MULTIPROCESSOR: MultiprocessorLimits = MultiprocessorLimits {
    max_threads: 2048,
    max_blocks: 32,
    shared_bytes: 228 * 1024,
    reserved_shared_per_block: 1024,
    shared_allocation_unit: 128,
    registers: 65536,
    register_allocation_unit: 256,
    sub_partitions: 4,
    warp_size: 32,
};

/// How many threads the simulated device holds at once (its multiprocessors' threads): the most a
/// cooperative grid may have, and the blocks an ordinary launch runs in turns once one spins.
pub(super) const RESIDENT_THREADS: usize =
    MULTIPROCESSOR.max_threads as usize * LIMITS.multiprocessor_count as usize;
