//! Bounds checks LLVM rewrote into an equality: `v[j]` in `for j in 0..n` becomes "panic when
//! the counter reaches the length".
//!
//! LLVM's induction-variable simplification turns the check `j < len` of a counter `j` that
//! starts at 0 and steps by 1 into the exit test it is equivalent to for such a counter:
//! `br i1 (icmp eq i64 %j, %len), label %panic, label %ok`, or, for the counter `j + 1` it
//! already has, `icmp eq i64 %j.next, (add nuw i64 %len, 1)`. The check fails on its true
//! side, which [`super::checks::check_branch`] (the `idx < len` form, failing on its
//! false side) does not read.
//!
//! [`prove`] decides such a check from the facts at it ([`crate::analysis::facts::facts_at`],
//! whose loop bounds come from [`crate::analysis::induction`]): with `x` the compared counter and `y`
//! the other side,
//!
//! - `y = len + 1` (an `add` that cannot wrap) and a fact says `x <= b`;
//! - or `y = len` and a fact says `x < b`;
//!
//! then `b <= len`, a test of the launch's arguments when `b` and `len` are, means `x <= len <
//! len + 1` (resp. `x < b <= len`): `x != y`, and the panic side is never taken. The copy of the
//! kernel that runs when the test holds branches `br i1 false` there and assumes `x < y`.

use crate::analysis::bounds::{bound_of, narrow_operand};
use crate::analysis::facts::Fact;
use crate::ir::instructions::{strip_metadata, strip_words};
use std::collections::HashMap;

/// An equality check decided by a bound: the test `bound <= len` makes `x != y` (and `x < y`).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Decided {
    /// The compared counter.
    pub(super) x: String,
    /// The value the counter is compared with (`len` or `len + 1`).
    pub(super) y: String,
    /// The slice length the test compares the bound with.
    pub(super) len: String,
    /// The bound of `x` the facts give.
    pub(super) bound: String,
}

/// `(condition, failed target)` of `br i1 %c, label %fail, label %ok` where `%c` is an `i64`
/// `icmp eq`: the form [`prove`] reads (the caller checks that `fail` panics).
pub(super) fn equality_branch<'a>(
    terminator: &'a str,
    defs: &HashMap<&str, &str>,
) -> Option<(&'a str, &'a str)> {
    let rest = strip_metadata(terminator.strip_prefix("br i1 ")?);
    let mut parts = rest.split(", ");
    let condition = parts.next()?.trim();
    let fail = parts.next()?.trim().strip_prefix("label %")?;
    parts.next()?.trim().strip_prefix("label %")?;
    let inst = defs.get(condition)?;
    strip_words(inst, "icmp", &["samesign"])?.strip_prefix("eq i64 ")?;
    Some((condition, fail))
}

/// The decision of the check whose condition is `condition` (an `icmp eq i64`), when the
/// facts give the counter a bound `usable` accepts (below 2^32, computable from the
/// arguments) and the length is usable too.
pub(super) fn prove(
    condition: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    usable: &dyn Fn(&str) -> bool,
) -> Option<Decided> {
    let inst = defs.get(condition)?;
    let rest = strip_words(inst, "icmp", &["samesign"])?.strip_prefix("eq i64 ")?;
    let (a, b) = strip_metadata(rest).split_once(", ")?;
    let (a, b) = (a.trim(), b.trim());
    for (x, y) in [(a, b), (b, a)] {
        // `y = len + 1`: `x <= bound <= len` suffices.
        if let Some(len) = plus_one(y, defs).filter(|len| usable(len))
            && let Some(bound) = bounds(x, facts, defs, false)
                .into_iter()
                .find(|b| usable(b))
        {
            return Some(Decided {
                x: x.to_string(),
                y: y.to_string(),
                len,
                bound,
            });
        }
        // `y = len`: `x < bound <= len` suffices.
        if usable(y)
            && let Some(bound) = bounds(x, facts, defs, true).into_iter().find(|b| usable(b))
        {
            return Some(Decided {
                x: x.to_string(),
                y: y.to_string(),
                len: y.to_string(),
                bound,
            });
        }
    }
    None
}

/// `len` when `value` is `add len, 1` and the add cannot wrap (`nuw`, or `len` below 2^63).
fn plus_one(value: &str, defs: &HashMap<&str, &str>) -> Option<String> {
    let inst = defs.get(value)?;
    let rest = strip_words(inst, "add", &["nuw", "nsw"])?;
    let (x, c) = strip_metadata(rest.strip_prefix("i64 ")?).split_once(", ")?;
    let (len, one) = (x.trim(), c.trim());
    let no_wrap =
        inst.starts_with("add nuw ") || bound_of(len, defs, 0).is_some_and(|m| m < 1 << 63);
    (one == "1" && no_wrap && len.starts_with('%')).then(|| len.to_string())
}

/// The values `b` the facts say `value < b` (`strict`) or `value <= b` for, unsigned; a value
/// and its `zext` count as one.
fn bounds(value: &str, facts: &[Fact], defs: &HashMap<&str, &str>, strict: bool) -> Vec<String> {
    let same = |a: &str| a == value || narrow_operand(value, defs).is_some_and(|n| n == a);
    let mut found = Vec::new();
    for f in facts {
        let (lesser, greater, f_strict) = match f.pred {
            "ult" => (&f.a, &f.b, true),
            "ugt" => (&f.b, &f.a, true),
            "ule" => (&f.a, &f.b, false),
            "uge" => (&f.b, &f.a, false),
            _ => continue,
        };
        if (f_strict || !strict) && same(lesser) {
            // A bound stated on the 32-bit value stands for its widened copies too.
            found.push(greater.clone());
            found.extend(
                defs.keys()
                    .filter(|d| narrow_operand(d, defs) == Some(greater.as_str()))
                    .map(|d| d.to_string()),
            );
        }
    }
    found
}
