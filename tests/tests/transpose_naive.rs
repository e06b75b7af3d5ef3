//! Naive transpose on random matrices of awkward shapes: exact.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::transpose_naive::transpose_naive;

device_tests! {
    fn transpose_naive_matches_cpu(device) {
        let mut rng = rng("transpose_naive");
        for (w, h) in [(1usize, 1usize), (17, 31), (100, 3), (3, 100), (64, 64), (1, 77), (77, 1)] {
            let input = random_f32(&mut rng, w * h);
            let input_dev = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut output_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; w * h]).unwrap();
            let grid = ((w as u32).div_ceil(16), (h as u32).div_ceil(16));
            launch!(transpose_naive[grid, (16, 16)](&input_dev, &mut output_dev, w as u32, h as u32)).unwrap();
            let mut expected = vec![0.0f32; w * h];
            for y in 0..h {
                for x in 0..w {
                    expected[x * h + y] = input[y * w + x];
                }
            }
            let output = output_dev.to_vec().unwrap();
            assert_eq!(output, expected, "{w} x {h}");

            // Transposing back gives the input.
            let mut back = DeviceBuffer::<f32>::zeros(device, w * h).unwrap();
            let grid = ((h as u32).div_ceil(16), (w as u32).div_ceil(16));
            launch!(transpose_naive[grid, (16, 16)](&output_dev, &mut back, h as u32, w as u32)).unwrap();
            assert_eq!(back.to_vec().unwrap(), input, "{w} x {h} and back");
        }
    }
}
