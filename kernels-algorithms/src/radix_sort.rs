//! Device-wide radix sort of keys and of key-value pairs: [`sort_keys`] and [`sort_pairs`]
//! (CUB's `DeviceRadixSort::SortKeys` and `SortPairs`), ascending and stable, for `u32`, `i32`,
//! `f32` and `u64` keys with `u32` or `u64` values, on an optional bit range of the keys.
//!
//! ```ignore
//! let stream = device.default_stream();
//! let mut keys = DeviceBuffer::from_slice(&device, &[3u32, 1, 2])?;
//! let mut values = DeviceBuffer::from_slice(&device, &[30u32, 10, 20])?;
//! kernels_algorithms::radix_sort::sort_pairs(&stream, &mut keys, &mut values)?;
//! // keys: [1, 2, 3], values: [10, 20, 30]
//! ```
//!
//! # The order of the keys
//! Keys are sorted by their bits after an order-preserving map to unsigned integers
//! ([`RadixKey::to_bits`]): `u32` and `u64` as they are, `i32` with the sign bit flipped, `f32` as
//! IEEE total order: a negative float has all its bits flipped, a positive one its sign bit set.
//! So `-inf < -1.0 < -0.0 < +0.0 < 1.0 < +inf` (`-0.0` before `+0.0`, as CUB orders them); NaNs
//! with the sign bit clear sort after `+inf`, NaNs with the sign bit set before `-inf`, each group
//! by payload. Equal keys keep their order (stable), which the pairs show in their values.
//!
//! With a bit range `begin_bit..end_bit` ([`sort_keys_with`], [`sort_pairs_with`]) only those
//! bits of the mapped keys count, as CUB's `begin_bit` and `end_bit`: keys equal in them keep
//! their order.
//!
//! # The algorithm: Onesweep
//! As CUB (Adinets and Merrill, "Onesweep", 2022): least-significant digit first, 8 bits per pass
//! (4 passes for 32-bit keys, 8 for `u64`), each pass one kernel, with
//! 1. [`radix_clear`]: zeroes the control words (digit counts, tile counters, tile states);
//! 2. [`radix_histogram`]: one read of the keys counts the digits of every pass at once (each
//!    thread loads [`HISTOGRAM_ITEMS`] keys, then counts them pass by pass; privatized in shared
//!    memory, then one global atomic per block and bin);
//! 3. one [`radix_onesweep_keys`] (or [`radix_onesweep_pairs`]) per pass: each block takes the
//!    next tile of [`SORT_TILE`] keys ([`SORT_THREADS`] threads of [`SORT_ITEMS`] keys, numbered
//!    by an atomic counter so that earlier tiles are always running or done), ranks them by
//!    digit with
//!    [`block_radix_rank_counted`]
//!    and finds, for each digit, how many keys of the earlier tiles have it by *decoupled
//!    look-back*: it publishes its own count (an "aggregate") as soon as the rank has counted
//!    the tile's digits, before it ranks the keys (CUB's "early counts"), walks back over the
//!    earlier tiles' states adding aggregates until one publishes an "inclusive" prefix, then
//!    publishes its own inclusive prefix. Tile 0 alone scans the pass's digit counts (where each
//!    digit starts in the output) and publishes them added to its counts as its inclusive
//!    prefix, so the later tiles get the digits' starts through their look-back. The keys are
//!    exchanged through shared memory into digit order and written out, each digit's run
//!    contiguous; the values follow the same permutation.
//!
//! # Speed
//! On an H100 (2^24 random `u32` keys, `bench_sort`, 2026-11-24) a sort of keys takes 0.488 ms,
//! 0.96x CUB's `DeviceRadixSort` (0.470 ms), pairs 0.747 ms, 0.82x (0.615 ms); the issue's
//! target is 0.8x. Under Nsight Compute the pass of keys takes 126.5 µs (CUB's 118-122 µs),
//! executing 57.6 M warp instructions (CUB 39.5 M) at 79 registers (3 blocks of 256 threads per
//! SM, 36% of the warps active as CUB's); the pass of pairs 184.9 µs at 124 registers (2 blocks
//! per SM) against CUB's 146.7 µs at 80; the histogram 43.7 µs as CUB's 43.5 µs.
//! `bench/results/h100-2026-11-24-sort.md` has the measurements, with the variants that did not
//! pay.
//!
//! The passes alternate between the caller's buffers and the temporary ones; after an odd number
//! of passes [`radix_copy`] copies the result back, so the sorted data is always in the caller's
//! buffers.
//!
//! # Limits
//! A sort takes fewer than [`MAX_SORT_LEN`] (2^30) keys: a tile state packs a 2-bit status and a
//! 30-bit count into one `u32`. A longer buffer is an error naming the limit.

use core::mem::MaybeUninit;
use ferrocuda::device::atomic::{Ordering, atomic_load, atomic_store};
use ferrocuda::device::block_radix_rank::{block_radix_rank_counted, for_each_item};
use ferrocuda::device::shared::{Shape, Shared};
use ferrocuda::prelude::*;

/// Threads per block of the sort's kernels.
pub const SORT_THREADS: u32 = 256;
/// Keys per thread of a tile.
pub const SORT_ITEMS: usize = 16;
/// Keys per tile: one block's share of one pass.
pub const SORT_TILE: usize = SORT_THREADS as usize * SORT_ITEMS;
/// Bits per digit, and so per pass.
pub const RADIX_BITS: u32 = 8;
/// Digits per pass.
pub const RADIX: usize = 1 << RADIX_BITS;
/// A sort takes fewer keys than this.
pub const MAX_SORT_LEN: usize = 1 << 30;
/// The most blocks of the histogram and clear kernels (grid-stride loops cover the rest).
pub const MAX_HELPER_BLOCKS: u32 = 1024;

