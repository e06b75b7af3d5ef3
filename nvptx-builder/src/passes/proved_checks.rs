//! Link-time deletion of checks that cannot fail: a branch into a block that ends in
//! `unreachable` (the call of a panic: a slice index, a shared tile's 2-D index, an
//! `assert!`) whose condition the range analysis of [`crate::passes::compare_narrowing`] decides
//! against the panic becomes an unconditional branch to the other side.
//!
//! LLVM keeps such checks when deciding them takes more than one compare at a time. HotSpot's
//! clamped neighbours are the case: `south = (ty + 1).min(valid_y_max)` is below 16 inside the
//! loop's `if (i + 1..=BLOCK - i - 2).contains(&ty)`, because `i + 1 <= ty <= 15` bounds `i` by
//! 14, so `BLOCK - i - 2` does not wrap and bounds `ty` by 14. That needs the ranges the
//! branches above the check give each value, re-evaluated through the arithmetic, and the
//! relation between the loop's two counters `i` and `i + 1` (see `Analysis::lagging`); LLVM's
//! passes relate values one compare at a time. The deletion is exact: the analysis is the one
//! whose ranges already decide which compares may be 32-bit, and a check it cannot decide
//! stays as it was, with its report.

use crate::analysis::ranges::Analysis;
use crate::ir::blocks::branch_targets;
use crate::ir::blocks::terminator;
use crate::ir::instructions::strip_metadata;
use std::collections::{HashMap, HashSet};

/// The module text with its impossible checks deleted, or `None` when there was none.
pub(crate) fn apply(ir: &str) -> Option<String> {
    crate::ir::syntax::rewrite_bodies(ir, |_, body| fold_function(body))
}

/// The body with its impossible checks' branches made unconditional, or `None`.
fn fold_function(body: &[&str]) -> Option<String> {
    let unreachable = |l: &str| strip_metadata(l.trim()) == "unreachable";
    if !body.iter().any(|l| unreachable(l)) {
        return None;
    }
    let mut analysis = Analysis::new(body)?;
    // The blocks a check fails into: they end in `unreachable` and have no phi (an edge
    // removed from a phi's block would leave the phi an entry without a predecessor).
    let panics: HashSet<String> = analysis
        .blocks
        .iter()
        .filter(|b| {
            unreachable(terminator(b, body))
                && !body[b.lines.clone()].iter().any(|l| l.contains(" = phi "))
        })
        .filter_map(|b| b.label.clone())
        .collect();
    let mut replaced: HashMap<usize, String> = HashMap::new();
    for index in 0..analysis.blocks.len() {
        let term = terminator(&analysis.blocks[index], body);
        let Some((condition, taken, not_taken)) = branch_targets(term) else {
            continue;
        };
        // The value of the condition that panics, and the side the other value takes.
        let (panicking, passed) = match (panics.contains(taken), panics.contains(not_taken)) {
            (true, false) => (true, not_taken),
            (false, true) => (false, taken),
            _ => continue,
        };
        let facts = analysis.facts(index);
        if analysis.decide(condition, &facts) != Some(!panicking) {
            continue;
        }
        let lines = analysis.blocks[index].lines.clone();
        let Some(line) = lines.rev().find(|&i| body[i].trim() == term) else {
            continue;
        };
        let indent = &body[line][..body[line].len() - body[line].trim_start().len()];
        let debug = term
            .split(", !")
            .skip(1)
            .find(|m| m.starts_with("dbg "))
            .map(|m| format!(", !{m}"))
            .unwrap_or_default();
        replaced.insert(line, format!("{indent}br label %{passed}{debug}\n"));
    }
    if replaced.is_empty() {
        return None;
    }
    Some(
        body.iter()
            .enumerate()
            .map(|(i, l)| replaced.get(&i).map_or(*l, String::as_str))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HotSpot's shape: a clamped neighbour `south = min(m, ty + 1)` checked against the tile
    /// inside a loop whose `if` reads `i + 1 <= ty <= 14 - i`, with the loop's two counters
    /// `%next` (`i + 1`) and `%i`.
    const CLAMPED: &str = "define void @f(i32 %n, i64 %m) {
entry:
  %tid = tail call range(i32 0, 256) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %small = icmp ult i32 %tid, 16
  call void @llvm.assume(i1 %small)
  %ty = zext nneg i32 %tid to i64
  %t1 = add nuw nsw i64 %ty, 1
  %south = tail call i64 @llvm.umin.i64(i64 %m, i64 %t1)
  %none = icmp eq i32 %n, 0
  br i1 %none, label %exit, label %loop

loop:
  %next = phi i32 [ 1, %entry ], [ %step, %latch ]
  %i = phi i32 [ 0, %entry ], [ %next, %latch ]
  %i64 = zext i32 %i to i64
  %last = sub nsw i64 14, %i64
  %lo = icmp ule i32 %next, %tid
  %hi = icmp uge i64 %last, %ty
  %in = and i1 %lo, %hi
  br i1 %in, label %body, label %latch

body:
  %bad = icmp ugt i64 %south, 15
  br i1 %bad, label %panic, label %ok, !dbg !7, !prof !8

panic:
  call void @panic(i64 %south), !dbg !7
  unreachable, !dbg !7

ok:
  br label %latch

latch:
  %done = icmp eq i32 %next, %n
  %step = add nuw i32 %next, 1
  br i1 %done, label %exit, label %loop

exit:
  ret void
}
";

    #[test]
    fn deletes_a_clamped_neighbours_check_that_the_loop_counters_decide() {
        let out = apply(CLAMPED).expect("folded");
        assert!(out.contains("  br label %ok, !dbg !7\n"), "{out}");
        assert!(!out.contains("br i1 %bad"), "{out}");
        // Everything else is as it was (the panic block stays, unreachable now).
        assert_eq!(out.lines().count(), CLAMPED.lines().count());
        assert!(out.contains("  call void @panic(i64 %south), !dbg !7\n"));
    }

    #[test]
    fn keeps_checks_the_ranges_do_not_decide() {
        // Without `i + 1 <= ty`, `i` is any count and `14 - i` wraps: `ty` may be 15.
        let unbounded = CLAMPED.replace("%in = and i1 %lo, %hi", "%in = and i1 true, %hi");
        assert_eq!(apply(&unbounded), None);
        // `ty + 1` reaches 15 when `ty` is 14: a bound of 14 may fail.
        let tight = CLAMPED.replace("icmp ugt i64 %south, 15", "icmp ugt i64 %south, 14");
        assert_eq!(apply(&tight), None);
        // Without the block bound, `ty` is below 1024 (the hardware's limit) only.
        let wide = CLAMPED.replace("call void @llvm.assume(i1 %small)", "");
        assert_eq!(apply(&wide), None);
        // A branch into a block that does not end in `unreachable` is not a check.
        let live = CLAMPED.replace("  unreachable, !dbg !7", "  br label %exit");
        assert_eq!(apply(&live), None);
    }
}
