//! Random numbers in kernels: the counter-based generator Philox4x32-10, with independent
//! streams per thread, uniform and normal variates in `f32` and `f64`, the same bits on the GPU
//! and on the simulator.
//!
//! # The algorithm
//! Philox4x32-10 is the generator of Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as
//! easy as 1, 2, 3" (SC'11), as in Random123 and cuRAND's `curandStatePhilox4_32_10_t`. It is a
//! keyed bijection of a 128-bit counter: [`philox4x32_10`] maps a counter of four `u32` and a key
//! of two `u32` to four `u32`, in 10 rounds of
//!
//! ```text
//! (hi0, lo0) = 0xD2511F53 * c0      (the 64-bit product's high and low words)
//! (hi1, lo1) = 0xCD9E8D57 * c2
//! c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
//! ```
//!
//! with the key bumped by the Weyl constants `(0x9E3779B9, 0xBB67AE85)` between rounds. A stream
//! is the sequence of outputs of consecutive counters, so any element of any stream is computed
//! directly, without stepping through the ones before it: no state in global memory, no seeding
//! kernel. Only integer additions, multiplications and xors are involved (the high word of the
//! product is Rust's `u64` multiply, `mul.wide.u32` on the GPU), so both backends give the same
//! bits. The tests check the published known-answer vectors of Random123 (`kat_vectors`).
//!
//! # Streams: seed, subsequence, offset
//! [`Philox::new(seed, subsequence, offset)`](Philox::new) is cuRAND's
//! `curand_init(seed, subsequence, offset, &state)`: the key is the seed (low word first), the
//! counter starts at `subsequence * 2^64` (the subsequence is the counter's high 64 bits), and
//! `offset` skips that many `u32` outputs. Each subsequence is 2^64 blocks of four `u32` long, so
//! threads that take their global index as the subsequence and the same seed never overlap:
//! `Philox::new(seed, grid!(1) as u64, 0)`. Opening a stream is one Philox block computed in
//! registers (cuRAND's default XORWOW generator needs a skip-ahead through precomputed matrices
//! for the same), so kernels open their streams where they start and keep no state in memory.
//!
//! # Conversions
//! - `u32`: one output word ([`Philox::next_u32`]); `u64`: two, the first as the low half.
//! - uniform `f32` in (0, 1]: `x * 2^-32 + 2^-33` from one word `x`, rounded to `f32`
//!   ([`uniform_f32`]), cuRAND's `curand_uniform` convention: never 0, so `ln(u)` is finite, and
//!   1.0 where the rounding reaches it.
//! - uniform `f64` in (0, 1]: the top 53 bits of the two-word `u64` `z` (first word low),
//!   `(z >> 11) * 2^-53 + 2^-54` ([`uniform_f64`]); 1.0 only where the rounding reaches it.
//! - normal (mean 0, standard deviation 1): Box-Muller on two uniforms `u`, `v` of the type,
//!   `sqrt(-2 ln u) * (cos 2 pi v, sin 2 pi v)` ([`box_muller_f32`], [`box_muller_f64`]). Like
//!   cuRAND's `curand_normal`, [`Philox::normal_f32`] returns the first of a pair and keeps the
//!   second for the next call; an `f32` pair takes two words, an `f64` pair four.
//!
//! The logarithm and the sine and cosine are those of the `libm` crate on both backends (the
//! same Rust code, full precision, compiled for each target; the GPU's approximate instructions
//! are not used) and the square root is the correctly rounded one of each target, so a kernel's
//! normals equal the host's bit for bit. A kernel crate built with fast math
//! (`#[kernel(fast_math)]`, `FERROCUDA_FAST_MATH`) lets the compiler contract these functions'
//! multiply-adds on the GPU, and the bits may then differ in the last place.
//!
//! ```ignore
//! use ferrocuda::device::random::Philox;
//! use ferrocuda::prelude::*;
//!
//! #[kernel]
//! pub fn noise(seed: u64, out: &mut [f32]) {
//!     let i = grid!(1);
//!     let mut rng = Philox::new(seed, i as u64, 0); // one independent stream per thread
//!     if i < out.len() {
//!         out[i] = rng.normal_f32();
//!     }
//! }
//! ```

