//! Naive matrix transpose: each thread moves one element straight from global
//! memory to global memory. Reads are coalesced, writes are strided by the height; the
//! shared-memory version (`transpose`) fixes the writes.

use ferrocuda::prelude::*;

/// `output = inputᵀ` for a row-major `height` x `width` `input`: the thread at `(x, y)` does
/// `output[x * height + y] = input[y * width + x]`. Any sizes.
#[kernel]
pub fn transpose_naive(input: &[f32], output: &mut [f32], width: u32, height: u32) {
    let (x, y) = grid!(2);
    let (w, h) = (width as usize, height as usize);
    if x < w && y < h {
        output[x * h + y] = input[y * w + x];
    }
}
