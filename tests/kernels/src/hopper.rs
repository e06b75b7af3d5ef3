//! One kernel that reaches a chosen Hopper instruction (`wgmma`, TMA, `mbarrier`,
//! `setmaxnreg`), for `tests/tests/gemm_bf16_wgmma.rs`'s check that the simulator refuses each
//! one with `SimulatorFault::UnsupportedInstruction` naming it.
//!
//! The instructions need sm_90a and this crate is built for sm_70 (or sm_90), so the body lives
//! behind `#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]` (the pattern
//! `ferrocuda::device::architecture` describes); elsewhere the entry panics. It is a probe for
//! the simulator, not a program: on a GPU case 1 would multiply uninitialised shared memory.

use ferrocuda::device::tma::TensorMap;
use ferrocuda::prelude::*;

/// The instruction each case of [`hopper_instruction`] reaches first, by case number.
pub const HOPPER_INSTRUCTIONS: [&str; 11] = [
    "wgmma.fence",
    "wgmma.mma_async",
    "wgmma.commit_group",
    "wgmma.wait_group",
    "cp.async.bulk.tensor",
    "mbarrier.arrive",
    "mbarrier.try_wait.parity",
    "mbarrier.arrive.expect_tx",
    "setmaxnreg.inc",
    "setmaxnreg.dec",
    "fence.proxy.async",
];

/// Dynamic shared memory [`hopper_instruction`] needs (a 1024-byte-aligned 64 x 64 bf16 tile
/// and a barrier).
pub const HOPPER_SHARED_BYTES: u32 = 2 * 8192 + 64;

/// Reaches instruction `HOPPER_INSTRUCTIONS[case]` in every thread; blocks of 128 threads.
#[kernel]
pub fn hopper_instruction(case: u32, maps: &[TensorMap]) {
    body::run(case, maps);
}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
mod body {
    use super::*;
    use ferrocuda::device::mbarrier::{Mbarriers, fence_proxy_async};
    use ferrocuda::device::tma::{shared_address, tma_load_2d};
    use ferrocuda::device::warpgroup::{setmaxnreg_decrease, setmaxnreg_increase};
    use ferrocuda::device::wgmma::{
        MatrixMajor, SharedMatrixDescriptor, Swizzle, WarpgroupAccumulatorN128, wgmma_commit_group,
        wgmma_fence, wgmma_wait_group,
    };

    pub(super) fn run(case: u32, maps: &[TensorMap]) {
        let mut carve = DynamicShared::new();
        let start = shared_address(&carve.take::<u8>(0));
        let _ = carve.take::<u8>(start.wrapping_neg() as usize % 1024);
        let tile = carve.take::<bf16>(64 * 64);
        let barriers = Mbarriers::new(carve.take::<u64>(1), 1);
        match case {
            0 => wgmma_fence(),
            1 => {
                let a = SharedMatrixDescriptor::new(&tile, 0, Swizzle::Bytes128, 16, 1024);
                let b = SharedMatrixDescriptor::new(&tile, 0, Swizzle::Bytes128, 16, 1024);
                let mut acc = WarpgroupAccumulatorN128::zeroed();
                // SAFETY: only ever run on the simulator, which refuses the instruction before
                // it reads anything (see the module documentation).
                unsafe { acc.mma_async(a, MatrixMajor::K, b, MatrixMajor::K) };
            }
            2 => wgmma_commit_group(),
            3 => wgmma_wait_group::<0>(),
            4 => {
                // SAFETY: as case 1: refused before any copy.
                unsafe { tma_load_2d(&tile, 0, &maps[0], (0, 0), &barriers, 0) };
            }
            5 => barriers.arrive(0),
            6 => barriers.wait(0, 0),
            7 => barriers.arrive_expect_tx(0, 8192),
            8 => setmaxnreg_increase::<240>(),
            9 => setmaxnreg_decrease::<40>(),
            _ => fence_proxy_async(),
        }
    }
}

#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90a")))]
mod body {
    pub(super) fn run(_: u32, _: &[super::TensorMap]) {
        panic!("hopper_instruction is a simulator probe, built here without sm_90a")
    }
}
