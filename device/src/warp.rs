//! Warp-level operations: lane and warp indices, shuffles and votes (CUDA's `__shfl_*_sync`,
//! `__ballot_sync`, `__any_sync`, `__all_sync`, `__activemask`).
//!
//! ```ignore
//! // Sum of `value` over the 32 lanes of the warp; lane 0 ends with the total.
//! let mut sum = value;
//! let mut offset = WARP_SIZE / 2;
//! while offset > 0 {
//!     sum += shfl_down_sync(FULL_MASK, sum, offset, WARP_SIZE);
//!     offset /= 2;
//! }
//! ```
//!
//! Every `_sync` operation takes a `mask` of the lanes taking part; each of them must execute the
//! same operation (the simulator reports a lane that does not, a GPU hangs or returns garbage).
//! `width` divides the warp into independent groups of `width` lanes (a power of two, 1 to 32):
//! lane indices and deltas are then relative to the group. A lane whose source lane lies outside
//! its group (`shfl_up_sync`/`shfl_down_sync`) gets its own value back.
//!
//! Shuffles move 32- and 64-bit values ([`ShuffleValue`]: `i32`, `u32`, `f32`, `i64`, `u64`,
//! `f64`); a 64-bit shuffle is two 32-bit shuffles on the GPU.

#[cfg(not(target_arch = "nvptx64"))]
use crate::sim::{self, ShuffleKind, WarpOp};

/// The number of threads in a warp.
pub const WARP_SIZE: u32 = 32;

/// The mask naming all 32 lanes of a warp.
pub const FULL_MASK: u32 = 0xffff_ffff;

#[cfg(target_arch = "nvptx64")]
#[allow(improper_ctypes)] // `bool` is LLVM's `i1`, which is what these intrinsics take.
unsafe extern "C" {
    #[link_name = "llvm.nvvm.read.ptx.sreg.laneid"]
    fn nvvm_laneid() -> i32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.i32"]
    fn nvvm_shfl_idx(mask: u32, value: u32, lane: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.up.i32"]
    fn nvvm_shfl_up(mask: u32, value: u32, delta: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.down.i32"]
    fn nvvm_shfl_down(mask: u32, value: u32, delta: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.i32"]
    fn nvvm_shfl_bfly(mask: u32, value: u32, lane_mask: u32, c: u32) -> u32;
    #[link_name = "llvm.nvvm.shfl.sync.idx.f32"]
    fn nvvm_shfl_idx_f32(mask: u32, value: f32, lane: u32, c: u32) -> f32;
    #[link_name = "llvm.nvvm.shfl.sync.up.f32"]
    fn nvvm_shfl_up_f32(mask: u32, value: f32, delta: u32, c: u32) -> f32;
    #[link_name = "llvm.nvvm.shfl.sync.down.f32"]
    fn nvvm_shfl_down_f32(mask: u32, value: f32, delta: u32, c: u32) -> f32;
    #[link_name = "llvm.nvvm.shfl.sync.bfly.f32"]
    fn nvvm_shfl_bfly_f32(mask: u32, value: f32, lane_mask: u32, c: u32) -> f32;
    #[link_name = "llvm.nvvm.vote.ballot.sync"]
    fn nvvm_ballot(mask: u32, predicate: bool) -> u32;
    #[link_name = "llvm.nvvm.vote.any.sync"]
    fn nvvm_any(mask: u32, predicate: bool) -> bool;
    #[link_name = "llvm.nvvm.vote.all.sync"]
    fn nvvm_all(mask: u32, predicate: bool) -> bool;
}

/// This thread's lane within its warp, 0 to 31 (`%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        nvvm_laneid() as u32
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        crate::index::thread_rank() % WARP_SIZE
    }
}

/// The index of this thread's warp within its block: `thread_rank() / 32` (warps are made of
/// consecutive linear thread indices, x fastest).
#[inline(always)]
pub fn warp_id() -> u32 {
    crate::index::thread_rank() / WARP_SIZE
}

/// The lanes of this thread's warp that are executing this instruction together
/// (`__activemask`, `activemask.b32`).
///
/// On the simulator, the lanes of the warp that have not exited.
#[inline(always)]
#[track_caller]
pub fn active_mask() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        let mask: u32;
        core::arch::asm!("activemask.b32 {mask};", mask = out(reg32) mask);
        mask
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().active_mask()
    }
}

