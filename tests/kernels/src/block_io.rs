//! The block loads and stores of `ferrocuda::device::block_io` in a kernel, for
//! `tests/tests/block_io.rs`: what each thread loads (blocked, striped, and blocked through a
//! warp exchange), and the round trip through the stores, on tiles of any length and alignment.

use ferrocuda::prelude::*;

/// Items per thread of [`block_io_tiles`].
pub const BLOCK_IO_ITEMS: usize = 4;

/// Block `b` of `threads` threads takes the tile `input[b * threads * 4 ..]` (cut at the end of
/// `input`); thread `r` (global index `g`) loads its blocked items (`tile[4r .. 4r + 4]`) and its
/// striped items (`tile[r + k * threads]`), `fill` past the end, writes them to
/// `loaded_blocked[4g ..]` and `loaded_striped[4g ..]`, and stores them back into the same
/// places of the tiles of `blocked` and `striped`; then loads its blocked items again through a
/// warp exchange in the dynamic shared memory (`threads * 4` elements) into
/// `loaded_transposed[4g ..]` and stores them into `transposed` the same way.
#[kernel(instances(u8, u32, f64))]
pub fn block_io_tiles<T: Copy>(
    input: &[T],
    fill: T,
    loaded_blocked: &mut [T],
    loaded_striped: &mut [T],
    blocked: &mut [T],
    striped: &mut [T],
    loaded_transposed: &mut [T],
    transposed: &mut [T],
) {
    let threads = block_dim().x as usize;
    let rank = thread_idx().x as usize;
    let g = grid!(1);
    let start = block_idx().x as usize * threads * BLOCK_IO_ITEMS;
    let tile = input.get(start..).unwrap_or(&[]);
    let items: [T; BLOCK_IO_ITEMS] = load_blocked(tile, rank, fill);
    loaded_blocked[BLOCK_IO_ITEMS * g..BLOCK_IO_ITEMS * (g + 1)].copy_from_slice(&items);
    if let Some(out) = blocked.get_mut(start..) {
        store_blocked(out, rank, &items);
    }
    let items: [T; BLOCK_IO_ITEMS] = load_striped(tile, rank, threads, fill);
    loaded_striped[BLOCK_IO_ITEMS * g..BLOCK_IO_ITEMS * (g + 1)].copy_from_slice(&items);
    if let Some(out) = striped.get_mut(start..) {
        store_striped(out, rank, threads, &items);
    }
    let mut exchange = DynamicShared::new().take::<T>(threads * BLOCK_IO_ITEMS);
    let items: [T; BLOCK_IO_ITEMS] = load_warp_transposed(tile, &mut exchange, fill);
    loaded_transposed[BLOCK_IO_ITEMS * g..BLOCK_IO_ITEMS * (g + 1)].copy_from_slice(&items);
    store_warp_transposed(
        transposed.get_mut(start..).unwrap_or(&mut []),
        &mut exchange,
        &items,
    );
}