use crate::math::DeviceFloat;

/// The multiplier of the first and second counter words (Random123's `PHILOX_M4x32_0`).
pub const PHILOX_M0: u32 = 0xD251_1F53;
/// The multiplier of the third and fourth counter words (`PHILOX_M4x32_1`).
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
/// The key's first word is bumped by this between rounds (`PHILOX_W32_0`, the golden ratio).
pub const PHILOX_W0: u32 = 0x9E37_79B9;
/// The key's second word is bumped by this between rounds (`PHILOX_W32_1`, sqrt(3) - 1).
pub const PHILOX_W1: u32 = 0xBB67_AE85;
/// The number of rounds of [`philox4x32_10`], the standard (cuRAND's and Random123's default).
pub const PHILOX_ROUNDS: u32 = 10;

/// 2^-32, the spacing of [`uniform_f32`]'s values before rounding.
const TWO_POW_MINUS_32: f32 = 1.0 / 4_294_967_296.0;
/// 2^-53, the spacing of [`uniform_f64`]'s values.
const TWO_POW_MINUS_53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// The high and low words of the 64-bit product `a * b`.
#[inline(always)]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    let product = u64::from(a) * u64::from(b);
    ((product >> 32) as u32, product as u32)
}

/// One Philox round: the S-box of the paper's Figure 2 on four words.
#[inline(always)]
fn round(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (hi0, lo0) = mul_hi_lo(PHILOX_M0, counter[0]);
    let (hi1, lo1) = mul_hi_lo(PHILOX_M1, counter[2]);
    [
        hi1 ^ counter[1] ^ key[0],
        lo1,
        hi0 ^ counter[3] ^ key[1],
        lo0,
    ]
}

/// Philox4x32 with `rounds` rounds (Random123's `philox4x32_R`): the four output words of
/// `counter` under `key`. Fewer than 7 rounds fail statistical tests (the paper's Table 2);
/// [`philox4x32_10`] is the generator to use, this one exists for tests that show the difference.
#[inline(always)]
pub fn philox4x32(rounds: u32, counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let mut counter = counter;
    let mut key = key;
    let mut r = 0;
    while r < rounds {
        if r > 0 {
            key = [
                key[0].wrapping_add(PHILOX_W0),
                key[1].wrapping_add(PHILOX_W1),
            ];
        }
        counter = round(counter, key);
        r += 1;
    }
    counter
}

/// Philox4x32-10: the four output words of `counter` (least significant word first) under `key`,
/// bit for bit Random123's `philox4x32_10` and cuRAND's `curand_Philox4x32_10`.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    philox4x32(PHILOX_ROUNDS, counter, key)
}

/// The uniform `f32` in (0, 1] of one random word: `x * 2^-32 + 2^-33`, rounded to `f32`
/// (cuRAND's `_curand_uniform`).
#[inline(always)]
pub fn uniform_f32(x: u32) -> f32 {
    x as f32 * TWO_POW_MINUS_32 + TWO_POW_MINUS_32 / 2.0
}

/// The uniform `f64` in (0, 1] of two random words, `low` first: the top 53 bits `m` of
/// `(high << 32) | low`, as `m * 2^-53 + 2^-54`.
#[inline(always)]
pub fn uniform_f64(low: u32, high: u32) -> f64 {
    let bits = (u64::from(high) << 32 | u64::from(low)) >> 11;
    bits as f64 * TWO_POW_MINUS_53 + TWO_POW_MINUS_53 / 2.0
}

