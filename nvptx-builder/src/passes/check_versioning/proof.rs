//! The proofs that a check passes whenever a product of values below 2^32 is at most its
//! length: an index read as a mixed-radix number whose digits the facts bound.

use crate::analysis::bounds::{bound_of, narrow_operand};
use crate::analysis::facts::{Fact, MAX_DEPTH};
use crate::ir::instructions::{remat_operands, strip_metadata, strip_words};
use std::collections::{HashMap, HashSet};

/// A check `idx < len` proved to pass whenever `product(factors) <= len`.
pub(super) struct Proof {
    /// The block whose terminator is the check's branch.
    pub(super) block: usize,
    /// Values below 2^32 whose product bounds the index (outermost first).
    pub(super) factors: Vec<String>,
    /// The index the check tests (as its failed side reports it).
    pub(super) index: String,
    /// The length operand of the check.
    pub(super) len: String,
    /// The check's compare, when the same proof holds throughout the block that computes it:
    /// the fast copy computes it as `true`, so that its other uses (the address `select`s of
    /// [`crate::passes::load_speculation`]) go too.
    pub(super) compare: Option<String>,
    /// For a check LLVM wrote as an equality that fails on its true side
    /// ([`super::equality_checks`]): `(x, y)`, the compared values; the fast copy branches
    /// `br i1 false` and assumes `x < y`. `None` for the `index < len` form.
    pub(super) equality: Option<(String, String)>,
}

/// The factors (values below 2^32, computable from the arguments, outermost first) whose
/// product bounds `idx`, when the facts prove one: the widths of [`radix`]'s digits.
pub(super) fn prove(
    idx: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
) -> Option<Vec<String>> {
    let digits = radix(idx, facts, defs, args, 0, true)?;
    Some(digits.into_iter().rev().map(|(_, width)| width).collect())
}

/// `value` as a mixed-radix number, innermost digit first: `(digit, width)` pairs with each
/// digit proved below its width, and `value = ((d_n w_{n-1} + ...) w_2 + d_2) w_1 + d_1`,
/// written as nested `add`s of a `mul` (either operand order), as a 2-D or 3-D row-major
/// index is. The outermost digit is any value a fact bounds; every width is below 2^32 and
/// computable from the arguments, so `value < w_1 ... w_n` once that product is known not
/// to wrap (the entry test). With `whole`, a fact bounding `value` itself ends the search (one
/// digit); without, `value` must split into at least two digits if it can.
fn radix(
    value: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
    depth: usize,
    whole: bool,
) -> Option<Vec<(String, String)>> {
    let usable = |b: &str| {
        bound_of(b, defs, 0).is_some_and(|m| m < 1u128 << 32) && remat(b, defs, args, 0).is_some()
    };
    let leaf = || {
        let b = upper_bounds(value, facts, defs)
            .into_iter()
            .find(|b| usable(b))?;
        Some(vec![(value.to_string(), b)])
    };
    if whole && let Some(digits) = leaf() {
        return Some(digits);
    }
    if depth > MAX_DEPTH {
        return if whole { None } else { leaf() };
    }
    let Some((x, y)) = operands(value, "add", defs) else {
        return if whole { None } else { leaf() };
    };
    for (product, column) in [(&x, &y), (&y, &x)] {
        let Some((p, q)) = operands(product, "mul", defs) else {
            continue;
        };
        for (row, width) in [(&p, &q), (&q, &p)] {
            if !usable(width) || !upper_bounds(column, facts, defs).contains(width) {
                continue;
            }
            if let Some(mut digits) = radix(row, facts, defs, args, depth + 1, true) {
                digits.insert(0, (column.clone(), width.clone()));
                return Some(digits);
            }
        }
    }
    if whole { None } else { leaf() }
}

/// The factors bounding `idx` when it is a neighbour of a [`radix`] index: `base ± p` where
/// `p` is the place value of digit `j` (1, `w_1`, `w_1 w_2`, ...) and the facts say that digit
/// is not its last value (`d_j != w_j - 1`, for `+`) or not 0 (for `-`). Then the neighbour
/// has the same digits but `d_j ± 1`, still below `w_j`: a 3-D stencil's `input[i + nx]` in
/// the interior, where `y != ny - 1`. Its bound is the base's.
pub(super) fn prove_step(
    idx: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
) -> Option<Vec<String>> {
    for (base, step, up) in steps_of(idx, defs) {
        let Some(digits) = radix(&base, facts, defs, args, 0, false) else {
            continue;
        };
        for j in 0..digits.len() {
            if !is_place_value(&step, &digits[..j], defs) {
                continue;
            }
            let (digit, width) = &digits[j];
            let room = if up {
                below_last(digit, width, facts, defs)
            } else {
                nonzero(digit, facts, defs)
            };
            if room {
                return Some(digits.into_iter().rev().map(|(_, width)| width).collect());
            }
        }
    }
    None
}

