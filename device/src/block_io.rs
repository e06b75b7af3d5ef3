//! Block loads and stores: a thread moves `ITEMS` elements of a tile between global memory and
//! its registers, with 16-byte accesses where it can (CUB's `BlockLoad`/`BlockStore` with the
//! direct and vectorized algorithms).
//!
//! ```ignore
//! // Each thread of a 256-thread block loads 8 consecutive f32 of its block's tile (two
//! // 16-byte loads when the tile is aligned and whole), doubles them and stores them back.
//! let tile_start = block_idx().x as usize * 256 * 8;
//! let tile = input.get(tile_start..).unwrap_or(&[]);
//! let items: [f32; 8] = load_blocked(tile, thread_rank() as usize, 0.0);
//! store_blocked(output.get_mut(tile_start..).unwrap_or(&mut []), thread_rank() as usize, &items.map(|x| 2.0 * x));
//! ```
//!
//! # Arrangements
//! - **Blocked** ([`load_blocked`], [`store_blocked`]): thread `r` holds elements
//!   `r * ITEMS .. (r + 1) * ITEMS` of the tile, in order. This is what a thread-local scan or
//!   reduction wants. When the thread's `ITEMS` elements all exist, their address is a multiple of
//!   16 bytes and `ITEMS * size_of::<T>()` is a multiple of 16, they move as 16-byte vector
//!   accesses (`ld.global.v4.u32`, `ld.global.v2.u64`, ...: CUB's `BLOCK_LOAD_VECTORIZE`);
//!   otherwise one element at a time (CUB's `BLOCK_LOAD_DIRECT`).
//! - **Striped** ([`load_striped`], [`store_striped`]): thread `r` of `threads` holds elements
//!   `r, r + threads, r + 2 * threads, ...`: consecutive threads touch consecutive elements, so
//!   every access is coalesced without vectors.
//! - **Blocked through a warp exchange** ([`load_warp_transposed`], [`store_warp_transposed`]):
//!   the blocked arrangement, but each warp moves its `32 * ITEMS` elements of the tile with
//!   coalesced accesses (lane `l` touches elements `l, l + 32, ...` of the warp's part) and
//!   rearranges them through shared memory (CUB's `BLOCK_LOAD_WARP_TRANSPOSE` and
//!   `BLOCK_STORE_WARP_TRANSPOSE`). Every global access of a warp covers 32 consecutive
//!   elements, where a blocked vector access of 16 bytes per lane spans `32 * ITEMS` elements;
//!   on the H100 a single-pass scan of 2^26 `f32` went from 0.340 ms with blocked vector loads
//!   and stores (256 threads, 12 items) to 0.256 ms with the exchange (128 threads, 31 items).
//!   With an odd `ITEMS` the shared-memory exchange is free of bank conflicts for 4-byte
//!   elements.
//!
//! # Tails
//! A tile may end early (the last tile of an input): a load gives `fill` for the elements past
//! the end of the slice and a store skips them, so a tile of any length, a length that is not a
//! multiple of anything and an empty slice all work. Only the accesses of threads whose
//! elements are all present and aligned are vectorized; the others are scalar.
//!
//! # Alignment
//! Buffers are allocated 256-byte aligned on the GPU, so a tile that starts at a multiple of
//! 16 bytes from the start of a buffer is aligned. A sub-slice at another offset (or a buffer of
//! the simulator, whose allocations are aligned to the element only) takes the scalar path: the
//! same values, more instructions. [`split_at_alignment`] splits off the short unaligned head of
//! a slice so that the rest is aligned.

/// The bytes of one vector access.
pub const VECTOR_BYTES: usize = 16;

use crate::backend::vector as imp;
use crate::index::{block_dim, thread_rank};
use crate::shared::{Shape, Shared};
use crate::sync::syncwarp;
use crate::warp::WARP_SIZE;
use core::mem::MaybeUninit;

