//! Warp-level operations: lane and warp indices, shuffles and votes (CUDA's `__shfl_*_sync`,
//! `__ballot_sync`, `__any_sync`, `__all_sync`, `__activemask`).
//!
//! ```ignore
//! // Sum of `value` over the 32 lanes of the warp; lane 0 ends with the total.
//! let mut sum = value;
//! let mut offset = WARP_SIZE / 2;
//! while offset > 0 {
//!     sum += shfl_down_sync(FULL_MASK, sum, offset);
//!     offset /= 2;
//! }
//! ```
//!
//! Every `_sync` operation takes a `mask` of the lanes taking part; each of them must execute the
//! same operation (the simulator reports a lane that does not, a GPU hangs or returns garbage).
//!
//! # Width
//! CUDA's shuffles take an optional last argument, `width`, defaulting to `warpSize`. Rust has
//! no default arguments, so each shuffle comes twice: the plain name works on the whole warp
//! (width 32: `shfl_xor_sync(mask, v, lane_mask)` is `__shfl_xor_sync(mask, v, laneMask)`), and
//! the `_width` form takes the width last (`shfl_xor_sync_width(mask, v, lane_mask, 8)` is
//! `__shfl_xor_sync(mask, v, laneMask, 8)`). A width divides the warp into independent groups of
//! `width` consecutive lanes: lane indices and deltas are then relative to the group, and a lane
//! whose source lies outside its group (`up`, `down`, a later group for `xor`) gets its own value
//! back.
//!
//! A width must be a power of two from 1 to 32 ([`is_shuffle_width`]). CUDA leaves other widths
//! undefined; here they are defined per backend:
//! - on the GPU the width goes into `shfl.sync`'s clamp operand exactly as CUDA's headers put it
//!   there, `((32 - width) << 8) | 0x1f` (`up`: without the `0x1f`), so the hardware uses the
//!   segment mask `(32 - width) & 31` (width 0 then acts as 32; another width gives PTX's lane
//!   arithmetic with that mask): the result is what `__shfl_*_sync` returns in CUDA C for the
//!   same width;
//! - on the simulator the calling thread panics with "shuffle width 12 is not a power of two
//!   from 1 to 32", reported as a kernel panic at the line of the call, so the bug is found
//!   before it reaches a GPU.
//!
//! Shuffles move 32- and 64-bit values ([`ShuffleValue`]: `i32`, `u32`, `f32`, `i64`, `u64`,
//! `f64`), listed once in the table `__shuffle_values!`; a 64-bit shuffle is two 32-bit shuffles on the GPU.
//! The half-precision types (`f16`, `bf16`, `f16x2`, `bf16x2`) implement it in `half.rs` and
//! `half_pair.rs`, each as one 32-bit shuffle.
//! The functions are one call into the backend (`backend/gpu/warp.rs`, whose table of
//! `shfl.sync` intrinsics maps each [`Kind`], and `backend/simulator/warp.rs`).

use crate::backend::warp as imp;

/// The number of threads in a warp. The one definition of the fact for the whole project: the
/// simulator's warps are this size too.
pub const WARP_SIZE: u32 = 32;

/// The mask naming all 32 lanes of a warp.
pub const FULL_MASK: u32 = 0xffff_ffff;

/// This thread's lane within its warp, 0 to 31 (`%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    imp::lane_id()
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
    imp::active_mask()
}

/// A value that warp shuffles move: `i32`, `u32`, `f32`, `i64`, `u64`, `f64`.
///
/// Sealed: implemented for those types only.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be moved by a warp shuffle",
    label = "not a shuffle value",
    note = "shuffles move `i32`, `u32`, `f32`, `i64`, `u64`, `f64`, `f16`, `bf16`, `f16x2` and `bf16x2`; shuffle other data field by field"
)]
pub trait ShuffleValue: Copy + sealed::Sealed {
    /// The value after a shuffle of the given kind; see [`shfl_sync`].
    #[doc(hidden)]
    #[track_caller]
    fn __shuffle(self, kind: Kind, mask: u32, lane: u32, width: u32) -> Self;
}

