//! Block-wide radix rank: the stable position of each of a block's keys when the block's keys are
//! sorted by one digit (CUB's `BlockRadixRankMatch`), the step of a radix sort that decides where
//! each key of a tile goes.
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
//! # The algorithm
//! 1. Each warp counts its keys per digit in its own row of shared counters. For each item the
//!    lanes find the others with the same digit by `radix_bits` ballots (a match); the highest of
//!    them adds the group's size to the warp's counter of that digit with one shared atomic and
//!    shuffles the counter's old value to the group; a lane's rank within the warp is that value
//!    plus the lanes of its group below it.
//! 2. The counters, laid out digit-major (`digit * stride + warp`, the stride being
//!    the warps rounded up to an odd number, so that the counters of 32 consecutive digits lie
//!    in 32 different banks of shared memory), are scanned exclusively, each
//!    thread summing a contiguous chunk and a [`block_exclusive_scan`] combining the chunks. The
//!    counter of `(digit, warp)` then holds the number of keys of the block with a smaller digit,
//!    plus those with the same digit in earlier warps.
//! 3. A key's rank is its rank within the warp plus its counter.
//!
//! Three barriers and `ITEMS * (radix_bits + 1)` warp operations per thread.
//!
//! # Scratch
//! `counters` needs [`radix_rank_counters_len`]`(radix_bits, block_threads)` elements
//! (`2^radix_bits` per warp, plus one), `scan` one per warp as the block scans
//! ([`block_scratch_len`](crate::block_collectives::block_scratch_len); `BLOCK_SCRATCH_LEN` fits
//! every block). After the call, and until the next barrier that precedes a write to them,
//! `counters` holds the start of each digit in the sorted tile: [`block_radix_digit_start`]. The
//! rank begins with a barrier, so the same counters can be passed to the next rank right away.
//!
//! # Calling
//! Every thread of the block must call it with the same scratch and `radix_bits`. On the
//! simulator a thread that does not is a divergent barrier fault at the line of the call; a
//! scratch too small, a `radix_bits` outside 1 to 8 or a digit of `radix_bits` or more bits is a
//! kernel panic naming the values (on the GPU, the same panic with a fixed message).

use crate::block_collectives::block_exclusive_scan;
use crate::index::{block_dim, thread_rank};
use crate::shared::{Shape, Shared};
use crate::sync::syncthreads;
use crate::warp::{FULL_MASK, WARP_SIZE, ballot_sync, shfl_sync};
use crate::warp_collectives::WarpLanes;

/// The most bits a digit of [`block_radix_rank`] may have (256 counters per warp).
pub const MAX_RADIX_BITS: u32 = 8;

/// The counters [`block_radix_rank`] needs for digits of `radix_bits` bits in a block of
/// `block_threads` threads: `2^radix_bits` per warp (with one more per digit for an even number
/// of warps, so that the counters of consecutive digits fall in different banks), plus one for
/// the block's total.
pub const fn radix_rank_counters_len(radix_bits: u32, block_threads: u32) -> usize {
    (1usize << radix_bits) * counter_stride(block_threads.div_ceil(WARP_SIZE)) as usize + 1
}

