//! The block loads and stores (`ferrocuda::device::block_io`) in a kernel
//! (`test_kernels::block_io`), on both backends: for tiles of every length around the block's
//! `threads * 4` elements and every offset modulo the 16-byte vector (so that some threads take
//! the vector path and others the scalar one), each thread's blocked, striped and
//! warp-transposed items equal the input's elements at the positions CUB's `BlockLoad` gives them
//! (the fill value past the end), and the stores put every element back where it came from and
//! nothing past the end. Blocks of 96 threads (whole warps) and of 80 (a last warp of 16 lanes).

use ferrocuda::prelude::*;
use ferrocuda_tests::device_tests;
use ferrocuda_tests::inputs::rng;
use rand::Rng;
use test_kernels::block_io::{BLOCK_IO_ITEMS, block_io_tiles};

/// Threads per block of the launches: whole warps, and a last warp of 16 lanes.
const BLOCK_SIZES: [usize; 2] = [96, 80];
/// Blocks of the launches.
const BLOCKS: usize = 3;

/// Runs `block_io_tiles::<T>` on `data[offset..offset + len]` (outputs at the same offset of
/// buffers of sentinels) and checks every output element.
macro_rules! check_tiles {
    ($device:expr, $t:ty, $fill:expr, $sentinel:expr) => {{
        let device = $device;
        let stream = device.default_stream();
        let mut rng = rng(concat!("block_io_", stringify!($t)));
        for threads in BLOCK_SIZES {
        let per_grid = threads * BLOCKS * BLOCK_IO_ITEMS;
        let data: Vec<$t> = (0..per_grid + 8).map(|_| rng.random()).collect();
        let input = DeviceBuffer::from_slice(device, &data).unwrap();
        for offset in 0..4 {
            for len in [0, 1, 3, 5, 17, 64, 127, 128, 129, 319, 320, 321, 383, 384, 385, per_grid - 1, per_grid] {
                let tile_len = threads * BLOCK_IO_ITEMS;
                let mut loaded_blocked = DeviceBuffer::<$t>::zeros(device, per_grid).unwrap();
                let mut loaded_striped = DeviceBuffer::<$t>::zeros(device, per_grid).unwrap();
                let sentinels = vec![$sentinel; per_grid + 8];
                let mut blocked = DeviceBuffer::from_slice(device, &sentinels).unwrap();
                let mut striped = DeviceBuffer::from_slice(device, &sentinels).unwrap();
                let mut loaded_transposed = DeviceBuffer::<$t>::zeros(device, per_grid).unwrap();
                let mut transposed = DeviceBuffer::from_slice(device, &sentinels).unwrap();
                let shared = tile_len * size_of::<$t>() + 16;
                launch!(block_io_tiles::<$t>[BLOCKS, threads, &stream, shared](
                    input.slice(offset..offset + len),
                    $fill,
                    &mut loaded_blocked,
                    &mut loaded_striped,
                    blocked.slice_mut(offset..offset + len),
                    striped.slice_mut(offset..offset + len),
                    &mut loaded_transposed,
                    transposed.slice_mut(offset..offset + len)
                ))
                .unwrap();
                let slice = &data[offset..offset + len];
                let at = |i: usize| slice.get(i).copied().unwrap_or($fill);
                let (got_blocked, got_striped) = (loaded_blocked.to_vec().unwrap(), loaded_striped.to_vec().unwrap());
                let got_transposed = loaded_transposed.to_vec().unwrap();
                for g in 0..threads * BLOCKS {
                    let (block, rank) = (g / threads, g % threads);
                    for k in 0..BLOCK_IO_ITEMS {
                        let blocked_at = block * tile_len + rank * BLOCK_IO_ITEMS + k;
                        let striped_at = block * tile_len + rank + k * threads;
                        let context = format!("{}, {threads} threads, offset {offset}, length {len}, thread {g}, item {k}", stringify!($t));
                        assert_eq!(got_blocked[BLOCK_IO_ITEMS * g + k], at(blocked_at), "blocked load, {context}");
                        assert_eq!(got_striped[BLOCK_IO_ITEMS * g + k], at(striped_at), "striped load, {context}");
                        assert_eq!(got_transposed[BLOCK_IO_ITEMS * g + k], at(blocked_at), "warp-transposed load, {context}");
                    }
                }
                let mut expected = sentinels.clone();
                expected[offset..offset + len].copy_from_slice(slice);
                assert!(blocked.to_vec().unwrap() == expected, "blocked stores, {}, offset {offset}, length {len}", stringify!($t));
                assert!(striped.to_vec().unwrap() == expected, "striped stores, {}, offset {offset}, length {len}", stringify!($t));
                assert!(transposed.to_vec().unwrap() == expected, "warp-transposed stores, {}, {threads} threads, offset {offset}, length {len}", stringify!($t));
            }
        }
        }
    }};
}

device_tests! {
    fn block_loads_and_stores_match_cub_arrangements(device) {
        check_tiles!(device, u8, 0xee, 0x11);
        check_tiles!(device, u32, 0xeeee_eeee, 0x1111_1111);
        check_tiles!(device, f64, -7.5, 3.25);
    }
}