/// Reads `ITEMS` elements at `first` as 16-byte vector loads.
///
/// # Safety
/// `first` is 16-byte aligned and the `ITEMS` elements after it are readable global memory;
/// `size_of::<[T; ITEMS]>()` is a multiple of 16.
#[inline(always)]
unsafe fn load_vectors<T: Copy, const ITEMS: usize>(first: *const T) -> [T; ITEMS] {
    let mut items = MaybeUninit::<[T; ITEMS]>::uninit();
    let out = items.as_mut_ptr().cast::<[u32; 4]>();
    for piece in 0..size_of::<[T; ITEMS]>() / VECTOR_BYTES {
        // SAFETY: piece `piece` of the elements is in bounds and aligned (the caller's
        // promise), and so is its place in `items` (unaligned writes: `items` is aligned to
        // `T` only).
        unsafe {
            let words = imp::load16(first.cast::<u8>().add(piece * VECTOR_BYTES));
            out.add(piece).write_unaligned(words);
        }
    }
    // SAFETY: every byte of `items` was written, and `T: Copy` elements are plain bits read
    // from the slice.
    unsafe { items.assume_init() }
}

/// Writes `items` at `first` as 16-byte vector stores.
///
/// # Safety
/// As [`load_vectors`], for writes.
#[inline(always)]
unsafe fn store_vectors<T: Copy, const ITEMS: usize>(first: *mut T, items: &[T; ITEMS]) {
    let words = (items as *const [T; ITEMS]).cast::<[u32; 4]>();
    for piece in 0..size_of::<[T; ITEMS]>() / VECTOR_BYTES {
        // SAFETY: in bounds and aligned (the caller's promise); `items` is read unaligned.
        unsafe {
            imp::store16(
                first.cast::<u8>().add(piece * VECTOR_BYTES),
                words.add(piece).read_unaligned(),
            );
        }
    }
}

/// Whether `ITEMS` elements of `T` at `address` can move as whole 16-byte vectors.
#[inline(always)]
fn vectorizable<T, const ITEMS: usize>(address: usize) -> bool {
    // The size test is a constant for each instance, so the branch folds away when it fails.
    size_of::<[T; ITEMS]>().is_multiple_of(VECTOR_BYTES)
        && size_of::<T>() > 0
        && address.is_multiple_of(VECTOR_BYTES)
}

/// Splits `slice` into an unaligned head and a rest that starts at a 16-byte-aligned address:
/// the head has fewer than `16 / size_of::<T>()` elements (all of `slice` when no element of it
/// is aligned, as for an element size that does not divide 16).
#[inline(always)]
pub fn split_at_alignment<T>(slice: &[T]) -> (&[T], &[T]) {
    let head = slice.as_ptr().align_offset(VECTOR_BYTES).min(slice.len());
    slice.split_at(head)
}

/// [`split_at_alignment`] for a mutable slice: an unaligned head of fewer than
/// `16 / size_of::<T>()` elements and a rest that starts 16-byte aligned.
#[inline(always)]
pub fn split_at_alignment_mut<T>(slice: &mut [T]) -> (&mut [T], &mut [T]) {
    let head = slice.as_ptr().align_offset(VECTOR_BYTES).min(slice.len());
    slice.split_at_mut(head)
}

/// A 16-byte-aligned slice seen as whole chunks of `ITEMS` elements, each loaded with 16-byte
/// vector loads and no other check than its index: the inner loop of a streaming kernel
/// (CUB's vectorized loads), where [`load_blocked`] would test the alignment at every load.
#[derive(Clone, Copy)]
pub struct VectorChunks<'a, T, const ITEMS: usize> {
    /// The whole chunks: starts 16-byte aligned, length a multiple of `ITEMS`.
    elements: &'a [T],
}

