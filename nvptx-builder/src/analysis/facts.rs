//! The compares known to hold at a block: the conditions of the branches that dominate it, the
//! assumptions of its dominators, conjunctions split ([`crate::analysis::conditions`]), and
//! the bounds of the induction variables of the loops around it
//! ([`crate::analysis::induction`]).

pub(crate) use crate::analysis::conditions::{
    Fact, MAX_DEPTH, add_edge_facts, add_facts, canonical,
};
use crate::analysis::induction::{MAX_NESTING, induction_facts};
use crate::ir::blocks::{Block, terminator};
use crate::ir::instructions::strip_metadata;
use std::collections::HashMap;

/// How many single-predecessor blocks the walk for a check's guards crosses at most.
const MAX_WALK: usize = 32;

/// The compares that hold when block `start`'s terminator runs: for `start` and each of its
/// dominators entered by a single edge from a conditional branch, that branch's condition
/// (or its negation), conjunctions split. A value a dominating edge decided cannot have been
/// recomputed before `start` without passing that edge again.
///
/// A loop header on the way adds the bounds of its induction variables that
/// [`crate::analysis::induction`] proves (`i < n` in `for i in 0..n`), looking through at
/// most [`MAX_NESTING`] loops.
pub(crate) fn facts_at(
    blocks: &[Block],
    body: &[&str],
    defs: &HashMap<&str, &str>,
    succ: &[Vec<usize>],
    idom: &[Option<usize>],
    start: usize,
) -> Vec<Fact> {
    facts_within(blocks, body, defs, succ, idom, start, 0)
}

/// [`facts_at`] with the induction facts of at most `MAX_NESTING - nesting` loops.
fn facts_within(
    blocks: &[Block],
    body: &[&str],
    defs: &HashMap<&str, &str>,
    succ: &[Vec<usize>],
    idom: &[Option<usize>],
    start: usize,
    nesting: usize,
) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut current = start;
    for _ in 0..MAX_WALK {
        if let Some(label) = blocks[current].label.as_deref() {
            let preds: Vec<usize> = (0..succ.len())
                .filter(|&p| succ[p].contains(&current))
                .collect();
            if let [pred] = preds[..] {
                add_edge_facts(terminator(&blocks[pred], body), label, defs, &mut facts);
            } else if nesting < MAX_NESTING {
                // Before the loop: what holds there, loops further out included; at a latch:
                // what holds there without this loop's own bounds (the induction assumes them).
                let before = |block: usize, outer: bool| {
                    let nesting = if outer { nesting + 1 } else { MAX_NESTING };
                    facts_within(blocks, body, defs, succ, idom, block, nesting)
                };
                facts.extend(induction_facts(
                    blocks, body, defs, succ, idom, current, &before,
                ));
            }
        }
        match idom[current] {
            Some(d) if d != current => current = d,
            _ => break,
        }
        // A dominator ran to its end before `start`: what its assumptions say holds.
        for &i in body[blocks[current].lines.clone()].iter() {
            let call = strip_metadata(i.trim());
            if let Some(condition) = call
                .strip_prefix("call void @llvm.assume(i1 ")
                .or_else(|| call.strip_prefix("tail call void @llvm.assume(i1 "))
                .and_then(|c| c.strip_suffix(')'))
            {
                add_facts(condition.trim(), true, defs, &mut facts, 0);
            }
        }
    }
    facts
}

#[cfg(test)]
mod tests {
    use super::facts_at;
    use crate::analysis::dominance::immediate_dominators;
    use crate::ir::blocks::split_blocks;
    use crate::ir::instructions::definitions;