/// The status of a tile state word: nothing published yet.
const STATE_EMPTY: u32 = 0;
/// The status of a tile state word: the count is this tile's alone.
const STATE_AGGREGATE: u32 = 1 << 30;
/// The status of a tile state word: the count is this tile's and every earlier tile's.
const STATE_INCLUSIVE: u32 = 2 << 30;
/// The count bits of a tile state word.
const STATE_COUNT: u32 = (1 << 30) - 1;

/// The unsigned integer a key maps to, in whose order keys sort: `u32` or `u64`.
pub trait RadixBits: Copy + PartialEq + DeviceCopy {
    /// The largest value: the padding of a ragged tile, which sorts after every key.
    const MAX: Self;
    /// The number of bits.
    const BITS: u32;
    /// `(self >> shift) & mask`.
    fn digit(self, shift: u32, mask: u32) -> u32;
}

impl RadixBits for u32 {
    const MAX: Self = u32::MAX;
    const BITS: u32 = 32;
    #[inline(always)]
    fn digit(self, shift: u32, mask: u32) -> u32 {
        (self >> shift) & mask
    }
}

impl RadixBits for u64 {
    const MAX: Self = u64::MAX;
    const BITS: u32 = 64;
    #[inline(always)]
    fn digit(self, shift: u32, mask: u32) -> u32 {
        (self >> shift) as u32 & mask
    }
}

/// A key type of the radix sort: a bijection to unsigned integers that preserves the key order
/// (see the [module documentation](self)).
pub trait RadixKey: Copy + DeviceCopy {
    /// The unsigned integer of the same width.
    type Bits: RadixBits;
    /// The order-preserving map.
    fn to_bits(self) -> Self::Bits;
    /// Its inverse.
    fn from_bits(bits: Self::Bits) -> Self;
}

impl RadixKey for u32 {
    type Bits = u32;
    #[inline(always)]
    fn to_bits(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        bits
    }
}

impl RadixKey for u64 {
    type Bits = u64;
    #[inline(always)]
    fn to_bits(self) -> u64 {
        self
    }
    #[inline(always)]
    fn from_bits(bits: u64) -> Self {
        bits
    }
}

impl RadixKey for i32 {
    type Bits = u32;
    #[inline(always)]
    fn to_bits(self) -> u32 {
        self as u32 ^ 0x8000_0000
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        (bits ^ 0x8000_0000) as i32
    }
}

impl RadixKey for f32 {
    type Bits = u32;
    #[inline(always)]
    fn to_bits(self) -> u32 {
        let bits = self.to_bits();
        if bits & 0x8000_0000 != 0 {
            !bits
        } else {
            bits | 0x8000_0000
        }
    }
    #[inline(always)]
    fn from_bits(bits: u32) -> Self {
        f32::from_bits(if bits & 0x8000_0000 != 0 {
            bits & 0x7fff_ffff
        } else {
            !bits
        })
    }
}

/// The mask of a pass's digit: `bits` ones.
#[inline(always)]
fn digit_mask(bits: u32) -> u32 {
    (1u32 << bits) - 1
}

/// The layout of the control words of a sort of `tiles` tiles in `passes` passes: the digit
/// counts of every pass (`passes * RADIX`), the tile counters (`passes`), then the tile states
/// (`passes * tiles * RADIX`).
#[derive(Clone, Copy)]
struct Control {
    passes: usize,
    tiles: usize,
}

impl Control {
    /// Where pass `pass`'s digit counts start.
    #[inline(always)]
    fn counts(self, pass: usize) -> usize {
        pass * RADIX
    }
    /// Pass `pass`'s tile counter.
    #[inline(always)]
    fn counter(self, pass: usize) -> usize {
        self.passes * RADIX + pass
    }
    /// The state of digit `digit` of tile `tile` in pass `pass`.
    #[inline(always)]
    fn state(self, pass: usize, tile: usize, digit: usize) -> usize {
        self.passes * (RADIX + 1) + (pass * self.tiles + tile) * RADIX + digit
    }
    /// The number of control words.
    #[cfg(not(target_arch = "nvptx64"))]
    fn len(self) -> usize {
        self.state(self.passes, 0, 0)
    }
}

/// Zeroes `control` (grid-stride).
#[kernel]
pub fn radix_clear(control: &mut [u32]) {
    let stride = gridsize!(1);
    let mut i = grid!(1);
    while i < control.len() {
        control[i] = 0;
        i += stride;
    }
}

/// Keys per thread of one step of [`radix_histogram`]'s loop: loaded together (their loads in
/// flight at once), then counted pass by pass.
pub const HISTOGRAM_ITEMS: usize = 8;

/// The `u32`s of [`radix_histogram`]'s dynamic shared memory: the counts of up to 8 passes and
/// the padding's slot.
pub const HISTOGRAM_SHARED_LEN: usize = RADIX * 8 + 1;

