//! `block_radix_rank` on tiles of digits, for `tests/tests/block_radix_rank.rs`, which checks the
//! ranks and the digit starts against a stable counting sort on the CPU; `rank_tiles_counted` does
//! the same with `block_radix_rank_counted` and records what its callback gets.

use ferrocuda::device::block_radix_rank::block_radix_rank_counted;
use ferrocuda::prelude::*;

/// Digits per thread of [`rank_tiles`]: odd, so that an item's place in the warp-striped order
/// is not a power-of-two pattern.
pub const RANK_ITEMS: usize = 3;

/// Each block ranks its tile of `block threads * RANK_ITEMS` digits of `radix_bits` bits:
/// `digits[tile + o]` is the digit of the item of warp-striped position `o`, and `ranks[tile + o]`
/// gets its rank; `starts[block * (2^radix_bits + 1) + d]` gets where digit `d` starts (`d` up to
/// `2^radix_bits`, the tile's size). The counters are the launch's dynamic shared memory
/// (`radix_rank_counters_len(radix_bits, threads)` elements).
#[kernel]
pub fn rank_tiles(radix_bits: u32, digits: &[u32], ranks: &mut [u32], starts: &mut [u32]) {
    let mut counters = dynamic_shared_array::<u32>();
    let mut scan = shared_array!(u32; BLOCK_SCRATCH_LEN);
    let d = block_dim();
    let threads = (d.x * d.y * d.z) as usize;
    let tile = block_idx().x as usize * threads * RANK_ITEMS;
    let mine: [u32; RANK_ITEMS] =
        core::array::from_fn(|i| digits[tile + warp_striped_index(i, RANK_ITEMS)]);
    let got = block_radix_rank(&mut counters, &mut scan, mine, radix_bits);
    for (i, rank) in got.into_iter().enumerate() {
        ranks[tile + warp_striped_index(i, RANK_ITEMS)] = rank;
    }
    let radix = 1usize << radix_bits;
    let mut digit = thread_rank() as usize;
    while digit <= radix {
        starts[block_idx().x as usize * (radix + 1) + digit] =
            block_radix_digit_start(&counters, digit as u32);
        digit += threads;
    }
}

/// The block size of [`rank_tiles_counted`], a constant of the rank.
pub const COUNTED_THREADS: u32 = 128;

/// [`rank_tiles`] with `block_radix_rank_counted::<COUNTED_THREADS, RANK_ITEMS>` (blocks of
/// [`COUNTED_THREADS`] threads): `counts[block * 2^radix_bits + d]` gets the count of digit `d`
/// that the rank hands to its callback, and `callers[block * 2^radix_bits + d]` the thread that
/// got the call plus one.
#[kernel]
pub fn rank_tiles_counted(
    radix_bits: u32,
    digits: &[u32],
    ranks: &mut [u32],
    counts: &mut [u32],
    callers: &mut [u32],
) {
    let mut counters = dynamic_shared_array::<u32>();
    let mut scan = shared_array!(u32; BLOCK_SCRATCH_LEN);
    let tile = block_idx().x as usize * COUNTED_THREADS as usize * RANK_ITEMS;
    let row = (block_idx().x as usize) << radix_bits;
    let mine: [u32; RANK_ITEMS] =
        core::array::from_fn(|i| digits[tile + warp_striped_index(i, RANK_ITEMS)]);
    let got = block_radix_rank_counted::<COUNTED_THREADS, RANK_ITEMS, _, _>(
        &mut counters,
        &mut scan,
        mine,
        radix_bits,
        |digit, count| {
            counts[row + digit as usize] = count;
            callers[row + digit as usize] = thread_rank() + 1;
        },
    );
    for (i, rank) in got.into_iter().enumerate() {
        ranks[tile + warp_striped_index(i, RANK_ITEMS)] = rank;
    }
}

/// Misuses of `block_radix_rank`, by `mode`: 0, counters of 3 elements; 1, `radix_bits` 9; 2, a
/// digit of 300 with 8-bit digits; 3, `block_radix_rank_counted::<128, ..>` on a block of
/// another size. The counters are the launch's dynamic shared memory.
#[kernel]
pub fn rank_misuse(mode: u32, out: &mut [u32]) {
    let mut counters = dynamic_shared_array::<u32>();
    let mut small = shared_array!(u32; 3);
    let mut scan = shared_array!(u32; BLOCK_SCRATCH_LEN);
    let ranks = match mode {
        0 => block_radix_rank(&mut small, &mut scan, [1u32], 8),
        1 => block_radix_rank(&mut counters, &mut scan, [1u32], 9),
        2 => block_radix_rank(&mut counters, &mut scan, [300u32], 8),
        _ => block_radix_rank_counted::<128, 1, _, _>(&mut counters, &mut scan, [1], 8, |_, _| {}),
    };
    out[thread_rank() as usize] = ranks[0];
}
