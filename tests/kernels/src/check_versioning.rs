//! A kernel whose bounds checks its own guards decide once the slice is long enough: the
//! shape `nvptx-builder`'s check versioning rewrites (`tests/tests/check_versioning.rs`).

use ferrocuda::prelude::*;

/// `output[y * width + x]` becomes the sum of `image` at `(x, y)` and the `rows - 1` pixels
/// below it that lie in the `width` x `height` image (row-major): a column window, written as
/// a new user writes it (`usize` indices, a guard around each checked read, a loop whose trip
/// count is an argument). One thread per pixel, a 2-D grid covering the image.
#[kernel]
pub fn column_window_sums(image: &[f32], output: &mut [f32], width: u32, height: u32, rows: u32) {
    let (x, y) = grid!(2);
    let (width, height) = (width as usize, height as usize);
    if x < width && y < height {
        let mut sum = 0.0f32;
        for k in 0..rows as usize {
            let iy = y + k;
            if iy < height {
                sum += image[iy * width + x];
            }
        }
        output[y * width + x] = sum;
    }
}

/// `output[y * width + x]` becomes the sum of the pixels in rows `y .. y + rows` and columns
/// `x - 2 ..= x + 2` that lie in the image: a window with a runtime height and a constant
/// half-width, the columns written with `isize` offsets as a convolution's are (`ix >= 0 &&
/// ix < width as isize`). In the copy without checks those column guards are 32-bit compares
/// (`nvptx-builder`'s compare narrowing); `iy < height` stays 64-bit there (`y + k` may pass
/// 2^32 for a large `rows`), and the checked copy keeps every compare as it was.
#[kernel]
pub fn window_sums(image: &[f32], output: &mut [f32], width: u32, height: u32, rows: u32) {
    let (x, y) = grid!(2);
    let (width, height) = (width as usize, height as usize);
    if x < width && y < height {
        let mut sum = 0.0f32;
        for k in 0..rows as usize {
            let iy = y + k;
            if iy < height {
                for dx in 0..5 {
                    let ix = x as isize + dx - 2;
                    if ix >= 0 && ix < width as isize {
                        sum += image[iy * width + ix as usize];
                    }
                }
            }
        }
        output[y * width + x] = sum;
    }
}
