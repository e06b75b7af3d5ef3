//! What the kernels of `#[elementwise]` and `#[reduction]` run: a grid-stride loop over the
//! elements ([`grid_stride`], [`grid_stride_large`]), a grid-wide fold into one value per block
//! ([`reduce_to_block`]) and a fold of each row of a row-major matrix ([`reduce_rows`]).
//!
//! The macros generate only glue (re-slicing the arguments to one length, calling the user's
//! scalar function); the loops live here, written once and read on their own.
//!
//! # Order of combination
//! [`reduce_to_block`] and [`reduce_rows`] fold in a fixed order for a given launch shape: each
//! thread folds its elements in increasing index order (eight at a time, left to right), then
//! the block combines the threads' values with [`block_reduce`] (fixed trees, in thread-rank
//! order). A float result is deterministic for a given grid, and may differ in rounding from a
//! left-to-right sum.

use crate::block_collectives::{block_reduce, block_scratch_len};
use crate::index::{block_dim, block_idx, grid_1d, grid_dim, gridsize_1d, thread_idx, thread_rank};
use crate::shared::dynamic_shared_array;
use crate::warp::ShuffleValue;

/// A copy of `value`, for an element or a broadcast value a generated kernel passes to the
/// scalar function.
///
/// Generated code calls it instead of copying with `*value` so that a type that is not
/// `DeviceCopy` gives one error (the kernel's own check at the user's type), not one more per
/// use.
///
/// # Safety
/// `T` must be `Copy`. The generated kernels guarantee it: they do not compile unless every
/// element type is `DeviceCopy`, which implies `Copy`.
#[doc(hidden)]
#[inline(always)]
pub unsafe fn __copy_element<T>(value: &T) -> T {
    // SAFETY: `T: Copy` (the caller's contract): a bitwise read is a copy, and `value` is a
    // valid reference.
    unsafe { core::ptr::read(value) }
}

/// Calls `body(i)` for every index `i < len` this thread owns in a grid-stride loop (thread `t`
/// of `T` takes `t, t + T, t + 2T, ...`), with 32-bit index arithmetic. `body` is called only
/// with indices below `len` (generated kernels rely on it to index their slices, re-sliced to
/// `len`, without bounds checks).
///
/// For kernels whose launch checked that every length fits in `u32` (every kernel without
/// `large_buffers`): `len` is below 2^32, and the loop never forms an index at or past `len`, so
/// it cannot wrap.
#[inline(always)]
pub fn grid_stride(len: usize, mut body: impl FnMut(usize)) {
    let len = len as u32;
    let stride = gridsize_1d() as u32;
    let mut i = grid_1d() as u32;
    if i >= len {
        return;
    }
    loop {
        body(i as usize);
        // `len - i > stride` keeps `i + stride` below `len` without a wider add.
        if len - i <= stride {
            break;
        }
        i += stride;
    }
}

/// [`grid_stride`] with 64-bit indices, for `large_buffers` kernels (the same promise: only
/// indices below `len`).
#[inline(always)]
pub fn grid_stride_large(len: usize, mut body: impl FnMut(usize)) {
    let stride = gridsize_1d();
    let mut i = grid_1d();
    while i < len {
        body(i);
        i += stride;
    }
}

/// The bytes of dynamic shared memory [`reduce_to_block`] and [`reduce_rows`] need for a block
/// of `block_threads` threads and results of `value_size` bytes.
pub const fn reduce_shared_bytes(block_threads: u32, value_size: usize) -> usize {
    block_scratch_len(block_threads) * value_size
}

/// Folds `element(i)` for every `i < len` over the whole grid, starting from `identity`, and
/// returns this block's total to every thread of the block (the caller writes it out).
/// `element` is called only with indices below `len` (generated kernels rely on it to read
/// their slices, re-sliced to `len`, without bounds checks).
///
/// Each thread folds its elements of the block's tiles (see the comments), eight loads in
/// flight at a time; the
/// block then combines the threads' values through the launch's dynamic shared memory, which
/// must hold [`reduce_shared_bytes`]. Every thread of the block must call it.
#[inline(always)]
#[track_caller]
pub fn reduce_to_block<T: ShuffleValue>(
    len: usize,
    identity: T,
    element: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
) -> T {
    // Block `b` takes tiles `b, b + grid, ...` of `8 * threads` consecutive elements; within a
    // tile, thread `t` takes elements `t, t + threads, ..., t + 7 * threads` (CUB's striped
    // arrangement): each warp load is 128 consecutive bytes, the eight loads of a block cover
    // one contiguous tile, and the eight are issued before their values are combined. `len` and
    // the grid are below 2^32 each, so no sum here overflows a `usize`.
    let threads = (block_dim().x * block_dim().y * block_dim().z) as usize;
    let rank = thread_rank() as usize;
    let tile = 8 * threads;
    let grid_tiles = grid_dim().x as usize * tile;
    let mut base = block_idx().x as usize * tile;
    let mut acc = identity;
    while base + tile <= len {
        let i = base + rank;
        let (v0, v1) = (element(i), element(i + threads));
        let (v2, v3) = (element(i + 2 * threads), element(i + 3 * threads));
        let (v4, v5) = (element(i + 4 * threads), element(i + 5 * threads));
        let (v6, v7) = (element(i + 6 * threads), element(i + 7 * threads));
        acc = combine(combine(combine(combine(acc, v0), v1), v2), v3);
        acc = combine(combine(combine(combine(acc, v4), v5), v6), v7);
        base += grid_tiles;
    }
    // At most one tile of the grid is partial, and it is this block's next one.
    let mut i = base + rank;
    while i < len {
        acc = combine(acc, element(i));
        i += threads;
    }
    let mut scratch = dynamic_shared_array::<T>();
    block_reduce(&mut scratch, acc, combine)
}

/// Folds each row of a row-major `rows x cols` matrix, one block per row (a block takes rows
/// `block, block + grid, ...`), and calls `write(row, total)` from thread 0 of the block.
///
/// `element(k)` is the matrix's element at flat index `k = row * cols + col`, called only with
/// `k < rows * cols` (generated kernels rely on it, as for [`reduce_to_block`]). The threads of
/// the block take the columns in a block-stride loop, then combine as in [`reduce_to_block`]
/// (the same dynamic shared memory). Every thread of the block must call it.
#[inline(always)]
#[track_caller]
pub fn reduce_rows<T: ShuffleValue>(
    rows: usize,
    cols: usize,
    identity: T,
    element: impl Fn(usize) -> T,
    combine: impl Fn(T, T) -> T,
    mut write: impl FnMut(usize, T),
) {
    let threads = block_dim().x as usize;
    let mut scratch = dynamic_shared_array::<T>();
    let mut row = block_idx().x as usize;
    while row < rows {
        let base = row * cols;
        let mut col = thread_idx().x as usize;
        let mut acc = identity;
        while col < cols {
            acc = combine(acc, element(base + col));
            col += threads;
        }
        let total = block_reduce(&mut scratch, acc, &combine);
        if thread_idx().x == 0 {
            write(row, total);
        }
        row += grid_dim().x as usize;
    }
}
