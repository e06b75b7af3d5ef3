//! Block-wide radix rank: the stable position of each of a block's keys when the block's keys are
//! sorted by one digit (CUB's `BlockRadixRankMatchEarlyCounts`), the step of a radix sort that
//! decides where each key of a tile goes.
//!
//! ```ignore
//! // 256 threads, 16 keys each, 8-bit digits: where each key lands in its tile, sorted by digit.
//! let mut counters = dynamic_shared_array::<u32>(); // radix_rank_counters_len(8, 256) elements
//! let mut scan = shared_array!(u32; BLOCK_SCRATCH_LEN);
//! let digits: [u32; 16] = core::array::from_fn(|i| (keys[i] >> shift) & 0xff);
//! let ranks = block_radix_rank(&mut counters, &mut scan, digits, 8);
//! let start_of_digit_7 = block_radix_digit_start(&counters, 7);
//! ```
//!
//! # The order of the keys
//! Each thread holds `ITEMS` keys. The ranking is stable in the *warp-striped* order
//! ([`warp_striped_index`]): the keys of warp 0 come before those of warp 1; within a warp, item 0
//! of every lane comes before item 1 of every lane; within an item, lanes go up. Thread `(warp w,
//! lane l)`'s item `i` is number `w * 32 * ITEMS + i * lanes + l` of the block, `lanes` being the
//! lanes of its warp (32 but in the partial last warp of a block). Loading a tile with that index
//! (`tile[warp_striped_index(i)]`) reads it coalesced and makes the ranks the stable positions of
//! the tile's keys sorted by digit. A ragged last tile pads with the largest digit: padding that
//! comes after every real key in the order ranks after all of them.
//!
//! # The algorithm ("early counts")
//! The counters are laid out digit-major: warp `w`'s counter of digit `d` is `d * stride + w`,
//! the stride being the warps plus one (the digit's start) rounded up to an odd number, so that
//! the counters of 32 consecutive digits lie in 32 different banks of shared memory.
//! 1. Each warp zeroes its own counters and counts its keys per digit, one shared atomic per key
//!    (no ordering needed: a count).
//! 2. Each thread takes its digits (thread `t` digit `t` when the block has at least as many
//!    threads as digits), sums the warps' counts of each (the tile's count of that digit,
//!    handed to [`block_radix_rank_counted`]'s callback at once, before any ranking: a radix
//!    sort publishes it for the next tiles this early), and an exclusive scan over the block
//!    turns the counts into each digit's start and each `(digit, warp)` counter into the first
//!    place of that warp's keys of that digit.
//! 3. Item by item, the lanes of a warp find the others with the same digit by `radix_bits`
//!    ballots (a match); the highest of them adds the group's size to the warp's counter of
//!    that digit with one shared atomic and shuffles the old value to the group; a key's rank is
//!    that value plus the lanes of its group below it.
//!
//! Four barriers (one of them the scan's), `ITEMS` shared atomics per thread plus one per group
//! of equal digits, and `ITEMS * (radix_bits + 1)` warp operations (ballots and a shuffle) per
//! warp.
//!
//! # Scratch
//! `counters` needs [`radix_rank_counters_len`]`(radix_bits, block_threads)` elements
//! (`2^radix_bits + 1` rows of the stride), `scan` one per warp as the block scans
//! ([`block_scratch_len`](crate::block_collectives::block_scratch_len); `BLOCK_SCRATCH_LEN` fits
//! every block). After the call, and until the next barrier that precedes a write to them,
//! `counters` holds the start of each digit in the sorted tile: [`block_radix_digit_start`]. The
//! rank begins with a barrier, so the same counters can be passed to the next rank right away.
//!
//! # Calling
//! Every thread of the block must call it with the same scratch and `radix_bits`. On the
//! simulator a thread that does not is a divergent barrier fault at the line of the call; a
//! scratch too small, a `radix_bits` outside 1 to 8, a digit of `radix_bits` or more bits or (for
//! [`block_radix_rank_counted`]) a block of another size than its `BLOCK_THREADS` is a kernel
//! panic naming the values (on the GPU, the same panic with a fixed message).

use crate::block_collectives::block_exclusive_scan;
use crate::index::{block_dim, thread_rank};
use crate::shared::{Shape, Shared};
use crate::sync::{syncthreads, syncwarp};
use crate::warp::{FULL_MASK, WARP_SIZE, ballot_sync, shfl_sync, shfl_up_sync};
use crate::warp_collectives::WarpLanes;