/// Adds the digit counts of every pass of `keys` to `control`'s counts (pass `p` counts bits
/// `begin_bit + 8p ..` up to `end_bit`), one read of the keys: each block takes tiles of
/// [`SORT_THREADS`]` * `[`HISTOGRAM_ITEMS`] keys (grid-stride), loads a tile's keys, then counts
/// their digits pass by pass; counts privatized in the launch's dynamic shared memory
/// ([`HISTOGRAM_SHARED_LEN`] `u32`).
#[kernel(instances(u32, i32, f32, u64))]
pub fn radix_histogram<K: RadixKey>(keys: &[K], begin_bit: u32, end_bit: u32, control: &mut [u32]) {
    // The counts, then one slot that counts the padding of a ragged tile (thrown away).
    let mut counts = DynamicShared::new().take::<u32>(HISTOGRAM_SHARED_LEN);
    // At most 8 passes (64-bit keys), which the compiler sees: no count's index can overflow.
    let passes = ((end_bit - begin_bit).div_ceil(RADIX_BITS) as usize).min(8);
    let padding = RADIX * 8;
    let rank = thread_rank() as usize;
    let threads = SORT_THREADS as usize;
    let block = block_dim();
    if block.x != SORT_THREADS
        || block.y != 1
        || block.z != 1
        || grid_dim().y != 1
        || grid_dim().z != 1
    {
        panic!(
            "radix_histogram: launch it with a 1-D grid of 1-D blocks of SORT_THREADS (256) threads"
        );
    }
    let mut i = rank;
    while i < passes * RADIX {
        counts[i] = 0;
        i += threads;
    }
    syncthreads();
    let n = keys.len();
    let tile = threads * HISTOGRAM_ITEMS;
    let stride = grid_dim().x as usize * tile;
    let mut first = block_idx().x as usize * tile;
    while first < n {
        // Striped: item `i` of thread `t` is key `first + i * threads + t` (coalesced loads).
        let mut bits = [<K::Bits as RadixBits>::MAX; HISTOGRAM_ITEMS];
        let full = n - first >= tile;
        if full {
            for_each_item::<HISTOGRAM_ITEMS>(|i| {
                // SAFETY: `first + i * threads + rank < first + tile <= n`, the length.
                bits[i] = unsafe { keys.get_unchecked(first + i * threads + rank) }.to_bits();
            });
        } else {
            for_each_item::<HISTOGRAM_ITEMS>(|i| {
                let index = first + i * threads + rank;
                if index < n {
                    bits[i] = keys[index].to_bits();
                }
            });
        }
        for pass in 0..passes {
            let shift = begin_bit + pass as u32 * RADIX_BITS;
            let mask = digit_mask((end_bit - shift).min(RADIX_BITS)) & (RADIX as u32 - 1);
            // The pass's counts start at `pass * RADIX`: a digit below `RADIX` is or-ed in, and
            // the compiler sees every slot below `RADIX * 8` (no bounds check).
            let row = ((pass as u32) & 7) << RADIX_BITS;
            if full {
                for_each_item::<HISTOGRAM_ITEMS>(|i| {
                    counts.atomic_add((row | bits[i].digit(shift, mask)) as usize, 1);
                });
            } else {
                for_each_item::<HISTOGRAM_ITEMS>(|i| {
                    // A select rather than a branch: past the end, the padding slot.
                    let slot = if first + i * threads + rank < n {
                        (row | bits[i].digit(shift, mask)) as usize
                    } else {
                        padding
                    };
                    counts.atomic_add(slot, 1);
                });
            }
        }
        first += stride;
    }
    syncthreads();
    let mut i = rank;
    while i < passes * RADIX {
        let count = counts[i];
        if count != 0 {
            control.atomic_add(i, count);
        }
        i += threads;
    }
}

/// Copies `from` into `to` (the same length; grid-stride): the copy back after an odd number of
/// passes.
#[kernel(instances(u32, i32, f32, u64))]
pub fn radix_copy<T: Copy>(from: &[T], to: &mut [T]) {
    let stride = gridsize!(1);
    let mut i = grid!(1);
    while i < to.len() {
        to[i] = from[i];
        i += stride;
    }
}

/// The exclusive scan of pass `pass`'s digit counts: thread `t` gets where digit `t` starts in
/// the pass's output (0 for threads of no digit).
#[inline(always)]
fn digit_base<S: Shape<Index = usize>>(
    scan: &mut Shared<u32, S>,
    control: &[u32],
    layout: Control,
    pass: usize,
    radix: usize,
) -> u32 {
    let t = thread_rank() as usize;
    let count = if t < radix {
        control[layout.counts(pass) + t]
    } else {
        0
    };
    block_exclusive_scan(scan, count, 0, u32::wrapping_add).0
}

/// How many earlier tiles' states a look-back reads at once: the loads are in flight together,
/// so a walk over tiles that published only their aggregate waits for one load latency per
/// window instead of one per tile.
const LOOK_BACK_WINDOW: usize = 4;

/// Publishes `count`, the number of keys of tile `tile` whose digit is `digit` in pass `pass`
/// (for tile 0 with the digit's start in the output added): as its inclusive count for tile 0,
/// else as its aggregate (see [`look_back`]).
#[inline(always)]
fn publish_aggregate(
    control: &mut [u32],
    layout: Control,
    pass: usize,
    tile: usize,
    digit: usize,
    count: u32,
) {
    let status = if tile == 0 {
        STATE_INCLUSIVE
    } else {
        STATE_AGGREGATE
    };
    control.atomic_store(layout.state(pass, tile, digit), status | count);
}

