//! Coalesced transposes through padded shared tiles, 16x17 and 32x33, on
//! random matrices whose sides are not multiples of the tile; exact comparison with the CPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, reference, rng};
use kernels_nvptx::transpose::{transpose_tiled16, transpose_tiled32};

/// (width, height) of the input.
const SHAPES: [(usize, usize); 6] = [(1, 1), (16, 16), (33, 17), (100, 3), (1, 70), (129, 65)];

device_tests! {
    fn transpose_tiled16_matches_cpu(device) {
        let mut rng = rng("transpose16");
        for (w, h) in SHAPES {
            let input = random_f32(&mut rng, w * h);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; w * h]).unwrap();
            let grid = ((w as u32).div_ceil(16), (h as u32).div_ceil(16));
            launch!(transpose_tiled16[grid, (16, 16)](&input, &mut out, w as u32, h as u32)).unwrap();
            assert_eq!(out.to_vec().unwrap(), reference::transpose(&input, w, h), "{w} x {h}");
        }
    }

    fn transpose_tiled32_matches_cpu(device) {
        let mut rng = rng("transpose32");
        for (w, h) in SHAPES {
            let input = random_f32(&mut rng, w * h);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; w * h]).unwrap();
            let grid = ((w as u32).div_ceil(32), (h as u32).div_ceil(32));
            launch!(transpose_tiled32[grid, (32, 8)](&input, &mut out, w as u32, h as u32)).unwrap();
            let out = out.to_vec().unwrap();
            assert_eq!(out, reference::transpose(&input, w, h), "{w} x {h}");
            // Transposing twice gives the input back.
            let mut back = DeviceBuffer::<f32>::zeros(device, w * h).unwrap();
            let grid = ((h as u32).div_ceil(32), (w as u32).div_ceil(32));
            launch!(transpose_tiled32[grid, (32, 8)](&out, &mut back, h as u32, w as u32)).unwrap();
            assert_eq!(back.to_vec().unwrap(), input);
        }
    }
}
