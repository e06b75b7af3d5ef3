//! Monte Carlo estimate of pi: each thread draws points in the unit square from its own
//! Philox4x32-10 stream and counts those inside the quarter circle; the counts meet in one
//! 64-bit atomic add per warp.

use ferrocuda::device::random::Philox;
use ferrocuda::prelude::*;

/// Thread `t` (of the whole grid) draws `samples_per_thread` points `(x, y)` of uniform `f32`
/// in (0, 1] from `Philox::new(seed, t, 0)` (`x` then `y`) and counts those with
/// `x * x + y * y <= 1`; the warp sums its counts with shuffles and lane 0 adds the sum to
/// `hits[0]`. `4 * hits / (threads * samples_per_thread)` estimates pi. Every thread of a warp
/// must take part (blocks of a multiple of 32 threads).
#[kernel]
pub fn count_in_circle(seed: u64, samples_per_thread: u32, hits: &mut [u64]) {
    let mut rng = Philox::new(seed, grid!(1) as u64, 0);
    let mut inside = 0u32;
    for _ in 0..samples_per_thread {
        let x = rng.uniform_f32();
        let y = rng.uniform_f32();
        if x * x + y * y <= 1.0 {
            inside += 1;
        }
    }
    let mut sum = u64::from(inside);
    let mut offset = WARP_SIZE / 2;
    while offset > 0 {
        sum += shfl_down_sync(FULL_MASK, sum, offset);
        offset /= 2;
    }
    if lane_id() == 0 {
        hits.atomic_add(0, sum);
    }
}
