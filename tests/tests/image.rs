//! RGB to grayscale and the 3x3 box blur on random u8
//! images of awkward sizes, compared exactly with CPU references.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, grid_2d, random_u8, reference, rng};
use kernels_nvptx::image::{blur, luminance, rgb_to_grayscale};

/// (width, height): single pixels, thin strips, and sizes that are not multiples of 16.
const SIZES: [(usize, usize); 7] = [
    (1, 1),
    (17, 31),
    (100, 3),
    (3, 100),
    (16, 16),
    (1, 40),
    (67, 45),
];

#[test]
fn luminance_rounds_to_nearest() {
    assert_eq!(luminance(0, 0, 0), 0);
    assert_eq!(luminance(255, 255, 255), 255);
    assert_eq!(luminance(255, 0, 0), 76); // 76.245
    assert_eq!(luminance(0, 255, 0), 150); // 149.685
    assert_eq!(luminance(0, 0, 255), 29); // 29.07
    assert_eq!(luminance(1, 1, 1), 1);
    // Against the real-valued formula, for every grey level and a sample of colours.
    for v in 0..=255u8 {
        for (r, g, b) in [
            (v, v, v),
            (v, 0, 0),
            (0, v, 0),
            (0, 0, v),
            (v, 255 - v, v / 2),
        ] {
            let exact = 0.299 * r as f64 + 0.587 * g as f64 + 0.114 * b as f64;
            assert!(
                (luminance(r, g, b) as f64 - exact).abs() <= 0.5 + 1e-9,
                "({r}, {g}, {b})"
            );
        }
    }
}

device_tests! {
    fn grayscale_matches_cpu(device) {
        let mut rng = rng("grayscale");
        for (w, h) in SIZES {
            let rgb = random_u8(&mut rng, w * h * 3);
            let rgb_dev = DeviceBuffer::from_slice(device, &rgb).unwrap();
            // Poisoned output: every pixel must be written.
            let mut gray_dev = DeviceBuffer::from_slice(device, &vec![0xA5u8; w * h]).unwrap();
            launch!(rgb_to_grayscale[grid_2d(w, h, 16), (16, 16)](&rgb_dev, &mut gray_dev, w as u32, h as u32)).unwrap();
            assert_eq!(gray_dev.to_vec().unwrap(), reference::grayscale(&rgb), "{w} x {h}");
        }
    }

    fn grayscale_extremes(device) {
        // Black, white, pure channels, and values where the exact result ends in .5 or near it.
        let pixels: Vec<[u8; 3]> = vec![[0, 0, 0], [255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255], [128, 128, 128], [10, 200, 33]];
        let rgb: Vec<u8> = pixels.iter().flatten().copied().collect();
        let mut gray = vec![0u8; pixels.len()];
        launch!(rgb_to_grayscale[(1, 1), (16, 16)](&rgb, &mut gray, pixels.len() as u32, 1u32)).unwrap();
        assert_eq!(gray, reference::grayscale(&rgb));
        assert_eq!(&gray[..5], &[0, 255, 76, 150, 29]);
    }

    fn blur_matches_cpu(device) {
        let mut rng = rng("blur");
        for (w, h) in SIZES {
            let image = random_u8(&mut rng, w * h * 3);
            let input = DeviceBuffer::from_slice(device, &image).unwrap();
            let mut output = DeviceBuffer::from_slice(device, &vec![0xA5u8; image.len()]).unwrap();
            launch!(blur[grid_2d(w, h, 16), (16, 16)](&input, &mut output, w as u32, h as u32, 3u32)).unwrap();
            assert_eq!(output.to_vec().unwrap(), reference::blur(&image, w, h, 3), "{w} x {h}");
        }
    }

    fn blur_single_channel_and_constant_image(device) {
        let mut rng = rng("blur-gray");
        let (w, h) = (33, 18);
        let image = random_u8(&mut rng, w * h);
        let mut out = vec![0u8; w * h];
        launch!(blur[grid_2d(w, h, 16), (16, 16)](&image, &mut out, w as u32, h as u32, 1u32)).unwrap();
        assert_eq!(out, reference::blur(&image, w, h, 1));
        // A constant image stays constant, corners and edges included (they divide by 4 and 6).
        let flat = vec![200u8; w * h * 3];
        let mut out = vec![0u8; w * h * 3];
        launch!(blur[grid_2d(w, h, 16), (16, 16)](&flat, &mut out, w as u32, h as u32, 3u32)).unwrap();
        assert!(out.iter().all(|&v| v == 200));
    }

    fn blur_edges_average_inside_neighbours_only(device) {
        // 2 x 2, one channel: every pixel is a corner and averages all four.
        let image = [0u8, 10, 20, 31];
        let mut out = [0u8; 4];
        launch!(blur[1, (16, 16)](&image, &mut out, 2u32, 2u32, 1u32)).unwrap();
        assert_eq!(out, [15; 4]); // 61 / 4, rounded down
        // 3 x 1: ends average two pixels, the middle three.
        let image = [9u8, 0, 100];
        let mut out = [0u8; 3];
        launch!(blur[1, (16, 16)](&image, &mut out, 3u32, 1u32, 1u32)).unwrap();
        assert_eq!(out, [4, 36, 50]);
    }
}