impl<'a, T: Copy, const ITEMS: usize> VectorChunks<'a, T, ITEMS> {
    /// The whole chunks of `slice` and the elements after them (fewer than `ITEMS`), or `None`
    /// when `slice` does not start 16-byte aligned or `ITEMS` elements of `T` are not a
    /// multiple of 16 bytes ([`split_at_alignment`] gives an aligned rest).
    #[inline(always)]
    pub fn new(slice: &'a [T]) -> Option<(Self, &'a [T])> {
        if !vectorizable::<T, ITEMS>(slice.as_ptr() as usize) || ITEMS == 0 {
            return None;
        }
        let (elements, tail) = slice.split_at(slice.len() / ITEMS * ITEMS);
        Some((VectorChunks { elements }, tail))
    }

    /// The number of chunks.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.elements.len() / ITEMS
    }

    /// Whether there is no chunk.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.elements.is_empty()
    }

    /// Chunk `index`: elements `index * ITEMS .. (index + 1) * ITEMS`.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn load(&self, index: usize) -> [T; ITEMS] {
        crate::bounds::check(crate::bounds::Container::Slice, index, self.len());
        // SAFETY: `index < len`, so the chunk is inside the slice; it starts at a multiple of
        // `size_of::<[T; ITEMS]>()` (a multiple of 16) from a 16-byte-aligned start (both
        // checked by `new`).
        unsafe { load_vectors(self.elements.as_ptr().add(index * ITEMS)) }
    }
}

/// The elements `rank * ITEMS .. (rank + 1) * ITEMS` of `tile` (blocked arrangement), `fill`
/// for those past its end; 16-byte loads when they are all present and aligned (see the
/// [module documentation](self)).
#[inline(always)]
pub fn load_blocked<T: Copy, const ITEMS: usize>(tile: &[T], rank: usize, fill: T) -> [T; ITEMS] {
    let start = rank.saturating_mul(ITEMS);
    if start < tile.len() && tile.len() - start >= ITEMS {
        // SAFETY: `start + ITEMS <= tile.len()` (checked just above), so the pointer and the
        // `ITEMS` elements after it are inside the slice.
        let first = unsafe { tile.as_ptr().add(start) };
        if vectorizable::<T, ITEMS>(first as usize) {
            // SAFETY: the size of `[T; ITEMS]` is a multiple of 16 and the address is 16-byte
            // aligned (both checked by `vectorizable`), and the elements are inside the slice.
            return unsafe { load_vectors(first) };
        }
        // SAFETY: as above, in bounds; `[T; ITEMS]` has the alignment of `T`.
        return unsafe { first.cast::<[T; ITEMS]>().read() };
    }
    let mut items = [fill; ITEMS];
    // Constant indices once unrolled keep `items` in registers.
    #[expect(
        clippy::needless_range_loop,
        reason = "constant indices keep the array in registers on the GPU"
    )]
    for k in 0..ITEMS {
        if let Some(&value) = tile.get(start.saturating_add(k)) {
            items[k] = value;
        }
    }
    items
}

/// Writes `items` to the elements `rank * ITEMS .. (rank + 1) * ITEMS` of `tile` (blocked
/// arrangement), skipping those past its end; 16-byte stores when they are all present and
/// aligned.
#[inline(always)]
pub fn store_blocked<T: Copy, const ITEMS: usize>(tile: &mut [T], rank: usize, items: &[T; ITEMS]) {
    let start = rank.saturating_mul(ITEMS);
    if start < tile.len() && tile.len() - start >= ITEMS {
        // SAFETY: `start + ITEMS <= tile.len()`: in bounds.
        let first = unsafe { tile.as_mut_ptr().add(start) };
        if vectorizable::<T, ITEMS>(first as usize) {
            // SAFETY: in bounds, 16-byte aligned, of a size that is a multiple of 16 (see
            // `load_blocked`); the slice is borrowed mutably, so nothing else touches it.
            unsafe { store_vectors(first, items) };
        } else {
            // SAFETY: in bounds; `[T; ITEMS]` has the alignment of `T`.
            unsafe { first.cast::<[T; ITEMS]>().write(*items) };
        }
        return;
    }
    #[expect(
        clippy::needless_range_loop,
        reason = "constant indices keep the array in registers on the GPU"
    )]
    for k in 0..ITEMS {
        if let Some(slot) = tile.get_mut(start.saturating_add(k)) {
            *slot = items[k];
        }
    }
}