/// The most bits a digit of [`block_radix_rank`] may have (256 counters per warp).
pub const MAX_RADIX_BITS: u32 = 8;

/// The counters [`block_radix_rank`] needs for digits of `radix_bits` bits in a block of
/// `block_threads` threads: `2^radix_bits + 1` rows (one per digit and one for the block's
/// total) of one counter per warp, one for the digit's start, and one more where that makes the
/// row even (so that the counters of consecutive digits fall in different banks).
pub const fn radix_rank_counters_len(radix_bits: u32, block_threads: u32) -> usize {
    ((1usize << radix_bits) + 1) * counter_stride(block_threads.div_ceil(WARP_SIZE)) as usize
}

/// The distance between the counters of consecutive digits for `warps` warps: one per warp and
/// one for the digit's start, rounded up to an odd number. The counters of one digit are
/// consecutive; an odd stride puts those of 32 consecutive digits in 32 different banks, where
/// a stride of 8 (8 warps) put them in 4 and serialized a warp's accesses up to 8-way.
const fn counter_stride(warps: u32) -> u32 {
    (warps + 1) | 1
}

/// The most items per thread [`for_each_item`] (and so [`block_radix_rank`]) takes.
pub const MAX_ITEMS: usize = 32;

/// Calls `f(0)`, `f(1)`, ... `f(ITEMS - 1)`, unrolled: each call gets a constant index, so a
/// per-thread array indexed by it stays in registers on the GPU (a loop that LLVM does not
/// unroll, because its body is large, puts the array in local memory). `ITEMS` is at most
/// [`MAX_ITEMS`]; more is a compile error.
#[inline(always)]
pub fn for_each_item<const ITEMS: usize>(mut f: impl FnMut(usize)) {
    const {
        assert!(
            ITEMS <= MAX_ITEMS,
            "for_each_item takes at most 32 items per thread"
        )
    };
    macro_rules! calls {
        ($($k:literal)*) => {$(
            if $k < ITEMS {
                f($k);
            }
        )*};
    }
    calls!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
}

/// The position of this thread's item `item` (of `items` per thread) in the warp-striped order
/// of its block (see the [module documentation](self)): `warp * 32 * items + item * lanes +
/// lane`, `lanes` the lanes of this thread's warp.
#[inline(always)]
pub fn warp_striped_index(item: usize, items: usize) -> usize {
    let lanes = WarpLanes::here();
    let warp = (thread_rank() / WARP_SIZE) as usize;
    warp * WARP_SIZE as usize * items + item * lanes.count as usize + lanes.lane as usize
}

/// The stable rank of each of this thread's `ITEMS` digits among the block's digits (in the
/// warp-striped order of the [module documentation](self)): the number of digits of the block
/// that are smaller, plus those equal to it that come earlier. Every digit must be below
/// `2^radix_bits`, and `radix_bits` between 1 and [`MAX_RADIX_BITS`]. Any block size.
///
/// `counters` needs [`radix_rank_counters_len`] elements and `scan` one per warp; afterwards
/// [`block_radix_digit_start`] reads where each digit starts.
///
/// `ITEMS` is at most [`MAX_ITEMS`] (a compile error otherwise).
///
/// # Panics
/// When a scratch is too small, `radix_bits` is out of range or a digit has too many bits.
#[inline(always)]
#[track_caller]
pub fn block_radix_rank<const ITEMS: usize, S: Shape<Index = usize>, T: Shape<Index = usize>>(
    counters: &mut Shared<u32, S>,
    scan: &mut Shared<u32, T>,
    digits: [u32; ITEMS],
    radix_bits: u32,
) -> [u32; ITEMS] {
    let d = block_dim();
    let threads = d.x * d.y * d.z;
    // In a block of whole warps the lane mask is the constant full mask: with a mask known only
    // at run time, ptxas wraps the ballots and the shuffles in convergence checks (a
    // `REDUX.OR` and a branch), 8% of the instructions of a radix sort's pass.
    if threads.is_multiple_of(WARP_SIZE) {
        let block = RankBlock::whole_warps(threads);
        rank_in_block(block, counters, scan, digits, radix_bits, |_, _| {})
    } else {
        let block = RankBlock::any(threads);
        rank_in_block(block, counters, scan, digits, radix_bits, |_, _| {})
    }
}

