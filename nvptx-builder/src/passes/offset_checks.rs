//! Link-time rewrite of the bounds check of an offset index (`v[i + c]`, `v[i - c]`) that a
//! passed check of its base (`v[i]`, same length) dominates, into one compare of 32-bit values.
//!
//! A kernel's slice lengths fit in 32 bits (the entry masks them, see the README's "Slice
//! lengths are known to fit in 32 bits"), but its `usize` indices are 64-bit values: a 3-D
//! stencil's `input[i - nx]` is a 64-bit subtraction and a 64-bit compare (four SASS
//! instructions on the hot path) although `input[i]` was checked just before. Once `i < len` has
//! passed, with `len < 2^32` and `c` bounded, each later check of `i ± c` against the same
//! `len` is decided by one compare on values already at hand:
//!
//! - `i + c < len` exactly when `c < len - i`: `i + c` cannot wrap (`i < 2^32 - 1` and `c` at
//!   most `2^64 - 2^33`), and `len - i` is at least 1 and below 2^32;
//! - `i - c < len` exactly when `c <= i`: if `c <= i` the difference is at most `i < len`; if
//!   `c > i` it wraps to `2^64 - (c - i)`, at least `2^64 - c >= 2^32 > len` when `c` is at most
//!   `2^64 - 2^32`.
//!
//! When `c` is below 2^32 (a constant, a `zext` of an `i32`, a value masked to 32 bits) both
//! compares are 32-bit; a larger bounded `c` (a `mul nuw` of two such values: a plane
//! `nx * ny`) keeps a 64-bit compare but loses the 64-bit add or subtraction. The compare is
//! replaced where it is defined, so every use sees the same truth value; the index itself stays
//! for the address and the panic report (`llc` sinks it into the cold block when only the report
//! uses it), so a failed check reports the same index, length, file and line.
//!
//! The dominating check is found by walking up from the offset check's block through blocks
//! with a single predecessor (entered by a conditional or an unconditional branch), at most
//! [`MAX_WALK`] blocks, until a block entered from the passed side of the base's check: the
//! shape of a run of checks (bounds or overflow checks), each side entered only from its check.

use crate::analysis::bounds::{bound_of, narrow_operand};
use crate::ir::blocks::{Block, split_blocks, terminator};
use crate::ir::instructions::{
    definition, definitions, strip_metadata, strip_words, trailing_metadata, unsigned_less_than,
};
use std::collections::HashMap;

/// How many single-predecessor blocks the walk to a dominating base check crosses at most.
const MAX_WALK: usize = 32;

/// The largest offset (inclusive) for which both equivalences hold: `2^64 - 2^32`.
const MAX_OFFSET: u128 = (1u128 << 64) - (1u128 << 32);

/// The module text with the offset checks rewritten, or `None` when nothing changed.
pub(crate) fn apply(ir: &str) -> Option<String> {
    let mut counter = 0usize;
    crate::ir::syntax::rewrite_bodies(ir, |_, body| rewrite_function(body, &mut counter))
}

/// The function body with its offset checks rewritten, or `None` when it has none.
fn rewrite_function(body: &[&str], counter: &mut usize) -> Option<String> {
    let blocks = split_blocks(body);
    if !crate::ir::cfg::is_modelled(&blocks, body) {
        return None;
    }
    let defs = definitions(body);
    let block_of_line = |index: usize| blocks.iter().position(|b| b.lines.contains(&index));
    let mut replacements: HashMap<usize, String> = HashMap::new();
    for (index, line) in body.iter().enumerate() {
        let Some((name, inst)) = definition(line) else {
            continue;
        };
        let Some((index_value, len)) = unsigned_less_than(inst) else {
            continue;
        };
        if !is_below_2_32(len, &defs) {
            continue;
        }
        let Some(offset) = offset_of(index_value, &defs) else {
            continue;
        };
        let Some(block) = block_of_line(index) else {
            continue;
        };
        if !dominated_by_base_check(&blocks, body, &defs, block, offset.base, len) {
            continue;
        }
        *counter += 1;
        let tag = format!("%ferrocuda.offset{counter}");
        let metadata = trailing_metadata(line);
        replacements.insert(
            index,
            replacement(name, &offset, len, &defs, &tag, metadata),
        );
    }
    if replacements.is_empty() {
        return None;
    }
    let mut out = String::new();
    for (index, line) in body.iter().enumerate() {
        match replacements.get(&index) {
            Some(text) => out.push_str(text),
            None => out.push_str(line),
        }
    }
    Some(out)
}

