//! The sets of values an op takes over a box of blocks: [`Interval`] (a range of `w`-bit values,
//! read unsigned or signed) and [`Over`] (an op's set, and whether it may be poison).

#[cfg(doc)]
use super::syntax::Op;

/// `2^w`, for a width `w` from 1 to 64.
pub(super) fn modulus(w: u32) -> i128 {
    1i128 << w
}

/// A set of `w`-bit values, for a width `w` the user of the set knows: the values `n mod 2^w`
/// of the integers `n` from `lo` to `hi`. Kept with `0 <= lo < 2^w` and `lo <= hi < lo + 2^w`;
/// every value is `0..=2^w - 1` ([`Interval::full`]).
///
/// Read unsigned, the set is `lo..=hi` when `hi < 2^w` (it does not wrap past `2^w - 1`), and
/// taken as every value otherwise; read signed, likewise around `2^(w - 1)`
/// ([`Interval::unsigned`], [`Interval::signed`]). So `-2..=5` at 32 bits is known for what it
/// is signed, and any value unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Interval {
    /// The least integer standing for a value of the set.
    pub(super) lo: i128,
    /// The greatest integer standing for a value of the set.
    pub(super) hi: i128,
}

impl Interval {
    /// The one value `value` (already reduced to its width).
    pub(super) fn point(value: u64) -> Interval {
        Interval {
            lo: i128::from(value),
            hi: i128::from(value),
        }
    }

    /// Every `w`-bit value.
    pub(super) fn full(w: u32) -> Interval {
        Interval {
            lo: 0,
            hi: modulus(w) - 1,
        }
    }

    /// The `w`-bit values of the integers from `lo` to `hi` (every value when they are 2^w or
    /// more, or `hi < lo`, which no caller asks).
    pub(super) fn of(lo: i128, hi: i128, w: u32) -> Interval {
        match hi.checked_sub(lo) {
            Some(span) if (0..modulus(w) - 1).contains(&span) => {
                let m = modulus(w);
                // Mostly already in `0..2^w` or just below it: no 128-bit division.
                let lo = if (0..m).contains(&lo) {
                    lo
                } else if (-m..0).contains(&lo) {
                    lo + m
                } else {
                    lo.rem_euclid(m)
                };
                Interval { lo, hi: lo + span }
            }
            _ => Interval::full(w),
        }
    }

    /// The set's one value, when it has one.
    pub(super) fn as_point(self) -> Option<u64> {
        (self.lo == self.hi).then_some(self.lo as u64)
    }

    /// The least and greatest value of the set read as `w`-bit unsigned integers.
    pub(super) fn unsigned(self, w: u32) -> (i128, i128) {
        if self.hi < modulus(w) {
            (self.lo, self.hi)
        } else {
            (0, modulus(w) - 1)
        }
    }

    /// The least and greatest value of the set read as `w`-bit signed integers.
    pub(super) fn signed(self, w: u32) -> (i128, i128) {
        let half = modulus(w) >> 1;
        let (lo, hi) = if self.lo >= half {
            (self.lo - modulus(w), self.hi - modulus(w))
        } else {
            (self.lo, self.hi)
        };
        if hi < half {
            (lo, hi)
        } else {
            (-half, half - 1)
        }
    }

    /// Whichever of the two sets, both containing what is sought, has fewer values.
    pub(super) fn narrower(self, other: Interval) -> Interval {
        if other.hi - other.lo < self.hi - self.lo {
            other
        } else {
            self
        }
    }

    /// A set of `w`-bit values containing both sets' values.
    pub(super) fn union(self, other: Interval, w: u32) -> Interval {
        let hull = |x: (i128, i128), y: (i128, i128)| Interval::of(x.0.min(y.0), x.1.max(y.1), w);
        hull(self.unsigned(w), other.unsigned(w)).narrower(hull(self.signed(w), other.signed(w)))
    }
}

/// An op's value over a box of blocks: what [`Op::evaluate_over`] finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Over {
    /// Its values in the blocks where it is not poison.
    pub(super) value: Interval,
    /// Whether it may be poison in some block of the box.
    pub(super) maybe_poison: bool,
}

impl Over {
    /// Never poison, of values `value`.
    pub(super) fn new(value: Interval) -> Over {
        Over {
            value,
            maybe_poison: false,
        }
    }

    /// Never poison, of the `w`-bit values of the integers from `lo` to `hi`.
    pub(super) fn range(lo: i128, hi: i128, w: u32) -> Over {
        Over::new(Interval::of(lo, hi, w))
    }

    /// The op with a flag's promise: the op's exact result (before wrapping) is in `lo..=hi`,
    /// and the op is poison where that lies outside `min..=max`. `None` when it lies outside
    /// everywhere; otherwise the values are also those from `lo.max(min)` to `hi.min(max)`.
    pub(super) fn promise(
        mut self,
        lo: i128,
        hi: i128,
        min: i128,
        max: i128,
        w: u32,
    ) -> Option<Over> {
        if hi < min || lo > max {
            return None;
        }
        self.maybe_poison |= lo < min || hi > max;
        self.value = self
            .value
            .narrower(Interval::of(lo.max(min), hi.min(max), w));
        Some(self)
    }
}
