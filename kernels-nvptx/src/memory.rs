//! Global-memory access patterns: the same copy with consecutive threads
//! reading consecutive elements (coalesced) or elements `stride` apart (strided).

use ferrocuda::prelude::*;

/// `output[i] = input[i]`: a warp reads one contiguous 128-byte run.
#[kernel]
pub fn copy_coalesced(input: &[f32], output: &mut [f32]) {
    let i = grid!(1);
    if i < output.len() {
        output[i] = input[i];
    }
}

/// `output[i] = input[i * stride]`: with `stride = 2` a warp touches twice the memory for the
/// same useful bytes. `input` must hold at least `(output.len() - 1) * stride + 1` elements
/// (a shorter one is a bounds-check panic).
#[kernel]
pub fn copy_strided(input: &[f32], output: &mut [f32], stride: u32) {
    let i = grid!(1);
    if i < output.len() {
        output[i] = input[i * stride as usize];
    }
}