/// Box-Muller in `f32`: two independent standard normals from two random words,
/// `sqrt(-2 ln u) * (cos 2 pi v, sin 2 pi v)` with `u = uniform_f32(x)`, `v = uniform_f32(y)`.
#[inline(always)]
pub fn box_muller_f32(x: u32, y: u32) -> (f32, f32) {
    let radius = DeviceFloat::sqrt(-2.0 * libm::logf(uniform_f32(x)));
    let (sin, cos) = libm::sincosf(core::f32::consts::TAU * uniform_f32(y));
    (radius * cos, radius * sin)
}

/// Box-Muller in `f64`: two independent standard normals from four random words,
/// `u = uniform_f64(words[0], words[1])`, `v = uniform_f64(words[2], words[3])`, then as
/// [`box_muller_f32`].
#[inline(always)]
pub fn box_muller_f64(words: [u32; 4]) -> (f64, f64) {
    let radius = DeviceFloat::sqrt(-2.0 * libm::log(uniform_f64(words[0], words[1])));
    let (sin, cos) = libm::sincos(core::f64::consts::TAU * uniform_f64(words[2], words[3]));
    (radius * cos, radius * sin)
}

/// One Philox4x32-10 stream, as cuRAND's `curandStatePhilox4_32_10_t`: a 128-bit counter, a
/// 64-bit key, the current block of four output words, and the second normal of the last pair.
///
/// Built per thread in registers from a seed, a subsequence and an offset
/// ([`Philox::new`]); each call takes the next words of the stream. See the
/// [module documentation](self) for the conversions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Philox {
    /// The counter of the block in `output` (word 0 least significant).
    counter: [u32; 4],
    /// The key: the seed, low word first.
    key: [u32; 2],
    /// `philox4x32_10(counter, key)`.
    output: [u32; 4],
    /// The index in `output` of the next word to return, 0 to 3.
    position: u32,
    /// The second `f32` normal of the last pair, if not yet returned.
    cached_normal_f32: Option<f32>,
    /// The second `f64` normal of the last pair, if not yet returned.
    cached_normal_f64: Option<f64>,
}

impl Philox {
    /// The stream of `seed` whose first word is word `offset` of subsequence `subsequence`, as
    /// `curand_init(seed, subsequence, offset, &state)`: the counter starts at
    /// `subsequence * 2^64 + offset / 4` and the first `offset % 4` words of that block are
    /// skipped. Distinct subsequences of one seed are 2^66 words apart, so they never overlap.
    #[inline(always)]
    pub fn new(seed: u64, subsequence: u64, offset: u64) -> Self {
        let block = offset / 4;
        let counter = [
            block as u32,
            (block >> 32) as u32,
            subsequence as u32,
            (subsequence >> 32) as u32,
        ];
        let key = [seed as u32, (seed >> 32) as u32];
        Philox {
            counter,
            key,
            output: philox4x32_10(counter, key),
            position: (offset % 4) as u32,
            cached_normal_f32: None,
            cached_normal_f64: None,
        }
    }

    /// Moves to the next block of the stream (the 128-bit counter plus one, wrapping).
    #[inline(always)]
    fn advance_block(&mut self) {
        let mut carry = true;
        for word in &mut self.counter {
            if carry {
                let (sum, overflow) = word.overflowing_add(1);
                *word = sum;
                carry = overflow;
            }
        }
        self.output = philox4x32_10(self.counter, self.key);
        self.position = 0;
    }

    /// The next word of the stream (cuRAND's `curand`).
    #[inline(always)]
    pub fn next_u32(&mut self) -> u32 {
        if self.position == 4 {
            self.advance_block();
        }
        let word = self.output[self.position as usize & 3];
        self.position += 1;
        word
    }

    /// The next four words of the stream (cuRAND's `curand4` when the stream is at the start of
    /// a block; any position works here).
    #[inline(always)]
    pub fn next_u32x4(&mut self) -> [u32; 4] {
        [
            self.next_u32(),
            self.next_u32(),
            self.next_u32(),
            self.next_u32(),
        ]
    }

