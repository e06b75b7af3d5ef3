//! Kernels with runs of index-only bounds checks, one after the other and under the user's own
//! `if`s: whatever the build does with such checks (reorder, hoist, combine), a failed check must
//! be reported as the first one that fails in program order, with its own index and length, on
//! its own line.

use ferrocuda::prelude::*;

/// `output[i] = input[i] + 2 input[i + 1] + 3 input[i + stride]` for `i < n`: three checked
/// reads and a checked write, each on its own line, one after the other.
#[kernel]
pub fn neighbour_sum(input: &[f32], output: &mut [f32], n: u32, stride: u32) {
    let i = grid!(1);
    if i < n as usize {
        let here = input[i];
        let next = input[i + 1];
        let far = input[i + stride as usize];
        output[i] = here + 2.0 * next + 3.0 * far;
    }
}

/// `output[i] = sum over t in 0..5 of (t + 1) input[i + t - 2]` for `i < n`, taps with
/// `i + t - 2` outside `0..limit` left out: each checked read under the user's own `if`.
#[kernel]
pub fn window_sum(input: &[f32], output: &mut [f32], n: u32, limit: u32) {
    let i = grid!(1);
    if i < n as usize {
        let mut sum = 0.0f32;
        for t in 0..5 {
            let j = i as isize + t - 2;
            if j >= 0 && j < limit as isize {
                sum += (t + 1) as f32 * input[j as usize];
            }
        }
        output[i] = sum;
    }
}
