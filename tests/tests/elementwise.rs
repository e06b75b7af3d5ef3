//! The elementwise kernels (doublify, vector add, saxpy, map square) against CPU references, on
//! random inputs of sizes that are not multiples of the block, on the simulator and the GPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{assert_close, device_tests, random_f32, rng};
use kernels_nvptx::elementwise::{doublify, saxpy, square, vecadd};

const SIZES: [usize; 5] = [1, 255, 257, 1000, 100_003];

device_tests! {
    fn vecadd_matches_cpu(device) {
        let mut rng = rng("vecadd");
        for n in SIZES {
            let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
            let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
            // Poisoned output: every element must be written.
            let mut c_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            launch!(vecadd[n.div_ceil(128) as u32, 128](&a_dev, &b_dev, &mut c_dev)).unwrap();
            let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            assert_eq!(c_dev.to_vec().unwrap(), expected, "n = {n}");
        }
    }

    fn saxpy_scalar_argument(device) {
        let mut rng = rng("saxpy");
        let n = 70_001;
        let (x, y) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let x_dev = DeviceBuffer::from_slice(device, &x).unwrap();
        let mut y_dev = DeviceBuffer::from_slice(device, &y).unwrap();
        saxpy.grid(n.div_ceil(256) as u32).block(256).launch(2.5, &x_dev, &mut y_dev).unwrap();
        let expected: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.5 * x + y).collect();
        assert_close(&y_dev.to_vec().unwrap(), &expected, 1e-6);
    }

    fn square_in_place_host_slice(device) {
        let mut rng = rng("square");
        let original = random_f32(&mut rng, 4099);
        let mut a = original.clone();
        let stream = device.default_stream();
        launch!(square[(4099u32).div_ceil(512), 512, &stream](&mut a)).unwrap();
        let expected: Vec<f32> = original.iter().map(|v| v * v).collect();
        assert_eq!(a, expected);
    }

    fn doublify_two_dimensional(device) {
        let mut rng = rng("doublify");
        for (w, h) in [(4usize, 4usize), (37, 19), (64, 1), (1, 50)] {
            let a = random_f32(&mut rng, w * h);
            let mut a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let grid = ((w as u32).div_ceil(16), (h as u32).div_ceil(16));
            launch!(doublify[grid, (16, 16)](&mut a_dev, w as u32, h as u32)).unwrap();
            let expected: Vec<f32> = a.iter().map(|v| v * 2.0).collect();
            assert_eq!(a_dev.to_vec().unwrap(), expected, "{w} x {h}");
        }
    }

    fn views_of_buffers(device) {
        let mut rng = rng("views");
        let n = 1000;
        let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
        let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
        let mut c_dev = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        // Add only elements 100..600, through views of the three buffers.
        launch!(vecadd[4, 128](a_dev.slice(100..600), b_dev.slice(100..600), c_dev.slice_mut(100..600))).unwrap();
        let c = c_dev.to_vec().unwrap();
        for i in 0..n {
            let expected = if (100..600).contains(&i) { a[i] + b[i] } else { 0.0 };
            assert_eq!(c[i], expected, "element {i}");
        }
    }

    fn empty_buffers(device) {
        let a = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        assert!(a.is_empty());
        let mut c = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        launch!(vecadd[1, 32](&a, &a, &mut c)).unwrap();
        assert_eq!(c.to_vec().unwrap(), Vec::<f32>::new());
    }
}
