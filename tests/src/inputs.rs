//! Deterministic random inputs: each test seeds its generator from its own name, so a failure
//! reproduces and two tests do not share data by accident.

use ferrocuda::device::half::bf16;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// A deterministic random generator for a test, seeded from its name (FNV-1a).
pub fn rng(seed: &str) -> StdRng {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in seed.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    StdRng::seed_from_u64(h)
}

/// `n` random `f32` in `[-1, 1)`.
pub fn random_f32(rng: &mut StdRng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// `n` random `u32` below `bound`.
pub fn random_u32(rng: &mut StdRng, n: usize, bound: u32) -> Vec<u32> {
    (0..n).map(|_| rng.random_range(0..bound)).collect()
}

/// `n` random bytes.
pub fn random_u8(rng: &mut StdRng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.random()).collect()
}

/// `n` random values in `[-range, range)` rounded to bf16 by the `half` crate (independent of
/// ferrocuda's conversion), as the kernel's `bf16` and as their exact `f32` values for a
/// reference.
pub fn random_bf16(seed: &str, n: usize, range: f32) -> (Vec<bf16>, Vec<f32>) {
    let values: Vec<f32> = random_f32(&mut rng(seed), n)
        .into_iter()
        .map(|x| half::bf16::from_f32(x * range).to_f32())
        .collect();
    let bits = values
        .iter()
        .map(|&x| bf16::from_bits(half::bf16::from_f32(x).to_bits()))
        .collect();
    (bits, values)
}