/// The `c` operand of `shfl.sync`: the group clamp in bits 8-12 and, except for `up`, the
/// highest lane of a group in bits 0-4.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
const fn clamp(width: u32, up: bool) -> u32 {
    let segment = (WARP_SIZE - width) << 8;
    if up { segment } else { segment | 0x1f }
}

/// A value that warp shuffles move: `i32`, `u32`, `f32`, `i64`, `u64`, `f64`.
///
/// Sealed: implemented for those types only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved by a warp shuffle",
    label = "not a shuffle value",
    note = "shuffles move `i32`, `u32`, `f32`, `i64`, `u64` and `f64`; shuffle other data field by field"
)]
pub trait ShuffleValue: Copy + sealed::Sealed {
    /// The value after a shuffle of the given kind; see [`shfl_sync`].
    #[doc(hidden)]
    fn __shuffle(self, kind: Kind, mask: u32, lane: u32, width: u32, location: Loc) -> Self;
}

mod sealed {
    pub trait Sealed {}
}

/// The shuffle flavour, passed to [`ShuffleValue`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `shfl.sync.idx`.
    Index,
    /// `shfl.sync.up`.
    Up,
    /// `shfl.sync.down`.
    Down,
    /// `shfl.sync.bfly`.
    Xor,
}

/// The caller's location on the simulator (for error reports), nothing on the GPU.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub type Loc = &'static core::panic::Location<'static>;
/// The caller's location on the simulator (for error reports), nothing on the GPU.
#[doc(hidden)]
#[cfg(target_arch = "nvptx64")]
pub type Loc = ();

#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
fn caller() -> Loc {
    core::panic::Location::caller()
}
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn caller() -> Loc {}

/// A 32-bit shuffle on the GPU.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn shuffle_u32(kind: Kind, mask: u32, value: u32, lane: u32, width: u32) -> u32 {
    // SAFETY: warp intrinsics; the mask contract is the caller's.
    unsafe {
        match kind {
            Kind::Index => nvvm_shfl_idx(mask, value, lane, clamp(width, false)),
            Kind::Up => nvvm_shfl_up(mask, value, lane, clamp(width, true)),
            Kind::Down => nvvm_shfl_down(mask, value, lane, clamp(width, false)),
            Kind::Xor => nvvm_shfl_bfly(mask, value, lane, clamp(width, false)),
        }
    }
}

/// A shuffle of the bits of a value on the simulator.
#[cfg(not(target_arch = "nvptx64"))]
#[inline]
fn shuffle_bits(kind: Kind, mask: u32, value: u64, lane: u32, width: u32, location: Loc) -> u64 {
    let kind = match kind {
        Kind::Index => ShuffleKind::Index,
        Kind::Up => ShuffleKind::Up,
        Kind::Down => ShuffleKind::Down,
        Kind::Xor => ShuffleKind::Xor,
    };
    sim::hooks().warp(
        WarpOp::Shuffle {
            kind,
            mask,
            value,
            lane,
            width,
        },
        location,
    )
}

macro_rules! shuffle_32 {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ShuffleValue for $t {
            #[inline(always)]
            fn __shuffle(self, kind: Kind, mask: u32, lane: u32, width: u32, location: Loc) -> Self {
                #[cfg(target_arch = "nvptx64")]
                {
                    let _ = location;
                    shuffle_u32(kind, mask, self as u32, lane, width) as $t
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    shuffle_bits(kind, mask, self as u32 as u64, lane, width, location) as u32 as $t
                }
            }
        }
    )*};
}
shuffle_32!(i32, u32);

