//! A 2-D convolution of an image with a 7x7 filter held in constant memory: each thread
//! computes one output pixel as the sum of the filter's weights times the pixels under it,
//! pixels outside the image counting as zero. Blocks of 16x16 threads.
//!
//! Written the way a new user writes it: `grid!(2)`, `isize`/`usize` indices, checked
//! indexing. The CUDA C twin is `convolution_cuda` in `bench/idiomatic.cu`, whose filter is a
//! `__constant__` array.

use ferrocuda::prelude::*;

/// Side of the filter.
pub const FILTER_SIZE: usize = 7;

/// Filter weights, row-major, written by the host with `FILTER.write(&device, &weights)`.
#[constant]
pub static FILTER: [f32; FILTER_SIZE * FILTER_SIZE] = [0.0; FILTER_SIZE * FILTER_SIZE];

/// `output[y][x] = sum over (fy, fx) of FILTER[fy][fx] * image[y + fy - 3][x + fx - 3]` for a
/// row-major `width` x `height` image, in row-major filter order; pixels outside the image are
/// left out. Blocks of 16x16 threads on a grid covering the image.
#[kernel]
pub fn convolution(image: &[f32], output: &mut [f32], width: u32, height: u32) {
    let (x, y) = grid!(2);
    let (width, height) = (width as usize, height as usize);
    if x < width && y < height {
        let radius = (FILTER_SIZE / 2) as isize;
        let mut sum = 0.0f32;
        for fy in 0..FILTER_SIZE {
            for fx in 0..FILTER_SIZE {
                let iy = y as isize + fy as isize - radius;
                let ix = x as isize + fx as isize - radius;
                if iy >= 0 && iy < height as isize && ix >= 0 && ix < width as isize {
                    sum += FILTER[fy * FILTER_SIZE + fx] * image[iy as usize * width + ix as usize];
                }
            }
        }
        output[y * width + x] = sum;
    }
}
