//! Correctly rounded half-precision arithmetic in software, on bit patterns: the simulator's
//! implementation of [`f16`](crate::half::f16) and [`bf16`](crate::half::bf16), and the GPU's
//! where the architecture has no instruction (`bf16` below sm_80).
//!
//! Everything goes through `f64`, which holds every `f16` and `bf16` value exactly, in its normal
//! range (the smallest `bf16` subnormal is 2^-133, far above `f64`'s 2^-1022):
//! - [`round`] rounds an `f64` to nearest, ties to even, in one step on the integer significand,
//!   as PTX's `cvt.rn` does (a NaN becomes the canonical NaN `0x7fff`).
//! - [`add`], [`sub`] and [`mul`] compute in `f64` and round once. That is the correctly rounded
//!   result: rounding twice, first to `p'` bits and then to `p`, is innocuous for `+ - * / sqrt`
//!   when `p' >= 2p + 2` and the first format neither overflows nor underflows (S. A. Figueroa,
//!   "When is double rounding innocuous?", SIGNUM Newsletter 30(3), 1995). `f64` has `p' = 53`,
//!   `f16` `p = 11` and `bf16` `p = 8`. (`f32`, `p' = 24`, is just enough for `f16` but underflows
//!   for `bf16`, whose exponent range is `f32`'s.)
//! - [`mul_add`] cannot do the same: `a * b` is exact in `f64`, but `a * b + c` can lie closer to a
//!   half-way point than `f64` resolves (`65504 * 65504` plus `2^-24` spans 57 bits), and then the
//!   `f64` rounding would decide the tie. The sum is therefore rounded *to odd* in `f64` (the
//!   error term of Knuth's TwoSum says whether the sum was exact; an inexact sum with an even last
//!   bit moves one ulp towards the error), and rounding to odd with at least `p + 2` bits followed
//!   by rounding to nearest gives the correctly rounded result (S. Boldo, G. Melquiond, "Emulation
//!   of FMA and correctly-rounded sums: proved algorithms using rounding to odd", IEEE Trans.
//!   Computers 57(4), 2008). That equals PTX's `fma.rn.f16` and `fma.rn.bf16`.
//!
//! Division and square root are not here: both backends compute them in `f32` (`div.rn.f32`,
//! `sqrt.rn.f32`) and round once with [`round`], so they agree bit for bit (see `half.rs`).
#![cfg_attr(
    all(target_arch = "nvptx64", target_feature = "sm_80"),
    expect(
        dead_code,
        reason = "from sm_80 on the GPU has instructions for all but `round`"
    )
)]

/// A binary floating-point format of 16 bits: 1 sign bit, `exponent_bits`, `mantissa_bits`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Format {
    /// Width of the biased exponent field.
    pub(crate) exponent_bits: u32,
    /// Width of the stored significand (without the implicit bit).
    pub(crate) mantissa_bits: u32,
}

/// IEEE 754 binary16: 5 exponent bits, 10 mantissa bits.
pub(crate) const F16: Format = Format {
    exponent_bits: 5,
    mantissa_bits: 10,
};

/// bfloat16: `f32`'s 8 exponent bits, 7 mantissa bits.
pub(crate) const BF16: Format = Format {
    exponent_bits: 8,
    mantissa_bits: 7,
};

/// The sign bit of both formats.
pub(crate) const SIGN: u16 = 0x8000;

/// The NaN this software produces for both formats (sign clear, all exponent and mantissa bits
/// set).
pub(crate) const CANONICAL_NAN: u16 = 0x7fff;

impl Format {
    /// The exponent bias (15 for `f16`, 127 for `bf16`).
    const fn bias(self) -> i32 {
        (1 << (self.exponent_bits - 1)) - 1
    }

    /// The bits of positive infinity.
    pub(crate) const fn infinity(self) -> u16 {
        (((1u32 << self.exponent_bits) - 1) << self.mantissa_bits) as u16
    }

    /// Whether `bits` is a NaN.
    pub(crate) const fn is_nan(self, bits: u16) -> bool {
        bits & !SIGN > self.infinity()
    }
}

