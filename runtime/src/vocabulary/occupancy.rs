//! Occupancy: how many blocks of a kernel fit on one multiprocessor at once, and what stops
//! more from fitting ([`Occupancy`], [`OccupancyLimit`]), computed from a multiprocessor's
//! resources ([`MultiprocessorLimits`]) the way CUDA's occupancy calculator
//! (`cuda_occupancy.h`) does:
//!
//! - threads: `max_threads / (warps per block * 32)` blocks;
//! - blocks: at most `max_blocks` resident blocks;
//! - shared memory: each block takes its static plus dynamic shared memory plus the
//!   `reserved_shared_per_block` the driver keeps, rounded up to `shared_allocation_unit`;
//! - registers: each warp takes `registers * 32` rounded up to `register_allocation_unit`, and
//!   registers are split evenly between the `sub_partitions` of the multiprocessor, so
//!   `floor(registers / sub_partitions / per-warp) * sub_partitions` warps fit.
//!
//! The smallest of these is the number of resident blocks. On a GPU the runtime asks the driver
//! (`cuOccupancyMaxActiveBlocksPerMultiprocessor`) and uses this model only to say which limit
//! bound; on the simulator the model is the answer.

use crate::vocabulary::error::LaunchError;
use crate::vocabulary::kernel_attributes::KernelAttributes;
use crate::vocabulary::limits::DeviceLimits;

/// The resources of one multiprocessor that bound occupancy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MultiprocessorLimits {
    /// Resident threads (2048 on an H100).
    pub max_threads: u32,
    /// Resident blocks (32 on an H100).
    pub max_blocks: u32,
    /// Shared memory of the multiprocessor, in bytes (228 KiB on an H100).
    pub shared_bytes: u32,
    /// Shared memory the driver reserves for each resident block, in bytes (1 KiB on sm_80+).
    pub reserved_shared_per_block: u32,
    /// Granularity of shared-memory allocation, in bytes (128 on sm_80+).
    pub shared_allocation_unit: u32,
    /// 32-bit registers of the multiprocessor (65536).
    pub registers: u32,
    /// Granularity of register allocation per warp, in registers (256).
    pub register_allocation_unit: u32,
    /// Sub-partitions (warp schedulers) the registers are divided between (4).
    pub sub_partitions: u32,
    /// Threads per warp (32).
    pub warp_size: u32,
}

/// What bounds the number of resident blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OccupancyLimit {
    /// The multiprocessor's resident threads (warps).
    Threads,
    /// The multiprocessor's resident blocks.
    Blocks,
    /// Shared memory (static, dynamic and the driver's reserve per block).
    SharedMemory,
    /// Registers per thread.
    Registers,
}

impl std::fmt::Display for OccupancyLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OccupancyLimit::Threads => "threads per multiprocessor",
            OccupancyLimit::Blocks => "blocks per multiprocessor",
            OccupancyLimit::SharedMemory => "shared memory",
            OccupancyLimit::Registers => "registers",
        })
    }
}

/// The occupancy of a kernel at one block size and dynamic shared-memory size, per
/// multiprocessor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Occupancy {
    /// Threads per block asked about.
    pub block_size: u32,
    /// Dynamic shared memory per block asked about, in bytes.
    pub dynamic_shared_bytes: u32,
    /// Blocks resident on one multiprocessor at once.
    pub active_blocks: u32,
    /// Warps resident on one multiprocessor at once (`active_blocks * ceil(block_size / 32)`).
    pub active_warps: u32,
    /// The most warps a multiprocessor holds (64 on an H100).
    pub max_warps: u32,
    /// `active_warps / max_warps`, from 0 to 1.
    pub fraction: f64,
    /// What bounds `active_blocks`; `None` where the model could not tell (a GPU whose driver's
    /// answer differs from the model's).
    pub limited_by: Option<OccupancyLimit>,
}

impl Occupancy {
    /// The occupancy of `active_blocks` resident blocks of `block_size` threads.
    pub(crate) fn new(
        sm: &MultiprocessorLimits,
        block_size: u32,
        dynamic_shared_bytes: u32,
        active_blocks: u32,
        limited_by: Option<OccupancyLimit>,
    ) -> Occupancy {
        let active_warps = active_blocks * block_size.div_ceil(sm.warp_size);
        let max_warps = sm.max_threads / sm.warp_size;
        Occupancy {
            block_size,
            dynamic_shared_bytes,
            active_blocks,
            active_warps,
            max_warps,
            fraction: f64::from(active_warps) / f64::from(max_warps),
            limited_by,
        }
    }
}

