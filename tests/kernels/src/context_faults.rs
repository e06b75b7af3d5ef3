//! A kernel that kills the CUDA context, and a healthy one to run after the recovery.
//!
//! Do not copy `write_far_out_of_bounds`: it skips the bounds check with `get_unchecked_mut` and
//! writes far outside the buffer. On a GPU that is an illegal address, which the driver makes
//! sticky: the context is lost (`Error::ContextLost`) until `Device::reset`. On the simulator it
//! is undefined behaviour of the host process, which the simulator cannot always detect.

use ferrocuda::prelude::*;

/// Thread 0 writes 1 at element `offset` of `out`, without a bounds check.
#[kernel]
pub fn write_far_out_of_bounds(out: &mut [u32], offset: u64) {
    if grid!(1) == 0 {
        // SAFETY: none; this kernel exists to show what an out-of-bounds write does to a GPU.
        // The tests launch it on a GPU only, in a child process.
        unsafe { *out.get_unchecked_mut(offset as usize) = 1 };
    }
}

/// `out[i] = i * 3`: a launch that must work again after the recovery.
#[kernel]
pub fn write_thrice_index(out: &mut [u32]) {
    let i = grid!(1);
    if i < out.len() {
        out[i] = i as u32 * 3;
    }
}