/// The elements `rank + k * threads` (`k` in `0 .. ITEMS`) of `tile` (striped arrangement),
/// `fill` for those past its end.
#[inline(always)]
pub fn load_striped<T: Copy, const ITEMS: usize>(
    tile: &[T],
    rank: usize,
    threads: usize,
    fill: T,
) -> [T; ITEMS] {
    let mut items = [fill; ITEMS];
    #[expect(
        clippy::needless_range_loop,
        reason = "constant indices keep the array in registers on the GPU"
    )]
    for k in 0..ITEMS {
        if let Some(&value) = tile.get(k.saturating_mul(threads).saturating_add(rank)) {
            items[k] = value;
        }
    }
    items
}

/// Writes `items[k]` to element `rank + k * threads` of `tile` (striped arrangement), skipping
/// those past its end.
#[inline(always)]
pub fn store_striped<T: Copy, const ITEMS: usize>(
    tile: &mut [T],
    rank: usize,
    threads: usize,
    items: &[T; ITEMS],
) {
    #[expect(
        clippy::needless_range_loop,
        reason = "constant indices keep the array in registers on the GPU"
    )]
    for k in 0..ITEMS {
        if let Some(slot) = tile.get_mut(k.saturating_mul(threads).saturating_add(rank)) {
            *slot = items[k];
        }
    }
}

/// Where this thread's warp keeps its part of a tile in a warp exchange: the first element of
/// the part (in the tile and in the exchange), the warp's lanes, their mask, and this lane.
struct WarpPart {
    /// `warp * 32 * ITEMS`.
    base: usize,
    /// The warp's threads: 32, or fewer in the last warp of a block whose size is not a multiple
    /// of 32.
    lanes: usize,
    /// The lanes' mask for `syncwarp`.
    mask: u32,
    /// This thread's lane.
    lane: usize,
}

impl WarpPart {
    /// This thread's part of a tile of `ITEMS` elements per thread; stops the thread when
    /// `exchange` has fewer than `threads * ITEMS` elements.
    #[inline(always)]
    #[track_caller]
    fn here<T, S: Shape, const ITEMS: usize>(exchange: &Shared<T, S>, what: &str) -> WarpPart {
        let d = block_dim();
        let threads = (d.x * d.y * d.z) as usize;
        let rank = thread_rank() as usize;
        let warp = rank / WARP_SIZE as usize;
        let first_lane = warp * WARP_SIZE as usize;
        let lanes = (threads - first_lane).min(WARP_SIZE as usize);
        if exchange.len() < threads.saturating_mul(ITEMS) {
            exchange_too_small(what, exchange.len(), threads, ITEMS);
        }
        WarpPart {
            base: first_lane * ITEMS,
            lanes,
            mask: if lanes == WARP_SIZE as usize {
                u32::MAX
            } else {
                (1u32 << lanes) - 1
            },
            lane: rank - first_lane,
        }
    }
}

/// The panic of an exchange with fewer than `threads * items` elements.
#[cold]
#[inline(never)]
#[track_caller]
fn exchange_too_small(what: &str, len: usize, threads: usize, items: usize) -> ! {
    // The GPU records static messages only, so the numbers are in the simulator's message alone.
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (what, len, threads, items);
        panic!(
            "warp-transposed block load/store: the shared exchange needs one element per item of every thread of the block (threads * ITEMS)"
        );
    }
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{what}: the shared exchange has {len} elements, a block of {threads} threads with {items} items each needs {} (threads * ITEMS)",
        threads * items
    );
}

