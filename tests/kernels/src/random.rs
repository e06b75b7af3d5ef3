//! Philox streams drawn in a kernel, for `tests/tests/random.rs` to compare with the same draws
//! on the host: every method of `Philox`, interleaved so that the word position and the cached
//! normals carry from one call to the next.

use ferrocuda::device::random::Philox;
use ferrocuda::prelude::*;

/// Thread `t` (of the whole grid) opens `Philox::new(seed, first_subsequence + t, t % 7)` and
/// makes `rounds` rounds of draws; round `k` writes, at `j = t * rounds + k`:
/// `words[j] = next_u32()`, `longs[j] = next_u64()`, `singles[2j] = uniform_f32()`,
/// `singles[2j + 1] = normal_f32()`, `doubles[2j] = uniform_f64()`,
/// `doubles[2j + 1] = normal_f64()`, in that order. Threads past `words.len() / rounds` draw
/// nothing.
#[kernel]
pub fn philox_draws(
    seed: u64,
    first_subsequence: u64,
    rounds: usize,
    words: &mut [u32],
    longs: &mut [u64],
    singles: &mut [f32],
    doubles: &mut [f64],
) {
    let t = grid!(1);
    if rounds == 0 || t >= words.len() / rounds {
        return;
    }
    let mut rng = Philox::new(seed, first_subsequence + t as u64, (t % 7) as u64);
    for k in 0..rounds {
        let j = t * rounds + k;
        words[j] = rng.next_u32();
        longs[j] = rng.next_u64();
        singles[2 * j] = rng.uniform_f32();
        singles[2 * j + 1] = rng.normal_f32();
        doubles[2 * j] = rng.uniform_f64();
        doubles[2 * j + 1] = rng.normal_f64();
    }
}
