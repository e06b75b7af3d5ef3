//! Warp collectives: reduce, inclusive and exclusive scan, and broadcast over the lanes of a
//! warp, built from shuffles (CUB's `WarpReduce`, `WarpScan` and `__shfl_sync` broadcast).
//!
//! ```ignore
//! // The sum of `value` over the warp, in every lane; each lane's running maximum.
//! let total = warp_reduce(value, |a, b| a + b);
//! let running_max = warp_inclusive_scan(value, u32::max);
//! ```
//!
//! # The operator
//! `op` combines two values and must be associative; it need not be commutative: the scans
//! combine in lane order (lane `i`'s inclusive result is `v0 op v1 op ... op vi`, brackets
//! aside) and so does the reduction. The bracketing is a fixed tree (below), the same on every
//! call and on both backends, so a float sum is deterministic but may differ in rounding from a
//! left-to-right sum.
//!
//! # Partial warps
//! The last warp of a block whose size is not a multiple of 32 has fewer lanes
//! ([`warp_lane_count`]). The collectives combine exactly the lanes that exist, as CUB's logical
//! warp of `valid_items`: no value is made up for the missing lanes, so `op` needs no identity
//! (only the exclusive scan takes one, for lane 0). Their shuffles name the existing lanes
//! ([`warp_member_mask`]), and every one of them must call the collective: on the simulator a
//! lane that does not is a divergent warp operation fault naming the line of the call, on a GPU
//! it hangs or returns garbage.
//!
//! # The trees
//! - The reduction is a tree towards lane 0 (`shfl.down` by 1, 2, 4, 8, 16: after the step of
//!   offset `k`, lane `l` holds the lanes `l .. l + 2k` that exist), then lane 0's total is
//!   broadcast (`shfl.idx`): 6 shuffles.
//! - The inclusive scan is Kogge-Stone (`shfl.up` by 1, 2, 4, 8, 16: lane `l` combines the lanes
//!   `l - 2k + 1 ..= l - k` on the left of what it holds): 5 shuffles; the exclusive scan shifts
//!   it by one lane (a sixth).

use crate::index::block_dim;
use crate::warp::{FULL_MASK, ShuffleValue, WARP_SIZE, lane_id, shfl_down_sync, shfl_up_sync};
use crate::warp::{shfl_sync, warp_id};

/// The number of lanes of this thread's warp that exist: 32, except in the last warp of a block
/// whose size (`block_dim().x * block_dim().y * block_dim().z`) is not a multiple of 32.
#[inline(always)]
pub fn warp_lane_count() -> u32 {
    let d = block_dim();
    let threads = d.x * d.y * d.z;
    // This thread exists, so `threads > warp_id() * 32`: the difference is at least 1.
    (threads - warp_id() * WARP_SIZE).min(WARP_SIZE)
}

/// The mask of the lanes of this thread's warp that exist (lanes `0 .. warp_lane_count()`):
/// [`FULL_MASK`] except in the partial last warp of a block. The mask the collectives shuffle
/// with.
#[inline(always)]
pub fn warp_member_mask() -> u32 {
    member_mask(warp_lane_count())
}

/// The mask of lanes `0 .. lanes`, for `lanes` from 1 to 32.
#[inline(always)]
pub(crate) fn member_mask(lanes: u32) -> u32 {
    FULL_MASK >> (WARP_SIZE - lanes)
}

/// The lanes of this thread's warp, as the collectives see them.
#[derive(Clone, Copy)]
pub(crate) struct WarpLanes {
    /// This thread's lane.
    pub(crate) lane: u32,
    /// How many lanes exist.
    pub(crate) count: u32,
    /// The mask of the existing lanes.
    pub(crate) mask: u32,
}

impl WarpLanes {
    /// This thread's warp.
    #[inline(always)]
    pub(crate) fn here() -> Self {
        let count = warp_lane_count();
        WarpLanes {
            lane: lane_id(),
            count,
            mask: member_mask(count),
        }
    }

