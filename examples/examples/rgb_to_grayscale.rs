//! RGB to grayscale: `gray = 0.299 R + 0.587 G + 0.114 B` on a u8 image of
//! shape (height, width, 3), one thread per pixel in 16x16 blocks on a 2-D grid. The size is
//! not a multiple of 16, so the kernel's bounds check matters. Checked exactly against the CPU.
//!
//! `cargo run --release --example rgb_to_grayscale`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, reference};
use kernels_nvptx::image::rgb_to_grayscale;

/// A synthetic (height, width, 3) image: colour gradients plus deterministic noise.
fn test_image(width: usize, height: usize) -> Vec<u8> {
    let mut state = 0x2545f4914f6cdd1du64;
    let mut image = Vec::with_capacity(width * height * 3);
    for y in 0..height {
        for x in 0..width {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let noise = (state >> 59) as usize; // 0..32
            image.push(((x * 255 / width.max(1)) + noise).min(255) as u8);
            image.push(((y * 255 / height.max(1)) + noise).min(255) as u8);
            image.push((((x + y) * 255 / (width + height)) ^ noise) as u8);
        }
    }
    image
}

fn main() -> ExampleResult {
    let device = device()?;
    // 1920 x 1080: 1080 rows are 67.5 blocks of 16. The simulator gets a smaller image.
    let (width, height) = if device.is_simulator() {
        (640, 360)
    } else {
        (1920, 1080)
    };
    if device.is_simulator() {
        println!("(simulator: image scaled down to {width} x {height})");
    }
    let rgb = test_image(width, height);
    println!("input image: ({height}, {width}, 3) u8");

    let rgb_dev = DeviceBuffer::from_slice(&device, &rgb)?;
    let mut gray_dev = DeviceBuffer::<u8>::zeros(&device, width * height)?;
    let block = (16u32, 16u32);
    let grid = (
        (width as u32).div_ceil(block.0),
        (height as u32).div_ceil(block.1),
    );
    launch!(rgb_to_grayscale[grid, block](&rgb_dev, &mut gray_dev, width as u32, height as u32))?;
    let gray = gray_dev.to_vec()?;
    println!("grid = {grid:?}, block = {block:?} -> grayscale image: ({height}, {width}) u8");

    let expected = reference::grayscale(&rgb);
    if let Some(i) = (0..gray.len()).find(|&i| gray[i] != expected[i]) {
        return Err(format!(
            "pixel ({}, {}) is {}, the CPU says {} (rgb {:?})",
            i / width,
            i % width,
            gray[i],
            expected[i],
            &rgb[i * 3..i * 3 + 3]
        )
        .into());
    }
    println!("all {} pixels match the CPU exactly", gray.len());
    for (y, x) in [(0, 0), (height / 2, width / 2), (height - 1, width - 1)] {
        let p = y * width + x;
        println!(
            "  pixel ({y}, {x}): rgb {:?} -> gray {}",
            &rgb[p * 3..p * 3 + 3],
            gray[p]
        );
    }
    Ok(())
}
