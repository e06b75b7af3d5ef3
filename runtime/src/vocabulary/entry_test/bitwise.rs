//! The least and greatest result of `|`, `&` and `^` on two ranges of unsigned values (Hacker's
//! Delight, 4-3), for [`Op::evaluate_over`](super::syntax::Op::evaluate_over).

/// The highest power of two not above `bound` (0 for 0): where the searches of the bounds of
/// bitwise ops on ranges below `bound + 1` start.
fn top_bit(bound: u64) -> u64 {
    (1u64 << 63).checked_shr(bound.leading_zeros()).unwrap_or(0)
}

/// The least `x | y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
pub(super) fn min_or(mut a: u64, b: u64, mut c: u64, d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if !a & c & m != 0 {
            let t = (a | m) & m.wrapping_neg();
            if t <= b {
                a = t;
                break;
            }
        } else if a & !c & m != 0 {
            let t = (c | m) & m.wrapping_neg();
            if t <= d {
                c = t;
                break;
            }
        }
        m >>= 1;
    }
    a | c
}

/// The greatest `x | y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
pub(super) fn max_or(a: u64, mut b: u64, c: u64, mut d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if b & d & m != 0 {
            let t = (b - m) | (m - 1);
            if t >= a {
                b = t;
                break;
            }
            let t = (d - m) | (m - 1);
            if t >= c {
                d = t;
                break;
            }
        }
        m >>= 1;
    }
    b | d
}

/// The least `x & y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
pub(super) fn min_and(mut a: u64, b: u64, mut c: u64, d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if !a & !c & m != 0 {
            let t = (a | m) & m.wrapping_neg();
            if t <= b {
                a = t;
                break;
            }
            let t = (c | m) & m.wrapping_neg();
            if t <= d {
                c = t;
                break;
            }
        }
        m >>= 1;
    }
    a & c
}

/// The greatest `x & y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
pub(super) fn max_and(a: u64, mut b: u64, c: u64, mut d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if b & !d & m != 0 {
            let t = (b & !m) | (m - 1);
            if t >= a {
                b = t;
                break;
            }
        } else if !b & d & m != 0 {
            let t = (d & !m) | (m - 1);
            if t >= c {
                d = t;
                break;
            }
        }
        m >>= 1;
    }
    b & d
}

/// The least `x ^ y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
pub(super) fn min_xor(mut a: u64, b: u64, mut c: u64, d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if !a & c & m != 0 {
            let t = (a | m) & m.wrapping_neg();
            if t <= b {
                a = t;
            }
        } else if a & !c & m != 0 {
            let t = (c | m) & m.wrapping_neg();
            if t <= d {
                c = t;
            }
        }
        m >>= 1;
    }
    a ^ c
}

/// The greatest `x ^ y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
pub(super) fn max_xor(a: u64, mut b: u64, c: u64, mut d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if b & d & m != 0 {
            let t = (b - m) | (m - 1);
            if t >= a {
                b = t;
            } else {
                let t = (d - m) | (m - 1);
                if t >= c {
                    d = t;
                }
            }
        }
        m >>= 1;
    }
    b ^ d
}