/// The elements `rank * ITEMS .. (rank + 1) * ITEMS` of `tile` (blocked arrangement, as
/// [`load_blocked`] gives them), `fill` for those past its end, read with coalesced accesses
/// and rearranged through `exchange` (see the [module documentation](self)).
///
/// Every thread of a warp must call it together (it synchronizes the warp's lanes with
/// `syncwarp`; the warps of a block need not). `exchange` is shared memory of at least
/// `threads * ITEMS` elements for the block; each warp uses its own part of it, so no block
/// barrier is needed, and the exchange may be reused right after the call.
///
/// # Panics
/// When `exchange` has fewer than `threads * ITEMS` elements (the simulator names both).
#[inline(always)]
#[track_caller]
pub fn load_warp_transposed<T: Copy, S: Shape<Index = usize>, const ITEMS: usize>(
    tile: &[T],
    exchange: &mut Shared<T, S>,
    fill: T,
) -> [T; ITEMS] {
    let part = WarpPart::here::<T, S, ITEMS>(exchange, "load_warp_transposed");
    let (base, lanes, lane) = (part.base, part.lanes, part.lane);
    let warp_tile = tile.get(base..).unwrap_or(&[]);
    // Lanes that read the exchange in a previous call have done so.
    syncwarp(part.mask);
    if lanes == WARP_SIZE as usize && warp_tile.len() >= WARP_SIZE as usize * ITEMS {
        // A whole warp and a whole part, the common case: a constant stride, so the offsets
        // fold into the load instructions.
        for k in 0..ITEMS {
            let i = k * WARP_SIZE as usize + lane;
            // SAFETY: `i < 32 * ITEMS <= warp_tile.len()`; `base + i < threads * ITEMS`, which
            // `WarpPart::here` checked against the exchange's length.
            unsafe { exchange.set_unchecked(base + i, *warp_tile.get_unchecked(i)) };
        }
    } else {
        for k in 0..ITEMS {
            let i = k * lanes + lane;
            let value = warp_tile.get(i).copied().unwrap_or(fill);
            // SAFETY: `base + i < threads * ITEMS`, checked against the exchange's length.
            unsafe { exchange.set_unchecked(base + i, value) };
        }
    }
    syncwarp(part.mask);
    // SAFETY: `base + lane * ITEMS + k < base + lanes * ITEMS <= threads * ITEMS`, checked
    // against the exchange's length; the warp's lanes wrote these elements before the
    // `syncwarp`.
    core::array::from_fn(|k| unsafe { exchange.get_unchecked(base + lane * ITEMS + k) })
}

