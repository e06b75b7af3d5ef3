//! Block collectives: reduce, inclusive and exclusive scan, and broadcast over the threads of a
//! block (CUB's `BlockReduce` and `BlockScan` with warp reductions/scans), for any block size up
//! to 1024 threads and any shape, in the order of [`thread_rank`].
//!
//! ```ignore
//! #[kernel]
//! pub fn block_sums(input: &[u32], sums: &mut [u32]) {
//!     let mut scratch = shared_array!(u32; BLOCK_SCRATCH_LEN);
//!     let i = grid!(1);
//!     let value = if i < input.len() { input[i] } else { 0 };
//!     let total = block_reduce(&mut scratch, value, |a, b| a.wrapping_add(b));
//!     if thread_idx().x == 0 {
//!         sums[block_idx().x as usize] = total;
//!     }
//! }
//! ```
//!
//! # Scratch
//! The warps exchange their partial results through a shared-memory array the kernel declares
//! and lends to the collective: a [`SharedArray`](crate::SharedArray) (`shared_array!(T;
//! BLOCK_SCRATCH_LEN)`, enough for every block size) or a
//! [`SharedSlice`](crate::SharedSlice) of dynamic shared memory (generic kernels: a static
//! shared array cannot depend on a type parameter). The reduce and the scans need one element
//! per warp of the block (`block_threads.div_ceil(32)`, [`block_scratch_len`]), the broadcast
//! one. A smaller scratch is a kernel panic at the line of the call: "block collective scratch
//! too small", with the needed and the given sizes on the simulator. A block of one warp does
//! not touch the scratch.
//!
//! Each collective ends with a barrier after its last read of the scratch, so the same scratch
//! can be lent to the next collective right away.
//!
//! # Order and the operator
//! `op` must be associative; it need not be commutative. Each warp combines its lanes with the
//! trees of [`crate::warp_collectives`], then every thread folds the warp results left to right
//! (warp 0 first): the order of combination is fixed, the same on both backends, so a float sum
//! is deterministic but may differ in rounding from a left-to-right sum.
//!
//! # Calling
//! Every thread of the block must call the collective (with the same scratch, and for the
//! broadcast the same source): on the simulator a thread that does not is a divergent barrier
//! (or divergent warp operation) fault naming the line of the call, on a GPU a hang or garbage.

use crate::index::{block_dim, thread_rank};
use crate::shared::{Shape, Shared};
use crate::sync::syncthreads;
use crate::warp::{ShuffleValue, WARP_SIZE, shfl_sync};
use crate::warp_collectives::WarpLanes;

/// The most threads a block can have (CUDA's limit on every architecture since sm_20).
pub const MAX_BLOCK_THREADS: u32 = 1024;

/// A scratch length enough for every block collective at every block size: one element per warp
/// of the largest block (`MAX_BLOCK_THREADS / WARP_SIZE`, 32).
pub const BLOCK_SCRATCH_LEN: usize = (MAX_BLOCK_THREADS / WARP_SIZE) as usize;

/// The scratch length the reduce and the scans need for a block of `block_threads` threads: one
/// element per warp.
pub const fn block_scratch_len(block_threads: u32) -> usize {
    block_threads.div_ceil(WARP_SIZE) as usize
}

/// The shape of this thread's block, as the collectives see it.
#[derive(Clone, Copy)]
struct BlockLanes {
    /// The threads of the block.
    threads: u32,
    /// This thread's linear index ([`thread_rank`]).
    rank: u32,
    /// This thread's warp.
    warp: u32,
    /// How many warps the block has.
    warps: u32,
    /// This thread's lanes.
    lanes: WarpLanes,
}

impl BlockLanes {
    /// This thread's block.
    #[inline(always)]
    fn here() -> Self {
        let d = block_dim();
        let threads = d.x * d.y * d.z;
        let rank = thread_rank();
        BlockLanes {
            threads,
            rank,
            warp: rank / WARP_SIZE,
            warps: threads.div_ceil(WARP_SIZE),
            lanes: WarpLanes::here(),
        }
    }
}