    /// `op` over the lanes in lane order, valid in lane 0 only (the tree of the module
    /// documentation).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn reduce_to_first<T: ShuffleValue>(self, value: T, op: &impl Fn(T, T) -> T) -> T {
        let mut value = value;
        let mut offset = 1;
        while offset < WARP_SIZE {
            let right = shfl_down_sync(self.mask, value, offset);
            // Lane `l + offset` holds the lanes from it to `l + 2 * offset` that exist; a source
            // past the last lane is not read.
            if self.lane + offset < self.count {
                value = op(value, right);
            }
            offset *= 2;
        }
        value
    }

    /// `op` over lanes `0 ..= lane` in lane order (Kogge-Stone).
    #[inline(always)]
    #[track_caller]
    pub(crate) fn inclusive_scan<T: ShuffleValue>(self, value: T, op: &impl Fn(T, T) -> T) -> T {
        let mut value = value;
        let mut offset = 1;
        while offset < WARP_SIZE {
            // The source `lane - offset` is below this lane, so it exists.
            let left = shfl_up_sync(self.mask, value, offset);
            if self.lane >= offset {
                value = op(left, value);
            }
            offset *= 2;
        }
        value
    }

    /// The inclusive result of the lane below (`identity` in lane 0), from this lane's
    /// inclusive result.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn shift_up<T: ShuffleValue>(self, inclusive: T, identity: T) -> T {
        let below = shfl_up_sync(self.mask, inclusive, 1);
        if self.lane == 0 { identity } else { below }
    }
}

/// `op` over `value` of every lane of the warp, in lane order; every lane gets the result
/// (CUB's `WarpReduce::Reduce`, but broadcast).
///
/// `op` must be associative (see the [module documentation](self) for the order and for float
/// rounding). Every existing lane of the warp must call it; in the partial last warp of a block
/// only the existing lanes are combined.
///
/// ```ignore
/// let warp_max = warp_reduce(value, f32::max);
/// ```
#[inline(always)]
#[track_caller]
pub fn warp_reduce<T: ShuffleValue>(value: T, op: impl Fn(T, T) -> T) -> T {
    let lanes = WarpLanes::here();
    let total = lanes.reduce_to_first(value, &op);
    shfl_sync(lanes.mask, total, 0)
}

/// `op` over `value` of lanes `0 ..= lane_id()`, in lane order (CUB's
/// `WarpScan::InclusiveScan`): lane `i` gets `v0 op v1 op ... op vi`.
///
/// `op` must be associative, not necessarily commutative. Every existing lane of the warp must
/// call it.
///
/// ```ignore
/// let prefix_sum = warp_inclusive_scan(count, |a, b| a + b);
/// ```
#[inline(always)]
#[track_caller]
pub fn warp_inclusive_scan<T: ShuffleValue>(value: T, op: impl Fn(T, T) -> T) -> T {
    WarpLanes::here().inclusive_scan(value, &op)
}

/// `op` over `value` of lanes `0 .. lane_id()`, in lane order (CUB's
/// `WarpScan::ExclusiveScan`): lane 0 gets `identity`, lane `i > 0` gets `v0 op ... op v(i-1)`.
///
/// `identity` is only returned, never combined, so any value works; the identity of `op` makes
/// the results those of a scan. `op` must be associative. Every existing lane of the warp must
/// call it.
///
/// ```ignore
/// // Where each lane writes its `count` items in a packed output.
/// let offset = warp_exclusive_scan(count, 0u32, |a, b| a + b);
/// ```
#[inline(always)]
#[track_caller]
pub fn warp_exclusive_scan<T: ShuffleValue>(value: T, identity: T, op: impl Fn(T, T) -> T) -> T {
    let lanes = WarpLanes::here();
    let inclusive = lanes.inclusive_scan(value, &op);
    lanes.shift_up(inclusive, identity)
}

/// `value` of lane `src_lane` of this warp, in every lane (`__shfl_sync(mask, value, src_lane)`
/// with the mask of the existing lanes).
///
/// Every existing lane of the warp must call it with the same `src_lane`.
///
/// # Panics
/// When lane `src_lane` does not exist (`src_lane >= warp_lane_count()`): a kernel panic at the
/// line of the call, naming the lane and the lanes that exist on the simulator.
#[inline(always)]
#[track_caller]
pub fn warp_broadcast<T: ShuffleValue>(value: T, src_lane: u32) -> T {
    let lanes = WarpLanes::here();
    if src_lane >= lanes.count {
        no_such_lane(src_lane, lanes.count);
    }
    shfl_sync(lanes.mask, value, src_lane)
}

/// The panic of [`warp_broadcast`] from a lane that does not exist.
#[cold]
#[inline(never)]
#[track_caller]
fn no_such_lane(src_lane: u32, count: u32) -> ! {
    // The GPU records static messages only (a formatted one costs 84 KB of code and reaches the
    // host as a generic text), so the numbers are in the simulator's message alone.
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (src_lane, count);
        panic!("warp_broadcast: the source lane is not a lane of this warp");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "warp_broadcast: the source lane is not a lane of this warp: lane {src_lane}, but the warp has lanes 0 to {}",
        count - 1
    );
}
