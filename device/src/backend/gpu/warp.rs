//! Warp operations through NVVM intrinsics (`shfl.sync`, `vote.sync`, `%laneid`) and
//! `activemask.b32`.

use crate::warp::{Kind, WARP_SIZE};

// `bool` is LLVM's `i1`, which is what the vote intrinsics take.
unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn nvvm_laneid() -> i32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn nvvm_ballot(mask: u32, predicate: bool) -> u32;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    fn nvvm_any(mask: u32, predicate: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    fn nvvm_all(mask: u32, predicate: bool) -> bool;
}

/// The shuffle intrinsics: one line per [`Kind`], its `shfl.sync` mode and whether its clamp
/// operand omits the highest lane (`up` does). Generates `shuffle_u32` and `shuffle_f32`.
macro_rules! shuffle_intrinsics {
    ($($kind:ident => $mode:literal, up: $up:literal, $int:ident, $float:ident;)*) => {
        unsafe extern "C" {
            $(
                #[link_name = concat!("llvm.nvvm.shfl.sync.", $mode, ".i32")]
                fn $int(mask: u32, value: u32, lane: u32, clamp: u32) -> u32;
                #[link_name = concat!("llvm.nvvm.shfl.sync.", $mode, ".f32")]
                fn $float(mask: u32, value: f32, lane: u32, clamp: u32) -> f32;
            )*
        }

        /// A 32-bit shuffle (`shfl.sync.<mode>.b32`).
        #[inline(always)]
        pub(crate) fn shuffle_u32(kind: Kind, mask: u32, value: u32, lane: u32, width: u32) -> u32 {
            match kind {
                $(
                    // SAFETY: a register exchange between the lanes of `mask`; it touches no
                    // memory (that every lane of `mask` executes it is the façade's contract).
                    Kind::$kind => unsafe { $int(mask, value, lane, clamp(width, $up)) },
                )*
            }
        }

        /// An `f32` shuffle (`shfl.sync.<mode>.b32` on a float register).
        #[inline(always)]
        pub(crate) fn shuffle_f32(kind: Kind, mask: u32, value: f32, lane: u32, width: u32) -> f32 {
            match kind {
                $(
                    // SAFETY: as in `shuffle_u32`.
                    Kind::$kind => unsafe { $float(mask, value, lane, clamp(width, $up)) },
                )*
            }
        }
    };
}

shuffle_intrinsics! {
    Index => "idx", up: false, nvvm_shfl_idx, nvvm_shfl_idx_f32;
    Up => "up", up: true, nvvm_shfl_up, nvvm_shfl_up_f32;
    Down => "down", up: false, nvvm_shfl_down, nvvm_shfl_down_f32;
    Xor => "bfly", up: false, nvvm_shfl_bfly, nvvm_shfl_bfly_f32;
}

/// The `c` operand of `shfl.sync`: the group clamp in bits 8-12 and, except for `up`, the
/// highest lane of a group in bits 0-4, computed as CUDA's headers do (`(warpSize - width) << 8`,
/// wrapping), so that a width outside 1 to 32 or not a power of two behaves as in CUDA C (PTX
/// reads only bits 0-4 and 8-12).
#[inline(always)]
const fn clamp(width: u32, up: bool) -> u32 {
    let segment = WARP_SIZE.wrapping_sub(width) << 8;
    if up { segment } else { segment | 0x1f }
}

/// A 64-bit shuffle: two 32-bit shuffles.
#[inline(always)]
pub(crate) fn shuffle_u64(kind: Kind, mask: u32, value: u64, lane: u32, width: u32) -> u64 {
    let low = shuffle_u32(kind, mask, value as u32, lane, width);
    let high = shuffle_u32(kind, mask, (value >> 32) as u32, lane, width);
    ((high as u64) << 32) | low as u64
}

#[inline(always)]
pub(crate) fn lane_id() -> u32 {
    // SAFETY: reading the `%laneid` special register has no preconditions.
    unsafe { nvvm_laneid() as u32 }
}

#[inline(always)]
pub(crate) fn active_mask() -> u32 {
    let mask: u32;
    // SAFETY: `activemask.b32` writes one register and touches no memory.
    unsafe { core::arch::asm!("activemask.b32 {mask};", mask = out(reg32) mask) };
    mask
}

#[inline(always)]
pub(crate) fn ballot(mask: u32, predicate: bool) -> u32 {
    // SAFETY: a vote among the lanes of `mask`; it touches no memory.
    unsafe { nvvm_ballot(mask, predicate) }
}

#[inline(always)]
pub(crate) fn any(mask: u32, predicate: bool) -> bool {
    // SAFETY: as in `ballot`.
    unsafe { nvvm_any(mask, predicate) }
}

#[inline(always)]
pub(crate) fn all(mask: u32, predicate: bool) -> bool {
    // SAFETY: as in `ballot`.
    unsafe { nvvm_all(mask, predicate) }
}
