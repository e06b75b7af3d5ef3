//! Image kernels on u8 images stored row-major as `(height, width, channels)`: RGB to grayscale
//! and a 3x3 box blur. One thread per pixel, 2-D grids of
//! 16x16 blocks; any width and height (threads outside the image do nothing).

use ferrocuda::prelude::*;

/// The grayscale value of one RGB pixel: `0.299 R + 0.587 G + 0.114 B`, rounded to the nearest
/// integer (halves up).
///
/// Computed exactly in integer thousandths, `(299 R + 587 G + 114 B + 500) / 1000`, so the GPU,
/// the simulator and a CPU reference agree bit for bit (a float formula could round
/// differently where the compiler fuses a multiply and an add). The weights sum to 1000, so
/// the result is at most 255.
#[inline(always)]
pub fn luminance(r: u8, g: u8, b: u8) -> u8 {
    ((299 * r as u32 + 587 * g as u32 + 114 * b as u32 + 500) / 1000) as u8
}

/// `gray[y, x] = luminance(rgb[y, x, 0..3])` for a `height` x `width` RGB image (`rgb` holds
/// `height * width * 3` bytes, `gray` `height * width`).
#[kernel]
pub fn rgb_to_grayscale(rgb: &[u8], gray: &mut [u8], width: u32, height: u32) {
    let (x, y) = grid!(2);
    let (w, h) = (width as usize, height as usize);
    if x < w && y < h {
        let pixel = y * w + x;
        let rgb = &rgb[pixel * 3..pixel * 3 + 3];
        gray[pixel] = luminance(rgb[0], rgb[1], rgb[2]);
    }
}

/// 3x3 box blur of a `height` x `width` image with `channels` interleaved channels: each output
/// byte is the mean of the same channel over the pixel and its neighbours that lie inside the
/// image (9 inside, 6 on an edge, 4 in a corner), in integer arithmetic: `sum / count`,
/// rounded down.
#[kernel]
pub fn blur(input: &[u8], output: &mut [u8], width: u32, height: u32, channels: u32) {
    let (x, y) = grid!(2);
    let (w, h, c) = (width as usize, height as usize, channels as usize);
    if x < w && y < h {
        let (x0, x1) = (x.saturating_sub(1), (x + 1).min(w - 1));
        let (y0, y1) = (y.saturating_sub(1), (y + 1).min(h - 1));
        let count = ((x1 - x0 + 1) * (y1 - y0 + 1)) as u32;
        for channel in 0..c {
            let mut sum = 0u32;
            for row in y0..=y1 {
                for col in x0..=x1 {
                    sum += input[(row * w + col) * c + channel] as u32;
                }
            }
            output[(y * w + x) * c + channel] = (sum / count) as u8;
        }
    }
}