/// The number of keys of the tiles before `tile` (`tile > 0`) whose digit is `digit`, plus
/// the digit's start in the pass's output (which tile 0 added to its inclusive count), by
/// decoupled look-back over the tile states of pass `pass`, after [`publish_aggregate`]
/// published this tile's `count`; then publishes this tile's inclusive count.
///
/// The states of one digit are `RADIX` words apart (tile-major); the walk reads them through a
/// pointer to this tile's state, bounds-checked once, so
/// that a step of the walk is a few instructions (the step ran 237,000 times per pass of 2^24
/// keys under Nsight Compute: it must be cheap).
#[inline(always)]
fn look_back(
    control: &mut [u32],
    layout: Control,
    pass: usize,
    tile: usize,
    digit: usize,
    count: u32,
) -> u32 {
    // This tile's state, bounds-checked; tile 0's state is `tile * RADIX` words before it.
    let here: *mut u32 = &mut control[layout.state(pass, tile, digit)];
    // Tile `j`'s state. Every use below has `j <= tile`, so the word lies between tile 0's
    // state (index `layout.state(pass, 0, digit)`, not negative) and this tile's (in bounds);
    // the words are aligned and every access to them is atomic: that is the `SAFETY` of each
    // atomic access below.
    let state = |j: usize| here.wrapping_sub((tile - j) * RADIX);
    if tile == 0 {
        return 0;
    }
    let mut before = 0u32;
    // The tiles below `next` are still to be added, nearest first.
    let mut next = tile;
    'walk: loop {
        // Tiles `next - 1` down to `next - LOOK_BACK_WINDOW`, those that exist. Tile 0 always
        // publishes an inclusive count, so the walk stops there (or at an empty state before
        // it) and never reads past the tiles that exist.
        let mut states = [STATE_EMPTY; LOOK_BACK_WINDOW];
        for (k, word) in states.iter_mut().enumerate() {
            if k < next {
                // SAFETY: see `state` (`next - 1 - k < tile`).
                *word = unsafe { atomic_load(state(next - 1 - k), Ordering::Relaxed) };
            }
        }
        for (k, &word) in states.iter().enumerate() {
            let status = word & !STATE_COUNT;
            if status == STATE_EMPTY {
                // Tile `next - 1 - k` has published nothing yet (it is running: tiles start in
                // order): the next window starts at it.
                next -= k;
                continue 'walk;
            }
            before += word & STATE_COUNT;
            if status == STATE_INCLUSIVE {
                break 'walk;
            }
        }
        next -= LOOK_BACK_WINDOW;
    }
    // SAFETY: see `state`.
    unsafe {
        atomic_store(
            state(tile),
            STATE_INCLUSIVE | (before + count),
            Ordering::Relaxed,
        )
    };
    before
}

/// One pass of the sort of keys alone: the keys of the next tile, sorted by bits `shift ..
/// shift + bits` of their mapped keys, stably, go to their place in `keys_out`. `pass` names the
/// pass's counts, counter and states in `control` (a sort of `passes` passes). Blocks of
/// [`SORT_THREADS`] threads, one per tile; dynamic shared memory: [`pass_shared_bytes`].
#[kernel(
    instances(u32, i32, f32, u64),
    max_block(SORT_THREADS),
    min_blocks_per_sm(3)
)]
pub fn radix_onesweep_keys<K: RadixKey>(
    pass: u32,
    passes: u32,
    shift: u32,
    bits: u32,
    keys_in: &[K],
    keys_out: &mut [K],
    control: &mut [u32],
) {
    let mut no_values: [u32; 0] = [];
    onesweep::<K, u32, false>(
        (pass, passes, shift, bits),
        keys_in,
        keys_out,
        &[],
        &mut no_values,
        control,
    );
}

/// One pass of the sort of pairs: [`radix_onesweep_keys`], the values following their keys.
#[kernel(
    instances(
        (u32, u32), (i32, u32), (f32, u32), (u64, u32),
        (u32, u64), (i32, u64), (f32, u64), (u64, u64)
    ),
    max_block(SORT_THREADS),
    min_blocks_per_sm(2)
)]
pub fn radix_onesweep_pairs<K: RadixKey, V: Copy>(
    pass: u32,
    passes: u32,
    shift: u32,
    bits: u32,
    keys_in: &[K],
    keys_out: &mut [K],
    values_in: &[V],
    values_out: &mut [V],
    control: &mut [u32],
) {
    onesweep::<K, V, true>(
        (pass, passes, shift, bits),
        keys_in,
        keys_out,
        values_in,
        values_out,
        control,
    );
}

