//! Kernels whose running time is set by a parameter, to keep a GPU busy long enough that work
//! queued behind them without proper ordering would visibly overtake them (the stream-ordering
//! tests rely on this).

use ferrocuda::prelude::*;

/// The step of [`lcg_rounds`]: one round of Knuth's MMIX linear congruential generator,
/// truncated to 32 bits. Public so that host code can compute the expected results.
#[inline(always)]
pub fn lcg_step(x: u32) -> u32 {
    x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223)
}

/// Applies [`lcg_step`] `rounds` times to each element of `data`, in place: a chain of
/// dependent integer operations per thread, so the kernel takes time proportional to `rounds`
/// and its result is exact on every backend.
#[kernel]
pub fn lcg_rounds(data: &mut [u32], rounds: u32) {
    let i = grid!(1);
    if i < data.len() {
        let mut x = data[i];
        for _ in 0..rounds {
            x = lcg_step(x);
        }
        data[i] = x;
    }
}

/// `out[i] = data[i] ^ key`: a quick kernel reading what a slow one wrote.
#[kernel]
pub fn xor_into(data: &[u32], out: &mut [u32], key: u32) {
    let i = grid!(1);
    if i < out.len() {
        out[i] = data[i] ^ key;
    }
}