/// What a kernel uses per thread and block, as far as occupancy cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KernelFootprint {
    /// Registers per thread; `None` when unknown (then registers are not counted).
    pub registers: Option<u32>,
    /// Static shared memory per block, in bytes.
    pub static_shared_bytes: u32,
}

impl KernelFootprint {
    /// What occupancy counts of a kernel with these attributes: registers only when known,
    /// static shared memory as 0 when unknown.
    pub(crate) fn of(attributes: &KernelAttributes) -> KernelFootprint {
        KernelFootprint {
            registers: attributes.registers,
            static_shared_bytes: attributes.static_shared_bytes.unwrap_or(0),
        }
    }
}

/// What an occupancy question is checked against: the kernel's name, the most threads per
/// block it allows and its static shared memory per block.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KernelLimits {
    /// The kernel's entry name, for messages.
    pub name: &'static str,
    /// The most threads per block it can run with.
    pub max_threads_per_block: u32,
    /// Its static shared memory per block, in bytes (0 when unknown).
    pub static_shared_bytes: u32,
}

impl KernelLimits {
    /// The limits of a kernel with these attributes.
    pub(crate) fn of(attributes: &KernelAttributes) -> KernelLimits {
        KernelLimits {
            name: attributes.name,
            max_threads_per_block: attributes.max_threads_per_block,
            static_shared_bytes: attributes.static_shared_bytes.unwrap_or(0),
        }
    }
}

/// Checks an occupancy question before it is asked: a block of at least one thread and at most
/// the kernel's limit, and shared memory (static plus dynamic) within the device's opt-in limit
/// per block. `device` names the device in messages.
pub(crate) fn check_occupancy_query(
    kernel: KernelLimits,
    block_size: u32,
    dynamic_shared_bytes: u32,
    limits: &DeviceLimits,
    device: &str,
) -> Result<(), LaunchError> {
    let problem = if block_size == 0 {
        "a block size of 0 threads: a block has at least 1 thread".to_string()
    } else if block_size > kernel.max_threads_per_block {
        format!(
            "block of {block_size} threads exceeds this kernel's limit of {} threads per block on {device}",
            kernel.max_threads_per_block
        )
    } else {
        let static_shared = kernel.static_shared_bytes;
        let optin = limits.max_shared_memory_per_block_optin;
        if static_shared as u64 + dynamic_shared_bytes as u64 <= optin as u64 {
            return Ok(());
        }
        format!(
            "{dynamic_shared_bytes} bytes of dynamic shared memory plus {static_shared} bytes of static shared memory exceed the limit of {optin} bytes per block on {device}"
        )
    };
    Err(LaunchError::new(kernel.name, problem))
}

/// The resident blocks per multiprocessor the model predicts, and the limit that bounds them
/// (the first of threads, blocks, shared memory, registers that gives the smallest count).
/// `block_size` must be at least 1.
pub(crate) fn model_active_blocks(
    sm: &MultiprocessorLimits,
    kernel: KernelFootprint,
    block_size: u32,
    dynamic_shared_bytes: u32,
) -> (u32, OccupancyLimit) {
    let warps_per_block = block_size.div_ceil(sm.warp_size).max(1);
    let by_threads = sm.max_threads / (warps_per_block * sm.warp_size);
    let shared_per_block = (kernel.static_shared_bytes as u64 + dynamic_shared_bytes as u64)
        .next_multiple_of(sm.shared_allocation_unit.max(1) as u64)
        + sm.reserved_shared_per_block as u64;
    let by_shared = (sm.shared_bytes as u64 / shared_per_block).min(u32::MAX as u64) as u32;
    let by_registers = match kernel.registers {
        Some(registers) if registers > 0 => {
            let per_warp =
                (registers * sm.warp_size).next_multiple_of(sm.register_allocation_unit.max(1));
            let per_partition = sm.registers / sm.sub_partitions.max(1);
            let max_warps_per_partition = sm.max_threads / sm.warp_size / sm.sub_partitions.max(1);
            let warps =
                (per_partition / per_warp).min(max_warps_per_partition) * sm.sub_partitions.max(1);
            warps / warps_per_block
        }
        _ => u32::MAX,
    };
    [
        (by_threads, OccupancyLimit::Threads),
        (sm.max_blocks, OccupancyLimit::Blocks),
        (by_shared, OccupancyLimit::SharedMemory),
        (by_registers, OccupancyLimit::Registers),
    ]
    .into_iter()
    .fold(
        (u32::MAX, OccupancyLimit::Threads),
        |best, (count, limit)| {
            if count < best.0 { (count, limit) } else { best }
        },
    )
}

