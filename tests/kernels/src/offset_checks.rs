//! A kernel whose checked reads at offsets from an index (`input[i - 1]`, `input[i + row]`)
//! follow the check of the index itself (`input[i]`): the shape `nvptx-builder`'s offset-check
//! narrowing rewrites (`tests/tests/offset_checks.rs`).

use ferrocuda::prelude::*;

/// Each `output[t]` becomes the sum of `input` at `i`, `i - 1`, `i + 1`, `i - row` and
/// `i + row`, with `i = first + t`, one thread per element of `output`: a five-point sum on rows
/// of `row` elements, written as a new user writes it (`usize` indices, every read checked).
#[kernel]
pub fn five_point_sums(input: &[f32], output: &mut [f32], first: u32, row: u32) {
    let t = grid!(1);
    if t < output.len() {
        let i = first as usize + t;
        let row = row as usize;
        output[t] = input[i] + input[i - 1] + input[i + 1] + input[i - row] + input[i + row];
    }
}