    /// `for i in 0..n { sum += data[i * m + j] }` for `j < m`, as rustc leaves the rolled loop:
    /// the counter `%i` and its successor `%next` as two phis, the loop entered when `n != 0`
    /// and left when `%next == n`. `STEP`, `START`, `GUARD` and `BOUND` are replaced by the
    /// variants.
    const COLUMN: &str = "\
define void @column(ptr %data, i64 %len, i32 %m, i32 %n, i32 %j32) {
start:
  %mm = zext i32 %m to i64
  %nn = zext i32 %n to i64
  %j = zext i32 %j32 to i64
  %jc = icmp ult i32 %j32, %m
  br i1 %jc, label %pre, label %done

pre:
  %empty = icmp eq i32 GUARD, 0
  br i1 %empty, label %done, label %head

head:
  %next = phi i64 [ %after, %body ], [ START, %pre ]
  %i = phi i64 [ %next, %body ], [ 0, %pre ]
  %row = mul nuw i64 %i, %mm
  %idx = add i64 %row, %j
  %ok = icmp ult i64 %idx, %len
  br i1 %ok, label %body, label %panic

body:
  %p = getelementptr inbounds float, ptr %data, i64 %idx
  %v = load float, ptr %p
  %after = add nuw nsw i64 %next, STEP
  %limit = add i64 %nn, 0
  %end = icmp eq i64 %next, BOUND
  br i1 %end, label %done, label %head

panic:
  call void @panic_bounds_check(i64 %idx, i64 %len)
  unreachable

done:
  ret void
}
";

    /// The facts at the loop's header of [`COLUMN`] with its placeholders replaced, as
    /// `a pred b` strings.
    fn header_facts(replace: &[(&str, &str)]) -> Vec<String> {
        let mut text = COLUMN.to_string();
        for (from, to) in [
            ("STEP", "1"),
            ("START", "1"),
            ("GUARD", "%n"),
            ("BOUND", "%nn"),
        ] {
            let to = replace
                .iter()
                .find(|(f, _)| *f == from)
                .map_or(to, |(_, t)| t);
            text = text.replace(from, to);
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let body = &lines[1..lines.len() - 1];
        let mut blocks = split_blocks(body);
        blocks.remove(0); // The body starts with a label: the empty block before it is not one.
        let defs = definitions(body);
        let succ = crate::ir::cfg::successors(&blocks, body).expect("modelled");
        let idom = immediate_dominators(&succ);
        let head = blocks
            .iter()
            .position(|b| b.label.as_deref() == Some("head"))
            .expect("head");
        facts_at(&blocks, body, &defs, &succ, &idom, head)
            .iter()
            .map(|f| format!("{} {} {}", f.a, f.pred, f.b))
            .collect()
    }

    #[test]
    fn a_counter_from_zero_is_below_its_bound_in_the_loop() {
        // Against `%limit`, defined in the loop: no bound; against `%nn`, `i < n`.
        let facts = header_facts(&[("BOUND", "%limit")]);
        assert!(!facts.iter().any(|f| f.starts_with("%i ")), "{facts:?}");
        let facts = header_facts(&[]);
        assert!(facts.contains(&"%i ult %nn".to_string()), "{facts:?}");
        assert!(facts.contains(&"%next ule %nn".to_string()), "{facts:?}");
        // The successor reaches `n`: never `%next < n`.
        assert!(!facts.contains(&"%next ult %nn".to_string()), "{facts:?}");
    }

    #[test]
    fn no_bound_without_the_base_case_or_the_step() {
        let bounded = header_facts;
        // Entered whatever `n` (the guard tests `m`): `0 < n` is not known.
        let facts = bounded(&[("GUARD", "%m")]);
        assert!(!facts.contains(&"%i ult %nn".to_string()), "{facts:?}");
        // A step of 2 may jump over `n`: `%next != n` no longer keeps `%next <= n`.
        let facts = bounded(&[("STEP", "2")]);
        assert!(
            !facts
                .iter()
                .any(|f| f.starts_with("%i ") || f.starts_with("%next ")),
            "{facts:?}"
        );
        // Starting at 2, `%next` may start past `n = 1`.
        let facts = bounded(&[("START", "2")]);
        assert!(
            !facts
                .iter()
                .any(|f| f.starts_with("%i ") || f.starts_with("%next ")),
            "{facts:?}"
        );
    }
}