impl sealed::Sealed for f32 {}
impl ShuffleValue for f32 {
    #[inline(always)]
    fn __shuffle(self, kind: Kind, mask: u32, lane: u32, width: u32, location: Loc) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let _ = location;
            // SAFETY: as in `shuffle_u32`.
            unsafe {
                match kind {
                    Kind::Index => nvvm_shfl_idx_f32(mask, self, lane, clamp(width, false)),
                    Kind::Up => nvvm_shfl_up_f32(mask, self, lane, clamp(width, true)),
                    Kind::Down => nvvm_shfl_down_f32(mask, self, lane, clamp(width, false)),
                    Kind::Xor => nvvm_shfl_bfly_f32(mask, self, lane, clamp(width, false)),
                }
            }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let bits = shuffle_bits(kind, mask, self.to_bits() as u64, lane, width, location);
            f32::from_bits(bits as u32)
        }
    }
}

/// Shuffles 64 bits: two 32-bit shuffles on the GPU, one operation on the simulator.
#[inline(always)]
fn shuffle_u64(kind: Kind, mask: u32, value: u64, lane: u32, width: u32, location: Loc) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = location;
        let low = shuffle_u32(kind, mask, value as u32, lane, width);
        let high = shuffle_u32(kind, mask, (value >> 32) as u32, lane, width);
        ((high as u64) << 32) | low as u64
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        shuffle_bits(kind, mask, value, lane, width, location)
    }
}

macro_rules! shuffle_64 {
    ($($t:ty => $to:expr, $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl ShuffleValue for $t {
            #[inline(always)]
            fn __shuffle(self, kind: Kind, mask: u32, lane: u32, width: u32, location: Loc) -> Self {
                let to: fn($t) -> u64 = $to;
                let from: fn(u64) -> $t = $from;
                from(shuffle_u64(kind, mask, to(self), lane, width, location))
            }
        }
    )*};
}
shuffle_64! {
    i64 => |v| v as u64, |b| b as i64;
    u64 => |v| v, |b| b;
    f64 => f64::to_bits, f64::from_bits;
}

/// The `value` of lane `src_lane` of this thread's group of `width` lanes (`__shfl_sync`).
///
/// `src_lane` is taken modulo `width`. Every lane in `mask` must call it.
#[inline(always)]
#[track_caller]
pub fn shfl_sync<T: ShuffleValue>(mask: u32, value: T, src_lane: u32, width: u32) -> T {
    value.__shuffle(Kind::Index, mask, src_lane, width, caller())
}

/// The `value` of the lane `delta` below this one in its group of `width` lanes
/// (`__shfl_up_sync`); the lowest `delta` lanes of a group get their own value back.
#[inline(always)]
#[track_caller]
pub fn shfl_up_sync<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    value.__shuffle(Kind::Up, mask, delta, width, caller())
}

/// The `value` of the lane `delta` above this one in its group of `width` lanes
/// (`__shfl_down_sync`); the highest `delta` lanes of a group get their own value back.
#[inline(always)]
#[track_caller]
pub fn shfl_down_sync<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    value.__shuffle(Kind::Down, mask, delta, width, caller())
}

/// The `value` of lane `lane_id() ^ lane_mask` (`__shfl_xor_sync`), the butterfly exchange of
/// tree reductions; a source outside this thread's group of `width` lanes gives its own value.
#[inline(always)]
#[track_caller]
pub fn shfl_xor_sync<T: ShuffleValue>(mask: u32, value: T, lane_mask: u32, width: u32) -> T {
    value.__shuffle(Kind::Xor, mask, lane_mask, width, caller())
}

/// A mask with bit `n` set when lane `n` is in `mask` and passed a true `predicate`
/// (`__ballot_sync`).
#[inline(always)]
#[track_caller]
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        nvvm_ballot(mask, predicate)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().warp(WarpOp::Ballot { mask, predicate }, caller()) as u32
    }
}

/// Whether any lane in `mask` passed a true `predicate` (`__any_sync`).
#[inline(always)]
#[track_caller]
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        nvvm_any(mask, predicate)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        sim::hooks().warp(WarpOp::Ballot { mask, predicate }, caller()) != 0
    }
}

/// Whether every lane in `mask` passed a true `predicate` (`__all_sync`).
#[inline(always)]
#[track_caller]
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    unsafe {
        nvvm_all(mask, predicate)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // Every lane passed `predicate` exactly when none passed its negation.
        sim::hooks().warp(
            WarpOp::Ballot {
                mask,
                predicate: !predicate,
            },
            caller(),
        ) == 0
    }
}
