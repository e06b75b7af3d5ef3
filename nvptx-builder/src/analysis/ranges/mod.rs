//! The range analysis of one function body: the interval each integer value lies in where the
//! compares of the dominating branches hold ([`crate::analysis::facts`]), through constants,
//! casts, arithmetic, `select`, the special registers and loop phis (a fixpoint with widening).
//!
//! [`crate::passes::compare_narrowing`] narrows compares and addresses with it,
//! [`crate::passes::proved_checks`] deletes the checks it decides, and
//! [`crate::passes::check_versioning::tile_checks`] bounds a block's threads with it. The
//! intervals are in [`interval`]; the ranges of values and the facts on edges in [`values`];
//! phis in [`phis`]; what the narrowing asks (which indices and calls fit in 32 bits) in
//! [`narrowing`].

pub(crate) mod interval;
pub(crate) mod narrowing;
mod phis;
mod values;

use crate::analysis::dominance::immediate_dominators;
use crate::analysis::facts::{Fact, add_facts, facts_at};
use crate::analysis::fast_copy::PREFIX;
use crate::ir::blocks::{Block, branch_targets, split_blocks, terminator};
use crate::ir::instructions::{
    definition, definitions, phi_incoming, pure_operands, strip_metadata, strip_words,
};
use crate::ir::special_registers::{block_register, thread_axis};
use interval::{Range, bits_of};
use std::collections::HashMap;

/// The names of the tests of the block indices at the entry of a fast copy, followed by the
/// axis (`%ferrocuda.assumed.ctaid.x = icmp ult i32 %..., 16384`).
pub(super) const BLOCK_LIMIT_PREFIX: &str = "%ferrocuda.assumed.ctaid.";

/// How deep the analysis follows operands (and facts about them) from a compare.
pub(crate) const MAX_DEPTH: usize = 12;

/// How many ranges one analysis computes at most (each a few operations on memoised
/// operands): a function whose questions need more gets "any value" for the rest.
pub(super) const RANGE_BUDGET: usize = 200_000;

/// How many dominators [`Analysis::phi_facts`] walks, and how deep
/// [`Analysis::invariant`] follows operands.
pub(super) const PHI_WALK: usize = 32;

/// The range analysis of one function body.
pub(crate) struct Analysis<'a> {
    body: &'a [&'a str],
    /// The body's blocks, the entry first.
    pub(crate) blocks: Vec<Block>,
    pub(crate) defs: HashMap<&'a str, &'a str>,
    succ: Vec<Vec<usize>>,
    idom: Vec<Option<usize>>,
    label_index: HashMap<String, usize>,
    /// The block of each defined value.
    def_block: HashMap<&'a str, usize>,
    /// The block of each line of the body.
    line_block: HashMap<usize, usize>,
    facts: HashMap<usize, Vec<Fact>>,
    /// The ranges assumed for the phis under evaluation.
    assumed: HashMap<String, Range>,
    /// The limit each block index (`ctaid.x`, ...) is below in the fast copies, tested at
    /// their entry ([`crate::passes::check_versioning`]'s assumed block).
    block_limits: HashMap<String, i128>,
    /// The ranges computed, by value, width and [`Analysis::fingerprint`], with the depth
    /// each was computed at.
    memo: HashMap<(String, u32, u64), (usize, Range)>,
    /// How many more ranges the analysis computes before it answers "any value": a bound on
    /// its time on a large module.
    budget: usize,
}

