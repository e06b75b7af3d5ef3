//! Tiled matrix multiplication on random matrices whose sizes are not
//! multiples of the tile, against a CPU reference in f64; the checked and unchecked kernels agree
//! bit for bit; a block that is not 16x16 is refused by the kernel's assertion.

use ferrocuda::prelude::*;
use ferrocuda_tests::{assert_close, device_tests, grid_2d, random_f32, reference, rng};
use kernels_nvptx::matmul_tiled::{matmul_tiled, matmul_tiled_unchecked};

/// (m, n, p): C is m x p, the inner dimension is n.
const SHAPES: [(usize, usize, usize); 7] = [
    (1, 1, 1),
    (16, 16, 16),
    (17, 33, 9),
    (64, 48, 80),
    (5, 100, 3),
    (40, 1, 31),
    (70, 37, 45),
];

device_tests! {
    fn matmul_tiled_matches_cpu(device) {
        let mut rng = rng("matmul_tiled");
        for (m, n, p) in SHAPES {
            let (a, b) = (random_f32(&mut rng, m * n), random_f32(&mut rng, n * p));
            let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
            let mut c1 = DeviceBuffer::from_slice(device, &vec![f32::NAN; m * p]).unwrap();
            let mut c2 = DeviceBuffer::from_slice(device, &vec![f32::NAN; m * p]).unwrap();
            let (mm, nn, pp) = (m as u32, n as u32, p as u32);
            launch!(matmul_tiled[grid_2d(p, m, 16), (16, 16)](&a_dev, &b_dev, &mut c1, mm, nn, pp)).unwrap();
            matmul_tiled_unchecked
                .grid(grid_2d(p, m, 16))
                .block((16, 16))
                .launch(&a_dev, &b_dev, &mut c2, mm, nn, pp)
                .unwrap();
            let (c1, c2) = (c1.to_vec().unwrap(), c2.to_vec().unwrap());
            let tolerance = 1e-5 * (n as f32).sqrt().max(1.0);
            assert_close(&c1, &reference::matmul(&a, &b, m, n, p), tolerance);
            assert_eq!(c1, c2, "checked and unchecked kernels differ at {m}x{n}x{p}");
        }
    }

    fn matmul_tiled_refuses_other_block_shapes(device) {
        let (a, b) = (vec![1.0f32; 64], vec![1.0f32; 64]);
        let mut c = DeviceBuffer::<f32>::zeros(device, 64).unwrap();
        let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
        let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
        match launch!(matmul_tiled[(1, 1), (8, 8)](&a_dev, &b_dev, &mut c, 8, 8, 8)).and_then(|()| device.synchronize()) {
            Err(Error::KernelPanic(panic)) => {
                assert_eq!(panic.kernel, "matmul_tiled");
                assert!(panic.file.ends_with("matmul_tiled.rs"), "{}", panic.file);
                assert_eq!(panic.message, "matmul_tiled needs blocks of 16 x 16 threads");
            }
            other => panic!("expected the block-shape assertion, got {other:?}"),
        }
        // The device is still usable.
        launch!(matmul_tiled[(1, 1), (16, 16)](&a_dev, &b_dev, &mut c, 8, 8, 8)).unwrap();
        assert_eq!(c.to_vec().unwrap(), vec![8.0f32; 64]);
    }
}
