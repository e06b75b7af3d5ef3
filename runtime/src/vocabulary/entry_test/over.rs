//! Evaluating an op over a box of blocks ([`Op::evaluate_over`]): from its operands' sets of
//! values, a set containing its value in every block where it is not poison, and whether it may
//! be poison; with the bounds of products ([`multiply`]).

use super::bitwise::{max_and, max_or, max_xor, min_and, min_or, min_xor};
use super::interval::{Interval, Over, modulus};
use super::syntax::{
    FLAG_DISJOINT, FLAG_EXACT, FLAG_NNEG, FLAG_NSW, FLAG_NUW, FLAG_SAMESIGN, Op, Opcode, Predicate,
};

impl Op {
    /// The op over a box of blocks, given each operand's set of values over the box (see
    /// [`Interval`]; a point for an operand it does not have): the set of its values where it
    /// is not poison, and whether it may be poison; `None` when it is poison in every block of
    /// the box where its operands are not.
    #[inline]
    pub(super) fn evaluate_over(&self, operands: [Interval; 3]) -> Option<Over> {
        if let [Some(a), Some(b), Some(c)] = operands.map(Interval::as_point) {
            return self
                .apply(a, b, c)
                .map(|value| Over::new(Interval::point(value)));
        }
        let [a, b, c] = operands;
        let (w, from) = (self.width, self.source_width);
        let flag = |f: u8| self.flags & f != 0;
        let (nuw, nsw) = (flag(FLAG_NUW), flag(FLAG_NSW));
        // The limits of the result read unsigned and signed.
        let (max_u, min_s, max_s) = (modulus(w) - 1, -(modulus(w) >> 1), (modulus(w) >> 1) - 1);
        // The operands read unsigned and signed (casts read theirs at `from`).
        let (ua, ub) = (a.unsigned(w), b.unsigned(w));
        let (sa, sb) = (a.signed(w), b.signed(w));
        match self.opcode {
            Opcode::Zext => {
                let (lo, hi) = a.unsigned(from);
                let over = Over::new(Interval::of(lo, hi, w));
                if flag(FLAG_NNEG) {
                    over.promise(lo, hi, 0, (modulus(from) >> 1) - 1, w)
                } else {
                    Some(over)
                }
            }
            Opcode::Sext => {
                let (lo, hi) = a.signed(from);
                Some(Over::new(Interval::of(lo, hi, w)))
            }
            Opcode::Trunc => {
                // The low bits of any integer that stands for the operand.
                let mut over = Over::new(Interval::of(a.lo, a.hi, w));
                if nuw {
                    let (lo, hi) = a.unsigned(from);
                    over = over.promise(lo, hi, 0, max_u, w)?;
                }
                if nsw {
                    let (lo, hi) = a.signed(from);
                    over = over.promise(lo, hi, min_s, max_s, w)?;
                }
                Some(over)
            }
            Opcode::Add | Opcode::Sub => {
                let add = self.opcode == Opcode::Add;
                // The exact sum or difference of two ranges.
                let combine = |x: (i128, i128), y: (i128, i128)| {
                    if add {
                        (x.0 + y.0, x.1 + y.1)
                    } else {
                        (x.0 - y.1, x.1 - y.0)
                    }
                };
                // Wrapping, the integers standing for the operands give the result's.
                let (lo, hi) = combine((a.lo, a.hi), (b.lo, b.hi));
                let mut over = Over::new(Interval::of(lo, hi, w));
                if nuw {
                    let (lo, hi) = combine(ua, ub);
                    over = over.promise(lo, hi, 0, max_u, w)?;
                }
                if nsw {
                    let (lo, hi) = combine(sa, sb);
                    over = over.promise(lo, hi, min_s, max_s, w)?;
                }
                Some(over)
            }
            Opcode::Mul => multiply(a, [ub, sb], nuw, nsw, w),
            Opcode::Shl | Opcode::Lshr => {
                let (lo, hi) = ub;
                let bits = i128::from(w);
                if lo >= bits {
                    // Shifted by the width or more everywhere.
                    return None;
                }
                let top = hi.min(bits - 1);
                let mut over = if self.opcode == Opcode::Shl {
                    // A multiplication by 2^lo to 2^top.
                    let factor = (1i128 << lo, 1i128 << top);
                    multiply(a, [factor, factor], nuw, nsw, w)?
                } else {
                    let (alo, ahi) = ua;
                    let mut over = Over::new(Interval::of(alo >> top, ahi >> lo, w));
                    if flag(FLAG_EXACT) && top > 0 && ahi > 0 {
                        // A 1 bit shifted out of every operand: none is a multiple of 2^lo,
                        // nor so of any larger power of two.
                        let unit = 1i128 << lo;
                        if lo > 0 && (alo + unit - 1) / unit * unit > ahi {
                            return None;
                        }
                        over.maybe_poison = true;
                    }
                    over
                };
                over.maybe_poison |= hi > top;
                Some(over)
            }
            Opcode::And | Opcode::Or | Opcode::Xor => {
                // Unsigned readings lie in `0..2^w`, so in a `u64`.
                let (a0, a1, b0, b1) = (ua.0 as u64, ua.1 as u64, ub.0 as u64, ub.1 as u64);
                let (lo, hi) = match self.opcode {
                    Opcode::And => (min_and(a0, a1, b0, b1), max_and(a0, a1, b0, b1)),
                    Opcode::Or => (min_or(a0, a1, b0, b1), max_or(a0, a1, b0, b1)),
                    _ => (min_xor(a0, a1, b0, b1), max_xor(a0, a1, b0, b1)),
                };
                let mut over = Over::new(Interval::of(i128::from(lo), i128::from(hi), w));
                if flag(FLAG_DISJOINT) {
                    if min_and(a0, a1, b0, b1) != 0 {
                        return None;
                    }
                    over.maybe_poison = max_and(a0, a1, b0, b1) != 0;
                }
                Some(over)
            }
            Opcode::Umin => Some(Over::range(ua.0.min(ub.0), ua.1.min(ub.1), w)),
            Opcode::Umax => Some(Over::range(ua.0.max(ub.0), ua.1.max(ub.1), w)),
            Opcode::Smin => Some(Over::range(sa.0.min(sb.0), sa.1.min(sb.1), w)),
            Opcode::Smax => Some(Over::range(sa.0.max(sb.0), sa.1.max(sb.1), w)),
            Opcode::Select => Some(Over::new(match a.as_point() {
                Some(1) => b,
                Some(_) => c,
                None => b.union(c, w),
            })),
            Opcode::Icmp(predicate) => {
                // `Some(true)` when `x < y` for every `x` and `y` of the ranges, `Some(false)`
                // when for none; `or_equal`: `x <= y`.
                let less = |x: (i128, i128), y: (i128, i128), or_equal: bool| {
                    if x.1 < y.0 || (or_equal && x.1 == y.0) {
                        Some(true)
                    } else if x.0 > y.1 || (!or_equal && x.0 == y.1) {
                        Some(false)
                    } else {
                        None
                    }
                };
                let disjoint = |x: (i128, i128), y: (i128, i128)| x.1 < y.0 || y.1 < x.0;
                let answer = match predicate {
                    Predicate::Eq | Predicate::Ne => {
                        // Operands that are points and equal were decided exactly above.
                        let differ = disjoint(ua, ub) || disjoint(sa, sb);
                        differ.then_some(predicate == Predicate::Ne)
                    }
                    Predicate::Ult => less(ua, ub, false),
                    Predicate::Ule => less(ua, ub, true),
                    Predicate::Ugt => less(ub, ua, false),
                    Predicate::Uge => less(ub, ua, true),
                    Predicate::Slt => less(sa, sb, false),
                    Predicate::Sle => less(sa, sb, true),
                    Predicate::Sgt => less(sb, sa, false),
                    Predicate::Sge => less(sb, sa, true),
                };
                let mut over = Over::new(match answer {
                    Some(answer) => Interval::point(u64::from(answer)),
                    None => Interval::full(1),
                });
                if flag(FLAG_SAMESIGN) {
                    // Whether every value is negative (`Some(true)`) or none is.
                    let negative = |x: (i128, i128)| {
                        if x.1 < 0 {
                            Some(true)
                        } else if x.0 >= 0 {
                            Some(false)
                        } else {
                            None
                        }
                    };
                    match (negative(sa), negative(sb)) {
                        (Some(x), Some(y)) if x != y => return None,
                        (Some(_), Some(_)) => {}
                        _ => over.maybe_poison = true,
                    }
                }
                Some(over)
            }
        }
    }
}

