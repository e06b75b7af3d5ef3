//! Coalesced and strided copies: exact results for sizes that are not
//! multiples of the block.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::memory::{copy_coalesced, copy_strided};

device_tests! {
    fn coalesced_copy_is_exact(device) {
        let mut rng = rng("copy_coalesced");
        for n in [1usize, 255, 257, 10_007] {
            let input = random_f32(&mut rng, n);
            let input_dev = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut output = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            launch!(copy_coalesced[n.div_ceil(256) as u32, 256](&input_dev, &mut output)).unwrap();
            assert_eq!(output.to_vec().unwrap(), input, "n = {n}");
        }
    }

    fn strided_copy_takes_every_stride_th_element(device) {
        let mut rng = rng("copy_strided");
        for (n, stride) in [(1usize, 2u32), (255, 2), (257, 2), (10_007, 2), (1000, 3), (100, 1)] {
            // Exactly long enough: (n - 1) * stride + 1 elements.
            let input = random_f32(&mut rng, (n - 1) * stride as usize + 1);
            let input_dev = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut output = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            launch!(copy_strided[n.div_ceil(256) as u32, 256](&input_dev, &mut output, stride)).unwrap();
            let expected: Vec<f32> = (0..n).map(|i| input[i * stride as usize]).collect();
            assert_eq!(output.to_vec().unwrap(), expected, "n = {n}, stride = {stride}");
        }
    }
}
