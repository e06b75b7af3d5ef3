//! Naive matrix multiplication on random matrices of awkward shapes, against a
//! CPU reference in f64.

use ferrocuda::prelude::*;
use ferrocuda_tests::{assert_close, device_tests, random_f32, reference, rng};
use kernels_nvptx::matmul_naive::matmul_naive;

/// (m, n, p): C is m x p, the inner dimension is n.
const SHAPES: [(usize, usize, usize); 7] = [
    (1, 1, 1),
    (17, 23, 9),
    (64, 64, 64),
    (1, 100, 1),
    (33, 1, 17),
    (5, 40, 70),
    (70, 3, 5),
];

device_tests! {
    fn matmul_naive_matches_cpu(device) {
        let mut rng = rng("matmul_naive");
        for (m, n, p) in SHAPES {
            let (a, b) = (random_f32(&mut rng, m * n), random_f32(&mut rng, n * p));
            let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
            let mut c_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; m * p]).unwrap();
            let grid = ((p as u32).div_ceil(16), (m as u32).div_ceil(16));
            launch!(matmul_naive[grid, (16, 16)](&a_dev, &b_dev, &mut c_dev, m as u32, n as u32, p as u32)).unwrap();
            // Sums of n products of values in [-1, 1): f32 rounding stays far below 1e-5 * n.
            let tolerance = 1e-5 * (n as f32).sqrt().max(1.0);
            let c = c_dev.to_vec().unwrap();
            assert_close(&c, &reference::matmul(&a, &b, m, n, p), tolerance);
        }
    }

    fn matmul_naive_identity_and_non_square_blocks(device) {
        // A times the identity is A exactly, with a block shape that is not 16 x 16.
        let mut rng = rng("matmul_identity");
        let (m, n) = (19, 13);
        let a = random_f32(&mut rng, m * n);
        let mut identity = vec![0.0f32; n * n];
        for i in 0..n {
            identity[i * n + i] = 1.0;
        }
        let mut c = vec![0.0f32; m * n];
        launch!(matmul_naive[((n as u32).div_ceil(8), (m as u32).div_ceil(4)), (8, 4)](&a, &identity, &mut c, m as u32, n as u32, n as u32)).unwrap();
        assert_eq!(c, a);
    }
}
