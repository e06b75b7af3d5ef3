//! `block_radix_rank` (`test_kernels::block_radix_rank`) against a stable counting sort on the
//! CPU: random digits (many duplicates, one digit only, every digit once) for 1 to 8 radix bits,
//! on blocks that are and are not multiples of 32, on the simulator and the GPU; the digit counts
//! that `block_radix_rank_counted` hands to its callback, and which thread gets each; and the
//! misuses.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic, rng};
use rand::Rng;
use test_kernels::block_radix_rank::*;

/// Block sizes: one thread, a partial warp, a warp, a partial last warp, several warps.
const BLOCKS: [u32; 6] = [1, 20, 32, 33, 100, 256];

/// Tiles per launch.
const TILES: usize = 3;

/// The stable counting sort of one tile: each digit's position when the tile is sorted by
/// digit, ties in their order, and the start of each digit `0..=radix`.
fn counting_sort(digits: &[u32], radix: usize) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32; radix + 1];
    for &d in digits {
        starts[d as usize + 1] += 1;
    }
    for d in 0..radix {
        starts[d + 1] += starts[d];
    }
    let mut next = starts.clone();
    let ranks = digits
        .iter()
        .map(|&d| {
            let rank = next[d as usize];
            next[d as usize] += 1;
            rank
        })
        .collect();
    (ranks, starts)
}

/// Ranks `digits` (a whole number of tiles) on `device` with blocks of `threads` and checks every
/// rank and digit start against [`counting_sort`].
fn check(device: &Device, threads: u32, radix_bits: u32, digits: &[u32]) {
    let tile = threads as usize * RANK_ITEMS;
    let radix = 1usize << radix_bits;
    let tiles = digits.len() / tile;
    let input = DeviceBuffer::from_slice(device, digits).unwrap();
    let mut ranks = DeviceBuffer::<u32>::zeros(device, digits.len()).unwrap();
    let mut starts = DeviceBuffer::<u32>::zeros(device, tiles * (radix + 1)).unwrap();
    let shared = radix_rank_counters_len(radix_bits, threads) * 4;
    launch!(rank_tiles[tiles, threads, &device.default_stream(), shared as u32](
        radix_bits, &input, &mut ranks, &mut starts
    ))
    .unwrap();
    let (ranks, starts) = (ranks.to_vec().unwrap(), starts.to_vec().unwrap());
    for t in 0..tiles {
        let (want_ranks, want_starts) = counting_sort(&digits[t * tile..(t + 1) * tile], radix);
        assert_eq!(
            &ranks[t * tile..(t + 1) * tile],
            &want_ranks[..],
            "ranks of tile {t}, block {threads}, {radix_bits} bits"
        );
        assert_eq!(
            &starts[t * (radix + 1)..(t + 1) * (radix + 1)],
            &want_starts[..],
            "digit starts of tile {t}, block {threads}, {radix_bits} bits"
        );
    }
}

/// Ranks `digits` with `block_radix_rank_counted` (blocks of [`COUNTED_THREADS`]) and checks the
/// ranks, the counts the callback got and the thread of each call (thread `t` gets digits
/// `t * per ..`, `per` the digits per thread rounded up).
fn check_counted(device: &Device, radix_bits: u32, digits: &[u32]) {
    let threads = COUNTED_THREADS;
    let tile = threads as usize * RANK_ITEMS;
    let radix = 1usize << radix_bits;
    let tiles = digits.len() / tile;
    let input = DeviceBuffer::from_slice(device, digits).unwrap();
    let mut ranks = DeviceBuffer::<u32>::zeros(device, digits.len()).unwrap();
    let mut counts = DeviceBuffer::<u32>::zeros(device, tiles * radix).unwrap();
    let mut callers = DeviceBuffer::<u32>::zeros(device, tiles * radix).unwrap();
    let shared = radix_rank_counters_len(radix_bits, threads) * 4;
    launch!(rank_tiles_counted[tiles, threads, &device.default_stream(), shared as u32](
        radix_bits, &input, &mut ranks, &mut counts, &mut callers
    ))
    .unwrap();
    let (ranks, counts, callers) = (
        ranks.to_vec().unwrap(),
        counts.to_vec().unwrap(),
        callers.to_vec().unwrap(),
    );
    let per = radix.div_ceil(threads as usize);
    let want_callers: Vec<u32> = (0..radix).map(|d| (d / per) as u32 + 1).collect();
    for t in 0..tiles {
        let mine = &digits[t * tile..(t + 1) * tile];
        let (want_ranks, _) = counting_sort(mine, radix);
        let mut want_counts = vec![0u32; radix];
        for &d in mine {
            want_counts[d as usize] += 1;
        }
        let what = format!("tile {t}, {radix_bits} bits");
        assert_eq!(
            &ranks[t * tile..(t + 1) * tile],
            &want_ranks[..],
            "ranks of {what}"
        );
        assert_eq!(
            &counts[t * radix..(t + 1) * radix],
            &want_counts[..],
            "counts of {what}"
        );
        assert_eq!(
            &callers[t * radix..(t + 1) * radix],
            &want_callers[..],
            "callers of {what}"
        );
    }
}

