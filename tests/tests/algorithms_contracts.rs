//! The library's public kernels and device functions check their launch contracts: launched
//! with another block size, a grid that does not cover the input, or buffers that do not match
//! it, each panics with a message naming what was wrong, on the simulator and the GPU, instead
//! of returning a wrong result (or, for the kernels with unchecked loads, reading out of
//! bounds). `select_into`'s own checks are in `algorithms_histogram_select.rs`.

use ferrocuda::device::block_collectives::block_scratch_len;
use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic};
use kernels_algorithms::histogram::{HISTOGRAM_THREADS, histogram_even_counts};
use kernels_algorithms::radix_sort::{
    HISTOGRAM_SHARED_LEN, SORT_THREADS, pass_shared_bytes, radix_histogram, radix_onesweep_keys,
};
use kernels_algorithms::reduce::{REDUCE_BLOCK_THREADS, Sum, reduce_blocks};
use kernels_algorithms::scan::{Inclusive, SCAN_BLOCK_THREADS, SCAN_ITEMS_NARROW, scan_tiles};

/// The synchronization after a launch that must panic; the panic's message.
fn panic_message(stream: &Stream, launched: ferrocuda::Result<()>) -> String {
    launched.unwrap();
    expect_panic(stream.synchronize()).message
}

device_tests! {
    fn the_histogram_kernels_need_their_block_size(device) {
        let stream = device.default_stream();
        let samples = DeviceBuffer::from_slice(device, &[3u32; 1000]).unwrap();
        let mut counts = DeviceBuffer::<u32>::zeros(device, 16).unwrap();
        let shared = 16 * 4;
        let message = panic_message(&stream, launch!(histogram_even_counts::<u32>[2, HISTOGRAM_THREADS / 2, &stream, shared](
            &samples, 0, 16, &mut counts
        )));
        assert_eq!(message, "histogram_even_counts: launch it with blocks of HISTOGRAM_THREADS (256) threads");
        // The right block size counts every sample once.
        launch!(histogram_even_counts::<u32>[2, HISTOGRAM_THREADS, &stream, shared](&samples, 0, 16, &mut counts))
            .unwrap();
        let mut want = vec![0u32; 16];
        want[3] = 1000;
        assert_eq!(counts.to_vec().unwrap(), want);

        let keys = DeviceBuffer::from_slice(device, &(0..5000u32).collect::<Vec<_>>()).unwrap();
        let mut control = DeviceBuffer::<u32>::zeros(device, 4 * 256).unwrap();
        let shared = (HISTOGRAM_SHARED_LEN * 4) as u32;
        for block in [SORT_THREADS / 2, SORT_THREADS * 2] {
            let message = panic_message(&stream, launch!(radix_histogram::<u32>[2, block, &stream, shared](
                &keys, 0, 32, &mut control
            )));
            assert!(message.starts_with("radix_histogram: launch it with a 1-D grid"), "{message}");
        }
    }

    fn a_sort_pass_needs_one_block_per_tile(device) {
        let stream = device.default_stream();
        let keys = DeviceBuffer::from_slice(device, &[5u32; 100]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, 100).unwrap();
        // One pass of 8 bits over one tile: 256 counts, one counter, 256 tile states.
        let mut control = DeviceBuffer::<u32>::zeros(device, 2 * 256 + 1).unwrap();
        let shared = pass_shared_bytes(4, 0) as u32;
        let message = panic_message(&stream, launch!(radix_onesweep_keys::<u32>[2, SORT_THREADS, &stream, shared](
            0, 1, 0, 8, &keys, &mut out, &mut control
        )));
        assert!(message.starts_with("radix sort pass: a tile past the input"), "{message}");
    }

    fn a_scan_needs_its_block_size_and_a_block_per_tile(device) {
        let stream = device.default_stream();
        let tile = SCAN_BLOCK_THREADS as usize * SCAN_ITEMS_NARROW;
        let n = 2 * tile + 3;
        let input = DeviceBuffer::from_slice(device, &vec![1u32; n]).unwrap();
        let mut output = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        let shared = ((block_scratch_len(SCAN_BLOCK_THREADS) + tile) * 4) as u32;
        let mut run = |grid: u32, block: u32, epoch: u32| {
            let mut state = DeviceBuffer::<u64>::zeros(device, 8).unwrap();
            let mut aggregates = DeviceBuffer::<u32>::zeros(device, 8).unwrap();
            let mut inclusives = DeviceBuffer::<u32>::zeros(device, 8).unwrap();
            launch!(scan_tiles::<u32, Sum, Inclusive>[grid, block, &stream, shared](
                &input, &mut output, 0, epoch, &mut state, &mut aggregates, &mut inclusives
            ))
            .unwrap();
            stream.synchronize()
        };
        let message = expect_panic(run(3, SCAN_BLOCK_THREADS / 2, 1)).message;
        assert_eq!(message, "scan_tiles: launch it with blocks of SCAN_BLOCK_THREADS (128) threads");
        let message = expect_panic(run(2, SCAN_BLOCK_THREADS, 1)).message;
        assert_eq!(message, "scan_tiles: launch it with a 1-D grid of one block per tile of the input");
        let message = expect_panic(run(3, SCAN_BLOCK_THREADS, 1 << 30)).message;
        assert_eq!(message, "TileState::with_epoch: the epoch is above MAX_EPOCH (2^30 - 1)");
        run(3, SCAN_BLOCK_THREADS, 1).unwrap();
        let want: Vec<u32> = (1..=n as u32).collect();
        assert_eq!(output.to_vec().unwrap(), want);
    }

    fn a_reduction_with_fewer_partials_than_blocks_panics(device) {
        let stream = device.default_stream();
        let input = DeviceBuffer::from_slice(device, &vec![2u32; 10_000]).unwrap();
        let mut partials = DeviceBuffer::<u32>::zeros(device, 3).unwrap();
        let shared = (block_scratch_len(REDUCE_BLOCK_THREADS) * 4) as u32;
        let message = panic_message(&stream, launch!(reduce_blocks::<u32, Sum>[4, REDUCE_BLOCK_THREADS, &stream, shared](
            &input, &mut partials
        )));
        assert_eq!(message, "index out of bounds: the len is 3 but the index is 3");
        launch!(reduce_blocks::<u32, Sum>[3, REDUCE_BLOCK_THREADS, &stream, shared](&input, &mut partials)).unwrap();
        assert_eq!(partials.to_vec().unwrap().iter().sum::<u32>(), 20_000);
        // A grid of more than one dimension would count each share twice.
        let message = panic_message(&stream, launch!(reduce_blocks::<u32, Sum>[(1, 2), REDUCE_BLOCK_THREADS, &stream, shared](
            &input, &mut partials
        )));
        assert!(message.starts_with("grid_stride_block_reduce needs a 1-D grid"), "{message}");
    }
}