/// [`block_radix_rank`] on a block of `BLOCK_THREADS` threads (a multiple of 32), known at
/// compile time so that its loops unroll, calling `on_count(digit, count)` with the block's
/// count of each digit as soon as the counts are known, before the ranking (step 2 of the
/// [module documentation](self)): thread `t` gets the call of digits `t * per .. (t + 1) *
/// per` (`per = 2^radix_bits / BLOCK_THREADS` rounded up; thread `t` digit `t` when the block
/// has at least `2^radix_bits` threads). Every thread of the block calls `on_count` at the same
/// point, between two barriers.
///
/// ```ignore
/// // A radix sort's pass publishes its tile's digit counts for the later tiles early.
/// let ranks = block_radix_rank_counted::<256, 16, _, _>(&mut counters, &mut scan, digits, 8,
///     |digit, count| publish(tile, digit, count));
/// ```
///
/// # Panics
/// As [`block_radix_rank`], and when the block does not have `BLOCK_THREADS` threads.
#[inline(always)]
#[track_caller]
pub fn block_radix_rank_counted<
    const BLOCK_THREADS: u32,
    const ITEMS: usize,
    S: Shape<Index = usize>,
    T: Shape<Index = usize>,
>(
    counters: &mut Shared<u32, S>,
    scan: &mut Shared<u32, T>,
    digits: [u32; ITEMS],
    radix_bits: u32,
    on_count: impl FnMut(u32, u32),
) -> [u32; ITEMS] {
    const {
        assert!(
            BLOCK_THREADS > 0 && BLOCK_THREADS <= 1024 && BLOCK_THREADS.is_multiple_of(WARP_SIZE),
            "block_radix_rank_counted: BLOCK_THREADS must be a multiple of 32 up to 1024"
        )
    };
    let d = block_dim();
    let threads = d.x * d.y * d.z;
    if threads != BLOCK_THREADS {
        wrong_block_size(threads, BLOCK_THREADS);
    }
    let block = RankBlock::whole_warps(BLOCK_THREADS);
    rank_in_block(block, counters, scan, digits, radix_bits, on_count)
}

/// The block a rank runs on, as the rank sees it: constants where the caller knows them.
#[derive(Clone, Copy)]
struct RankBlock {
    /// The threads of the block.
    threads: u32,
    /// Its warps.
    warps: u32,
    /// The distance between the counters of consecutive digits ([`counter_stride`]).
    stride: u32,
    /// This thread's linear index.
    rank: u32,
    /// This thread's warp.
    warp: u32,
    /// This thread's lane.
    lane: u32,
    /// The lanes of this thread's warp.
    lanes: u32,
    /// Their mask: the constant full mask in a block of whole warps.
    mask: u32,
    /// Whether every warp is whole (the scans then need no lane mask).
    whole_warps: bool,
}

impl RankBlock {
    /// A block of `threads` threads, a multiple of 32.
    #[inline(always)]
    fn whole_warps(threads: u32) -> Self {
        let rank = thread_rank();
        let warps = threads / WARP_SIZE;
        RankBlock {
            threads,
            warps,
            stride: counter_stride(warps),
            rank,
            warp: rank / WARP_SIZE,
            lane: rank % WARP_SIZE,
            lanes: WARP_SIZE,
            mask: FULL_MASK,
            whole_warps: true,
        }
    }

    /// A block of `threads` threads, any number.
    #[inline(always)]
    fn any(threads: u32) -> Self {
        let lanes = WarpLanes::here();
        let rank = thread_rank();
        let warps = threads.div_ceil(WARP_SIZE);
        RankBlock {
            threads,
            warps,
            stride: counter_stride(warps),
            rank,
            warp: rank / WARP_SIZE,
            lane: lanes.lane,
            lanes: lanes.count,
            mask: lanes.mask,
            whole_warps: false,
        }
    }
}