    /// The next two words as one `u64`, the first as the low half.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        let low = self.next_u32();
        u64::from(self.next_u32()) << 32 | u64::from(low)
    }

    /// A uniform `f32` in (0, 1] from the next word ([`uniform_f32`]; cuRAND's `curand_uniform`).
    #[inline(always)]
    pub fn uniform_f32(&mut self) -> f32 {
        uniform_f32(self.next_u32())
    }

    /// A uniform `f64` in (0, 1] from the next two words ([`uniform_f64`]).
    #[inline(always)]
    pub fn uniform_f64(&mut self) -> f64 {
        let low = self.next_u32();
        uniform_f64(low, self.next_u32())
    }

    /// A standard normal `f32`: the second of the last Box-Muller pair if one is kept, else the
    /// first of a new pair from the next two words ([`box_muller_f32`]), keeping its second.
    #[inline(always)]
    pub fn normal_f32(&mut self) -> f32 {
        if let Some(second) = self.cached_normal_f32.take() {
            return second;
        }
        let x = self.next_u32();
        let (first, second) = box_muller_f32(x, self.next_u32());
        self.cached_normal_f32 = Some(second);
        first
    }

    /// A standard normal `f64`: the second of the last pair if one is kept, else the first of a
    /// new pair from the next four words ([`box_muller_f64`]), keeping its second.
    #[inline(always)]
    pub fn normal_f64(&mut self) -> f64 {
        if let Some(second) = self.cached_normal_f64.take() {
            return second;
        }
        let (first, second) = box_muller_f64(self.next_u32x4());
        self.cached_normal_f64 = Some(second);
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random123's `kat_vectors` for `philox4x32 10`: (counter, key, expected output).
    const KNOWN_ANSWERS: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        (
            [0, 0, 0, 0],
            [0, 0],
            [0x6627_e8d5, 0xe169_c58d, 0xbc57_ac4c, 0x9b00_dbd8],
        ),
        (
            [u32::MAX; 4],
            [u32::MAX; 2],
            [0x408f_276d, 0x41c8_3b0e, 0xa20b_c7c6, 0x6d54_51fd],
        ),
        (
            [0x243f_6a88, 0x85a3_08d3, 0x1319_8a2e, 0x0370_7344],
            [0xa409_3822, 0x299f_31d0],
            [0xd16c_fe09, 0x94fd_cceb, 0x5001_e420, 0x2412_6ea1],
        ),
    ];

    #[test]
    fn philox4x32_10_matches_random123_known_answers() {
        for (counter, key, expected) in KNOWN_ANSWERS {
            assert_eq!(
                philox4x32_10(counter, key),
                expected,
                "counter {counter:08x?}, key {key:08x?}"
            );
        }
    }

    #[test]
    fn stream_follows_the_counter_across_blocks_and_offsets() {
        let seed = 0x0123_4567_89ab_cdef;
        let key = [0x89ab_cdef, 0x0123_4567];
        // Subsequence 5, from offset 6: block 1 at its word 2.
        let mut stream = Philox::new(seed, 5, 6);
        let block1 = philox4x32_10([1, 0, 5, 0], key);
        let block2 = philox4x32_10([2, 0, 5, 0], key);
        let expected = [block1[2], block1[3], block2[0], block2[1], block2[2]];
        let got: [u32; 5] = core::array::from_fn(|_| stream.next_u32());
        assert_eq!(got, expected);
        // An offset past 2^32 blocks reaches the counter's second word, and stepping off the
        // block 2^32 - 1 carries into it.
        let mut far = Philox::new(seed, 7, (1 << 34) + 3);
        assert_eq!(far.next_u32(), philox4x32_10([0, 1, 7, 0], key)[3]);
        assert_eq!(far.next_u32(), philox4x32_10([1, 1, 7, 0], key)[0]);
        let mut carry = Philox::new(seed, u64::MAX, 4 * u64::from(u32::MAX) + 3);
        assert_eq!(
            carry.next_u32(),
            philox4x32_10([u32::MAX, 0, u32::MAX, u32::MAX], key)[3]
        );
        assert_eq!(
            carry.next_u32(),
            philox4x32_10([0, 1, u32::MAX, u32::MAX], key)[0],
            "the counter carries from its first word into its second"
        );
        // The largest offset: block 2^62 - 1, word 3.
        let mut last = Philox::new(seed, 1, u64::MAX);
        assert_eq!(
            last.next_u32(),
            philox4x32_10([u32::MAX, (1 << 30) - 1, 1, 0], key)[3]
        );
        assert_eq!(last.next_u32(), philox4x32_10([0, 1 << 30, 1, 0], key)[0]);
    }

    #[test]
    fn conversions_stay_in_their_intervals() {
        assert_eq!(uniform_f32(0), 2f32.powi(-33));
        assert_eq!(uniform_f32(u32::MAX), 1.0);
        assert!(uniform_f32(1 << 31) == 0.5 + 2f32.powi(-33));
        assert_eq!(uniform_f64(0, 0), 2f64.powi(-54));
        assert_eq!(uniform_f64(u32::MAX, u32::MAX), 1.0);
        assert_eq!(uniform_f64(0, 1 << 31), 0.5 + 2f64.powi(-54));
        assert_eq!(uniform_f64(1 << 11, 0), 3.0 * 2f64.powi(-54));
        // u = 1 gives a radius of 0; the smallest u gives the largest normal, about 7.7 in f32.
        assert_eq!(box_muller_f32(u32::MAX, 12345), (0.0, 0.0));
        let (largest, _) = box_muller_f32(0, 0);
        assert!((largest - (-2.0 * (2f64.powi(-33)).ln()).sqrt() as f32).abs() < 1e-5);
        let (largest, _) = box_muller_f64([0, 0, 0, 0]);
        assert!((largest - (-2.0 * (2f64.powi(-54)).ln()).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn normals_come_in_pairs() {
        let mut stream = Philox::new(42, 3, 0);
        let words = philox4x32_10([0, 0, 3, 0], [42, 0]);
        let (a, b) = box_muller_f32(words[0], words[1]);
        assert_eq!((stream.normal_f32(), stream.normal_f32()), (a, b));
        let (c, _) = box_muller_f32(words[2], words[3]);
        assert_eq!(stream.normal_f32(), c);
        let mut stream = Philox::new(42, 3, 0);
        let (a, b) = box_muller_f64(words);
        assert_eq!((stream.normal_f64(), stream.normal_f64()), (a, b));
        assert_eq!(stream.next_u32(), philox4x32_10([1, 0, 3, 0], [42, 0])[0]);
    }

    #[test]
    fn libm_box_muller_is_close_to_std() {
        // The GPU and the simulator both run libm; std is an independent check of the formula.
        let mut stream = Philox::new(7, 0, 0);
        for _ in 0..1000 {
            let [x, y, z, w] = stream.next_u32x4();
            let (u, v) = (f64::from(uniform_f32(x)), f64::from(uniform_f32(y)));
            let radius = (-2.0 * u.ln()).sqrt();
            let angle = f64::from(core::f32::consts::TAU * uniform_f32(y));
            let (a, b) = box_muller_f32(x, y);
            assert!(
                (f64::from(a) - radius * angle.cos()).abs() < 1e-5,
                "u {u} v {v}"
            );
            assert!(
                (f64::from(b) - radius * angle.sin()).abs() < 1e-5,
                "u {u} v {v}"
            );
            let (u, v) = (uniform_f64(x, y), uniform_f64(z, w));
            let (a, b) = box_muller_f64([x, y, z, w]);
            let radius = (-2.0 * u.ln()).sqrt();
            let angle = core::f64::consts::TAU * v;
            assert!((a - radius * angle.cos()).abs() < 1e-13);
            assert!((b - radius * angle.sin()).abs() < 1e-13);
        }
    }
}