/// Rounds `x` to the nearest value of `format`, ties to even (`cvt.rn`): overflow gives an
/// infinity, underflow a subnormal or a signed zero, a NaN the canonical NaN.
pub(crate) const fn round(x: f64, format: Format) -> u16 {
    if x.is_nan() {
        return CANONICAL_NAN;
    }
    let bits = x.to_bits();
    let sign = ((bits >> 48) as u16) & SIGN;
    let magnitude = bits & !(1 << 63);
    if magnitude >= f64::INFINITY.to_bits() {
        return sign | format.infinity();
    }
    // |x| = significand * 2^(exponent - 52); an `f64` subnormal (far below both formats) keeps
    // exponent -1022 and rounds to zero below.
    let raw_exponent = (magnitude >> 52) as i32;
    let (exponent, significand) = if raw_exponent == 0 {
        (-1022, magnitude)
    } else {
        (
            raw_exponent - 1023,
            (magnitude & ((1 << 52) - 1)) | (1 << 52),
        )
    };
    let mantissa = format.mantissa_bits as i32;
    let min_exponent = 1 - format.bias();
    // The result's quantum is 2^(exponent - mantissa), or the subnormal quantum below the
    // normal range; `shift` drops the bits of `significand` below it.
    let target_exponent = if exponent > min_exponent {
        exponent
    } else {
        min_exponent
    };
    let shift = (target_exponent - mantissa) - (exponent - 52);
    let rounded = if shift >= 64 {
        0 // below a quarter of the smallest subnormal
    } else {
        round_shift(significand, shift as u32)
    };
    // The encoding is `(biased exponent - 1) << mantissa` plus the significand with its implicit
    // bit, so a carry out of the significand (1.11..1 rounding up to 10.0) bumps the exponent, a
    // subnormal rounding up to 2^min_exponent becomes the smallest normal, and the largest finite
    // value rounding up becomes infinity.
    let encoded = (((target_exponent + format.bias() - 1) as i64) << mantissa) + rounded as i64;
    if encoded >= format.infinity() as i64 {
        sign | format.infinity()
    } else {
        sign | encoded as u16
    }
}

/// `value >> shift` rounded to nearest, ties to even (`shift` from 1 to 63).
const fn round_shift(value: u64, shift: u32) -> u64 {
    let kept = value >> shift;
    let dropped = value & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if dropped > half || (dropped == half && kept & 1 == 1) {
        kept + 1
    } else {
        kept
    }
}

/// The exact value of `bits` (NaNs keep their sign and the top of their payload).
pub(crate) const fn to_f64(bits: u16, format: Format) -> f64 {
    let negative = bits & SIGN != 0;
    let magnitude = bits & !SIGN;
    let mantissa = format.mantissa_bits;
    let fraction = (magnitude & ((1 << mantissa) - 1)) as u64;
    let biased = (magnitude >> mantissa) as i32;
    let value = if magnitude >= format.infinity() {
        // Infinity or NaN: the all-ones exponent of f64 with the fraction at its top.
        f64::from_bits((0x7ff << 52) | (fraction << (52 - mantissa)))
    } else if biased == 0 {
        fraction as f64 * power_of_two(1 - format.bias() - mantissa as i32)
    } else {
        (fraction | (1 << mantissa)) as f64 * power_of_two(biased - format.bias() - mantissa as i32)
    };
    if negative { -value } else { value }
}

/// 2^`exponent` for an exponent in `f64`'s normal range.
const fn power_of_two(exponent: i32) -> f64 {
    f64::from_bits(((exponent + 1023) as u64) << 52)
}

/// `a + b`, correctly rounded.
pub(crate) const fn add(a: u16, b: u16, format: Format) -> u16 {
    round(to_f64(a, format) + to_f64(b, format), format)
}

/// `a - b`, correctly rounded.
pub(crate) const fn sub(a: u16, b: u16, format: Format) -> u16 {
    round(to_f64(a, format) - to_f64(b, format), format)
}

/// `a * b`, correctly rounded.
pub(crate) const fn mul(a: u16, b: u16, format: Format) -> u16 {
    round(to_f64(a, format) * to_f64(b, format), format)
}

/// `a * b + c` with one rounding (see the module documentation).
pub(crate) const fn mul_add(a: u16, b: u16, c: u16, format: Format) -> u16 {
    // Exact: at most 2 * 11 significant bits, exponents far inside f64's range.
    let product = to_f64(a, format) * to_f64(b, format);
    let addend = to_f64(c, format);
    let sum = product + addend;
    if !sum.is_finite() {
        return round(sum, format);
    }
    // TwoSum: `error` is exactly `(product + addend) - sum`.
    let addend_part = sum - product;
    let error = (product - (sum - addend_part)) + (addend - addend_part);
    round(round_to_odd(sum, error), format)
}