/// The readings `(base, step, up)` of `idx` as `base + step` (`up`) or `base - step`: an
/// `add` (either operand the base), a `sub`, or an `add` of the constant -1 (`base - 1`).
fn steps_of(idx: &str, defs: &HashMap<&str, &str>) -> Vec<(String, String, bool)> {
    if let Some((a, b)) = operands(idx, "add", defs) {
        if b == "-1" {
            return vec![(a, "1".to_string(), false)];
        }
        return vec![(a.clone(), b.clone(), true), (b, a, true)];
    }
    operands(idx, "sub", defs)
        .map(|(a, b)| (a, b, false))
        .into_iter()
        .collect()
}

/// Whether `step` is the place value of the digit after `inner`: 1 for the first digit, else
/// the product of `inner`'s widths (as a tree of `mul`s in any order).
fn is_place_value(step: &str, inner: &[(String, String)], defs: &HashMap<&str, &str>) -> bool {
    if inner.is_empty() {
        return step == "1";
    }
    let mut want: Vec<&str> = inner.iter().map(|(_, w)| source(w, defs)).collect();
    let mut have = Vec::new();
    let mut stack = vec![step.to_string()];
    while let Some(v) = stack.pop() {
        if have.len() > inner.len() {
            return false;
        }
        match operands(&v, "mul", defs) {
            Some((a, b)) => stack.extend([a, b]),
            None => have.push(source(&v, defs).to_string()),
        }
    }
    want.sort_unstable();
    have.sort_unstable();
    want == have
}

/// The 32-bit value a widened `value` came from, else `value`: a fact may compare either.
fn source<'a>(value: &'a str, defs: &HashMap<&str, &'a str>) -> &'a str {
    narrow_operand(value, defs).unwrap_or(value)
}