/// One pass (see [`radix_onesweep_keys`]), with the values when `PAIRS`.
#[inline(always)]
fn onesweep<K: RadixKey, V: Copy, const PAIRS: bool>(
    (pass, passes, shift, bits): (u32, u32, u32, u32),
    keys_in: &[K],
    keys_out: &mut [K],
    values_in: &[V],
    values_out: &mut [V],
    control: &mut [u32],
) {
    let n = keys_in.len();
    let layout = Control {
        passes: passes as usize,
        tiles: n.div_ceil(SORT_TILE),
    };
    let pass = pass as usize;
    let radix = 1usize << bits;
    // At most 8 bits, which the compiler sees: no digit can overflow the rank's counters.
    let mask = digit_mask(bits) & (RADIX as u32 - 1);
    let t = thread_rank() as usize;

    // The exchange holds a tile of keys. Values of pairs of 4-byte keys and values have their
    // own exchange after the rest, filled and read beside the keys' (no rank or index stays in
    // registers for a second round); wider pairs reuse the keys' exchange through a second
    // carver after the keys are out, sized for the larger of the two (a tile of both would pass
    // 48 KiB).
    let value_bytes = if PAIRS { size_of::<V>() } else { 0 };
    let key_bytes = size_of::<K::Bits>();
    let separate = separate_value_exchange(key_bytes, value_bytes);
    let shared_bytes = if separate {
        key_bytes
    } else {
        key_bytes.max(value_bytes)
    };
    let mut carve = DynamicShared::new();
    let mut exchange = carve.take::<K::Bits>(SORT_TILE * shared_bytes / key_bytes);
    let mut counters = carve.take::<u32>(radix_rank_counters_len(RADIX_BITS, SORT_THREADS));
    let mut offsets = carve.take::<u32>(RADIX);
    let mut scan = carve.take::<u32>(BLOCK_SCRATCH_LEN);
    let mut value_exchange = if separate {
        Some(carve.take::<V>(SORT_TILE))
    } else {
        None
    };

    // The tile: the next one of this pass.
    let mut tile = 0u32;
    if t == 0 {
        tile = control.atomic_add(layout.counter(pass), 1);
    }
    let tile = block_broadcast(&mut scan, tile, 0) as usize;
    if tile >= layout.tiles {
        panic!(
            "radix sort pass: a tile past the input (launch one block per tile, with the control words cleared)"
        );
    }
    let first = tile * SORT_TILE;
    let valid = (n - first).min(SORT_TILE);

    // The keys, warp-striped, padded with the largest bits; with a values' exchange, the values
    // too (fewer registers than their indices kept for a later load).
    // Item `i` of this thread is key `first + striped + 32 * i` (`warp_striped_index` for
    // blocks of whole warps, as `SORT_THREADS` is); a full tile loads without bounds checks.
    const { assert!(SORT_THREADS.is_multiple_of(WARP_SIZE)) };
    let warp_size = WARP_SIZE as usize;
    let striped = t / warp_size * warp_size * SORT_ITEMS + t % warp_size;
    // A full tile, and values (if this pass loads them) as many as the keys: the kernels are
    // public, so a launch with fewer values must fall back to the checked loads.
    let full = valid == SORT_TILE && (!separate || values_in.len() >= n);
    let mut keys = [<K::Bits as RadixBits>::MAX; SORT_ITEMS];
    // A value is loaded where its key is (a full tile, or an index below `n`): a flag per item
    // would cost a register each.
    let mut values = [MaybeUninit::<V>::uninit(); SORT_ITEMS];
    // One branch for the tile, not one per key: a full tile's loads are straight-line code.
    if full {
        for_each_item::<SORT_ITEMS>(|i| {
            let index = first + striped + warp_size * i;
            // SAFETY: `index < first + SORT_TILE <= n`, the length of `keys_in` and, when the
            // values are loaded here (`separate`), at most that of `values_in` (`full`).
            unsafe {
                keys[i] = keys_in.get_unchecked(index).to_bits();
                if separate {
                    values[i] = MaybeUninit::new(*values_in.get_unchecked(index));
                }
            }
        });
    } else {
        for_each_item::<SORT_ITEMS>(|i| {
            let index = first + striped + warp_size * i;
            if index < n {
                keys[i] = keys_in[index].to_bits();
                if separate {
                    values[i] = MaybeUninit::new(values_in[index]);
                }
            }
        });
    }
    // Where each digit starts in the pass's output: tile 0 alone scans the pass's counts and
    // adds them to what it publishes; the later tiles find them in their look-back.
    let base = if tile == 0 {
        digit_base(&mut scan, control, layout, pass, radix)
    } else {
        0
    };
    // Ranked as 8-bit digits whatever the pass's width (a narrower digit is one of them): a
    // constant width unrolls the rank's ballots. This tile's count of each digit is published
    // as soon as the rank has counted the digits, before it ranks the keys, so that the later
    // tiles' look-backs find it as early as possible.
    let digits: [u32; SORT_ITEMS] = core::array::from_fn(|i| keys[i].digit(shift, mask));
    let mut count = 0;
    let ranks = block_radix_rank_counted::<SORT_THREADS, SORT_ITEMS, _, _>(
        &mut counters,
        &mut scan,
        digits,
        RADIX_BITS,
        |digit, digit_count| {
            // Thread `t` gets digit `t`'s count (`SORT_THREADS >= RADIX`).
            if (digit as usize) < radix {
                count = digit_count;
                publish_aggregate(control, layout, pass, tile, digit as usize, base + count);
            }
        },
    );
    const { assert!(SORT_THREADS as usize >= RADIX) };

    for_each_item::<SORT_ITEMS>(|i| {
        // SAFETY: a rank is below the tile's size, `SORT_TILE` (block_radix_rank).
        unsafe { exchange.set_unchecked(ranks[i] as usize, keys[i]) };
        if let Some(exchange) = &mut value_exchange
            && (full || first + striped + warp_size * i < n)
        {
            // SAFETY: the rank as above; the value was loaded, as its key was (`full`, or its
            // index is below `n`).
            unsafe { exchange.set_unchecked(ranks[i] as usize, values[i].assume_init()) };
        }
    });
    // Each digit's place: the keys of that digit of the earlier tiles (with the digit's start
    // in the output, which tile 0 added), minus its start in this tile. After the exchange's
    // writes, so that the keys and values are out of registers while the look-back waits.
    if t < radix {
        let start = block_radix_digit_start(&counters, t as u32);
        let before = if tile == 0 {
            base
        } else {
            look_back(control, layout, pass, tile, t, count)
        };
        offsets[t] = before.wrapping_sub(start);
    }
    syncthreads();

    // The keys in digit order, striped: consecutive threads write consecutive places of a
    // digit's run.
    // In 32 bits (a sort has fewer than 2^30 keys): a full tile writes every position, and a
    // place is checked against the output's length in one 32-bit compare.
    let mut sorted_digits = [0u32; SORT_ITEMS];
    let whole = valid == SORT_TILE;
    let valid = valid as u32;
    let keys_len = clamp_len(keys_out.len());
    let values_len = clamp_len(values_out.len());
    let mut scatter = |j: usize, position: u32| {
        // SAFETY: `position < valid <= SORT_TILE`; written before the barrier.
        let key = unsafe { exchange.get_unchecked(position as usize) };
        let digit = key.digit(shift, mask);
        if !separate {
            sorted_digits[j] = digit;
        }
        // SAFETY: `digit <= mask < RADIX`, the length of `offsets`.
        let offset = unsafe { offsets.get_unchecked(digit as usize) };
        let place = offset.wrapping_add(position);
        store(keys_out, keys_len, place, K::from_bits(key));
        if let Some(values) = &value_exchange {
            // SAFETY: as above.
            store(values_out, values_len, place, unsafe {
                values.get_unchecked(position as usize)
            });
        }
    };
    // One branch for the tile, as the loads.
    if whole {
        for_each_item::<SORT_ITEMS>(|j| scatter(j, j as u32 * SORT_THREADS + t as u32));
    } else {
        for_each_item::<SORT_ITEMS>(|j| {
            let position = j as u32 * SORT_THREADS + t as u32;
            if position < valid {
                scatter(j, position);
            }
        });
    }
    let valid = valid as usize;
    if !PAIRS || separate {
        return;
    }

    // The values of wider pairs, through the keys' exchange, by the same permutation.
    syncthreads();
    let mut carve = DynamicShared::new();
    let mut exchange = carve.take::<V>(SORT_TILE);
    for_each_item::<SORT_ITEMS>(|i| {
        let index = first + striped + warp_size * i;
        if index < n {
            // SAFETY: the rank of a key of the tile is below `valid <= SORT_TILE`.
            unsafe { exchange.set_unchecked(ranks[i] as usize, values_in[index]) };
        }
    });
    syncthreads();
    for_each_item::<SORT_ITEMS>(|j| {
        let position = j * SORT_THREADS as usize + t;
        if position < valid {
            let place = offsets[sorted_digits[j] as usize].wrapping_add(position as u32) as usize;
            // SAFETY: `position < valid`, and the key ranked there wrote it before the barrier.
            values_out[place] = unsafe { exchange.get_unchecked(position) };
        }
    });
}