/// An index `base + offset` or `base - offset`, with the largest value `offset` can take.
struct Offset<'a> {
    base: &'a str,
    /// The offset as an operand (a value name or a decimal constant, always non-negative).
    amount: String,
    /// Whether the index is `base - amount`.
    subtracted: bool,
    /// The largest value of `amount`.
    bound: u128,
}

/// The replacement lines for the check `name = icmp ult i64 (base ± offset), len`.
fn replacement(
    name: &str,
    offset: &Offset<'_>,
    len: &str,
    defs: &HashMap<&str, &str>,
    tag: &str,
    metadata: &str,
) -> String {
    let base = offset.base;
    let amount = &offset.amount;
    if offset.bound >= 1u128 << 32 {
        // A 64-bit offset: a 64-bit compare, without the add or subtraction.
        return if offset.subtracted {
            format!("  {name} = icmp ule i64 {amount}, {base}{metadata}\n")
        } else {
            format!(
                "  {tag}.base = trunc i64 {base} to i32\n  {tag}.len = trunc i64 {len} to i32\n  \
                 {tag}.room = sub nuw i32 {tag}.len, {tag}.base\n  \
                 {tag}.room64 = zext i32 {tag}.room to i64\n  \
                 {name} = icmp ult i64 {amount}, {tag}.room64{metadata}\n"
            )
        };
    }
    let mut text = format!("  {tag}.base = trunc i64 {base} to i32\n");
    let amount32 = if !amount.starts_with('%') {
        amount.clone()
    } else if let Some(narrow) = narrow_operand(amount, defs) {
        narrow.to_string()
    } else {
        text.push_str(&format!("  {tag}.amount = trunc i64 {amount} to i32\n"));
        format!("{tag}.amount")
    };
    if offset.subtracted {
        text.push_str(&format!(
            "  {name} = icmp ule i32 {amount32}, {tag}.base{metadata}\n"
        ));
    } else {
        text.push_str(&format!(
            "  {tag}.len = trunc i64 {len} to i32\n  \
             {tag}.room = sub nuw i32 {tag}.len, {tag}.base\n  \
             {name} = icmp ult i32 {amount32}, {tag}.room{metadata}\n"
        ));
    }
    text
}

/// The index `value` as `base ± offset` with a bounded offset.
fn offset_of<'a>(value: &str, defs: &HashMap<&'a str, &'a str>) -> Option<Offset<'a>> {
    let inst = defs.get(value)?;
    let (subtracted, rest) = match strip_words(inst, "add", &["nuw", "nsw"]) {
        Some(rest) => (false, rest),
        None => (true, strip_words(inst, "sub", &["nuw", "nsw"])?),
    };
    let rest = strip_metadata(rest.strip_prefix("i64 ")?);
    let (a, b) = rest.split_once(", ")?;
    let (a, b) = (a.trim(), b.trim());
    // `add base, offset`, `add offset, base` (not a constant base), `sub base, offset`.
    let candidates: &[(&'a str, &'a str)] = if subtracted {
        &[(a, b)]
    } else {
        &[(a, b), (b, a)]
    };
    for &(base, amount) in candidates {
        if !base.starts_with('%') {
            continue;
        }
        if let Ok(constant) = amount.parse::<i128>() {
            // `add base, -k` is `base - k`.
            let (sub, magnitude) = match (subtracted, constant < 0) {
                (false, false) => (false, constant),
                (false, true) => (true, -constant),
                (true, false) => (true, constant),
                (true, true) => (false, -constant),
            };
            if magnitude >= 1i128 << 32 {
                return None;
            }
            return Some(Offset {
                base,
                amount: magnitude.to_string(),
                subtracted: sub,
                bound: magnitude as u128,
            });
        }
        if let Some(bound) = bound_of(amount, defs, 0).filter(|&b| b <= MAX_OFFSET) {
            return Some(Offset {
                base,
                amount: amount.to_string(),
                subtracted,
                bound,
            });
        }
    }
    None
}

