//! The intervals of the range analysis ([`Range`]) and their arithmetic: the range of a result
//! from the ranges of its operands, and what a compare that holds says of an operand.

/// Bounds beyond which an interval is given up (well inside `i128`).
pub(crate) const HUGE: i128 = 1 << 100;

/// A set of integers `{v mod 2^bits : lo <= v <= hi}`: the interval holds representatives,
/// which may be negative (a value's signed reading) or not (its unsigned reading).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Range {
    pub(crate) lo: i128,
    pub(crate) hi: i128,
}

impl Range {
    pub(crate) fn new(lo: i128, hi: i128) -> Self {
        Range { lo, hi }
    }

    /// Every `bits`-bit value.
    pub(crate) fn full(bits: u32) -> Self {
        Range::new(0, (1i128 << bits) - 1)
    }

    pub(crate) fn union(self, other: Range) -> Self {
        Range::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    pub(crate) fn contains(self, other: Range) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    /// The same set as unsigned representatives in `[0, 2^bits)`, or every value when it
    /// wraps around there.
    pub(crate) fn unsigned(self, bits: u32) -> Self {
        let m = 1i128 << bits;
        if self.hi - self.lo >= m {
            return Range::full(bits);
        }
        let shift = self.lo.div_euclid(m) * m;
        let (lo, hi) = (self.lo - shift, self.hi - shift);
        if hi < m {
            Range::new(lo, hi)
        } else {
            Range::full(bits)
        }
    }

    /// The same set as signed representatives in `[-2^(bits-1), 2^(bits-1))`.
    pub(crate) fn signed(self, bits: u32) -> Self {
        let half = 1i128 << (bits - 1);
        let shifted = Range::new(self.lo + half, self.hi + half).unsigned(bits);
        Range::new(shifted.lo - half, shifted.hi - half)
    }

    /// Whether the 64-bit values are all in `[0, 2^32)` (their low halves, zero-extended).
    pub(crate) fn fits_unsigned32(self) -> bool {
        let u = self.unsigned(64);
        u.lo >= 0 && u.hi < 1i128 << 32
    }

    /// Whether the 64-bit values are all in `[-2^31, 2^31)` (their low halves, sign-extended).
    pub(crate) fn fits_signed32(self) -> bool {
        let s = self.signed(64);
        s.lo >= -(1i128 << 31) && s.hi < 1i128 << 31
    }

    /// Gives up on intervals too wide to mean anything.
    pub(crate) fn bounded(self, bits: u32) -> Self {
        if self.lo < -HUGE || self.hi > HUGE || self.hi - self.lo >= 1i128 << bits {
            Range::full(bits)
        } else {
            self
        }
    }
}

/// The width of an integer type name (`i64` -> 64).
pub(crate) fn bits_of(ty: &str) -> Option<u32> {
    ty.strip_prefix('i')?
        .parse()
        .ok()
        .filter(|&b| (1..=64).contains(&b))
}

/// The value of an integer literal operand.
pub(crate) fn constant(value: &str) -> Option<i128> {
    match value {
        "true" => Some(1),
        "false" => Some(0),
        _ => value.parse().ok(),
    }
}

impl Range {
    pub(crate) fn min_hi(self, hi: i128) -> Self {
        if self.hi > hi && self.lo <= hi {
            Range::new(self.lo, hi)
        } else {
            self
        }
    }
}

/// The predicate with its operands swapped (`a < b` is `b > a`).
pub(crate) fn swapped(pred: &'static str) -> &'static str {
    match pred {
        "ult" => "ugt",
        "ugt" => "ult",
        "ule" => "uge",
        "uge" => "ule",
        "slt" => "sgt",
        "sgt" => "slt",
        "sle" => "sge",
        "sge" => "sle",
        other => other,
    }
}

/// `r` narrowed by `r pred o`.
pub(crate) fn refine(r: Range, pred: &str, o: Range, bits: u32) -> Range {
    let signed = pred.starts_with('s');
    let (rv, ov) = if signed {
        (r.signed(bits), o.signed(bits))
    } else {
        (r.unsigned(bits), o.unsigned(bits))
    };
    let (lo, hi) = match pred {
        "ult" | "slt" => (rv.lo, rv.hi.min(ov.hi - 1)),
        "ule" | "sle" => (rv.lo, rv.hi.min(ov.hi)),
        "ugt" | "sgt" => (rv.lo.max(ov.lo + 1), rv.hi),
        "uge" | "sge" => (rv.lo.max(ov.lo), rv.hi),
        "ne" => {
            // Excludes a single value at an end of the unsigned reading.
            let (rv, ov) = (r.unsigned(bits), o.unsigned(bits));
            if ov.lo != ov.hi || rv.lo == rv.hi {
                return r;
            }
            match ov.lo {
                c if c == rv.lo => (rv.lo + 1, rv.hi),
                c if c == rv.hi => (rv.lo, rv.hi - 1),
                _ => return r,
            }
        }
        _ => return r,
    };
    if lo > hi {
        // Contradictory facts: the code is unreachable; keep what was known.
        return r;
    }
    let refined = Range::new(lo, hi);
    // Keep the narrower of the two readings.
    if refined.hi - refined.lo <= r.hi - r.lo {
        refined
    } else {
        r
    }
}

/// The range of a binary operation's result.
pub(crate) fn arithmetic(opcode: &str, disjoint: bool, x: Range, y: Range, bits: u32) -> Range {
    let full = Range::full(bits);
    let corners = |f: fn(i128, i128) -> i128| {
        let v = [f(x.lo, y.lo), f(x.lo, y.hi), f(x.hi, y.lo), f(x.hi, y.hi)];
        Range::new(
            v.into_iter().min().unwrap_or(0),
            v.into_iter().max().unwrap_or(0),
        )
    };
    let (xu, yu) = (x.unsigned(bits), y.unsigned(bits));
    let r = match opcode {
        "add" => Range::new(x.lo + y.lo, x.hi + y.hi),
        "sub" => Range::new(x.lo - y.hi, x.hi - y.lo),
        "mul" => {
            if x.lo.abs().max(x.hi.abs()) > HUGE >> 40 || y.lo.abs().max(y.hi.abs()) > HUGE >> 40 {
                return full;
            }
            corners(|a, b| a * b)
        }
        "shl" => match (y.lo == y.hi, u32::try_from(y.lo)) {
            (true, Ok(s)) if s < bits && s < 40 => Range::new(x.lo << s, x.hi << s),
            _ => return full,
        },
        "or" if disjoint => Range::new(x.lo + y.lo, x.hi + y.hi),
        "and" => Range::new(0, xu.hi.min(yu.hi)),
        // `x ^ -1` is `-1 - x`.
        "xor" if y.lo == -1 && y.hi == -1 => Range::new(-1 - x.hi, -1 - x.lo),
        "or" => {
            let top = xu.hi.max(yu.hi);
            let ones = if top == 0 {
                0
            } else {
                (1i128 << (128 - top.leading_zeros())) - 1
            };
            Range::new(xu.lo.max(yu.lo), ones)
        }
        "lshr" => match (yu.lo == yu.hi, u32::try_from(yu.lo)) {
            (true, Ok(s)) if s < bits => Range::new(xu.lo >> s, xu.hi >> s),
            _ => Range::new(0, xu.hi),
        },
        "udiv" if yu.lo > 0 => Range::new(xu.lo / yu.hi, xu.hi / yu.lo),
        "urem" if yu.hi > 0 => Range::new(0, xu.hi.min(yu.hi - 1)),
        _ => return full,
    };
    r.bounded(bits)
}

/// The range of a special-register read (`llvm.nvvm.read.ptx.sreg.*`) or of a `umin`/`umax`
/// of constants, when `inst` is one.
pub(crate) fn special_register(inst: &str) -> Option<Range> {
    let name = inst.split('@').nth(1)?.split('(').next()?;
    let register = name.strip_prefix("llvm.nvvm.read.ptx.sreg.")?;
    Some(match register {
        "tid.x" | "tid.y" => Range::new(0, 1023),
        "tid.z" => Range::new(0, 63),
        "ntid.x" | "ntid.y" => Range::new(1, 1024),
        "ntid.z" => Range::new(1, 64),
        "ctaid.x" => Range::new(0, (1 << 31) - 2),
        "ctaid.y" | "ctaid.z" => Range::new(0, 65534),
        "nctaid.x" => Range::new(1, (1 << 31) - 1),
        "nctaid.y" | "nctaid.z" => Range::new(1, 65535),
        "laneid" => Range::new(0, 31),
        "warpid" => Range::new(0, 1023),
        _ => return None,
    })
}