/// The block size (a multiple of the warp size, at most `max_block_size`) with the most
/// resident warps per multiprocessor, the largest such on a tie, as
/// `cuOccupancyMaxPotentialBlockSize` picks it; `None` when no block size fits at all.
pub(crate) fn model_suggested_block_size(
    sm: &MultiprocessorLimits,
    kernel: KernelFootprint,
    max_block_size: u32,
    dynamic_shared_bytes: u32,
) -> Option<u32> {
    let mut best: Option<(u32, u32)> = None;
    let mut block = max_block_size / sm.warp_size * sm.warp_size;
    while block > 0 {
        let (blocks, _) = model_active_blocks(sm, kernel, block, dynamic_shared_bytes);
        let warps = blocks * block.div_ceil(sm.warp_size);
        if warps > 0 && best.is_none_or(|(_, most)| warps > most) {
            best = Some((block, warps));
        }
        block -= sm.warp_size;
    }
    best.map(|(block, _)| block)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H100's multiprocessor (compute capability 9.0).
    const H100: MultiprocessorLimits = MultiprocessorLimits {
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

    fn kernel(registers: u32, static_shared_bytes: u32) -> KernelFootprint {
        KernelFootprint {
            registers: Some(registers),
            static_shared_bytes,
        }
    }

    #[test]
    fn each_limit_binds_where_it_should() {
        use OccupancyLimit::*;
        // 256 threads, 32 registers: 8 blocks fill the 2048 threads.
        assert_eq!(
            model_active_blocks(&H100, kernel(32, 0), 256, 0),
            (8, Threads)
        );
        // 32 threads: 64 would fit by threads, 32 blocks is the limit.
        assert_eq!(
            model_active_blocks(&H100, kernel(32, 0), 32, 0),
            (32, Blocks)
        );
        // 128 registers: a warp takes 4096 of a partition's 16384, 4 warps per partition,
        // 16 warps per SM: 2 blocks of 256 threads.
        assert_eq!(
            model_active_blocks(&H100, kernel(128, 0), 256, 0),
            (2, Registers)
        );
        // 72 registers: 2304 per warp (rounded to 256), 7 warps per partition, 28 per SM,
        // 3 blocks of 8 warps.
        assert_eq!(
            model_active_blocks(&H100, kernel(72, 0), 256, 0),
            (3, Registers)
        );
        // 48 KiB dynamic + 1 KiB reserved per block: 233472 / 50176 = 4 blocks.
        assert_eq!(
            model_active_blocks(&H100, kernel(32, 0), 128, 48 * 1024),
            (4, SharedMemory)
        );
        // Static shared counts too, rounded up to 128 bytes: (4240 -> 4352) + 1024 = 5376;
        // 233472 / 5376 = 43 blocks, so blocks (32) still bind at 32 threads (a tie between
        // two limits names the first of threads, blocks, shared memory, registers).
        assert_eq!(
            model_active_blocks(&H100, kernel(28, 4240), 64, 0),
            (32, Threads)
        );
        assert_eq!(
            model_active_blocks(&H100, kernel(28, 4240), 32, 0),
            (32, Blocks)
        );
        assert_eq!(
            model_active_blocks(&H100, kernel(28, 4240), 32, 20 * 1024),
            (9, SharedMemory)
        );
        // More shared memory than a multiprocessor has: no block fits.
        assert_eq!(
            model_active_blocks(&H100, kernel(32, 0), 128, 228 * 1024),
            (0, SharedMemory)
        );
    }

    #[test]
    fn occupancy_counts_warps_of_partial_blocks() {
        let occupancy = Occupancy::new(&H100, 48, 0, 32, Some(OccupancyLimit::Blocks));
        // 48 threads take 2 warps.
        assert_eq!(occupancy.active_warps, 64);
        assert_eq!(occupancy.max_warps, 64);
        assert_eq!(occupancy.fraction, 1.0);
    }

    #[test]
    fn suggested_block_size_maximises_warps_and_prefers_larger_blocks() {
        // Light kernel: 1024 already gives all 64 warps.
        assert_eq!(
            model_suggested_block_size(&H100, kernel(26, 16), 1024, 0),
            Some(1024)
        );
        // 72 registers: 28 warps per SM at most; 896 threads (28 warps, 1 block) reaches it
        // first from the top.
        assert_eq!(
            model_suggested_block_size(&H100, kernel(72, 0), 1024, 0),
            Some(896)
        );
        // Too much shared memory for any block.
        assert_eq!(
            model_suggested_block_size(&H100, kernel(26, 0), 1024, 300 * 1024),
            None
        );
    }
}