/// Whether the facts say `digit != width - 1` (or `digit < width - 1`).
fn below_last(digit: &str, width: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> bool {
    let is_digit = |v: &str| source(v, defs) == source(digit, defs);
    let is_last = |v: &str| {
        operands(v, "add", defs)
            .or_else(|| operands32(v, defs))
            .is_some_and(|(w, minus)| minus == "-1" && source(&w, defs) == source(width, defs))
    };
    facts.iter().any(|f| match f.pred {
        "ne" => (is_digit(&f.a) && is_last(&f.b)) || (is_last(&f.a) && is_digit(&f.b)),
        "ult" => is_digit(&f.a) && is_last(&f.b),
        "ugt" => is_last(&f.a) && is_digit(&f.b),
        _ => false,
    })
}

/// The operands of a 32-bit `add` (flags ignored).
fn operands32(value: &str, defs: &HashMap<&str, &str>) -> Option<(String, String)> {
    let rest = strip_words(defs.get(value)?, "add", &["nuw", "nsw"])?;
    let (a, b) = strip_metadata(rest.strip_prefix("i32 ")?).split_once(", ")?;
    Some((a.trim().to_string(), b.trim().to_string()))
}

/// Whether the facts say `digit != 0` (or `digit > 0`).
fn nonzero(digit: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> bool {
    let is_digit = |v: &str| source(v, defs) == source(digit, defs);
    facts.iter().any(|f| match f.pred {
        "ne" => (is_digit(&f.a) && f.b == "0") || (f.a == "0" && is_digit(&f.b)),
        "ugt" => is_digit(&f.a) && f.b == "0",
        "ult" => f.a == "0" && is_digit(&f.b),
        _ => false,
    })
}

/// The operands of `value` as a 64-bit `add` (or `or disjoint`) or `mul`, flags ignored (the
/// proofs bound the operands, so nothing wraps): the instruction itself, or the value of an
/// overflow-checked `llvm.uadd.with.overflow` / `llvm.umul.with.overflow` (builds with
/// overflow checks).
fn operands(value: &str, opcode: &str, defs: &HashMap<&str, &str>) -> Option<(String, String)> {
    let inst = defs.get(value)?;
    let pair = |list: &str| {
        let (a, b) = strip_metadata(list).split_once(", ")?;
        Some((a.trim().to_string(), b.trim().to_string()))
    };
    if let Some(rest) = strip_words(inst, opcode, &["nuw", "nsw"]) {
        return pair(rest.strip_prefix("i64 ")?);
    }
    if opcode == "add" && inst.starts_with("or disjoint i64 ") {
        return pair(&inst["or disjoint i64 ".len()..]);
    }
    let aggregate = strip_metadata(inst)
        .strip_prefix("extractvalue { i64, i1 } ")?
        .strip_suffix(", 0")?;
    let call = defs.get(aggregate)?;
    let intrinsic = format!("@llvm.u{opcode}.with.overflow.i64(");
    let args = &call[call.find(&intrinsic)? + intrinsic.len()..];
    let args = &args[..args.find(')')?];
    let (a, b) = pair(args)?;
    Some((
        a.strip_prefix("i64 ")?.to_string(),
        b.strip_prefix("i64 ")?.to_string(),
    ))
}

/// The values `b` the facts prove `value < b` (unsigned) for.
fn upper_bounds(value: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> Vec<String> {
    let mut bounds = Vec::new();
    for f in facts {
        let (lesser, greater, signed) = match f.pred {
            "ult" => (&f.a, &f.b, false),
            "ugt" => (&f.b, &f.a, false),
            "slt" => (&f.a, &f.b, true),
            "sgt" => (&f.b, &f.a, true),
            _ => continue,
        };
        if lesser != value {
            continue;
        }
        // `value <s b` with both non-negative is `value <u b`.
        if signed && !(non_negative(value, facts, defs, 0) && non_negative(greater, facts, defs, 0))
        {
            continue;
        }
        bounds.push(greater.clone());
    }
    // `zext x < zext y` when `x < y` as `i32` values (unsigned).
    if let Some(narrow) = narrow_operand(value, defs) {
        for f in facts {
            let (lesser, greater) = match f.pred {
                "ult" => (&f.a, &f.b),
                "ugt" => (&f.b, &f.a),
                _ => continue,
            };
            if lesser == narrow {
                bounds.extend(
                    defs.keys()
                        .filter(|d| narrow_operand(d, defs) == Some(greater.as_str()))
                        .map(|d| d.to_string()),
                );
            }
        }
    }
    bounds
}

/// Whether `value` is known to be at least 0 as a signed 64-bit integer.
fn non_negative(value: &str, facts: &[Fact], defs: &HashMap<&str, &str>, depth: usize) -> bool {
    if let Ok(c) = value.parse::<i128>() {
        return (0..1i128 << 63).contains(&c);
    }
    if bound_of(value, defs, 0).is_some_and(|m| m < 1u128 << 63) {
        return true;
    }
    if depth > MAX_DEPTH {
        return false;
    }
    let stated = facts.iter().any(|f| {
        f.a == value
            && ((f.pred == "sgt" && f.b.parse::<i128>().is_ok_and(|c| c >= -1))
                || (f.pred == "sge" && f.b.parse::<i128>().is_ok_and(|c| c >= 0)))
    });
    if stated {
        return true;
    }
    // `value = x + (-c)` with `x >= c` and `x` non-negative: `value` is in `[0, 2^63 - c)`.
    let Some(inst) = defs.get(value) else {
        return false;
    };
    let Some(rest) = strip_words(inst, "add", &["nuw", "nsw"]) else {
        return false;
    };
    let Some((x, c)) = strip_metadata(rest.strip_prefix("i64 ").unwrap_or("")).split_once(", ")
    else {
        return false;
    };
    let (x, Ok(c)) = (x.trim(), c.trim().parse::<i128>()) else {
        return false;
    };
    if c >= 0 {
        // `x + c` with both non-negative stays non-negative only without signed wrap.
        let no_signed_wrap = inst.starts_with("add nuw nsw ") || inst.starts_with("add nsw ");
        return no_signed_wrap && non_negative(x, facts, defs, depth + 1);
    }
    facts.iter().any(|f| {
        let Ok(k) = f.b.parse::<i128>() else {
            return false;
        };
        // `x >u k` means `x >= k + 1`; `samesign` with `k >= 0` says `x` is non-negative.
        let at_least = match f.pred {
            "ugt" => k + 1,
            "uge" => k,
            _ => return false,
        };
        f.a == x
            && k >= 0
            && at_least >= -c
            && (f.samesign || non_negative(x, facts, defs, depth + 1))
    })
}

/// The instructions (in order, as `(name, instruction)`) that compute `value` from the
/// function's arguments and constants alone, or `None` when it depends on anything else.
pub(super) fn remat<'a>(
    value: &str,
    defs: &HashMap<&'a str, &'a str>,
    args: &HashSet<String>,
    depth: usize,
) -> Option<Vec<(&'a str, &'a str)>> {
    if !value.starts_with('%') || args.contains(value) {
        return Some(Vec::new());
    }
    if depth > MAX_DEPTH {
        return None;
    }
    let (&name, &inst) = defs.get_key_value(value)?;
    let operands = remat_operands(inst)?;
    let mut out = Vec::new();
    for operand in operands {
        for def in remat(operand, defs, args, depth + 1)? {
            if !out.contains(&def) {
                out.push(def);
            }
        }
    }
    out.push((name, inst));
    Some(out)
}