pub(crate) mod sealed {
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

/// The shuffle table, handed to a callback macro: each value type, the backend shuffle that
/// carries it (`shuffle_u32`, `shuffle_f32` or `shuffle_u64`), and the conversions to and from
/// the carried value. It implements [`ShuffleValue`] here, and the device-API tests launch their
/// shuffle kernel once per line.
#[doc(hidden)]
#[macro_export]
macro_rules! __shuffle_values {
    ($callback:ident, $extra:tt) => {
        $callback! { $extra
            i32 => shuffle_u32, |v| v as u32, |b| b as i32;
            u32 => shuffle_u32, |v| v, |b| b;
            f32 => shuffle_f32, |v| v, |b| b;
            i64 => shuffle_u64, |v| v as u64, |b| b as i64;
            u64 => shuffle_u64, |v| v, |b| b;
            f64 => shuffle_u64, f64::to_bits, f64::from_bits;
        }
    };
}

/// Implements [`ShuffleValue`] for the types of the table.
macro_rules! shuffle_values {
    ([] $($t:ty => $carrier:ident, $to:expr, $from:expr;)*) => {$(
        impl sealed::Sealed for $t {}

        impl ShuffleValue for $t {
            #[inline(always)]
            #[track_caller]
            fn __shuffle(self, kind: Kind, mask: u32, lane: u32, width: u32) -> Self {
                let (to, from): (fn($t) -> _, fn(_) -> $t) = ($to, $from);
                from(imp::$carrier(kind, mask, to(self), lane, width))
            }
        }
    )*};
}

__shuffle_values!(shuffle_values, []);

/// The `value` of lane `src_lane` of this thread's warp (`__shfl_sync(mask, var, srcLane)`,
/// width 32).
///
/// `src_lane` is taken modulo 32. Every lane in `mask` must call it. For groups of fewer lanes,
/// see [`shfl_sync_width`].
#[inline(always)]
#[track_caller]
pub fn shfl_sync<T: ShuffleValue>(mask: u32, value: T, src_lane: u32) -> T {
    value.__shuffle(Kind::Index, mask, src_lane, WARP_SIZE)
}

/// The `value` of lane `src_lane` of this thread's group of `width` lanes
/// (`__shfl_sync(mask, var, srcLane, width)`).
///
/// `src_lane` is taken modulo `width`, a power of two from 1 to 32 (see the
/// [module documentation](self) for other widths). Every lane in `mask` must call it.
#[inline(always)]
#[track_caller]
pub fn shfl_sync_width<T: ShuffleValue>(mask: u32, value: T, src_lane: u32, width: u32) -> T {
    value.__shuffle(Kind::Index, mask, src_lane, width)
}

/// The `value` of the lane `delta` below this one in its warp (`__shfl_up_sync(mask, var,
/// delta)`, width 32); lanes 0 to `delta - 1` get their own value back.
#[inline(always)]
#[track_caller]
pub fn shfl_up_sync<T: ShuffleValue>(mask: u32, value: T, delta: u32) -> T {
    value.__shuffle(Kind::Up, mask, delta, WARP_SIZE)
}

/// The `value` of the lane `delta` below this one in its group of `width` lanes
/// (`__shfl_up_sync(mask, var, delta, width)`); the lowest `delta` lanes of a group get their
/// own value back. `width` is a power of two from 1 to 32.
#[inline(always)]
#[track_caller]
pub fn shfl_up_sync_width<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    value.__shuffle(Kind::Up, mask, delta, width)
}

/// The `value` of the lane `delta` above this one in its warp (`__shfl_down_sync(mask, var,
/// delta)`, width 32); lanes `32 - delta` to 31 get their own value back.
#[inline(always)]
#[track_caller]
pub fn shfl_down_sync<T: ShuffleValue>(mask: u32, value: T, delta: u32) -> T {
    value.__shuffle(Kind::Down, mask, delta, WARP_SIZE)
}

/// The `value` of the lane `delta` above this one in its group of `width` lanes
/// (`__shfl_down_sync(mask, var, delta, width)`); the highest `delta` lanes of a group get
/// their own value back. `width` is a power of two from 1 to 32.
#[inline(always)]
#[track_caller]
pub fn shfl_down_sync_width<T: ShuffleValue>(mask: u32, value: T, delta: u32, width: u32) -> T {
    value.__shuffle(Kind::Down, mask, delta, width)
}

/// The `value` of lane `lane_id() ^ lane_mask` (`__shfl_xor_sync(mask, var, laneMask)`, width
/// 32), the butterfly exchange of tree reductions.
#[inline(always)]
#[track_caller]
pub fn shfl_xor_sync<T: ShuffleValue>(mask: u32, value: T, lane_mask: u32) -> T {
    value.__shuffle(Kind::Xor, mask, lane_mask, WARP_SIZE)
}

/// The `value` of lane `lane_id() ^ lane_mask` within groups of `width` lanes
/// (`__shfl_xor_sync(mask, var, laneMask, width)`): a source in a later group gives this lane's
/// own value, one in an earlier group is read (as PTX's `shfl.sync.bfly`). `width` is a power of
/// two from 1 to 32.
#[inline(always)]
#[track_caller]
pub fn shfl_xor_sync_width<T: ShuffleValue>(mask: u32, value: T, lane_mask: u32, width: u32) -> T {
    value.__shuffle(Kind::Xor, mask, lane_mask, width)
}

/// Whether `width` is a valid shuffle width: a power of two from 1 to [`WARP_SIZE`].
#[inline(always)]
pub const fn is_shuffle_width(width: u32) -> bool {
    width.is_power_of_two() && width <= WARP_SIZE
}

/// A mask with bit `n` set when lane `n` is in `mask` and passed a true `predicate`
/// (`__ballot_sync`).
#[inline(always)]
#[track_caller]
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    imp::ballot(mask, predicate)
}

/// Whether any lane in `mask` passed a true `predicate` (`__any_sync`).
#[inline(always)]
#[track_caller]
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    imp::any(mask, predicate)
}

/// Whether every lane in `mask` passed a true `predicate` (`__all_sync`).
#[inline(always)]
#[track_caller]
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    imp::all(mask, predicate)
}
