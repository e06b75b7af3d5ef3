//! 3x3 box blur of a u8 RGB image of shape (height, width, 3): each output
//! pixel is the mean of itself and its neighbours inside the image (corners average 4 pixels,
//! edges 6), per channel, in integer arithmetic. 16x16 blocks; any size. Checked exactly
//! against the CPU.
//!
//! `cargo run --release --example blur`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, reference};
use kernels_nvptx::image::blur;

fn test_image(width: usize, height: usize) -> Vec<u8> {
    let mut state = 0x9e3779b97f4a7c15u64;
    (0..width * height * 3)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 56) as u8
        })
        .collect()
}

fn main() -> ExampleResult {
    let device = device()?;
    let (width, height) = if device.is_simulator() {
        (500, 300)
    } else {
        (1999, 1001)
    };
    if device.is_simulator() {
        println!("(simulator: image scaled down to {width} x {height})");
    }
    let image = test_image(width, height);
    let input = DeviceBuffer::from_slice(&device, &image)?;
    let mut output = DeviceBuffer::<u8>::zeros(&device, image.len())?;
    let block = (16u32, 16u32);
    let grid = (
        (width as u32).div_ceil(block.0),
        (height as u32).div_ceil(block.1),
    );
    launch!(blur[grid, block](&input, &mut output, width as u32, height as u32, 3u32))?;
    let blurred = output.to_vec()?;
    println!(
        "blurred a ({height}, {width}, 3) u8 image with a 3x3 box, grid = {grid:?}, block = {block:?}"
    );

    let expected = reference::blur(&image, width, height, 3);
    if let Some(i) = (0..blurred.len()).find(|&i| blurred[i] != expected[i]) {
        let pixel = i / 3;
        return Err(format!(
            "pixel ({}, {}) channel {} is {}, the CPU says {}",
            pixel / width,
            pixel % width,
            i % 3,
            blurred[i],
            expected[i]
        )
        .into());
    }
    println!("all {} bytes match the CPU exactly", blurred.len());
    for (what, y, x) in [
        ("corner", 0, 0),
        ("edge", 0, width / 2),
        ("inside", height / 2, width / 2),
    ] {
        let p = (y * width + x) * 3;
        println!(
            "  {what} pixel ({y}, {x}): {:?} -> {:?}",
            &image[p..p + 3],
            &blurred[p..p + 3]
        );
    }
    Ok(())
}