/// Stops the thread when `scratch` has fewer than `needed` elements.
#[inline(always)]
#[track_caller]
fn check_scratch<T, S: Shape>(scratch: &Shared<T, S>, needed: u32, threads: u32, what: &str) {
    if scratch.len() < needed as usize {
        scratch_too_small(what, scratch.len(), needed, threads);
    }
}

/// The panic of a scratch with fewer than `needed` elements.
#[cold]
#[inline(never)]
#[track_caller]
fn scratch_too_small(what: &str, len: usize, needed: u32, threads: u32) -> ! {
    // The GPU records static messages only (a formatted one costs 84 KB of code and reaches the
    // host as a generic text), so the numbers are in the simulator's message alone.
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (what, len, needed, threads);
        panic!(
            "block collective scratch too small: block_reduce and the scans need one element per warp of the block (BLOCK_SCRATCH_LEN, 32, fits every block), block_broadcast one"
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "block collective scratch too small: {what} on a block of {threads} threads needs {needed} elements, the scratch has {len} (BLOCK_SCRATCH_LEN, 32, fits every block)"
    );
}

/// Element `index` of the scratch, checked in bounds by [`check_scratch`] before.
///
/// # Safety
/// `index < scratch.len()`, and the element was written before the last barrier.
#[inline(always)]
#[track_caller]
unsafe fn read<T: Copy, S: Shape<Index = usize>>(scratch: &Shared<T, S>, index: u32) -> T {
    // SAFETY: the caller's promise.
    unsafe { scratch.get_unchecked(index as usize) }
}

/// Writes element `index` of the scratch.
///
/// # Safety
/// `index < scratch.len()`.
#[inline(always)]
#[track_caller]
unsafe fn write<T, S: Shape<Index = usize>>(scratch: &mut Shared<T, S>, index: u32, value: T) {
    // SAFETY: the caller's promise.
    unsafe { scratch.set_unchecked(index as usize, value) }
}

/// The warp results of a block: each warp's result (`last` lane's `value`) goes to
/// `scratch[warp]`, then every thread folds them left to right. Returns (the fold of the warps
/// before this thread's, the fold of all), the first being meaningless in warp 0. Two barriers.
///
/// # Safety
/// `scratch` has at least `block.warps` elements.
#[inline(always)]
#[track_caller]
unsafe fn exchange_warp_results<T: Copy, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    block: BlockLanes,
    last: u32,
    value: T,
    op: &impl Fn(T, T) -> T,
) -> (T, T) {
    if block.lanes.lane == last {
        // SAFETY: `block.warp < block.warps <= scratch.len()` (the caller's promise).
        unsafe { write(scratch, block.warp, value) };
    }
    syncthreads();
    // SAFETY: every index is below `block.warps`, and each warp wrote its element before the
    // barrier.
    let mut running = unsafe { read(scratch, 0) };
    let mut before = running;
    for warp in 1..block.warps {
        if warp == block.warp {
            before = running;
        }
        // SAFETY: as above.
        running = op(running, unsafe { read(scratch, warp) });
    }
    // The scratch is free again once every thread has read it.
    syncthreads();
    (before, running)
}

/// `op` over `value` of every thread of the block, in [`thread_rank`] order; every thread gets
/// the result (CUB's `BlockReduce::Reduce`, but broadcast).
///
/// `scratch` needs one element per warp ([`block_scratch_len`]); see the
/// [module documentation](self) for the order of combination and the calling rules.
///
/// # Panics
/// When `scratch` is too small for the block.
#[inline(always)]
#[track_caller]
pub fn block_reduce<T: ShuffleValue, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    value: T,
    op: impl Fn(T, T) -> T,
) -> T {
    let block = BlockLanes::here();
    let warp_total = block.lanes.reduce_to_first(value, &op);
    if block.warps == 1 {
        return shfl_sync(block.lanes.mask, warp_total, 0);
    }
    check_scratch(scratch, block.warps, block.threads, "block_reduce");
    // SAFETY: checked just above.
    let (_, total) = unsafe { exchange_warp_results(scratch, block, 0, warp_total, &op) };
    total
}