/// `len` as a `u32`, saturated: an index below it is below `len`.
#[inline(always)]
fn clamp_len(len: usize) -> u32 {
    len.min(u32::MAX as usize) as u32
}

/// `out[index] = value`, checked in 32 bits against `len` ([`clamp_len`] of `out.len()`): a
/// pass's place past it (control words that do not match the keys) is a kernel panic.
#[inline(always)]
#[track_caller]
fn store<T>(out: &mut [T], len: u32, index: u32, value: T) {
    if index < len {
        // SAFETY: `index < len <= out.len()`.
        unsafe { *out.get_unchecked_mut(index as usize) = value };
    } else {
        place_out_of_bounds(index, out.len());
    }
}

/// The panic of a place past the pass's output.
#[cold]
#[inline(never)]
#[track_caller]
fn place_out_of_bounds(index: u32, len: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (index, len);
        panic!("radix sort pass: a key's place is past the output (control words not cleared?)");
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "radix sort pass: a key's place {index} is past the output of {len} (control words not cleared?)"
    );
}

/// Whether a pass over keys of `key_bytes` and values of `value_bytes` bytes gives the values an
/// exchange of their own: for 4-byte keys and values (two tiles fit in 48 KiB with the rest).
pub const fn separate_value_exchange(key_bytes: usize, value_bytes: usize) -> bool {
    value_bytes != 0 && key_bytes + value_bytes <= 8
}

