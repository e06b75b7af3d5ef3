//! Decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled
//! Look-back", 2016): the tile state through which the blocks of a single-pass scan hand their
//! prefixes to each other, CUB's `ScanTileState` and `TilePrefixCallbackOp`.
//!
//! ```ignore
//! let mut tiles = TileState::new(state, aggregates, inclusives);
//! let tile = /* thread 0: */ tiles.take_tile();   // broadcast it to the block
//! // ... scan the tile; `aggregate` is its total ...
//! if warp_id() == 0 {
//!     let prefix = if tile == 0 {
//!         if lane_id() == 0 { tiles.publish_inclusive(0, aggregate) }
//!         identity
//!     } else {
//!         if lane_id() == 0 { tiles.publish_aggregate(tile, aggregate) }
//!         let prefix = tiles.look_back(tile, identity, op);
//!         if lane_id() == 0 { tiles.publish_inclusive(tile, op(prefix, aggregate)) }
//!         prefix
//!     };
//! }
//! ```
//!
//! # The state
//! Three global arrays: `state[0]` counts the tiles taken, `state[1 + t]` is tile `t`'s 64-bit
//! status word: its tag in the high 32 bits and, for 4-byte elements, the published value's bits
//! in the low 32 (CUB's packed `ScanTileState`); 8-byte elements publish their values in
//! `aggregates[t]` and `inclusives[t]` (both may be empty for 4-byte elements). The tag is
//! `epoch << 2 | status`, the status [`TILE_AGGREGATE`] or [`TILE_INCLUSIVE`]; a word whose tag
//! has another epoch, or the status [`TILE_INVALID`], is invalid.
//!
//! With [`TileState::new`] the epoch is 0: every word must be 0 and the counter 0 before the
//! scan (a kernel of its own zeroes `state`, as CUB's `ScanInitKernel` does). With
//! [`TileState::with_epoch`] a state zeroed once serves many scans, one after another, each with
//! the next epoch (1, 2, ... up to [`MAX_EPOCH`]): what earlier scans published carries an older
//! epoch and reads as invalid, so no scan but the first needs the zeroing kernel.
//!
//! # Numbering the tiles
//! A tile waits for every tile of smaller number, so the numbering decides whether the
//! look-back ends. [`TileState::take_tile`] numbers tiles in the order blocks start: a tile only
//! ever waits for tiles whose blocks are already running, so the look-back always ends, whatever
//! order the blocks are dispatched in. Numbering tiles by `block_idx().x` (CUB's `DeviceScan`
//! does) saves the atomic and its broadcast to the block, and ends only because NVIDIA's block
//! scheduler dispatches the blocks of a one-dimensional grid in increasing index, an order the
//! CUDA programming model does not promise; `kernels_algorithms::scan` numbers by block index
//! and says why in its documentation. On the simulator, which runs blocks one after another in
//! increasing index, every predecessor has finished either way.
//!
//! # Ordering
//! A 4-byte element's value travels in its status word: one relaxed 64-bit store publishes
//! both, one relaxed 64-bit load reads both, and no fence is needed. An 8-byte value is stored
//! before its status, the status with release ordering; a reader loads the status with acquire
//! ordering, then the value (at device scope, atomically: [`atomic_store`]/[`atomic_load`]).
//! Aggregates and inclusive prefixes have separate arrays, so a reader never takes one for the
//! other when a tile moves from one status to the next.
//!
//! # The look-back
//! [`TileState::look_back`] runs on the 32 lanes of one warp: lane `l` waits until tile
//! `tile - 1 - l` has published something, the window's values are combined (right to left,
//! the order of the tiles) from the nearest tile with an inclusive prefix, and only if the window
//! had none does the warp move 32 tiles further back.

use crate::atomic::{Atomic, Ordering, atomic_load, atomic_store};
use crate::warp::WARP_SIZE;
use crate::warp::{FULL_MASK, ShuffleValue, ballot_sync, lane_id};
use crate::warp_collectives::{warp_lane_count, warp_reduce};

