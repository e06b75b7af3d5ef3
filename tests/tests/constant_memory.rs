//! Constant memory written by the host: per-block factors, random data whose
//! length leaves the last block partly empty, against the CPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{assert_close, device_tests, random_f32, rng};
use kernels_nvptx::constant_memory::{FACTORS, MAX_FACTOR_BLOCKS, add_and_scale_per_block};

device_tests! {
    fn factors_from_the_host_scale_each_block(device) {
        let mut rng = rng("constant_factors");
        let factors: [f32; MAX_FACTOR_BLOCKS] = std::array::from_fn(|k| 0.5 + k as f32 * 0.25);
        FACTORS.write(device, &factors).unwrap();
        assert_eq!(FACTORS.read(device).unwrap(), factors);
        // 70 blocks of 32: blocks 64..70 use the last factor; the last block is half full.
        let (n, block) = (70 * 32 - 16, 32usize);
        let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let mut c = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
        launch!(add_and_scale_per_block[n.div_ceil(block) as u32, block as u32](&a, &b, &mut c)).unwrap();
        let expected: Vec<f32> = (0..n)
            .map(|i| (a[i] + b[i]) * factors[(i / block).min(MAX_FACTOR_BLOCKS - 1)])
            .collect();
        assert_close(&c.to_vec().unwrap(), &expected, 1e-6);
        // Rewriting the factors changes the next launch's result.
        FACTORS.write(device, &[-2.0; MAX_FACTOR_BLOCKS]).unwrap();
        launch!(add_and_scale_per_block[n.div_ceil(block) as u32, block as u32](&a, &b, &mut c)).unwrap();
        let expected: Vec<f32> = (0..n).map(|i| (a[i] + b[i]) * -2.0).collect();
        assert_close(&c.to_vec().unwrap(), &expected, 1e-6);
    }
}
