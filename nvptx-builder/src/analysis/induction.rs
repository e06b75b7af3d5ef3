//! Bounds of a loop's induction variables, proved by induction over the loop's iterations.
//!
//! `for i in 0..n { sum += data[i * m + j] }` reaches LLVM as a loop whose header has a phi
//! `%i = phi i64 [ 0, %preheader ], [ %i.next, %latch ]`, entered only when `n != 0` and left
//! when `%i.next == n`. No branch above the check says `i < n`, so the guard walk of
//! [`crate::analysis::facts::facts_at`] (which reads the conditions of the edges into
//! single-predecessor blocks) finds nothing about `i`; yet `i < n` holds throughout the loop,
//! and with it `i * m + j < n * m` for `j < m`: a test of the launch's arguments.
//!
//! [`induction_facts`] proves such bounds, `phi < n` or `phi <= n` (unsigned) for a phi of the
//! loop's header and a value `n` defined outside the loop, as an inductive invariant:
//!
//! - **base**: on every edge into the header from outside the loop, the phi's incoming value
//!   satisfies the bound, by the facts at the end of that block and its branch's condition;
//! - **step**: on every back edge, the incoming value satisfies it, by the back edge's condition,
//!   the facts at the end of the latch, and the candidate bounds of the header's phis taken as
//!   holding in the iteration the back edge ends (a simultaneous induction: every candidate
//!   that fails either obligation is dropped, and the rest checked again until none fails,
//!   so the bounds kept are together inductive).
//!
//! The step reads three forms: the back edge's condition says `x < n` (whatever `x` is); `x`
//! is `add p, 1` for a header phi `p` with `p < n` (then `x <= n`, and `x != n` on the edge
//! makes it `x < n`; `p < n <= 2^w - 1` means the add cannot wrap, whatever its flags); `x` is
//! a header phi with `x <= n` and the edge says `x != n`.
//!
//! Why a bound so proved holds wherever the header dominates (where `facts_at` uses it): the
//! phi's value there is the one its last visit to the header gave (its definition is in the
//! header, which every path to that point crosses after the phi's inputs are computed), and
//! `n`, defined outside the loop before the header (its definition dominates the header,
//! since the back edge's compare uses it), cannot have been redefined since that visit
//! without the path crossing the header again. The invariant held at that visit.
//!
//! Only unsigned compares and `eq`/`ne` are read; a value and its `zext` to 64 bits are one
//! value for them (the extension keeps order and equality).

use crate::analysis::bounds::narrow_operand;
use crate::analysis::conditions::{Fact, add_edge_facts};
use crate::analysis::dominance::dominates;
use crate::ir::blocks::{Block, terminator};
use crate::ir::instructions::{definition, strip_metadata, strip_words};
use crate::ir::syntax::block_label;
use std::collections::{HashMap, HashSet};

/// How many loop headers deep the proof of a bound may look for the facts of an outer loop
/// (the base case's facts come from the blocks before the loop, which may be in a loop too).
pub(crate) const MAX_NESTING: usize = 2;

/// A candidate bound: header phi `phi` below (`strict`) or at most `bound`.
#[derive(Clone, PartialEq)]
struct Candidate {
    phi: String,
    bound: String,
    strict: bool,
}