/// Whether the length operand is known to be below 2^32.
fn is_below_2_32(len: &str, defs: &HashMap<&str, &str>) -> bool {
    bound_of(len, defs, 0).is_some_and(|b| b < 1u128 << 32)
}

/// Whether a passed check `base < len` dominates block `start` through single-predecessor blocks.
fn dominated_by_base_check(
    blocks: &[Block],
    body: &[&str],
    defs: &HashMap<&str, &str>,
    start: usize,
    base: &str,
    len: &str,
) -> bool {
    let mut current = start;
    for _ in 0..MAX_WALK {
        let Some(label) = blocks[current].label.as_deref() else {
            return false;
        };
        let Some(pred) = single_predecessor(blocks, body, label) else {
            return false;
        };
        let terminator = terminator(&blocks[pred], body);
        if let Some((condition, passed)) = conditional_branch(terminator) {
            let base_check = defs
                .get(condition)
                .and_then(|inst| unsigned_less_than(inst))
                .is_some_and(|(i, l)| i == base && l == len);
            if base_check && passed == label {
                return true;
            }
            // Another branch (an overflow check, the base check's failed side): the block is
            // still entered only through `pred`, so a check dominating `pred` dominates it.
        } else if !terminator.starts_with("br label %") {
            return false;
        }
        current = pred;
    }
    false
}

/// The block whose terminator is the only reference to `label`, when there is exactly one.
pub(crate) fn single_predecessor(blocks: &[Block], body: &[&str], label: &str) -> Option<usize> {
    let target = format!("label %{label}");
    let mut found = None;
    for (index, block) in blocks.iter().enumerate() {
        for line in &body[block.lines.clone()] {
            let count = line
                .match_indices(&target)
                .filter(|(at, _)| {
                    let next = line.as_bytes().get(at + target.len());
                    !next.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_'))
                })
                .count();
            if count > 0 {
                if found.is_some() || count > 1 {
                    return None;
                }
                found = Some(index);
            }
        }
    }
    found
}

