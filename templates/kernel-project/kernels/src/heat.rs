//! A five-point stencil: one explicit step of the heat equation on a 2-D grid.

use ferrocuda::prelude::*;

/// `output[y, x] = input[y, x] + alpha * (sum of the 4 neighbours - 4 * input[y, x])` for the
/// interior of a `height` x `width` row-major grid; the border keeps its value.
#[kernel]
pub fn heat_step(input: &[f32], output: &mut [f32], width: u32, height: u32, alpha: f32) {
    let (x, y) = grid!(2);
    let (w, h) = (width as usize, height as usize);
    if x < w && y < h {
        let i = y * w + x;
        output[i] = if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
            input[i]
        } else {
            let neighbours = input[i - 1] + input[i + 1] + input[i - w] + input[i + w];
            input[i] + alpha * (neighbours - 4.0 * input[i])
        };
    }
}