/// The rank of the [module documentation](self) on `block`.
#[inline(always)]
#[track_caller]
fn rank_in_block<const ITEMS: usize, S: Shape<Index = usize>, T: Shape<Index = usize>>(
    block: RankBlock,
    counters: &mut Shared<u32, S>,
    scan: &mut Shared<u32, T>,
    digits: [u32; ITEMS],
    radix_bits: u32,
    mut on_count: impl FnMut(u32, u32),
) -> [u32; ITEMS] {
    if radix_bits == 0 || radix_bits > MAX_RADIX_BITS {
        bad_radix_bits(radix_bits);
    }
    let radix = 1u32 << radix_bits;
    let stride = block.stride;
    let needed = (radix + 1) * stride;
    if counters.len() < needed as usize {
        counters_too_small(counters.len(), needed as usize, radix_bits, block.threads);
    }
    if block.whole_warps && scan.len() < block.warps as usize {
        scan_too_small(scan.len(), block.warps);
    }
    for_each_item::<ITEMS>(|i| {
        if digits[i] >> radix_bits != 0 {
            digit_too_large(digits[i], radix_bits);
        }
    });
    // Warp `w`'s counter of digit `d` is `d * stride + w`; every index below is under
    // `radix * stride + warps < needed <= counters.len()` (checked above, digits included).
    let column = block.warp;

    // The previous user of the counters (a rank, or the caller reading digit starts) is done.
    syncthreads();
    // 1. This warp's counts: its own column zeroed (no other warp touches it), then one atomic
    // per key.
    for k in 0..radix.div_ceil(block.lanes) {
        let digit = block.lane + k * block.lanes;
        if digit < radix {
            // SAFETY: `digit < radix`, so the index is in bounds (see `column`).
            unsafe { counters.set_unchecked((digit * stride + column) as usize, 0) };
        }
    }
    syncwarp(block.mask);
    for_each_item::<ITEMS>(|i| {
        counters.atomic_add((digits[i] * stride + column) as usize, 1);
    });
    syncthreads();

    // 2. Each digit's count (to `on_count`), then the exclusive scan over the digits: the
    // digit's start, and each `(digit, warp)` counter the first place of the warp's keys of it.
    let per = radix.div_ceil(block.threads);
    let first = block.rank * per;
    let mut sum = 0u32;
    for k in 0..per {
        let digit = first + k;
        if digit < radix {
            let mut count = 0u32;
            for warp in 0..block.warps {
                // SAFETY: `digit < radix` and `warp < warps` (see `column`); every warp
                // counted before the barrier.
                count += unsafe { counters.get_unchecked((digit * stride + warp) as usize) };
            }
            on_count(digit, count);
            sum += count;
        }
    }
    let (prefix, total) = if block.whole_warps {
        whole_warps_exclusive_sum(scan, sum, block)
    } else {
        block_exclusive_scan(scan, sum, 0, u32::wrapping_add)
    };
    let mut running = prefix;
    for k in 0..per {
        let digit = first + k;
        if digit < radix {
            let row = digit * stride;
            // SAFETY: as above (`row + warps < needed`); this thread alone touches the digit's
            // row in this phase.
            unsafe {
                counters.set_unchecked((row + block.warps) as usize, running);
                for warp in 0..block.warps {
                    let count = counters.get_unchecked((row + warp) as usize);
                    counters.set_unchecked((row + warp) as usize, running);
                    running += count;
                }
            }
        }
    }
    if block.rank == 0 {
        // SAFETY: `radix * stride + warps < needed`.
        unsafe { counters.set_unchecked((radix * stride + block.warps) as usize, total) };
    }
    syncthreads();

    // 3. The ranks, item by item in the warp-striped order: the group of lanes with this digit
    // takes its places from the warp's counter of the digit.
    let below = (1u32 << block.lane) - 1;
    let mut ranks = [0u32; ITEMS];
    for_each_item::<ITEMS>(|i| {
        let digit = digits[i];
        let mut peers = block.mask;
        // A constant trip count, so that the loop over the items unrolls and `ranks` stays in
        // registers; `radix_bits` is the same in every lane, so the ballots stay converged.
        for bit in 0..MAX_RADIX_BITS {
            if bit < radix_bits {
                let set = (digit >> bit) & 1 != 0;
                let vote = ballot_sync(block.mask, set);
                // The lanes that voted as this one. (Written `vote ^ (bit - 1)`, ptxas made 6
                // instructions of each bit instead of 4.)
                peers &= if set { vote } else { !vote };
            }
        }
        let leader = WARP_SIZE - 1 - peers.leading_zeros();
        let mut old = 0;
        if block.lane == leader {
            old = counters.atomic_add((digit * stride + column) as usize, peers.count_ones());
        }
        ranks[i] = shfl_sync(block.mask, old, leader) + (peers & below).count_ones();
    });
    ranks
}