/// The dynamic shared memory of [`radix_onesweep_keys`] and [`radix_onesweep_pairs`] for keys
/// of `key_bytes` and values of `value_bytes` bytes: the exchange of a tile (of both with
/// [`separate_value_exchange`], else the larger of the two), the rank counters, the
/// digit offsets and the scan scratch, with room for alignment.
pub const fn pass_shared_bytes(key_bytes: usize, value_bytes: usize) -> usize {
    let exchange = if separate_value_exchange(key_bytes, value_bytes) {
        key_bytes + value_bytes
    } else if key_bytes > value_bytes {
        key_bytes
    } else {
        value_bytes
    };
    SORT_TILE * exchange
        + 4 * (radix_rank_counters_len(RADIX_BITS, SORT_THREADS) + RADIX + BLOCK_SCRATCH_LEN)
        + 16
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the sort functions, their temporary storage and the key and value types.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use ferrocuda::{DeviceSlice, DeviceSliceMut, LaunchError};
    use std::ops::Range;

    mod sealed {
        /// Only the listed key and value types implement the sort's traits.
        pub trait Sealed {}
        impl Sealed for u32 {}
        impl Sealed for i32 {}
        impl Sealed for f32 {}
        impl Sealed for u64 {}
    }

    /// A value type of [`sort_pairs`]: `u32` or `u64` (values of another 4- or 8-byte type can
    /// travel as their bits).
    pub trait SortValue: DeviceCopy + sealed::Sealed {
        /// Copies `from` into `to` on `stream`.
        #[doc(hidden)]
        fn launch_copy(
            stream: &Stream,
            from: DeviceSlice<'_, Self>,
            to: &mut DeviceBuffer<Self>,
        ) -> ferrocuda::Result<()>;
    }

    /// A key type of the sort whose pairs with values of `V` have a pass kernel.
    pub trait SortKey<V: SortValue = u32>: RadixKey + sealed::Sealed {
        /// Launches one pass (see [`radix_onesweep_keys`], [`radix_onesweep_pairs`]).
        #[doc(hidden)]
        #[expect(clippy::too_many_arguments, reason = "the pass kernel's parameters")]
        fn launch_pass(
            stream: &Stream,
            step: (u32, u32, u32, u32),
            keys_in: DeviceSlice<'_, Self>,
            keys_out: DeviceSliceMut<'_, Self>,
            values_in: DeviceSlice<'_, V>,
            values_out: DeviceSliceMut<'_, V>,
            control: &mut DeviceBuffer<u32>,
            tiles: usize,
        ) -> ferrocuda::Result<()>;

        /// Launches the histogram of every pass.
        #[doc(hidden)]
        fn launch_histogram(
            stream: &Stream,
            keys: &DeviceBuffer<Self>,
            bits: &Range<u32>,
            control: &mut DeviceBuffer<u32>,
            grid: u32,
        ) -> ferrocuda::Result<()>;

        /// Copies the keys `from` into `to`.
        #[doc(hidden)]
        fn launch_copy_keys(
            stream: &Stream,
            from: DeviceSlice<'_, Self>,
            to: &mut DeviceBuffer<Self>,
        ) -> ferrocuda::Result<()>;
    }

    macro_rules! sort_value {
        ($v:ty) => {
            impl SortValue for $v {
                fn launch_copy(
                    stream: &Stream,
                    from: DeviceSlice<'_, $v>,
                    to: &mut DeviceBuffer<$v>,
                ) -> ferrocuda::Result<()> {
                    launch!(radix_copy::<$v>[copy_grid(to.len()), SORT_THREADS, stream](from, to))
                }
            }
        };
    }
    sort_value!(u32);
    sort_value!(u64);

    /// The grid of a copy or clear of `len` elements.
    fn copy_grid(len: usize) -> u32 {
        len.div_ceil(SORT_THREADS as usize * 4)
            .clamp(1, MAX_HELPER_BLOCKS as usize) as u32
    }

    macro_rules! sort_key {
        ($k:ty, $bits:ty, $($v:ty),*) => {$(
            impl SortKey<$v> for $k {
                fn launch_pass(
                    stream: &Stream,
                    (pass, passes, shift, bits): (u32, u32, u32, u32),
                    keys_in: DeviceSlice<'_, $k>,
                    keys_out: DeviceSliceMut<'_, $k>,
                    values_in: DeviceSlice<'_, $v>,
                    values_out: DeviceSliceMut<'_, $v>,
                    control: &mut DeviceBuffer<u32>,
                    tiles: usize,
                ) -> ferrocuda::Result<()> {
                    if values_in.is_empty() {
                        let shared = pass_shared_bytes(size_of::<$bits>(), 0) as u32;
                        return launch!(radix_onesweep_keys::<$k>[tiles, SORT_THREADS, stream, shared](
                            pass, passes, shift, bits, keys_in, keys_out, control
                        ));
                    }
                    let shared = pass_shared_bytes(size_of::<$bits>(), size_of::<$v>()) as u32;
                    launch!(radix_onesweep_pairs::<$k, $v>[tiles, SORT_THREADS, stream, shared](
                        pass, passes, shift, bits, keys_in, keys_out, values_in, values_out, control
                    ))
                }

                fn launch_histogram(
                    stream: &Stream,
                    keys: &DeviceBuffer<$k>,
                    bits: &Range<u32>,
                    control: &mut DeviceBuffer<u32>,
                    grid: u32,
                ) -> ferrocuda::Result<()> {
                    let shared = (HISTOGRAM_SHARED_LEN * 4) as u32;
                    launch!(radix_histogram::<$k>[grid, SORT_THREADS, stream, shared](
                        keys, bits.start, bits.end, control
                    ))
                }

                fn launch_copy_keys(
                    stream: &Stream,
                    from: DeviceSlice<'_, $k>,
                    to: &mut DeviceBuffer<$k>,
                ) -> ferrocuda::Result<()> {
                    launch!(radix_copy::<$k>[copy_grid(to.len()), SORT_THREADS, stream](
                        from, to
                    ))
                }
            }
        )*};
    }
    sort_key!(u32, u32, u32, u64);
    sort_key!(i32, u32, u32, u64);
    sort_key!(f32, u32, u32, u64);
    sort_key!(u64, u64, u32, u64);

    /// The temporary storage of a sort of up to `capacity` keys: the alternate key and value
    /// buffers and the control words (CUB's `d_temp_storage`). Make one with
    /// [`SortTemp::new`] and pass it to [`sort_keys_with`] or [`sort_pairs_with`] to sort many
    /// times without allocating.
    pub struct SortTemp<K: DeviceCopy, V: DeviceCopy = u32> {
        keys: DeviceBuffer<K>,
        values: DeviceBuffer<V>,
        control: DeviceBuffer<u32>,
    }

    impl<K: RadixKey, V: SortValue> SortTemp<K, V> {
        /// Storage for sorts of up to `capacity` keys, with values when `with_values`.
        ///
        /// # Errors
        /// [`Error::Launch`](ferrocuda::Error::Launch) when `capacity` is [`MAX_SORT_LEN`] or
        /// more; an allocation's errors.
        pub fn new(device: &Device, capacity: usize, with_values: bool) -> ferrocuda::Result<Self> {
            check_len(capacity)?;
            let layout = control_layout(capacity, &(0..<K::Bits as RadixBits>::BITS));
            Ok(SortTemp {
                keys: DeviceBuffer::zeros(device, capacity)?,
                values: DeviceBuffer::zeros(device, if with_values { capacity } else { 0 })?,
                control: DeviceBuffer::zeros(device, layout.len())?,
            })
        }

        /// The most keys it can sort.
        pub fn capacity(&self) -> usize {
            self.keys.len()
        }
    }

    /// The error for a sort of `len` keys past [`MAX_SORT_LEN`].
    fn check_len(len: usize) -> ferrocuda::Result<()> {
        if len >= MAX_SORT_LEN {
            return Err(LaunchError {
                kernel: "radix_onesweep_keys",
                problem: format!(
                    "the sort has {len} keys; a radix sort takes fewer than 2^30 ({MAX_SORT_LEN})"
                ),
            }
            .into());
        }
        Ok(())
    }

    /// The control words' layout of a sort of `len` keys on `bits`.
    fn control_layout(len: usize, bits: &Range<u32>) -> Control {
        Control {
            passes: (bits.end - bits.start).div_ceil(RADIX_BITS) as usize,
            tiles: len.div_ceil(SORT_TILE),
        }
    }

    /// The error for a bit range that is empty, reversed or past the key's width.
    fn check_bits<K: RadixKey>(bits: &Range<u32>) -> ferrocuda::Result<()> {
        let width = <K::Bits as RadixBits>::BITS;
        if bits.start < bits.end && bits.end <= width {
            return Ok(());
        }
        Err(LaunchError {
            kernel: "radix_onesweep_keys",
            problem: format!(
                "the bit range is {}..{}; it must be a non-empty range within 0..{width}, the key's bits",
                bits.start, bits.end
            ),
        }
        .into())
    }

    /// Sorts `keys` in place, ascending and stable, on `stream` (asynchronously), allocating its
    /// temporary storage (see [`sort_keys_with`] to provide it).
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) for [`MAX_SORT_LEN`] keys or more; those of
    /// an allocation or a launch.
    pub fn sort_keys<K: SortKey>(
        stream: &Stream,
        keys: &mut DeviceBuffer<K>,
    ) -> ferrocuda::Result<()> {
        let mut temp = SortTemp::<K, u32>::new(stream.device(), keys.len(), false)?;
        sort_keys_with(stream, keys, 0..<K::Bits as RadixBits>::BITS, &mut temp)
    }

    /// Sorts `keys` and `values` (the same length) in place by the keys, ascending and stable,
    /// on `stream`, allocating its temporary storage.
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) when the lengths differ or for
    /// [`MAX_SORT_LEN`] keys or more; those of an allocation or a launch.
    pub fn sort_pairs<K: SortKey<V>, V: SortValue>(
        stream: &Stream,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
    ) -> ferrocuda::Result<()> {
        let mut temp = SortTemp::<K, V>::new(stream.device(), keys.len(), true)?;
        sort_pairs_with(
            stream,
            keys,
            values,
            0..<K::Bits as RadixBits>::BITS,
            &mut temp,
        )
    }

    /// Sorts `keys` in place by bits `bits` of their mapped keys (see the
    /// [module documentation](super)), ascending and stable, with the caller's temporary storage.
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) when `bits` is empty or past the key's width,
    /// or `temp` holds fewer keys than `keys`; those of a launch.
    pub fn sort_keys_with<K: SortKey>(
        stream: &Stream,
        keys: &mut DeviceBuffer<K>,
        bits: Range<u32>,
        temp: &mut SortTemp<K, u32>,
    ) -> ferrocuda::Result<()> {
        let mut no_values = DeviceBuffer::<u32>::zeros(stream.device(), 0)?;
        sort(stream, keys, &mut no_values, bits, temp)
    }

    /// Sorts `keys` and `values` (the same length) in place by bits `bits` of the mapped keys,
    /// ascending and stable, with the caller's temporary storage (made `with_values`).
    ///
    /// # Errors
    /// [`Error::Launch`](ferrocuda::Error::Launch) when the lengths differ, `bits` is empty or
    /// past the key's width, or `temp` is too small or has no room for values; those of a launch.
    pub fn sort_pairs_with<K: SortKey<V>, V: SortValue>(
        stream: &Stream,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        bits: Range<u32>,
        temp: &mut SortTemp<K, V>,
    ) -> ferrocuda::Result<()> {
        if values.len() != keys.len() {
            return Err(LaunchError {
                kernel: "radix_onesweep_keys",
                problem: format!(
                    "sort_pairs: {} keys but {} values; they must be as many",
                    keys.len(),
                    values.len()
                ),
            }
            .into());
        }
        if temp.values.len() < values.len() {
            return Err(LaunchError {
                kernel: "radix_onesweep_keys",
                problem: format!(
                    "sort_pairs: the temporary storage holds {} values, the sort has {}; make it with SortTemp::new(device, capacity, true)",
                    temp.values.len(),
                    values.len()
                ),
            }
            .into());
        }
        sort(stream, keys, values, bits, temp)
    }

    /// The sort: clear, histogram, one pass per digit alternating between the caller's buffers
    /// and `temp`'s, then a copy back after an odd number of passes. `values` is empty for a
    /// sort of keys alone.
    fn sort<K: SortKey<V>, V: SortValue>(
        stream: &Stream,
        keys: &mut DeviceBuffer<K>,
        values: &mut DeviceBuffer<V>,
        bits: Range<u32>,
        temp: &mut SortTemp<K, V>,
    ) -> ferrocuda::Result<()> {
        check_bits::<K>(&bits)?;
        let n = keys.len();
        check_len(n)?;
        if temp.keys.len() < n {
            return Err(LaunchError {
                kernel: "radix_onesweep_keys",
                problem: format!(
                    "the temporary storage holds {} keys, the sort has {n}; make it with SortTemp::new(device, {n}, ..)",
                    temp.keys.len()
                ),
            }
            .into());
        }
        if n <= 1 {
            return Ok(());
        }
        let layout = control_layout(n, &bits);
        let control_len = layout.len();
        if temp.control.len() < control_len {
            temp.control = DeviceBuffer::zeros(stream.device(), control_len)?;
        }
        let control = &mut temp.control;
        launch!(radix_clear[copy_grid(control_len), SORT_THREADS, stream](
            control.slice_mut(..control_len)
        ))?;
        let histogram_grid = n
            .div_ceil(SORT_THREADS as usize * HISTOGRAM_ITEMS)
            .min(MAX_HELPER_BLOCKS as usize) as u32;
        K::launch_histogram(stream, keys, &bits, control, histogram_grid)?;
        let values_len = values.len();
        let mut in_caller = true;
        for pass in 0..layout.passes as u32 {
            let shift = bits.start + pass * RADIX_BITS;
            let step = (
                pass,
                layout.passes as u32,
                shift,
                (bits.end - shift).min(RADIX_BITS),
            );
            // The temporary buffers may be longer than the sort: the kernel takes the input's
            // length as the sort's, so they go in as views of the sort's length.
            if in_caller {
                K::launch_pass(
                    stream,
                    step,
                    keys.slice(..),
                    temp.keys.slice_mut(..n),
                    values.slice(..),
                    temp.values.slice_mut(..values_len),
                    control,
                    layout.tiles,
                )?;
            } else {
                K::launch_pass(
                    stream,
                    step,
                    temp.keys.slice(..n),
                    keys.slice_mut(..),
                    temp.values.slice(..values_len),
                    values.slice_mut(..),
                    control,
                    layout.tiles,
                )?;
            }
            in_caller = !in_caller;
        }
        if !in_caller {
            K::launch_copy_keys(stream, temp.keys.slice(..n), keys)?;
            if values_len != 0 {
                V::launch_copy(stream, temp.values.slice(..values_len), values)?;
            }
        }
        Ok(())
    }
}