/// The bounds of the phis of `header` that hold wherever `header` dominates, as [`Fact`]s
/// (`phi ult n`, `phi ule n`); empty when `header` starts no loop. `facts_at(block, outer)`
/// gives the facts that hold in `block`: with the induction facts of the loops around it when
/// `outer` (for the blocks before the loop), without when not (for the latches, where this
/// loop's own bounds are what the induction assumes).
pub(crate) fn induction_facts(
    blocks: &[Block],
    body: &[&str],
    defs: &HashMap<&str, &str>,
    succ: &[Vec<usize>],
    idom: &[Option<usize>],
    header: usize,
    facts_at: &dyn Fn(usize, bool) -> Vec<Fact>,
) -> Vec<Fact> {
    let Some(label) = blocks[header].label.as_deref() else {
        return Vec::new();
    };
    let preds: Vec<usize> = (0..succ.len())
        .filter(|&p| succ[p].contains(&header))
        .collect();
    // Back edges come from blocks the header dominates; a block unreachable from the entry
    // (no immediate dominator) is neither.
    let (latches, outside): (Vec<usize>, Vec<usize>) = preds
        .iter()
        .filter(|&&p| idom[p].is_some() || p == 0)
        .partition(|&&p| dominates(idom, header, p));
    if latches.is_empty() || outside.is_empty() || preds.len() != latches.len() + outside.len() {
        return Vec::new();
    }
    let in_loop = loop_blocks(succ, header, &latches);
    let block_of = definition_blocks(blocks, body);
    let invariant = |v: &str| {
        v.parse::<i128>().is_ok()
            || block_of
                .get(v)
                .is_some_and(|b| !in_loop.contains(b) && dominates(idom, *b, header))
            || (v.starts_with('%') && !block_of.contains_key(v))
    };
    let phis = header_phis(blocks, body, header);
    if phis.is_empty() {
        return Vec::new();
    }
    // What each edge into the header says, and the facts at the end of its block.
    let edge = |from: usize, outer: bool| {
        let mut facts = facts_at(from, outer);
        add_edge_facts(terminator(&blocks[from], body), label, defs, &mut facts);
        facts
    };
    let latch_facts: Vec<Vec<Fact>> = latches.iter().map(|&l| edge(l, false)).collect();
    let outside_facts: Vec<Vec<Fact>> = outside.iter().map(|&o| edge(o, true)).collect();
    // Bounds worth trying: the loop-invariant sides of the back edges' compares, each with the
    // type of the value it was compared with (a bound is tried only for phis of that type, so
    // that `p < n` keeps `p + 1` from wrapping in `p`'s own width).
    let type_of = |v: &str| -> Option<&str> {
        phis.iter()
            .find(|(p, _, _)| p == v)
            .map(|(_, ty, _)| ty.as_str())
            .or_else(|| result_type(defs.get(v)?))
    };
    let mut bounds: Vec<(String, String)> = Vec::new();
    for f in latch_facts.iter().flatten() {
        for (side, other) in [(&f.a, &f.b), (&f.b, &f.a)] {
            if !invariant(side) || side.parse::<i128>().is_ok() {
                continue;
            }
            if let Some(ty) = type_of(other) {
                let pair = (side.clone(), ty.to_string());
                if !bounds.contains(&pair) {
                    bounds.push(pair);
                }
            }
        }
    }
    let mut candidates: Vec<Candidate> = Vec::new();
    for (phi, ty, _) in &phis {
        for (bound, bound_ty) in &bounds {
            if ty != bound_ty {
                continue;
            }
            for strict in [true, false] {
                candidates.push(Candidate {
                    phi: phi.clone(),
                    bound: bound.clone(),
                    strict,
                });
            }
        }
    }
    let incoming = |phi: &str, from: usize| -> Option<&str> {
        let from = blocks[from].label.as_deref()?;
        phis.iter()
            .find(|(p, _, _)| p == phi)?
            .2
            .iter()
            .find(|(_, l)| l == from)
            .map(|(v, _)| v.as_str())
    };
    // Base case: decided once, from the facts before the loop.
    candidates.retain(|c| {
        outside.iter().zip(&outside_facts).all(|(&o, facts)| {
            incoming(&c.phi, o).is_some_and(|v| holds(v, &c.bound, c.strict, facts, &[], defs))
        })
    });
    // Step: drop what the others cannot carry through a back edge, until nothing changes.
    loop {
        let before = candidates.len();
        let assumed = candidates.clone();
        candidates.retain(|c| {
            latches.iter().zip(&latch_facts).all(|(&l, facts)| {
                incoming(&c.phi, l)
                    .is_some_and(|v| holds(v, &c.bound, c.strict, facts, &assumed, defs))
            })
        });
        if candidates.len() == before {
            break;
        }
    }
    candidates
        .into_iter()
        .map(|c| Fact {
            pred: if c.strict { "ult" } else { "ule" },
            a: c.phi,
            b: c.bound,
            samesign: false,
        })
        .collect()
}

