//! Inclusive prefix sums (written correctly, unlike the tutorial's up-sweep): the one-block scan of
//! the tutorial's 8 floats, and `inclusive_scan` over lengths that need one, two and three levels
//! of block totals, against an f64 running sum on the CPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, reference, rng};
use kernels_nvptx::scan::{inclusive_scan, scan_blocks};

device_tests! {
    fn scan_of_eight_in_one_block(device) {
        let x: Vec<f32> = (1..=8).map(|v| v as f32).collect();
        let x_dev = DeviceBuffer::from_slice(device, &x).unwrap();
        let mut out = DeviceBuffer::<f32>::zeros(device, 8).unwrap();
        let mut total = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
        launch!(scan_blocks[1, 8](&x_dev, &mut out, &mut total)).unwrap();
        assert_eq!(out.to_vec().unwrap(), [1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 36.0]);
        assert_eq!(total.to_vec().unwrap(), [36.0]);
    }

    fn inclusive_scan_matches_cpu(device) {
        let mut rng = rng("scan");
        // 513 needs two chunks, 300_001 needs totals of totals (586 chunks of 512, then 2).
        for n in [1usize, 7, 512, 513, 5_000, 300_001] {
            let x = random_f32(&mut rng, n);
            let x_dev = DeviceBuffer::from_slice(device, &x).unwrap();
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            inclusive_scan(&x_dev, &mut out).unwrap();
            let out = out.to_vec().unwrap();
            for (i, (got, expected)) in out.iter().zip(reference::inclusive_sum(&x)).enumerate() {
                // A running sum of i + 1 values in [-1, 1), summed in f32 in tree order.
                let tolerance = 2e-6 * (i + 1) as f64 + 1e-5;
                assert!((*got as f64 - expected).abs() <= tolerance, "n = {n}, element {i}: {got} vs {expected}");
            }
        }
    }

    fn inclusive_scan_checks_lengths(device) {
        let x = DeviceBuffer::from_slice(device, &[1.0f32; 10]).unwrap();
        let mut out = DeviceBuffer::from_slice(device, &[5.0f32; 9]).unwrap();
        let error = inclusive_scan(&x, &mut out).unwrap_err();
        assert_eq!(error.to_string(), "length mismatch in inclusive_scan (output vs input): expected 10 elements, got 9");
        assert_eq!(out.to_vec().unwrap(), vec![5.0; 9]);
    }
}