/// `op` over `value` of threads `0 ..= thread_rank()`, in rank order (CUB's
/// `BlockScan::InclusiveScan`): thread `i` gets `v0 op v1 op ... op vi`.
///
/// `scratch` needs one element per warp ([`block_scratch_len`]); `op` must be associative, not
/// necessarily commutative.
///
/// # Panics
/// When `scratch` is too small for the block.
#[inline(always)]
#[track_caller]
pub fn block_inclusive_scan<T: ShuffleValue, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    value: T,
    op: impl Fn(T, T) -> T,
) -> T {
    let block = BlockLanes::here();
    let inclusive = block.lanes.inclusive_scan(value, &op);
    if block.warps == 1 {
        return inclusive;
    }
    check_scratch(scratch, block.warps, block.threads, "block_inclusive_scan");
    let last = block.lanes.count - 1;
    // SAFETY: checked just above.
    let (before, _) = unsafe { exchange_warp_results(scratch, block, last, inclusive, &op) };
    if block.warp == 0 {
        inclusive
    } else {
        op(before, inclusive)
    }
}

/// `op` over `value` of threads `0 .. thread_rank()`, in rank order, and over the whole block
/// (CUB's `BlockScan::ExclusiveScan` with its block aggregate): returns `(prefix, aggregate)`,
/// where thread 0's prefix is `identity` and thread `i > 0`'s is `v0 op ... op v(i-1)`, and
/// every thread's aggregate is `v0 op ... op v(n-1)`.
///
/// `identity` is only returned, never combined. `scratch` needs one element per warp
/// ([`block_scratch_len`]); `op` must be associative, not necessarily commutative.
///
/// ```ignore
/// // Stream compaction: where each thread writes its kept items, and how many the block keeps.
/// let (offset, kept) = block_exclusive_scan(&mut scratch, count, 0u32, |a, b| a + b);
/// ```
///
/// # Panics
/// When `scratch` is too small for the block.
#[inline(always)]
#[track_caller]
pub fn block_exclusive_scan<T: ShuffleValue, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    value: T,
    identity: T,
    op: impl Fn(T, T) -> T,
) -> (T, T) {
    let block = BlockLanes::here();
    let lanes = block.lanes;
    let inclusive = lanes.inclusive_scan(value, &op);
    let within_warp = lanes.shift_up(inclusive, identity);
    if block.warps == 1 {
        return (
            within_warp,
            shfl_sync(lanes.mask, inclusive, lanes.count - 1),
        );
    }
    check_scratch(scratch, block.warps, block.threads, "block_exclusive_scan");
    let last = lanes.count - 1;
    // SAFETY: checked just above.
    let (before, aggregate) =
        unsafe { exchange_warp_results(scratch, block, last, inclusive, &op) };
    let prefix = match (block.warp, lanes.lane) {
        (0, _) => within_warp,
        (_, 0) => before,
        _ => op(before, within_warp),
    };
    (prefix, aggregate)
}

/// `value` of the thread of rank `src_thread` ([`thread_rank`]), in every thread of the block,
/// through `scratch[0]`. Works for any `Copy` type.
///
/// Every thread of the block must call it with the same `src_thread`. Two barriers.
///
/// # Panics
/// When `src_thread` is not a thread of the block (`src_thread >= block threads`; the simulator
/// names both) or `scratch` is empty.
#[inline(always)]
#[track_caller]
pub fn block_broadcast<T: Copy, S: Shape<Index = usize>>(
    scratch: &mut Shared<T, S>,
    value: T,
    src_thread: u32,
) -> T {
    let block = BlockLanes::here();
    if src_thread >= block.threads {
        no_such_thread(src_thread, block.threads);
    }
    check_scratch(scratch, 1, block.threads, "block_broadcast");
    if block.rank == src_thread {
        // SAFETY: the scratch has an element (checked above).
        unsafe { write(scratch, 0, value) };
    }
    syncthreads();
    // SAFETY: in bounds, written by `src_thread` before the barrier.
    let value = unsafe { read(scratch, 0) };
    syncthreads();
    value
}

/// The panic of [`block_broadcast`] from a thread that does not exist.
#[cold]
#[inline(never)]
#[track_caller]
fn no_such_thread(src_thread: u32, threads: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (src_thread, threads);
        panic!("block_broadcast: the source thread is not a thread of this block");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "block_broadcast: the source thread is not a thread of this block: rank {src_thread}, but the block has ranks 0 to {}",
        threads - 1
    );
}