/// Whether `value < bound` (`strict`) or `value <= bound` follows from `facts` and the header
/// phis' `assumed` bounds (see the module's doc for the forms read).
fn holds(
    value: &str,
    bound: &str,
    strict: bool,
    facts: &[Fact],
    assumed: &[Candidate],
    defs: &HashMap<&str, &str>,
) -> bool {
    Proof {
        bound,
        facts,
        assumed,
        defs,
    }
    .below(value, strict, 0)
}

/// The facts and assumptions one obligation may use, for one bound.
struct Proof<'a> {
    bound: &'a str,
    facts: &'a [Fact],
    assumed: &'a [Candidate],
    defs: &'a HashMap<&'a str, &'a str>,
}

impl Proof<'_> {
    /// Whether `value < bound` (`strict`) or `value <= bound`.
    fn below(&self, value: &str, strict: bool, depth: usize) -> bool {
        let (bound, defs) = (self.bound, self.defs);
        let direct = stated(value, bound, strict, self.facts, defs)
            || self
                .assumed
                .iter()
                .any(|c| same(&c.phi, value, defs) && c.bound == bound && (c.strict || !strict));
        if direct {
            return true;
        }
        if depth > 2 {
            return false;
        }
        if strict {
            // `value <= bound` and `value != bound`; `0 < bound` when `bound != 0`.
            return (value == "0" && stated_ne(bound, "0", self.facts, defs))
                || (stated_ne(value, bound, self.facts, defs)
                    && self.below(value, false, depth + 1));
        }
        // `p + 1 <= bound` when `p < bound` (which also keeps the add from wrapping).
        increment_of(value, defs).is_some_and(|p| self.below(&p, true, depth + 1))
    }
}

/// Whether a fact says `value < bound` (or `value <= bound` when not `strict`).
fn stated(
    value: &str,
    bound: &str,
    strict: bool,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
) -> bool {
    facts.iter().any(|f| {
        let (lesser, greater, f_strict) = match f.pred {
            "ult" => (&f.a, &f.b, true),
            "ugt" => (&f.b, &f.a, true),
            "ule" => (&f.a, &f.b, false),
            "uge" => (&f.b, &f.a, false),
            _ => return false,
        };
        (f_strict || !strict) && same(lesser, value, defs) && same(greater, bound, defs)
    }) || (value == "0" && !strict)
        || (value == "1" && !strict && stated_ne(bound, "0", facts, defs))
}