/// Tile status: nothing published yet.
pub const TILE_INVALID: u32 = 0;
/// Tile status: the tile's aggregate is in `aggregates`.
pub const TILE_AGGREGATE: u32 = 1;
/// Tile status: the tile's inclusive prefix is in `inclusives`.
pub const TILE_INCLUSIVE: u32 = 2;
/// The largest epoch of [`TileState::with_epoch`]: the tag holds the epoch in 30 bits.
pub const MAX_EPOCH: u32 = (1 << 30) - 1;

/// The tile state of one single-pass scan in global memory (see the
/// [module documentation](self)).
pub struct TileState<'a, T> {
    /// `[counter, status word of tile 0, status word of tile 1, ...]`.
    state: &'a mut [u64],
    /// The tiles' aggregates.
    aggregates: &'a mut [T],
    /// The tiles' inclusive prefixes.
    inclusives: &'a mut [T],
    /// The epoch's part of the tags, `epoch << 2`.
    epoch_tag: u32,
}

impl<'a, T: ShuffleValue + Atomic> TileState<'a, T> {
    /// Whether values travel in the status words (4-byte elements).
    const PACKED: bool = size_of::<T>() == 4;

    /// The tile state over a kernel's slices: `state` holds the counter then one status word
    /// per tile, `aggregates` and `inclusives` one value per tile for 8-byte elements (for
    /// 4-byte ones they are not used and may be empty).
    #[inline(always)]
    pub fn new(state: &'a mut [u64], aggregates: &'a mut [T], inclusives: &'a mut [T]) -> Self {
        Self::with_epoch(state, aggregates, inclusives, 0)
    }

    /// [`TileState::new`] for a scan of epoch `epoch`: status words published with another
    /// epoch read as invalid (see the [module documentation](self)).
    ///
    /// # Panics
    /// When `epoch` is above [`MAX_EPOCH`] (it would alias an older epoch).
    #[inline(always)]
    #[track_caller]
    pub fn with_epoch(
        state: &'a mut [u64],
        aggregates: &'a mut [T],
        inclusives: &'a mut [T],
        epoch: u32,
    ) -> Self {
        if epoch > MAX_EPOCH {
            panic!("TileState::with_epoch: the epoch is above MAX_EPOCH (2^30 - 1)");
        }
        TileState {
            state,
            aggregates,
            inclusives,
            epoch_tag: epoch << 2,
        }
    }

    /// Takes the next tile number (one thread per block; broadcast it to the others).
    ///
    /// # Panics
    /// When `state` is empty.
    #[inline(always)]
    #[track_caller]
    pub fn take_tile(&mut self) -> usize {
        let counter: *mut u64 = &mut self.state[0];
        // SAFETY: an in-bounds element of a global slice (indexing checked it); every
        // concurrent access to it is atomic.
        unsafe { crate::atomic::atomic_add(counter, 1, Ordering::Relaxed) as usize }
    }

    /// A pointer to tile `tile`'s status word.
    #[inline(always)]
    #[track_caller]
    fn status(&mut self, tile: usize) -> *mut u64 {
        &mut self.state[1 + tile]
    }

    /// Publishes `value` with `status` for tile `tile`: in the status word for 4-byte elements,
    /// else in `aggregates` or `inclusives` and then the status with release ordering.
    #[inline(always)]
    #[track_caller]
    fn publish(&mut self, tile: usize, value: T, status: u32) {
        let word = self.status(tile);
        let high = u64::from(self.epoch_tag | status) << 32;
        if Self::PACKED {
            // SAFETY: `T` has 4 bytes (`PACKED`), so its bits are a `u32`.
            let bits = unsafe { core::mem::transmute_copy::<T, u32>(&value) };
            // SAFETY: an in-bounds element of a global slice (indexing checked it); every
            // concurrent access to it is atomic.
            unsafe { atomic_store(word, high | u64::from(bits), Ordering::Relaxed) };
            return;
        }
        let slot: *mut T = if status == TILE_INCLUSIVE {
            &mut self.inclusives[tile]
        } else {
            &mut self.aggregates[tile]
        };
        // SAFETY: both pointers come from in-bounds elements of global slices (indexing
        // checked them); every concurrent access to them goes through these atomics.
        unsafe {
            atomic_store(slot, value, Ordering::Relaxed);
            atomic_store(word, high, Ordering::Release);
        }
    }

