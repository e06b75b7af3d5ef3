//! Warpgroups (sm_90): four consecutive warps, the unit `wgmma` works on, and the reallocation of
//! registers between them (`setmaxnreg`, sm_90a), with which a warp-specialised kernel gives
//! its data-moving warpgroup few registers and its math warpgroups many.
//!
//! PTX ISA 8.x, section 9.7.17.1 (`setmaxnreg`): `setmaxnreg.dec.sync.aligned.u32 N` releases
//! registers down to `N` per thread, `setmaxnreg.inc.sync.aligned.u32 N` waits until the
//! warpgroup can have `N`. `N` is a multiple of 8 from 24 to 256; every thread of the warpgroup
//! executes the same instruction; the kernel must have been compiled with a known register
//! limit (a `.maxntid` or `.maxnreg` on the entry, or `-maxrregcount`), which the new counts
//! must fit in across the block.
//!
//! The simulator refuses `setmaxnreg` with `SimulatorFault::UnsupportedInstruction`.

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
use crate::backend::warpgroup as imp;

/// Threads per warpgroup.
pub const WARPGROUP_SIZE: u32 = 128;

/// The index of this thread's warpgroup in the block (`thread_idx().x / 128`; blocks of
/// warp-specialised kernels are one-dimensional).
#[inline(always)]
pub fn warpgroup_id() -> u32 {
    crate::thread_idx().x / WARPGROUP_SIZE
}

/// Checks `N` at compile time: a multiple of 8 from 24 to 256.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
struct RegisterCount<const N: u32>;

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
impl<const N: u32> RegisterCount<N> {
    const VALID: () = assert!(
        N >= 24 && N <= 256 && N.is_multiple_of(8),
        "setmaxnreg takes a multiple of 8 from 24 to 256"
    );
}

/// Raises this warpgroup's registers to `N` per thread (`setmaxnreg.inc.sync.aligned.u32 N`),
/// waiting until the block's pool has them. Warpgroup-collective.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
#[inline(always)]
#[track_caller]
pub fn setmaxnreg_increase<const N: u32>() {
    let () = RegisterCount::<N>::VALID;
    imp::increase::<N>();
}

/// Lowers this warpgroup's registers to `N` per thread (`setmaxnreg.dec.sync.aligned.u32 N`),
/// returning the rest to the block's pool. Warpgroup-collective.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
#[inline(always)]
#[track_caller]
pub fn setmaxnreg_decrease<const N: u32>() {
    let () = RegisterCount::<N>::VALID;
    imp::decrease::<N>();
}