/// Whether a fact says `a != b` (`ne` either way round, or a strict order between them); for
/// `b` = 0, also `a > x` for any `x` (unsigned, so `a >= 1`) or `a >= 1`.
fn stated_ne(a: &str, b: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> bool {
    facts.iter().any(|f| {
        let pair = |x: &str, y: &str| same(x, a, defs) && same(y, b, defs);
        let positive = b == "0"
            && match f.pred {
                "ult" => same(&f.b, a, defs),
                "ugt" => same(&f.a, a, defs),
                "uge" => same(&f.a, a, defs) && f.b.parse::<u64>().is_ok_and(|c| c >= 1),
                _ => false,
            };
        positive
            || match f.pred {
                "ne" | "ult" | "ugt" => pair(&f.a, &f.b) || pair(&f.b, &f.a),
                _ => false,
            }
    })
}

/// `p` when `value` is `add p, 1` (either operand order, any flags).
fn increment_of(value: &str, defs: &HashMap<&str, &str>) -> Option<String> {
    let inst = defs.get(value)?;
    let rest = strip_words(inst, "add", &["nuw", "nsw"])?;
    let rest = rest
        .strip_prefix("i64 ")
        .or_else(|| rest.strip_prefix("i32 "))?;
    let (a, b) = strip_metadata(rest).split_once(", ")?;
    match (a.trim(), b.trim()) {
        (p, "1") | ("1", p) => Some(p.to_string()),
        _ => None,
    }
}

/// Whether `a` and `b` are one value, a 32-bit value and its `zext` counting as one.
fn same(a: &str, b: &str, defs: &HashMap<&str, &str>) -> bool {
    a == b || narrow_operand(a, defs).unwrap_or(a) == narrow_operand(b, defs).unwrap_or(b)
}

/// The blocks of the loop `header` heads: those that reach a latch without the header.
fn loop_blocks(succ: &[Vec<usize>], header: usize, latches: &[usize]) -> HashSet<usize> {
    let mut body: HashSet<usize> = latches.iter().copied().chain([header]).collect();
    let mut stack: Vec<usize> = latches.to_vec();
    while let Some(b) = stack.pop() {
        if b == header {
            continue;
        }
        for (p, ss) in succ.iter().enumerate() {
            if ss.contains(&b) && body.insert(p) {
                stack.push(p);
            }
        }
    }
    body
}

/// The block defining each local value.
fn definition_blocks<'a>(blocks: &[Block], body: &[&'a str]) -> HashMap<&'a str, usize> {
    let mut map = HashMap::new();
    for (index, block) in blocks.iter().enumerate() {
        for line in &body[block.lines.clone()] {
            if let Some((name, _)) = definition(line) {
                map.insert(name, index);
            }
        }
    }
    map
}

/// A header phi: its name, its type and its `(value, predecessor label)` pairs.
type Phi = (String, String, Vec<(String, String)>);

/// The integer phis of `header` (`i32` or `i64`).
fn header_phis(blocks: &[Block], body: &[&str], header: usize) -> Vec<Phi> {
    let mut phis = Vec::new();
    for line in &body[blocks[header].lines.clone()] {
        if block_label(line).is_some() {
            continue;
        }
        let Some((name, inst)) = definition(line) else {
            continue;
        };
        let Some((ty, rest)) = ["i64", "i32"].into_iter().find_map(|ty| {
            Some((
                ty,
                inst.strip_prefix("phi ")?
                    .strip_prefix(ty)?
                    .strip_prefix(' ')?,
            ))
        }) else {
            continue;
        };
        let mut pairs = Vec::new();
        let mut ok = true;
        for pair in strip_metadata(rest).split("], ") {
            let pair = pair
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim();
            match pair.split_once(", %") {
                Some((value, from)) => {
                    pairs.push((value.trim().to_string(), from.trim().to_string()))
                }
                None => ok = false,
            }
        }
        if ok {
            phis.push((name.to_string(), ty.to_string(), pairs));
        }
    }
    phis
}

/// The integer type an arithmetic instruction or cast yields (`i32`, `i64`), when it is one
/// of those.
fn result_type(inst: &str) -> Option<&str> {
    if let Some((_, to)) = strip_metadata(inst).rsplit_once(" to ") {
        let ty = to.trim();
        let cast = ["zext", "sext", "trunc"]
            .iter()
            .any(|c| inst.starts_with(c));
        return (cast && (ty == "i32" || ty == "i64")).then_some(ty);
    }
    let mut words = inst.split_whitespace();
    let opcode = words.next()?;
    let arithmetic = [
        "add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "udiv", "urem",
    ];
    if !arithmetic.contains(&opcode) {
        return None;
    }
    words
        .find(|w| !matches!(*w, "nuw" | "nsw" | "exact" | "disjoint"))
        .filter(|ty| *ty == "i32" || *ty == "i64")
}
