//! 256-bin histograms with global and shared atomics, on random data of
//! awkward lengths with block sizes that are not 256 and grids too small to give every element a
//! thread (the grid-stride loop covers the rest); exact comparison with the CPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_u32, reference, rng};
use kernels_nvptx::histogram::{histogram_global, histogram_shared};

/// (length, blocks, threads per block).
const CASES: [(usize, u32, u32); 6] = [
    (1, 1, 256),
    (1000, 4, 256),
    (4097, 3, 100),
    (25_001, 7, 32),
    (100_003, 40, 1000),
    (777, 2, 1),
];

device_tests! {
    fn histogram_global_matches_cpu(device) {
        let mut rng = rng("histogram_global");
        for (n, blocks, threads) in CASES {
            let data = random_u32(&mut rng, n, u32::MAX);
            let data_dev = DeviceBuffer::from_slice(device, &data).unwrap();
            let mut bins = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
            launch!(histogram_global[blocks, threads](&data_dev, &mut bins)).unwrap();
            assert_eq!(bins.to_vec().unwrap(), reference::histogram(&data), "n = {n}, {blocks} x {threads}");
        }
    }

    fn histogram_shared_matches_cpu(device) {
        let mut rng = rng("histogram_shared");
        for (n, blocks, threads) in CASES {
            // Skewed data: most values in a few bins, the case where atomics contend.
            let data: Vec<u32> = random_u32(&mut rng, n, 1 << 20)
                .into_iter()
                .map(|v| if v % 4 == 0 { v } else { v % 3 })
                .collect();
            let data_dev = DeviceBuffer::from_slice(device, &data).unwrap();
            let mut bins = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
            launch!(histogram_shared[blocks, threads](&data_dev, &mut bins)).unwrap();
            assert_eq!(bins.to_vec().unwrap(), reference::histogram(&data), "n = {n}, {blocks} x {threads}");
            // Launching again adds to the bins.
            launch!(histogram_shared[blocks, threads](&data_dev, &mut bins)).unwrap();
            let twice: Vec<u32> = reference::histogram(&data).iter().map(|c| 2 * c).collect();
            assert_eq!(bins.to_vec().unwrap(), twice);
        }
    }
}
