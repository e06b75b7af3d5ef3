//! What a branch condition states: the compares an edge of a conditional branch (or an
//! assumption) makes hold, conjunctions and failed disjunctions split into their parts.

use crate::ir::blocks::branch_targets;
use crate::ir::instructions::{strip_metadata, strip_words};
use std::collections::HashMap;

/// How deep a proof or a rematerialised argument expression may nest.
pub(crate) const MAX_DEPTH: usize = 6;

/// A compare known to hold at a check: `a pred b`.
#[derive(Clone, PartialEq)]
pub(crate) struct Fact {
    /// The predicate, as [`canonical`] names it.
    pub(crate) pred: &'static str,
    /// The left operand.
    pub(crate) a: String,
    /// The right operand.
    pub(crate) b: String,
    /// Whether the compare carried `samesign`.
    pub(crate) samesign: bool,
}

/// Adds what the edge of the branch `terminator` into the block labelled `to` says: its
/// condition, or its negation, when only one side goes there.
pub(crate) fn add_edge_facts(
    terminator: &str,
    to: &str,
    defs: &HashMap<&str, &str>,
    facts: &mut Vec<Fact>,
) {
    let Some((condition, taken, not_taken)) = branch_targets(terminator) else {
        return;
    };
    if taken == to && not_taken != to {
        add_facts(condition, true, defs, facts, 0);
    } else if not_taken == to && taken != to {
        add_facts(condition, false, defs, facts, 0);
    }
}

/// Adds what `condition == holds` says: the compare itself, or both sides of an `and` that
/// holds (`and i1`, `select i1 a, i1 b, i1 false`) or of an `or` that fails.
pub(crate) fn add_facts(
    condition: &str,
    holds: bool,
    defs: &HashMap<&str, &str>,
    facts: &mut Vec<Fact>,
    depth: usize,
) {
    let Some(inst) = defs.get(condition) else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(rest) = strip_words(inst, "icmp", &["samesign"]) {
        let samesign = inst.starts_with("icmp samesign ");
        let Some((pred, rest)) = rest.split_once(' ') else {
            return;
        };
        let operands = strip_metadata(rest);
        let Some(operands) = operands
            .strip_prefix("i64 ")
            .or_else(|| operands.strip_prefix("i32 "))
        else {
            return;
        };
        let Some((a, b)) = operands.split_once(", ") else {
            return;
        };
        let pred = if holds { pred } else { inverse(pred) };
        if let Some(pred) = canonical(pred) {
            facts.push(Fact {
                pred,
                a: a.trim().to_string(),
                b: b.trim().to_string(),
                samesign,
            });
        }
        return;
    }
    let both = |a: &str, b: &str, facts: &mut Vec<Fact>| {
        add_facts(a, holds, defs, facts, depth + 1);
        add_facts(b, holds, defs, facts, depth + 1);
    };
    if let Some(rest) = strip_words(inst, "and", &[]).filter(|_| holds) {
        if let Some((a, b)) =
            strip_metadata(rest.strip_prefix("i1 ").unwrap_or("")).split_once(", ")
        {
            both(a.trim(), b.trim(), facts);
        }
    } else if let Some(rest) = strip_words(inst, "or", &["disjoint"]).filter(|_| !holds) {
        if let Some((a, b)) =
            strip_metadata(rest.strip_prefix("i1 ").unwrap_or("")).split_once(", ")
        {
            both(a.trim(), b.trim(), facts);
        }
    } else if let Some(rest) = inst.strip_prefix("select i1 ") {
        let parts: Vec<&str> = strip_metadata(rest).split(", ").map(str::trim).collect();
        if let [a, b, c] = parts[..] {
            // `select a, b, false` is `a && b`; `select a, true, c` is `a || c`.
            let other = match (holds, b, c) {
                (true, b, "i1 false") => b.strip_prefix("i1 "),
                (false, "i1 true", c) => c.strip_prefix("i1 "),
                _ => None,
            };
            if let Some(other) = other {
                both(a, other, facts);
            }
        }
    }
}

/// The predicate that holds when `pred` fails.
pub(crate) fn inverse(pred: &str) -> &str {
    match pred {
        "ult" => "uge",
        "uge" => "ult",
        "ugt" => "ule",
        "ule" => "ugt",
        "slt" => "sge",
        "sge" => "slt",
        "sgt" => "sle",
        "sle" => "sgt",
        "eq" => "ne",
        "ne" => "eq",
        other => other,
    }
}

/// An integer compare's predicate as a `'static` name (`None` for anything else).
pub(crate) fn canonical(pred: &str) -> Option<&'static str> {
    [
        "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
    ]
    .into_iter()
    .find(|&p| p == pred)
}