/// The exclusive sum of `value` over a block of whole warps and the block's total, through
/// `scan` (one element per warp, checked by the caller). Leaves `scan` in use: the caller
/// passes a barrier before the next write to it.
#[inline(always)]
#[track_caller]
fn whole_warps_exclusive_sum<S: Shape<Index = usize>>(
    scan: &mut Shared<u32, S>,
    value: u32,
    block: RankBlock,
) -> (u32, u32) {
    let mut inclusive = value;
    let mut offset = 1;
    while offset < WARP_SIZE {
        let left = shfl_up_sync(FULL_MASK, inclusive, offset);
        if block.lane >= offset {
            inclusive += left;
        }
        offset *= 2;
    }
    if block.lane == WARP_SIZE - 1 {
        // SAFETY: `warp < warps <= scan.len()` (checked by the caller).
        unsafe { scan.set_unchecked(block.warp as usize, inclusive) };
    }
    syncthreads();
    let mut before = 0u32;
    let mut total = 0u32;
    for warp in 0..block.warps {
        // SAFETY: as above; every warp wrote its total before the barrier.
        let sum = unsafe { scan.get_unchecked(warp as usize) };
        if warp < block.warp {
            before += sum;
        }
        total += sum;
    }
    (before + inclusive - value, total)
}

/// Where `digit` starts in the block's keys sorted by digit, after a [`block_radix_rank`] on
/// `counters` (and before the next barrier that precedes a write to them): the number of the
/// block's keys with a smaller digit. `digit` may be `2^radix_bits`, which gives the number of
/// keys of the block (so the count of `digit` is `start(digit + 1) - start(digit)`).
///
/// # Panics
/// When `digit` is above `2^radix_bits` (an index out of bounds of `counters`).
#[inline(always)]
#[track_caller]
pub fn block_radix_digit_start<S: Shape<Index = usize>>(
    counters: &Shared<u32, S>,
    digit: u32,
) -> u32 {
    let d = block_dim();
    let warps = (d.x * d.y * d.z).div_ceil(WARP_SIZE);
    counters.get((digit * counter_stride(warps) + warps) as usize)
}
/// The panic of a `radix_bits` out of range.
#[cold]
#[inline(never)]
#[track_caller]
fn bad_radix_bits(radix_bits: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = radix_bits;
        panic!("block_radix_rank: radix_bits must be between 1 and 8");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!("block_radix_rank: radix_bits is {radix_bits}; it must be between 1 and 8");
}

/// The panic of counters too small for the block.
#[cold]
#[inline(never)]
#[track_caller]
fn counters_too_small(len: usize, needed: usize, radix_bits: u32, threads: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (len, needed, radix_bits, threads);
        panic!(
            "block_radix_rank: counters too small: it needs radix_rank_counters_len(radix_bits, block threads) elements"
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "block_radix_rank: counters too small: {radix_bits}-bit digits on a block of {threads} threads need {needed} elements (radix_rank_counters_len), the counters have {len}"
    );
}

/// The panic of a digit with more than `radix_bits` bits.
#[cold]
#[inline(never)]
#[track_caller]
fn digit_too_large(digit: u32, radix_bits: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (digit, radix_bits);
        panic!("block_radix_rank: a digit has more than radix_bits bits");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "block_radix_rank: digit {digit} has more than {radix_bits} bits (digits go up to {})",
        (1u32 << radix_bits) - 1
    );
}

/// The panic of a scan scratch with fewer elements than the block has warps.
#[cold]
#[inline(never)]
#[track_caller]
fn scan_too_small(len: usize, warps: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (len, warps);
        panic!(
            "block_radix_rank: scan scratch too small: it needs one element per warp (BLOCK_SCRATCH_LEN fits every block)"
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "block_radix_rank: scan scratch too small: a block of {warps} warps needs {warps} elements, the scratch has {len} (BLOCK_SCRATCH_LEN fits every block)"
    );
}

/// The panic of [`block_radix_rank_counted`] on a block of another size than its constant.
#[cold]
#[inline(never)]
#[track_caller]
fn wrong_block_size(threads: u32, expected: u32) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (threads, expected);
        panic!("block_radix_rank_counted: the block does not have BLOCK_THREADS threads");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "block_radix_rank_counted: the block has {threads} threads, BLOCK_THREADS is {expected}"
    );
}