impl<'a> Analysis<'a> {
    /// The analysis of `body` (its lines, as [`crate::ir::syntax::rewrite_bodies`] gives them),
    /// or `None` when its control flow is not modelled ([`crate::ir::cfg`]): no fact is drawn from
    /// a graph that may miss an edge.
    pub(crate) fn new(body: &'a [&'a str]) -> Option<Self> {
        let mut blocks = split_blocks(body);
        if blocks.len() > 1 && blocks[0].lines.is_empty() {
            blocks.remove(0);
        }
        let succ = crate::ir::cfg::successors(&blocks, body)?;
        let idom = immediate_dominators(&succ);
        let label_index = blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((b.label.clone()?, i)))
            .collect();
        let def_block = blocks
            .iter()
            .enumerate()
            .flat_map(|(i, b)| {
                body[b.lines.clone()]
                    .iter()
                    .filter_map(move |l| Some((definition(l)?.0, i)))
            })
            .collect();
        let line_block = blocks
            .iter()
            .enumerate()
            .flat_map(|(i, b)| b.lines.clone().map(move |l| (l, i)))
            .collect();
        let defs = definitions(body);
        let block_limits = defs
            .iter()
            .filter_map(|(name, inst)| {
                let axis = name.strip_prefix(BLOCK_LIMIT_PREFIX)?;
                let (_, limit) = strip_metadata(inst).rsplit_once(", ")?;
                inst.starts_with("icmp ult i32 ")
                    .then(|| Some((format!("ctaid.{axis}"), limit.parse().ok()?)))?
            })
            .collect();
        Some(Analysis {
            body,
            def_block,
            line_block,
            defs,
            block_limits,
            memo: HashMap::new(),
            budget: RANGE_BUDGET,
            blocks,
            succ,
            idom,
            label_index,
            facts: HashMap::new(),
            assumed: HashMap::new(),
        })
    }

    /// The compares known to hold throughout block `block`.
    pub(crate) fn facts(&mut self, block: usize) -> Vec<Fact> {
        if let Some(f) = self.facts.get(&block) {
            return f.clone();
        }
        let mut f = facts_at(
            &self.blocks,
            self.body,
            &self.defs,
            &self.succ,
            &self.idom,
            block,
        );
        // A check the fast copy dropped left `index < len` assumed in its block, which its
        // proof says holds throughout the block: the address computed there may read it.
        let holds = format!("call void @llvm.assume(i1 %{PREFIX}holds.");
        for line in &self.body[self.blocks[block].lines.clone()] {
            if let Some(rest) = line.trim().strip_prefix(&holds) {
                let condition = format!("%{PREFIX}holds.{}", rest.trim_end_matches(')'));
                add_facts(&condition, true, &self.defs, &mut f, 0);
            }
        }
        self.facts.insert(block, f.clone());
        f
    }

    /// The compares that hold at `block` because a branch on a one-bit `phi` led to it: where
    /// the phi has the branch's value only when entered from some blocks, what held at the end
    /// of each of them holds, for compares of [`Analysis::invariant`] values. HotSpot stores
    /// its output under `if computed` after its loop, `computed` being true only from the
    /// loop's body, guarded by `valid_x_min <= tx <= valid_x_max` and the like.
    pub(crate) fn phi_facts(&mut self, block: usize) -> Vec<Fact> {
        let mut out = Vec::new();
        let mut current = block;
        for _ in 0..PHI_WALK {
            if let Some(label) = self.blocks[current].label.clone() {
                let preds: Vec<usize> = (0..self.succ.len())
                    .filter(|&p| self.succ[p].contains(&current))
                    .collect();
                if let [pred] = preds[..]
                    && let Some((condition, taken, not_taken)) =
                        branch_targets(terminator(&self.blocks[pred], self.body))
                    && taken != not_taken
                {
                    let facts = self.facts_of_phi(condition, taken == label);
                    out.extend(facts);
                }
            }
            match self.idom[current] {
                Some(d) if d != current => current = d,
                _ => break,
            }
        }
        out
    }

    /// What `condition == holds` says when `condition` is a one-bit `phi` of constants: the
    /// invariant facts at the end of every block it takes that value from.
    pub(super) fn facts_of_phi(&mut self, condition: &str, holds: bool) -> Vec<Fact> {
        let Some(rest) = self
            .defs
            .get(condition)
            .and_then(|inst| strip_metadata(inst).strip_prefix("phi i1 "))
        else {
            return Vec::new();
        };
        let want = if holds { "true" } else { "false" };
        let mut from = Vec::new();
        for (value, label) in phi_incoming(rest) {
            match value.as_str() {
                v if v == want => from.push(label),
                "true" | "false" => {}
                _ => return Vec::new(),
            }
        }
        let mut common: Option<Vec<Fact>> = None;
        for label in from {
            let Some(&b) = self.label_index.get(&label) else {
                return Vec::new();
            };
            let mut facts = self.facts(b);
            facts.retain(|f| self.invariant(&f.a, 0) && self.invariant(&f.b, 0));
            common = Some(match common {
                None => facts,
                Some(c) => c.into_iter().filter(|f| facts.contains(f)).collect(),
            });
        }
        common.unwrap_or_default()
    }

    /// Whether `value` is the same wherever a thread computes it: a constant, an argument, a
    /// read of the thread's or block's index or size, or a [`pure_operands`] operation on
    /// such values (no `phi`, no load). A compare of such values that held once in a thread
    /// holds throughout it.
    pub(crate) fn invariant(&self, value: &str, depth: usize) -> bool {
        if !value.starts_with('%') {
            return true;
        }
        let Some(inst) = self.defs.get(value) else {
            // Not defined in the body: an argument.
            return true;
        };
        let inst = strip_metadata(inst);
        let register = thread_axis(inst).is_some() || block_register(inst);
        register
            || (depth < PHI_WALK
                && pure_operands(inst)
                    .is_some_and(|ops| ops.iter().all(|o| self.invariant(o, depth + 1))))
    }

    /// The blocks that lie in a loop.
    pub(crate) fn loop_blocks(&self) -> std::collections::HashSet<usize> {
        crate::analysis::dominance::natural_loops(&self.succ, &self.idom)
            .into_iter()
            .flat_map(|(_, blocks)| blocks)
            .collect()
    }

    /// The instruction defining `value` (its text after `=`), when the body defines it.
    pub(crate) fn definition_of(&self, value: &str) -> Option<&'a str> {
        self.defs.get(value).copied()
    }

    /// The range of the `bits`-bit `value` where `facts` hold, as signed values `(lo, hi)`.
    pub(crate) fn signed_range(
        &mut self,
        value: &str,
        bits: u32,
        facts: &[Fact],
    ) -> Option<(i128, i128)> {
        let r = self.range(value, bits, facts, 0).signed(bits);
        Some((r.lo, r.hi))
    }
    /// Whether the compare `value` holds wherever `facts` hold: `Some(true)` or `Some(false)`
    /// when the ranges of its operands decide it, `None` otherwise.
    pub(crate) fn decide(&mut self, value: &str, facts: &[Fact]) -> Option<bool> {
        let inst = strip_metadata(self.defs.get(value)?);
        let rest = strip_words(inst, "icmp", &["samesign"])?;
        let (pred, rest) = rest.split_once(' ')?;
        let (ty, operands) = rest.split_once(' ')?;
        let bits = bits_of(ty)?;
        let (a, b) = operands.split_once(", ")?;
        let x = self.range(a.trim(), bits, facts, 0);
        let y = self.range(b.trim(), bits, facts, 0);
        let (x, y) = if pred.starts_with('s') {
            (x.signed(bits), y.signed(bits))
        } else {
            (x.unsigned(bits), y.unsigned(bits))
        };
        // `holds` when every pair satisfies the predicate, `fails` when none does.
        let (holds, fails) = match pred {
            "ult" | "slt" => (x.hi < y.lo, x.lo >= y.hi),
            "ule" | "sle" => (x.hi <= y.lo, x.lo > y.hi),
            "ugt" | "sgt" => (x.lo > y.hi, x.hi <= y.lo),
            "uge" | "sge" => (x.lo >= y.hi, x.hi < y.lo),
            "eq" => (
                x.lo == x.hi && y.lo == y.hi && x.lo == y.lo,
                x.hi < y.lo || y.hi < x.lo,
            ),
            "ne" => (
                x.hi < y.lo || y.hi < x.lo,
                x.lo == x.hi && y.lo == y.hi && x.lo == y.lo,
            ),
            _ => return None,
        };
        if holds {
            Some(true)
        } else if fails {
            Some(false)
        } else {
            None
        }
    }
    /// `(block, line)` of every line of the fast copies' blocks (labelled with
    /// [`PREFIX`]), the only code the pass changes.
    pub(crate) fn fast_copy_lines(&self) -> Vec<(usize, usize)> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.label.as_deref().is_some_and(|l| l.starts_with(PREFIX)))
            .flat_map(|(i, b)| b.lines.clone().map(move |line| (i, line)))
            .collect()
    }

    /// The index of the block that defines `value`.
    pub(super) fn block_of(&self, value: &str) -> Option<usize> {
        self.def_block.get(value).copied()
    }
}