/// The least and greatest product of an integer of `x` and one of `y` (each a range); `None`
/// when one overflows 128 bits.
fn products(x: (i128, i128), y: (i128, i128)) -> Option<(i128, i128)> {
    let corners = [
        product(x.0, y.0)?,
        product(x.0, y.1)?,
        product(x.1, y.0)?,
        product(x.1, y.1)?,
    ];
    Some((corners.into_iter().min()?, corners.into_iter().max()?))
}

/// `x * y`, `None` when it overflows 128 bits.
fn product(x: i128, y: i128) -> Option<i128> {
    let fits = |v: i128| i64::try_from(v).is_ok();
    if fits(x) && fits(y) {
        // At most 2^126 in magnitude: a plain multiplication.
        Some(x * y)
    } else {
        x.checked_mul(y)
    }
}

/// `a * b` over a box for `w`-bit sets: `b` as its unsigned and its signed range (for `shl`,
/// both the range of powers of two it multiplies by), with the flags `nuw` and `nsw`.
fn multiply(a: Interval, b: [(i128, i128); 2], nuw: bool, nsw: bool, w: u32) -> Option<Over> {
    let readings = [a.unsigned(w), a.signed(w)];
    // Wrapping, any reading of the operands gives the result's low bits: the narrowest (each
    // distinct pair of readings once).
    let mut value = Interval::full(w);
    for (i, &x) in readings.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            if (i == 1 && x == readings[0]) || (j == 1 && y == b[0]) {
                continue;
            }
            if let Some((lo, hi)) = products(x, y) {
                value = value.narrower(Interval::of(lo, hi, w));
            }
        }
    }
    let mut over = Over::new(value);
    if nuw {
        let (x, y) = (readings[0], b[0]);
        // Past 128 bits the least product is past every `w`-bit value: poison everywhere.
        let lo = product(x.0, y.0)?;
        let hi = product(x.1, y.1).unwrap_or(i128::MAX);
        over = over.promise(lo, hi, 0, modulus(w) - 1, w)?;
    }
    if nsw {
        let half = modulus(w) >> 1;
        match products(readings[1], b[1]) {
            Some((lo, hi)) => over = over.promise(lo, hi, -half, half - 1, w)?,
            None => over.maybe_poison = true,
        }
    }
    Some(over)
}