/// Writes `items` to the elements `rank * ITEMS .. (rank + 1) * ITEMS` of `tile` (blocked
/// arrangement, as [`store_blocked`]), skipping those past its end, rearranged through
/// `exchange` so that the writes are coalesced (see the [module documentation](self)).
///
/// The contract of [`load_warp_transposed`]: every thread of a warp calls it together, and
/// `exchange` has at least `threads * ITEMS` elements.
///
/// # Panics
/// When `exchange` has fewer than `threads * ITEMS` elements.
#[inline(always)]
#[track_caller]
pub fn store_warp_transposed<T: Copy, S: Shape<Index = usize>, const ITEMS: usize>(
    tile: &mut [T],
    exchange: &mut Shared<T, S>,
    items: &[T; ITEMS],
) {
    let part = WarpPart::here::<T, S, ITEMS>(exchange, "store_warp_transposed");
    let (base, lanes, lane) = (part.base, part.lanes, part.lane);
    syncwarp(part.mask);
    for (k, &item) in items.iter().enumerate() {
        // SAFETY: `base + lane * ITEMS + k < threads * ITEMS`, checked against the exchange.
        unsafe { exchange.set_unchecked(base + lane * ITEMS + k, item) };
    }
    syncwarp(part.mask);
    let warp_tile = match tile.get_mut(base..) {
        Some(warp_tile) => warp_tile,
        None => return,
    };
    if lanes == WARP_SIZE as usize && warp_tile.len() >= WARP_SIZE as usize * ITEMS {
        // The common case, with a constant stride (see `load_warp_transposed`).
        for k in 0..ITEMS {
            let i = k * WARP_SIZE as usize + lane;
            // SAFETY: `i < 32 * ITEMS <= warp_tile.len()`, and `base + i` is in the exchange
            // (as above), written by the warp's lanes before the `syncwarp`.
            unsafe { *warp_tile.get_unchecked_mut(i) = exchange.get_unchecked(base + i) };
        }
    } else {
        for k in 0..ITEMS {
            let i = k * lanes + lane;
            if let Some(slot) = warp_tile.get_mut(i) {
                // SAFETY: `base + i < base + lanes * ITEMS <= threads * ITEMS`, checked against
                // the exchange's length; written by the warp's lanes before the `syncwarp`.
                *slot = unsafe { exchange.get_unchecked(base + i) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// A 16-byte-aligned array, to test both paths on the host.
    #[repr(C, align(16))]
    struct Aligned([u32; 40]);

    #[test]
    fn blocked_loads_match_indexing_for_every_offset_and_length() {
        let data = Aligned(core::array::from_fn(|i| i as u32 * 7 + 1));
        for offset in 0..5 {
            for len in 0..(40 - offset) {
                let tile = &data.0[offset..offset + len];
                for rank in 0..12 {
                    let got: [u32; 4] = load_blocked(tile, rank, u32::MAX);
                    let expected: [u32; 4] = core::array::from_fn(|k| {
                        tile.get(rank * 4 + k).copied().unwrap_or(u32::MAX)
                    });
                    assert_eq!(got, expected, "offset {offset}, length {len}, rank {rank}");
                }
            }
        }
    }

    #[test]
    fn blocked_stores_write_exactly_the_present_elements() {
        for offset in 0..5 {
            for len in 0..(40 - offset) {
                let mut data = Aligned([0; 40]);
                for rank in 0..12 {
                    let items: [u32; 4] = core::array::from_fn(|k| (rank * 4 + k) as u32 + 100);
                    store_blocked(&mut data.0[offset..offset + len], rank, &items);
                }
                let expected: Vec<u32> = (0..40)
                    .map(|i| {
                        if i >= offset && i < offset + len {
                            (i - offset) as u32 + 100
                        } else {
                            0
                        }
                    })
                    .collect();
                assert_eq!(data.0.to_vec(), expected, "offset {offset}, length {len}");
            }
        }
    }

    #[test]
    fn striped_round_trip_and_tail() {
        let tile: Vec<u64> = (0..23).map(|i| i * 3).collect();
        let mut out = vec![0u64; 23];
        for rank in 0..8 {
            let items: [u64; 3] = load_striped(&tile, rank, 8, 9999);
            for (k, item) in items.iter().enumerate() {
                let i = rank + 8 * k;
                assert_eq!(
                    *item,
                    tile.get(i).copied().unwrap_or(9999),
                    "rank {rank}, item {k}"
                );
            }
            store_striped(&mut out, rank, 8, &items);
        }
        assert_eq!(out, tile);
    }

    #[test]
    fn alignment_split_leaves_an_aligned_rest() {
        let data = Aligned([0; 40]);
        for offset in 0..8 {
            let (head, rest) = split_at_alignment(&data.0[offset..]);
            assert_eq!(head.len(), (4 - offset % 4) % 4, "offset {offset}");
            assert!((rest.as_ptr() as usize).is_multiple_of(16));
        }
        let (head, rest) = split_at_alignment(&data.0[1..2]);
        assert_eq!((head.len(), rest.len()), (1, 0));
    }
}