device_tests! {
    fn counted_rank_hands_each_digit_count_to_its_thread(device) {
        let mut rng = rng("block_radix_rank_counted");
        let len = TILES * COUNTED_THREADS as usize * RANK_ITEMS;
        // 8 bits: two digits per thread of 128; 1 and 3 bits: threads without a digit.
        for radix_bits in [1, 3, 8] {
            let radix = 1u32 << radix_bits;
            let few: Vec<u32> = (0..len).map(|_| [0, radix - 1][rng.random_range(0..2)]).collect();
            check_counted(device, radix_bits, &few);
            let any: Vec<u32> = (0..len).map(|_| rng.random_range(0..radix)).collect();
            check_counted(device, radix_bits, &any);
        }
    }

    fn ranks_equal_a_stable_counting_sort(device) {
        let mut rng = rng("block_radix_rank");
        for threads in BLOCKS {
            let len = TILES * threads as usize * RANK_ITEMS;
            for radix_bits in [1, 3, 8] {
                let radix = 1u32 << radix_bits;
                // Few distinct digits among many (duplicates), then the full range.
                let choices = [0, radix / 2, radix - 1];
                let few: Vec<u32> = (0..len).map(|_| choices[rng.random_range(0..3)]).collect();
                check(device, threads, radix_bits, &few);
                let any: Vec<u32> = (0..len).map(|_| rng.random_range(0..radix)).collect();
                check(device, threads, radix_bits, &any);
            }
            // All equal (the largest digit, as padding is), and descending (every key moves).
            check(device, threads, 8, &vec![255; len]);
            let descending: Vec<u32> = (0..len).map(|i| 255 - (i % 256) as u32).collect();
            check(device, threads, 8, &descending);
        }
    }

    fn misuses_panic_naming_the_values(device) {
        let stream = device.default_stream();
        let cases: [(u32, u32, &str, &str); 4] = [
            (0, 0, "block_radix_rank: counters too small", "8-bit digits on a block of 64 threads need 771 elements (radix_rank_counters_len), the counters have 3"),
            (1, 4 * 800, "block_radix_rank: radix_bits", "radix_bits is 9; it must be between 1 and 8"),
            (2, 4 * 800, "block_radix_rank: ", "digit 300 has more than 8 bits"),
            (3, 4 * 800, "block_radix_rank_counted: ", "the block has 64 threads, BLOCK_THREADS is 128"),
        ];
        for (mode, shared, starts_with, simulator_text) in cases {
            let mut out = DeviceBuffer::<u32>::zeros(device, 64).unwrap();
            launch!(rank_misuse[1, 64, &stream, shared](mode, &mut out)).unwrap();
            let panic = expect_panic(device.synchronize());
            assert!(panic.message.starts_with(starts_with), "{}", panic.message);
            if device.is_simulator() {
                assert!(panic.message.contains(simulator_text), "{}", panic.message);
            }
            device.synchronize().unwrap();
        }
    }
}
