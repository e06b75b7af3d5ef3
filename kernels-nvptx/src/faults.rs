//! Deliberately broken kernels: each shows one bug that ferrocuda reports as an error instead of
//! a hang or silent garbage. The tests check the reports; do not copy these.

use ferrocuda::prelude::*;

/// Thread `culprit` of the grid indexes one past the end of `out`: a bounds-check panic.
/// Every other thread writes its own element, to show they still run.
#[kernel]
pub fn index_out_of_bounds(out: &mut [f32], culprit: u32) {
    let i = grid!(1);
    if i == culprit as usize {
        let past_end = out.len();
        out[past_end] = 1.0;
    } else if i < out.len() {
        out[i] = i as f32;
    }
}

/// Panics with a fixed message in thread 3 of block 2.
#[kernel]
pub fn explicit_panic(out: &mut [u32]) {
    let (b, t) = (block_idx().x, thread_idx().x);
    if b == 2 && t == 3 {
        panic!("thread 3 of block 2 gives up");
    }
    let i = grid!(1);
    if i < out.len() {
        out[i] = 7;
    }
}

/// `assert!` that every input is non-negative.
#[kernel]
pub fn assert_non_negative(values: &[i32], out: &mut [i32]) {
    let i = grid!(1);
    if i < values.len() {
        assert!(values[i] >= 0, "negative input");
        out[i] = values[i];
    }
}
