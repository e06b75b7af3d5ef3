//! Sums: the tutorial's per-block shared-memory tree with the partial sums
//! added on the host, and the warp-shuffle sum of the whole array on the device; random data of
//! awkward lengths, unaligned sub-slices, block sizes that are not powers of two, against an f64
//! CPU sum.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::reduce::{block_sum_shared, sum_warp_shuffle};

fn close(got: f64, expected: f64, n: usize) -> bool {
    // f32 sums of n values in [-1, 1): error well below 1e-6 * n.
    (got - expected).abs() <= 1e-6 * n as f64 + 1e-5
}

device_tests! {
    fn block_sum_shared_partials_match_cpu(device) {
        let mut rng = rng("block_sum_shared");
        for (n, threads) in [(1000usize, 256usize), (1, 256), (777, 100), (4096, 255), (33, 1), (300, 7)] {
            let x = random_f32(&mut rng, n);
            let blocks = n.div_ceil(threads);
            let x_dev = DeviceBuffer::from_slice(device, &x).unwrap();
            let mut partial = DeviceBuffer::from_slice(device, &vec![f32::NAN; blocks]).unwrap();
            launch!(block_sum_shared[blocks as u32, threads as u32](&x_dev, &mut partial)).unwrap();
            let partial = partial.to_vec().unwrap();
            for (b, chunk) in x.chunks(threads).enumerate() {
                let expected: f64 = chunk.iter().map(|&v| v as f64).sum();
                assert!(close(partial[b] as f64, expected, chunk.len()), "block {b} of n = {n}: {} vs {expected}", partial[b]);
            }
            let total: f64 = partial.iter().map(|&v| v as f64).sum();
            let expected: f64 = x.iter().map(|&v| v as f64).sum();
            assert!(close(total, expected, n), "n = {n}: {total} vs {expected}");
        }
    }

    fn sum_warp_shuffle_matches_cpu(device) {
        let mut rng = rng("sum_warp_shuffle");
        let x = random_f32(&mut rng, 300_007);
        let x_dev = DeviceBuffer::from_slice(device, &x).unwrap();
        // Sub-slices starting at every alignment, so the unaligned head and tail are exercised.
        for (start, len, blocks, threads) in [
            (0usize, 300_007usize, 64u32, 256u32),
            (1, 1, 1, 32),
            (3, 5, 1, 32),
            (2, 1000, 3, 96),
            (1, 299_999, 1, 1024),
            (0, 0, 1, 64),
            (5, 123_457, 200, 128),
        ] {
            let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
            launch!(sum_warp_shuffle[blocks, threads](x_dev.slice(start..start + len), &mut out)).unwrap();
            let got = out.to_vec().unwrap()[0] as f64;
            let expected: f64 = x[start..start + len].iter().map(|&v| v as f64).sum();
            assert!(close(got, expected, len), "{start}..+{len} in {blocks} x {threads}: {got} vs {expected}");
        }
    }

    fn sum_warp_shuffle_needs_whole_warps(device) {
        let x = DeviceBuffer::from_slice(device, &[1.0f32; 100]).unwrap();
        let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
        if device.is_simulator() {
            // On a GPU the same assertion fires; it is checked on the simulator only so that
            // this file needs no lock against the other GPU tests.
            match launch!(sum_warp_shuffle[1, 48](&x, &mut out)).and_then(|()| device.synchronize()) {
                Err(Error::KernelPanic(panic)) => {
                    assert_eq!(panic.message, "sum_warp_shuffle needs a block size that is a multiple of 32");
                }
                other => panic!("expected the block-size assertion, got {other:?}"),
            }
        }
        launch!(sum_warp_shuffle[2, 64](&x, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![100.0]);
    }
}