/// Turns `sum`, the nearest `f64` to a value `sum + error`, into that value rounded to odd: `sum`
/// itself when exact or when its last bit is 1, else its neighbour on the side of `error` (which
/// then has last bit 1). `sum` is not zero when `error` is not (no underflow here).
const fn round_to_odd(sum: f64, error: f64) -> f64 {
    let bits = sum.to_bits();
    if error == 0.0 || bits & 1 == 1 {
        sum
    } else if (error > 0.0) == (sum > 0.0) {
        f64::from_bits(bits + 1) // away from zero
    } else {
        f64::from_bits(bits - 1) // towards zero
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every f16 and bf16 value converts to f64 and back to the same bits (NaNs to the canonical
    /// NaN).
    #[test]
    fn every_value_round_trips() {
        for format in [F16, BF16] {
            for bits in 0..=u16::MAX {
                let back = round(to_f64(bits, format), format);
                if format.is_nan(bits) {
                    assert_eq!(back, CANONICAL_NAN);
                } else {
                    assert_eq!(back, bits, "{format:?} {bits:#06x}");
                }
            }
        }
    }

    /// Known f16 encodings at the edges: the largest finite value, the tie above it (to even:
    /// infinity), the smallest subnormal and half of it (a tie to even zero), and 1 + 2^-11 (a tie
    /// to even 1.0) against 1 + 3 * 2^-11 (a tie to even 1 + 2^-9).
    #[test]
    fn f16_edges_round_to_nearest_even() {
        assert_eq!(round(65504.0, F16), 0x7bff);
        assert_eq!(round(65519.99, F16), 0x7bff);
        assert_eq!(round(65520.0, F16), 0x7c00);
        assert_eq!(round(-65520.0, F16), 0xfc00);
        assert_eq!(round(2f64.powi(-24), F16), 0x0001);
        assert_eq!(round(2f64.powi(-25), F16), 0x0000);
        assert_eq!(round(-(2f64.powi(-25)), F16), 0x8000);
        assert_eq!(round(2f64.powi(-25) * 1.0001, F16), 0x0001);
        assert_eq!(round(1.0 + 2f64.powi(-11), F16), 0x3c00);
        assert_eq!(round(1.0 + 3.0 * 2f64.powi(-11), F16), 0x3c02);
        assert_eq!(round(f64::MIN_POSITIVE / 4.0, F16), 0x0000);
        assert_eq!(round(1e300, BF16), 0x7f80);
        assert_eq!(round(2f64.powi(-133), BF16), 0x0001);
    }

    /// The fused multiply-add rounds once. 3 * 683 = 2049 is a tie between the f16 values 2048
    /// and 2050: alone it goes to even 2048, with the smallest subnormal added to 2050, with it
    /// subtracted to 2048. In bf16, 7 * 37 = 259 is a tie between 258 and 260; scaled by 2^100,
    /// an addend of -2^-100 is far below f64's resolution of the product, so rounding the f64
    /// sum to nearest would leave the tie and give 260 * 2^100, where the exact value rounds to
    /// 258 * 2^100.
    #[test]
    fn mul_add_rounds_once() {
        let h = |x: f64| round(x, F16);
        let tiny = 0x0001; // 2^-24
        assert_eq!(mul_add(h(3.0), h(683.0), 0, F16), h(2048.0));
        assert_eq!(mul_add(h(3.0), h(683.0), tiny, F16), h(2050.0));
        assert_eq!(mul_add(h(3.0), h(683.0), SIGN | tiny, F16), h(2048.0));
        assert_eq!(mul_add(h(-3.0), h(683.0), tiny, F16), h(-2048.0));

        let b = |x: f64| round(x, BF16);
        let scale = 2f64.powi(50);
        let (x, y) = (b(7.0 * scale), b(37.0 * scale));
        assert_eq!(mul_add(x, y, 0, BF16), b(260.0 * scale * scale));
        let minus_tiny = b(-(2f64.powi(-100)));
        assert_eq!(mul_add(x, y, minus_tiny, BF16), b(258.0 * scale * scale));
        assert_ne!(
            round(
                to_f64(x, BF16).mul_add(to_f64(y, BF16), to_f64(minus_tiny, BF16)),
                BF16
            ),
            b(258.0 * scale * scale),
            "the case needs rounding to odd"
        );
        // Signed zeros: (+0 * -1) + -0 = -0, (+0 * 1) + -0 = +0.
        assert_eq!(mul_add(0, h(-1.0), SIGN, F16), SIGN);
        assert_eq!(mul_add(0, h(1.0), SIGN, F16), 0);
    }
}