/// The distance between the counters of consecutive digits for `warps` warps: `warps` rounded up
/// to an odd number. The counters of one digit are consecutive (one per warp); an odd stride puts
/// those of 32 consecutive digits in 32 different banks, where a stride of 8 (8 warps) put them
/// in 4 and serialized a warp's accesses up to 8-way.
const fn counter_stride(warps: u32) -> u32 {
    warps | 1
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
/// `2^radix_bits`, and `radix_bits` between 1 and [`MAX_RADIX_BITS`].
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
    let rank = thread_rank();
    let warp = rank / WARP_SIZE;
    let warps = threads.div_ceil(WARP_SIZE);
    let stride = counter_stride(warps);
    let lanes = WarpLanes::here();
    if radix_bits == 0 || radix_bits > MAX_RADIX_BITS {
        bad_radix_bits(radix_bits);
    }
    let total = (1u32 << radix_bits) * stride;
    if counters.len() <= total as usize {
        counters_too_small(counters.len(), total as usize + 1, radix_bits, threads);
    }

    // The previous user of the counters (a rank, or the caller reading digit starts) is done.
    syncthreads();
    let mut c = rank;
    while c <= total {
        // SAFETY: `c <= total < counters.len()` (checked above).
        unsafe { counters.set_unchecked(c as usize, 0) };
        c += threads;
    }
    syncthreads();

    // 1. Ranks within the warp, and the warp's count of each digit. In a block of whole warps
    // the lane mask is the constant full mask: with a mask known only at run time, ptxas wraps
    // the ballots and the shuffle in convergence checks (a `REDUX.OR` and a branch), 8% of the
    // instructions of a radix sort's pass.
    let mut ranks = if threads.is_multiple_of(WARP_SIZE) {
        warp_ranks(counters, digits, radix_bits, stride, FULL_MASK, lanes.lane)
    } else {
        warp_ranks(counters, digits, radix_bits, stride, lanes.mask, lanes.lane)
    };
    syncthreads();

    // 2. The exclusive scan of the counters, digit-major, one contiguous chunk per thread.
    let chunk = total.div_ceil(threads);
    let start = (rank * chunk).min(total);
    let end = (start + chunk).min(total);
    let mut sum = 0u32;
    for c in start..end {
        // SAFETY: `c < total < counters.len()`; written before the barrier.
        sum = sum.wrapping_add(unsafe { counters.get_unchecked(c as usize) });
    }
    let (prefix, aggregate) = block_exclusive_scan(scan, sum, 0, u32::wrapping_add);
    let mut running = prefix;
    for c in start..end {
        // SAFETY: as above; this thread alone touches its chunk in this phase.
        unsafe {
            let count = counters.get_unchecked(c as usize);
            counters.set_unchecked(c as usize, running);
            running = running.wrapping_add(count);
        }
    }
    if rank == 0 {
        // SAFETY: `total < counters.len()`.
        unsafe { counters.set_unchecked(total as usize, aggregate) };
    }
    syncthreads();

    // 3. The block-wide ranks.
    for_each_item::<ITEMS>(|i| {
        // SAFETY: `digits[i] < 2^radix_bits` (checked in step 1), so the index is below `total`.
        let base = unsafe { counters.get_unchecked((digits[i] * stride + warp) as usize) };
        ranks[i] = ranks[i].wrapping_add(base);
    });
    ranks
}

/// Step 1 of [`block_radix_rank`]: each digit's rank among the equal digits of this thread's
/// warp (in the warp-striped order), after adding the warp's count of each digit to its
/// counter (`digit * stride + warp`); `mask` is the warp's lanes, `lane` this thread's.
#[inline(always)]
#[track_caller]
fn warp_ranks<const ITEMS: usize, S: Shape<Index = usize>>(
    counters: &mut Shared<u32, S>,
    digits: [u32; ITEMS],
    radix_bits: u32,
    stride: u32,
    mask: u32,
    lane: u32,
) -> [u32; ITEMS] {
    let warp = thread_rank() / WARP_SIZE;
    let below = (1u32 << lane) - 1;
    let mut ranks = [0u32; ITEMS];
    for_each_item::<ITEMS>(|i| {
        let digit = digits[i];
        if digit >> radix_bits != 0 {
            digit_too_large(digit, radix_bits);
        }
        let mut peers = mask;
        // A constant trip count, so that the loop over the items unrolls and `ranks` stays in
        // registers; `radix_bits` is the same in every lane, so the ballots stay converged.
        for bit in 0..MAX_RADIX_BITS {
            if bit < radix_bits {
                let set = (digit >> bit) & 1 != 0;
                let vote = ballot_sync(mask, set);
                // The lanes that voted as this one. (Written `vote ^ (bit - 1)`, ptxas made 6
                // instructions of each bit instead of 4.)
                peers &= if set { vote } else { !vote };
            }
        }
        let leader = WARP_SIZE - 1 - peers.leading_zeros();
        let mut old = 0;
        if lane == leader {
            old = counters.atomic_add((digit * stride + warp) as usize, peers.count_ones());
        }
        ranks[i] = shfl_sync(mask, old, leader).wrapping_add((peers & below).count_ones());
    });
    ranks
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
    let stride = counter_stride((d.x * d.y * d.z).div_ceil(WARP_SIZE));
    counters.get((digit * stride) as usize)
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