/// `(condition, passed target)` of `br i1 %c, label %ok, label %fail`.
fn conditional_branch(terminator: &str) -> Option<(&str, &str)> {
    let rest = terminator.strip_prefix("br i1 ")?;
    let mut parts = rest.split(", ");
    let condition = parts.next()?.trim();
    let passed = parts.next()?.trim().strip_prefix("label %")?;
    parts.next()?.trim().strip_prefix("label %")?;
    Some((condition, passed))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel's checks as `opt` leaves them: `v[i]`, then `v[i - 1]`, `v[i + 1]`, `v[i - n]`,
    /// `v[i + n]`, `v[i - n * m]`, `v[i + n * m]`, each passed side entered only from its check.
    const STENCIL: &str = "\
define void @k(ptr %v, i64 %len.raw, i64 %i, i32 %n, i32 %m) {
  %len = and i64 %len.raw, 4294967295
  %n64 = zext i32 %n to i64
  %m64 = zext i32 %m to i64
  %plane = mul nuw i64 %n64, %m64
  %c0 = icmp ult i64 %i, %len
  br i1 %c0, label %b1, label %fail

b1:                                               ; preds = %0
  %j1 = add nsw i64 %i, -1
  %c1 = icmp ult i64 %j1, %len, !dbg !7
  br i1 %c1, label %b2, label %fail

b2:                                               ; preds = %b1
  %j2 = add nuw nsw i64 %i, 1
  %c2 = icmp samesign ult i64 %j2, %len
  br i1 %c2, label %b3, label %fail

b3:                                               ; preds = %b2
  %j3 = sub nsw i64 %i, %n64
  %c3 = icmp ult i64 %j3, %len
  br i1 %c3, label %b4, label %fail

b4:                                               ; preds = %b3
  %j4 = add nuw nsw i64 %i, %n64
  %c4 = icmp ult i64 %j4, %len
  br i1 %c4, label %b5, label %fail

b5:                                               ; preds = %b4
  %j5 = sub i64 %i, %plane
  %c5 = icmp ult i64 %j5, %len
  br i1 %c5, label %b6, label %fail

b6:                                               ; preds = %b5
  %j6 = add nuw i64 %i, %plane
  %c6 = icmp ult i64 %j6, %len
  br i1 %c6, label %ok, label %fail

ok:                                               ; preds = %b6
  ret void

fail:
  call void @panic(i64 %len)
  unreachable
}
";

    fn check_line<'a>(out: &'a str, name: &str) -> &'a str {
        out.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} = ")))
            .expect("the check is still defined")
            .trim()
    }

    #[test]
    fn narrows_every_offset_check_after_the_base_check() {
        let out = apply(STENCIL).expect("rewritten");
        assert_eq!(
            check_line(&out, "%c1"),
            "%c1 = icmp ule i32 1, %ferrocuda.offset1.base, !dbg !7"
        );
        assert_eq!(
            check_line(&out, "%c2"),
            "%c2 = icmp ult i32 1, %ferrocuda.offset2.room"
        );
        assert_eq!(
            check_line(&out, "%c3"),
            "%c3 = icmp ule i32 %n, %ferrocuda.offset3.base"
        );
        assert_eq!(
            check_line(&out, "%c4"),
            "%c4 = icmp ult i32 %n, %ferrocuda.offset4.room"
        );
        assert_eq!(check_line(&out, "%c5"), "%c5 = icmp ule i64 %plane, %i");
        assert_eq!(
            check_line(&out, "%c6"),
            "%c6 = icmp ult i64 %plane, %ferrocuda.offset6.room64"
        );
        assert!(out.contains(
            "  %ferrocuda.offset2.room = sub nuw i32 %ferrocuda.offset2.len, %ferrocuda.offset2.base\n"
        ));
        // The base check, the indices (for the addresses and the report) and the branches stay.
        assert_eq!(check_line(&out, "%c0"), "%c0 = icmp ult i64 %i, %len");
        assert!(out.contains("  %j3 = sub nsw i64 %i, %n64\n"));
        assert!(out.contains("  br i1 %c3, label %b4, label %fail\n"));
    }

    /// The rewritten compares decide exactly what the 64-bit ones decide, for every base that
    /// passed its check, on lengths and offsets at the edges of their ranges.
    #[test]
    fn the_narrow_compares_agree_with_the_wide_ones() {
        let lengths = [1u64, 2, 3, 1000, u32::MAX as u64 - 1, u32::MAX as u64];
        let small = [0u64, 1, 2, 999, 1000, u32::MAX as u64 - 1, u32::MAX as u64];
        let large = [0u64, 1 << 32, u32::MAX as u64 * u32::MAX as u64, 1 << 40];
        for &len in &lengths {
            for i in [0, 1, len / 2, len.saturating_sub(2), len - 1] {
                if i >= len {
                    continue;
                }
                let (i32_, len32) = (i as u32, len as u32);
                let room = len32 - i32_;
                for &c in &small {
                    let c32 = c as u32;
                    assert_eq!(i.wrapping_add(c) < len, c32 < room, "{i} + {c} < {len}");
                    assert_eq!(i.wrapping_sub(c) < len, c32 <= i32_, "{i} - {c} < {len}");
                }
                for &c in &large {
                    assert!(u128::from(c) <= MAX_OFFSET);
                    assert_eq!(i.wrapping_add(c) < len, c < u64::from(room), "{i} + {c}");
                    assert_eq!(i.wrapping_sub(c) < len, c <= i, "{i} - {c}");
                }
            }
        }
    }

    #[test]
    fn needs_the_base_check_on_the_passed_side() {
        // The offset check on the failed side of the base check: not dominated by a pass.
        let swapped = STENCIL.replace(
            "br i1 %c0, label %b1, label %fail",
            "br i1 %c0, label %fail, label %b1",
        );
        assert_eq!(apply(&swapped), None);
    }

    #[test]
    fn needs_a_single_predecessor_chain() {
        // b1 also entered from `ok`: the walk up from any later check crosses b1, which no
        // longer has a single predecessor, so nothing is rewritten.
        let joined = STENCIL.replace(
            "ok:                                               ; preds = %b6\n  ret void",
            "ok:                                               ; preds = %b6\n  br label %b1",
        );
        assert_eq!(apply(&joined), None);
    }

    #[test]
    fn crosses_the_failed_side_of_an_overflow_check() {
        // With overflow checks, `i - 1` is guarded by `i == 0` (true: panic) before its bounds
        // check: the walk crosses that branch from its false side.
        let guarded = STENCIL.replace(
            "  br i1 %c0, label %b1, label %fail\n\nb1:                                               ; preds = %0\n",
            "  br i1 %c0, label %g, label %fail\n\ng:\n  %zero = icmp eq i64 %i, 0\n  br i1 %zero, label %fail, label %b1\n\nb1:                                               ; preds = %g\n",
        );
        assert!(guarded.contains("label %g"));
        let out = apply(&guarded).expect("rewritten");
        assert_eq!(
            check_line(&out, "%c1"),
            "%c1 = icmp ule i32 1, %ferrocuda.offset1.base, !dbg !7"
        );
        assert_eq!(check_line(&out, "%c5"), "%c5 = icmp ule i64 %plane, %i");
    }

    #[test]
    fn needs_the_same_length_and_a_32_bit_one() {
        let other_len = STENCIL.replace(
            "%c3 = icmp ult i64 %j3, %len",
            "%c3 = icmp ult i64 %j3, %len.raw",
        );
        let out = apply(&other_len).expect("the others still rewritten");
        assert_eq!(check_line(&out, "%c3"), "%c3 = icmp ult i64 %j3, %len.raw");
        let wide = STENCIL.replace(
            "%len = and i64 %len.raw, 4294967295",
            "%len = and i64 %len.raw, 8589934591",
        );
        assert_eq!(apply(&wide), None);
    }

    #[test]
    fn needs_a_bounded_offset() {
        // An offset of any 64-bit value (here a parameter) may wrap the index into range.
        let unbounded = STENCIL
            .replace(
                "%j3 = sub nsw i64 %i, %n64",
                "%j3 = sub nsw i64 %i, %len.raw",
            )
            .replace(
                "%j4 = add nuw nsw i64 %i, %n64",
                "%j4 = add i64 %i, %len.raw",
            )
            .replace("%plane = mul nuw i64", "%plane = mul i64");
        let out = apply(&unbounded).expect("the constant offsets still rewritten");
        for check in ["%c3", "%c4", "%c5", "%c6"] {
            assert!(check_line(&out, check).contains(" i64 %j"), "{check} kept");
        }
        let huge = STENCIL.replace(
            "%j2 = add nuw nsw i64 %i, 1",
            "%j2 = add i64 %i, 4294967296",
        );
        let out = apply(&huge).expect("the others still rewritten");
        assert_eq!(
            check_line(&out, "%c2"),
            "%c2 = icmp samesign ult i64 %j2, %len"
        );
    }
}