    /// Publishes `aggregate` as tile `tile`'s aggregate (one thread).
    ///
    /// # Panics
    /// When `tile` is not a tile of the state.
    #[inline(always)]
    #[track_caller]
    pub fn publish_aggregate(&mut self, tile: usize, aggregate: T) {
        self.publish(tile, aggregate, TILE_AGGREGATE);
    }

    /// Publishes `inclusive` as tile `tile`'s inclusive prefix (one thread).
    ///
    /// # Panics
    /// When `tile` is not a tile of the state.
    #[inline(always)]
    #[track_caller]
    pub fn publish_inclusive(&mut self, tile: usize, inclusive: T) {
        self.publish(tile, inclusive, TILE_INCLUSIVE);
    }

    /// Waits until tile `tile` has published something; returns (whether it is its inclusive
    /// prefix, the value).
    #[inline(always)]
    #[track_caller]
    fn wait_for(&mut self, tile: usize) -> (bool, T) {
        let word = self.status(tile);
        let order = if Self::PACKED {
            Ordering::Relaxed
        } else {
            Ordering::Acquire
        };
        let (status, bits) = loop {
            // SAFETY: an in-bounds element of a global slice, accessed only atomically.
            let loaded = unsafe { atomic_load(word, order) };
            let tag = (loaded >> 32) as u32;
            // This epoch's statuses are the tags `epoch_tag + 1` and `epoch_tag + 2`.
            let status = tag.wrapping_sub(self.epoch_tag);
            if status != TILE_INVALID && status <= TILE_INCLUSIVE {
                break (status, loaded as u32);
            }
        };
        if Self::PACKED {
            // SAFETY: `T` has 4 bytes (`PACKED`); the bits are a value a tile published.
            let value = unsafe { core::mem::transmute_copy::<u32, T>(&bits) };
            return (status == TILE_INCLUSIVE, value);
        }
        let slot: *mut T = if status == TILE_INCLUSIVE {
            &mut self.inclusives[tile]
        } else {
            &mut self.aggregates[tile]
        };
        // SAFETY: as above; the value was stored before the status this thread acquired.
        let value = unsafe { atomic_load(slot, Ordering::Relaxed) };
        (status == TILE_INCLUSIVE, value)
    }

    /// The exclusive prefix of tile `tile`: `op` over every tile before it, from the nearest
    /// inclusive prefix on (`identity` for tile 0). Called by the 32 lanes of one full warp;
    /// every lane gets the prefix. `op` must be associative; `identity` its identity.
    ///
    /// # Panics
    /// When a tile before `tile` is not a tile of the state, or the calling warp is not a full
    /// one of 32 lanes (the window of 32 tiles would skip the missing lanes' tiles).
    #[inline(always)]
    #[track_caller]
    pub fn look_back(&mut self, tile: usize, identity: T, op: impl Fn(T, T) -> T) -> T {
        if warp_lane_count() != WARP_SIZE {
            panic!(
                "TileState::look_back needs a full warp of 32 lanes (a block of a multiple of 32 threads)"
            );
        }
        let lane = lane_id() as usize;
        let mut exclusive = identity;
        // The window is tiles `end - 32 .. end`, lane `l` on tile `end - 1 - l`.
        let mut end = tile;
        while end > 0 {
            let (inclusive, value) = match (end - 1).checked_sub(lane) {
                Some(predecessor) => self.wait_for(predecessor),
                // Before tile 0: nothing, as if an inclusive prefix of the identity.
                None => (true, identity),
            };
            let inclusive_lanes = ballot_sync(FULL_MASK, inclusive);
            let stop = if inclusive_lanes == 0 {
                32
            } else {
                inclusive_lanes.trailing_zeros() as usize
            };
            let contribution = if lane <= stop { value } else { identity };
            // Higher lanes hold earlier tiles: combine right to left.
            let window = warp_reduce(contribution, |a, b| op(b, a));
            exclusive = op(window, exclusive);
            if inclusive_lanes != 0 {
                break;
            }
            end -= 32;
        }
        exclusive
    }
}
