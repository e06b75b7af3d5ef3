//! Link-time narrowing of 64-bit integer compares whose operands provably fit in 32 bits.
//!
//! Rust indexes with `usize` and `isize`, so a kernel's guards (`ix >= 0 && ix < width as
//! isize`) are 64-bit compares, two `ISETP`s each on the GPU, where CUDA C's `int` indices
//! compare in one. Rust's semantics forbid computing the indices in 32 bits in general: a
//! `u32` width plus an offset can exceed 2^32. But where the values' ranges are known, a
//! 64-bit compare decides exactly what a 32-bit compare of the low halves decides:
//!
//! - both operands in `[0, 2^32)`: any predicate, unsigned in 32 bits (a signed 64-bit
//!   compare of non-negative values is an unsigned one);
//! - both operands in `[-2^31, 2^31)`: any predicate, unchanged (signed order is kept by
//!   truncation; so is unsigned order, which puts the negatives above the non-negatives in
//!   both widths);
//! - `eq` / `ne` when the difference of the operands lies in `(-2^32, 2^32)`.
//!
//! The ranges come from an interval analysis of the function: constants, `zext`/`sext`,
//! `add`/`sub`/`mul`/`shl`/`and`/`lshr`/`urem`/`udiv`, `select`, the special registers (a
//! thread index is below 1024), loop phis by a fixpoint with widening, and the compares of
//! the branches that dominate the value's use ([`crate::check_versioning::facts_at`]), on
//! a loop's back edge with the latch's own condition. The low halves are then computed in
//! 32 bits (`add`/`sub`/`mul`/`shl`/bitwise operations and phis keep their low 32 bits exact
//! whatever the high bits), each next to the 64-bit value it mirrors; the 64-bit chain stays
//! for addresses and panic reports, and `llc` deletes what only the compares used.
//!
//! In the same copies, an address outside loops whose index lies in `[0, 2^32)` (or `[-2^31,
//! 2^31)`) where it is computed (the checks the copy dropped left `llvm.assume`s of `index <
//! len` behind) is formed from the index's low 32 bits, widened once: one `mul.wide.u32`
//! instead of a 64-bit multiply-add and shift, as CUDA C's `int` index. A small constant added
//! to the index stays the address's offset. Addresses in loops are left to `llc`, which steps a
//! pointer through them.
//!
//! The pass narrows compares in the fast copies of [`crate::check_versioning`], whose entry
//! test bounds the 32-bit arguments the kernel's indices are built from (below 2^30): there a
//! convolution's `iy < height as isize` (with `iy = y + fy - 3`) provably fits, where the
//! original body, run for any `u32` height, does not.

use crate::check_versioning::{
    Fact, PREFIX, add_edge_facts, add_facts, branch_targets, facts_at, immediate_dominators,
    pure_operands,
};
use crate::offset_checks::{
    Block, definition, definitions, split_blocks, strip_metadata, strip_words, terminator,
    trailing_metadata,
};
use std::collections::HashMap;

/// The names of the tests of the block indices at the entry of a fast copy, followed by the
/// axis (`%ferrocuda.assumed.ctaid.x = icmp ult i32 %..., 16384`).
const BLOCK_LIMIT_PREFIX: &str = "%ferrocuda.assumed.ctaid.";

/// Prefix of the 32-bit values the pass adds.
const NARROW_PREFIX: &str = "ferrocuda.narrow.";

/// How deep the analysis follows operands (and facts about them) from a compare.
const MAX_DEPTH: usize = 12;

/// How many ranges one analysis computes at most (each a few operations on memoised
/// operands): a function whose questions need more gets "any value" for the rest.
const RANGE_BUDGET: usize = 200_000;

/// How many dominators [`Analysis::phi_facts`] walks, and how deep
/// [`Analysis::invariant`] follows operands.
const PHI_WALK: usize = 32;

/// Bounds beyond which an interval is given up (well inside `i128`).
const HUGE: i128 = 1 << 100;

/// The module text with its compares narrowed, or `None` when none was.
pub(crate) fn apply(ir: &str) -> Option<String> {
    let mut counter = 0usize;
    let mut out =
        crate::ir_syntax::rewrite_bodies(ir, |_, body| narrow_function(body, &mut counter))?;
    // The 32-bit `min`/`max` intrinsics the mirrors call.
    declare_min_max(&mut out);
    Some(out)
}

/// Adds to the module `out` the declarations of the 32-bit `min`/`max` intrinsics it calls
/// without declaring them.
pub(crate) fn declare_min_max(out: &mut String) {
    for op in MIN_MAX {
        let name = format!("@llvm.{op}.i32(");
        if out.contains(&name) && !out.contains(&format!("declare i32 {name}")) {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("declare i32 {name}i32, i32)\n"));
        }
    }
}

/// The two-operand integer intrinsics whose 32-bit form mirrors the 64-bit one on operands
/// that fit ([`Analysis::narrow_call`]).
const MIN_MAX: [&str; 5] = ["umin", "umax", "smin", "smax", "usub.sat"];

/// A set of integers `{v mod 2^bits : lo <= v <= hi}`: the interval holds representatives,
/// which may be negative (a value's signed reading) or not (its unsigned reading).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Range {
    lo: i128,
    hi: i128,
}

impl Range {
    fn new(lo: i128, hi: i128) -> Self {
        Range { lo, hi }
    }

    /// Every `bits`-bit value.
    fn full(bits: u32) -> Self {
        Range::new(0, (1i128 << bits) - 1)
    }

    fn union(self, other: Range) -> Self {
        Range::new(self.lo.min(other.lo), self.hi.max(other.hi))
    }

    fn contains(self, other: Range) -> bool {
        self.lo <= other.lo && other.hi <= self.hi
    }

    /// The same set as unsigned representatives in `[0, 2^bits)`, or every value when it
    /// wraps around there.
    fn unsigned(self, bits: u32) -> Self {
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
    fn signed(self, bits: u32) -> Self {
        let half = 1i128 << (bits - 1);
        let shifted = Range::new(self.lo + half, self.hi + half).unsigned(bits);
        Range::new(shifted.lo - half, shifted.hi - half)
    }

    /// Whether the 64-bit values are all in `[0, 2^32)` (their low halves, zero-extended).
    fn fits_unsigned32(self) -> bool {
        let u = self.unsigned(64);
        u.lo >= 0 && u.hi < 1i128 << 32
    }

    /// Whether the 64-bit values are all in `[-2^31, 2^31)` (their low halves, sign-extended).
    fn fits_signed32(self) -> bool {
        let s = self.signed(64);
        s.lo >= -(1i128 << 31) && s.hi < 1i128 << 31
    }

    /// Gives up on intervals too wide to mean anything.
    fn bounded(self, bits: u32) -> Self {
        if self.lo < -HUGE || self.hi > HUGE || self.hi - self.lo >= 1i128 << bits {
            Range::full(bits)
        } else {
            self
        }
    }
}

/// The width of an integer type name (`i64` -> 64).
fn bits_of(ty: &str) -> Option<u32> {
    ty.strip_prefix('i')?
        .parse()
        .ok()
        .filter(|&b| (1..=64).contains(&b))
}

/// The value of an integer literal operand.
fn constant(value: &str) -> Option<i128> {
    match value {
        "true" => Some(1),
        "false" => Some(0),
        _ => value.parse().ok(),
    }
}

/// The range analysis of one function body.
pub(crate) struct Analysis<'a> {
    body: &'a [&'a str],
    /// The body's blocks, the entry first.
    pub(crate) blocks: Vec<Block>,
    defs: HashMap<&'a str, &'a str>,
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
    /// their entry ([`crate::check_versioning`]'s assumed block).
    block_limits: HashMap<String, i128>,
    /// The ranges computed, by value, width and [`Analysis::fingerprint`], with the depth
    /// each was computed at.
    memo: HashMap<(String, u32, u64), (usize, Range)>,
    /// How many more ranges the analysis computes before it answers "any value": a bound on
    /// its time on a large module.
    budget: usize,
}

impl<'a> Analysis<'a> {
    /// The analysis of `body` (its lines, as [`crate::ir_syntax::rewrite_bodies`] gives them),
    /// or `None` when its control flow is not modelled ([`crate::cfg`]): no fact is drawn from
    /// a graph that may miss an edge.
    pub(crate) fn new(body: &'a [&'a str]) -> Option<Self> {
        let mut blocks = split_blocks(body);
        if blocks.len() > 1 && blocks[0].lines.is_empty() {
            blocks.remove(0);
        }
        let succ = crate::cfg::successors(&blocks, body)?;
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
    fn facts_of_phi(&mut self, condition: &str, holds: bool) -> Vec<Fact> {
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
        crate::check_versioning::natural_loops(&self.succ, &self.idom)
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

    /// `(intrinsic, a, b)` when the 64-bit `value = call @llvm.<intrinsic>.i64(a, b)` (one of
    /// [`MIN_MAX`]) has operands that fit in 32 bits where it is computed (both in `[0, 2^32)`
    /// for the unsigned ones, both in `[-2^31, 2^31)` for `smin`/`smax`), so that its low half
    /// is the 32-bit intrinsic of the operands' low halves.
    fn narrow_call(&mut self, value: &str, block: usize) -> Option<NarrowCall> {
        let (op, bits, a, b) = binary_intrinsic(strip_metadata(self.defs.get(value)?))?;
        if bits != 64 || !MIN_MAX.contains(&op) {
            return None;
        }
        let facts = self.facts(block);
        let (x, y) = (self.range(a, 64, &facts, 0), self.range(b, 64, &facts, 0));
        // Truncation keeps the signed order of values in `[-2^31, 2^31)` and the unsigned
        // order of values that are all in `[0, 2^32)` or all in `[-2^31, 2^31)` (the negatives
        // above the rest in both widths), as for the compares.
        let both_signed = x.fits_signed32() && y.fits_signed32();
        let fits =
            both_signed || (!op.starts_with('s') && x.fits_unsigned32() && y.fits_unsigned32());
        if !fits {
            return None;
        }
        // `umax(usub.sat(v, c), w)` with `v`, `c` and `w` in `[0, 2^31)` is `smax(v - c, w)`:
        // where `v < c` the saturated 0 and the negative `v - c` both lose to `w >= 0`. One
        // `VIADDMNMX` where the saturating form takes a max, an add and a max (the clamped
        // neighbour `tx.saturating_sub(1).max(valid_x_min)` of HotSpot and PathFinder).
        let nonnegative32 = |r: Range| r.lo >= 0 && r.hi < 1 << 31;
        if op == "umax" {
            for (saturated, other, other_range) in [(a, b, y), (b, a, x)] {
                let Some(("usub.sat", 64, v, c)) = self
                    .defs
                    .get(saturated)
                    .and_then(|d| binary_intrinsic(strip_metadata(d)))
                else {
                    continue;
                };
                let (rv, rc) = (self.range(v, 64, &facts, 0), self.range(c, 64, &facts, 0));
                if [rv, rc, other_range].into_iter().all(nonnegative32) {
                    return Some(NarrowCall {
                        op: "smax".to_string(),
                        a: v.to_string(),
                        minus: Some(c.to_string()),
                        b: other.to_string(),
                    });
                }
            }
        }
        Some(NarrowCall {
            op: op.to_string(),
            a: a.to_string(),
            minus: None,
            b: b.to_string(),
        })
    }

    /// The facts on the edge from block `from` to the block labelled `to`: those of `from`
    /// and its terminator's condition for that edge.
    fn edge_facts(&mut self, from: usize, to: &str) -> Vec<Fact> {
        let mut facts = self.facts(from);
        let term = terminator(&self.blocks[from], self.body);
        add_edge_facts(term, to, &self.defs, &mut facts);
        facts
    }

    /// The range of `value` (of `bits` bits) wherever `facts` hold.
    fn range(&mut self, value: &str, bits: u32, facts: &[Fact], depth: usize) -> Range {
        if let Some(c) = constant(value) {
            return Range::new(c, c);
        }
        if depth > MAX_DEPTH || self.budget == 0 {
            return Range::full(bits);
        }
        self.budget -= 1;
        // The same question asked again (from another compare, another fact, another round
        // of a phi's fixpoint) gets the answer it got, when that was computed at most as deep
        // (so with at least as much depth left): without it the recursion through the facts
        // is exponential in `MAX_DEPTH`.
        let key = (value.to_string(), bits, self.fingerprint(facts));
        if let Some(&(at, r)) = self.memo.get(&key)
            && at <= depth
        {
            return r;
        }
        let r = self.refined(value, bits, facts, depth);
        self.memo.insert(key, (depth, r));
        r
    }

    /// A hash of `facts` and of the phi ranges assumed meanwhile: what a range depends on
    /// besides the value.
    fn fingerprint(&self, facts: &[Fact]) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for f in facts {
            (f.pred, &f.a, &f.b, f.samesign).hash(&mut h);
        }
        let mut assumed: Vec<_> = self.assumed.iter().collect();
        assumed.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (v, r) in assumed {
            (v, r.lo, r.hi).hash(&mut h);
        }
        h.finish()
    }

    /// [`Analysis::range`] computed: the definition's range narrowed by the facts.
    fn refined(&mut self, value: &str, bits: u32, facts: &[Fact], depth: usize) -> Range {
        let mut r = self.defined(value, bits, facts, depth).bounded(bits);
        for f in facts {
            let (pred, other) = if f.a == value {
                (f.pred, f.b.as_str())
            } else if f.b == value {
                (swapped(f.pred), f.a.as_str())
            } else {
                continue;
            };
            let o = self.range(other, bits, facts, depth + 1);
            r = refine(r, pred, o, bits);
        }
        r
    }

    /// The range of `value` from its definition.
    fn defined(&mut self, value: &str, bits: u32, facts: &[Fact], depth: usize) -> Range {
        if let Some(&r) = self.assumed.get(value) {
            return r;
        }
        let Some(&inst) = self.defs.get(value) else {
            return Range::full(bits);
        };
        let inst = strip_metadata(inst);
        let opcode = inst.split(' ').next().unwrap_or("");
        let full = Range::full(bits);
        match opcode {
            "zext" | "sext" | "trunc" => {
                let Some(rest) = strip_words(inst, opcode, &["nneg", "nuw", "nsw"]) else {
                    return full;
                };
                let Some((ty, rest)) = rest.split_once(' ') else {
                    return full;
                };
                let (Some(from), Some(operand)) = (bits_of(ty), rest.split(" to ").next()) else {
                    return full;
                };
                let r = self.range(operand.trim(), from, facts, depth + 1);
                match opcode {
                    "zext" if inst.starts_with("zext nneg ") => {
                        r.unsigned(from).min_hi((1i128 << (from - 1)) - 1)
                    }
                    "zext" => r.unsigned(from),
                    "sext" => r.signed(from),
                    _ => {
                        let (u, s) = (r.unsigned(from), r.signed(from));
                        if Range::full(bits).contains(u) {
                            u
                        } else if s.lo >= -(1i128 << (bits - 1)) && s.hi < 1i128 << (bits - 1) {
                            s
                        } else {
                            full
                        }
                    }
                }
            }
            "add" | "sub" | "mul" | "shl" | "and" | "or" | "xor" | "lshr" | "udiv" | "urem" => {
                let Some(rest) = strip_words(inst, opcode, &["nuw", "nsw", "disjoint", "exact"])
                else {
                    return full;
                };
                let Some((a, b)) = rest
                    .split_once(' ')
                    .and_then(|(_, ops)| ops.split_once(", "))
                else {
                    return full;
                };
                let x = self.range(a.trim(), bits, facts, depth + 1);
                let y = self.range(b.trim(), bits, facts, depth + 1);
                let disjoint = inst.starts_with("or disjoint ");
                let flags = inst.split(" i").next().unwrap_or("");
                if opcode == "add" && flags.contains(" nuw") {
                    // No unsigned wrap (a wrapped sum is poison): the sum of the unsigned
                    // readings, which a wrap could only have taken below its low end.
                    let (xu, yu) = (x.unsigned(bits), y.unsigned(bits));
                    let hi = (xu.hi + yu.hi).min(full.hi);
                    return Range::new((xu.lo + yu.lo).min(hi), hi);
                }
                arithmetic(opcode, disjoint, x, y, bits)
            }
            "select" => {
                let parts: Vec<&str> = inst["select ".len()..].split(", ").collect();
                let [condition, a, b] = parts[..] else {
                    return full;
                };
                let operand = |s: &str| s.split_once(' ').map(|(_, v)| v.trim().to_string());
                let (Some(condition), Some(a), Some(b)) =
                    (operand(condition), operand(a), operand(b))
                else {
                    return full;
                };
                // Each arm where it is chosen: `select (x < 0), -x, 0` is not negative.
                let chosen = |holds: bool| {
                    let mut facts = facts.to_vec();
                    add_facts(&condition, holds, &self.defs, &mut facts, 0);
                    facts
                };
                let (if_true, if_false) = (chosen(true), chosen(false));
                let x = self.range(&a, bits, &if_true, depth + 1);
                let y = self.range(&b, bits, &if_false, depth + 1);
                x.union(y)
            }
            "icmp" => self.truth(value, facts),
            "phi" => {
                let own = self.phi(value, inst, bits, depth);
                let Some((leader, step)) = self.lagging(value, inst) else {
                    return own;
                };
                // `value` is `leader - step` in every iteration: read it from the leader's
                // range where `facts` hold, which the facts about the leader narrow.
                let led = self.range(&leader, bits, facts, depth + 1);
                let lag = arithmetic("sub", false, led, Range::new(step, step), bits);
                if lag.hi - lag.lo < own.hi - own.lo {
                    lag
                } else {
                    own
                }
            }
            "call" | "tail" => {
                let Some(r) = special_register(inst) else {
                    return self.min_max(inst, bits, facts, depth).unwrap_or(full);
                };
                // In a fast copy, a block index below the limit its entry tested.
                let register = inst.split("sreg.").nth(1).and_then(|r| r.split('(').next());
                match register.and_then(|r| self.block_limits.get(r)) {
                    Some(&limit) if value.starts_with(&format!("%{PREFIX}")) => r.min_hi(limit - 1),
                    _ => r,
                }
            }
            _ => full,
        }
    }

    /// The range of a call of `llvm.umin`, `umax`, `smin`, `smax`, `usub.sat` or `uadd.sat`
    /// (what `min`, `max` and `saturating_sub` compile to), when `inst` is one.
    fn min_max(&mut self, inst: &str, bits: u32, facts: &[Fact], depth: usize) -> Option<Range> {
        let (op, width, a, b) = binary_intrinsic(inst)?;
        if width != bits {
            return None;
        }
        let x = self.range(a, bits, facts, depth + 1);
        let y = self.range(b, bits, facts, depth + 1);
        let (xu, yu) = (x.unsigned(bits), y.unsigned(bits));
        let (xs, ys) = (x.signed(bits), y.signed(bits));
        let top = Range::full(bits).hi;
        Some(match op {
            "umin" => Range::new(xu.lo.min(yu.lo), xu.hi.min(yu.hi)),
            "umax" => Range::new(xu.lo.max(yu.lo), xu.hi.max(yu.hi)),
            "smin" => Range::new(xs.lo.min(ys.lo), xs.hi.min(ys.hi)),
            "smax" => Range::new(xs.lo.max(ys.lo), xs.hi.max(ys.hi)),
            "usub.sat" => Range::new((xu.lo - yu.hi).max(0), (xu.hi - yu.lo).max(0)),
            "uadd.sat" => Range::new((xu.lo + yu.lo).min(top), (xu.hi + yu.hi).min(top)),
            _ => return None,
        })
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

    /// How an address's 64-bit `index` can be computed in 32 bits where `facts` hold:
    /// `(base, offset, extension)` with `index = base + offset` (a constant `offset`, 0 when
    /// there is none) and `base` equal to the `zext` (or `sext`) of its low 32 bits. `None`
    /// when the index is already a widened 32-bit value, or may not fit.
    fn narrow_index(
        &mut self,
        index: &str,
        facts: &[Fact],
    ) -> Option<(String, i128, &'static str)> {
        let inst = strip_metadata(self.defs.get(index)?);
        let peeled = strip_words(inst, "add", &["nuw", "nsw"])
            .and_then(|r| r.strip_prefix("i64 "))
            .and_then(|r| r.split_once(", "))
            .and_then(|(a, b)| Some((a.trim(), constant(b.trim())?)))
            .filter(|&(_, c)| c.abs() < 1 << 16);
        let (base, offset) = peeled.unwrap_or((index, 0));
        let widened = |v: &str| {
            self.defs.get(v).is_some_and(|d| {
                (d.starts_with("zext ") || d.starts_with("sext ")) && d.contains(" i32 ")
            })
        };
        if widened(base) {
            return None;
        }
        let base = base.to_string();
        let r = self.range(&base, 64, facts, 0);
        let extension = if r.fits_unsigned32() {
            "zext"
        } else if r.fits_signed32() {
            "sext"
        } else {
            return None;
        };
        Some((base, offset, extension))
    }

    /// How [`Analysis::narrow_index`] computes the `index` of the address `address` where the
    /// address is used rather than where it is computed: when every use is a load or store
    /// through it (or through an address computed from it), and the facts of each use's block
    /// make the index fit, the same way. Where the index does not fit, the 32-bit address
    /// differs, but no memory access reads it there. HotSpot's clamped neighbours are computed
    /// before its loop and fit only inside the loop's `if`, whose condition bounds the clamp.
    fn narrow_at_uses(
        &mut self,
        address: &str,
        index: &str,
    ) -> Option<(String, i128, &'static str)> {
        let mut blocks = Vec::new();
        let mut pending = vec![address.to_string()];
        while let Some(pointer) = pending.pop() {
            for (line, inst) in self.uses(&pointer) {
                let through = |prefix: &str| {
                    inst.strip_prefix(prefix).is_some_and(|rest| {
                        crate::ir_syntax::split_top_level(strip_metadata(rest))
                            .iter()
                            .position(|p| p.trim() == format!("ptr {pointer}"))
                            == Some(1)
                    })
                };
                let derived = definition(self.body[line])
                    .filter(|(_, d)| d.starts_with("getelementptr ") && through("getelementptr "));
                if let Some((name, _)) = derived {
                    pending.push(name.to_string());
                } else if through("load ") || through("store ") {
                    blocks.push(*self.line_block.get(&line)?);
                } else {
                    return None;
                }
            }
        }
        let mut found: Option<(String, i128, &'static str)> = None;
        blocks.sort_unstable();
        blocks.dedup();
        for block in blocks {
            let facts = self.facts(block);
            let here = self.narrow_index(index, &facts)?;
            if found.as_ref().is_some_and(|f| *f != here) {
                return None;
            }
            found = Some(here);
        }
        found
    }

    /// `(line, instruction)` of each instruction of the body that names `value` as an operand.
    fn uses(&self, value: &str) -> Vec<(usize, &'a str)> {
        let mut out = Vec::new();
        for (i, line) in self.body.iter().enumerate() {
            let inst = match definition(line) {
                Some((name, _)) if name == value => continue,
                Some((_, inst)) => inst,
                None => line.trim(),
            };
            let named = inst.match_indices(value).any(|(at, _)| {
                !inst[at + value.len()..]
                    .starts_with(|c: char| c.is_alphanumeric() || c == '.' || c == '_')
            });
            if named {
                out.push((i, inst));
            }
        }
        out
    }

    /// `[1, 1]` when the facts say the compare `value` holds, `[0, 0]` when they say it
    /// fails, `[0, 1]` otherwise.
    fn truth(&mut self, value: &str, facts: &[Fact]) -> Range {
        let mut holds = Vec::new();
        add_facts(value, true, &self.defs, &mut holds, 0);
        let mut fails = Vec::new();
        add_facts(value, false, &self.defs, &mut fails, 0);
        let known = |list: &[Fact]| {
            let [f] = list else { return false };
            facts
                .iter()
                .any(|g| g.pred == f.pred && g.a == f.a && g.b == f.b)
        };
        if known(&holds) {
            Range::new(1, 1)
        } else if known(&fails) {
            Range::new(0, 0)
        } else {
            Range::new(0, 1)
        }
    }

    /// The range of a phi: the union of its incoming values, each on its edge, iterated to
    /// a fixpoint (widened to every value after a few rounds, then narrowed once).
    fn phi(&mut self, value: &str, inst: &str, bits: u32, depth: usize) -> Range {
        let incoming = phi_incoming(inst);
        if incoming.is_empty() {
            return Range::full(bits);
        }
        let edges: Vec<(String, Vec<Fact>)> = incoming
            .iter()
            .filter_map(|(v, label)| {
                let from = *self.label_index.get(label.as_str())?;
                let to = self.block_of(value)?;
                let to_label = self.blocks[to].label.clone()?;
                Some((v.clone(), self.edge_facts(from, &to_label)))
            })
            .collect();
        if edges.len() != incoming.len() {
            return Range::full(bits);
        }
        if let Some(r) = self.counted(value, &edges, bits, depth) {
            return r;
        }
        let step = |this: &mut Self, assumed: Range| {
            this.assumed.insert(value.to_string(), assumed);
            let mut r: Option<Range> = None;
            for (v, facts) in &edges {
                let x = this.range(v, bits, facts, depth + 1);
                r = Some(r.map_or(x, |r| r.union(x)));
            }
            this.assumed.remove(value);
            r.unwrap_or(Range::full(bits)).bounded(bits)
        };
        // Start from the constants among the incoming values (the loop's start).
        let mut current = incoming
            .iter()
            .filter_map(|(v, _)| constant(v))
            .map(|c| Range::new(c, c))
            .reduce(Range::union)
            .unwrap_or(Range::full(bits));
        for _ in 0..4 {
            let next = step(self, current);
            if current.contains(next) {
                return next;
            }
            current = current.union(next);
        }
        // Widen: the bounds still moving go to the ends of the unsigned range.
        let full = Range::full(bits);
        let widened = Range::new(current.lo.max(0).min(full.hi), full.hi);
        let next = step(self, widened);
        if widened.contains(next) { next } else { full }
    }

    /// The range of a loop counter `value = phi [c, %entry], [value + 1, %latch]` whose back
    /// edge is taken only while `value != n` (or `value < n`) for a loop-invariant `n` at least
    /// `c`: `[c, max n]`. By induction `value <= n` on each entry of the header: on the back
    /// edge `value != n` with `value <= n` means `value + 1 <= n`. That is the shape of `for i in
    /// 0..n` once LLVM rotates it (`i + 1 == n` leaves), which a fixpoint over intervals cannot
    /// bound, as `n` may be any value of its range.
    fn counted(
        &mut self,
        value: &str,
        edges: &[(String, Vec<Fact>)],
        bits: u32,
        depth: usize,
    ) -> Option<Range> {
        let ((start, entry_facts), (next, back_facts)) = start_and_back(edges)?;
        if self.added_constant(next)? != (value, 1) {
            return None;
        }
        let header = self.block_of(value)?;
        let invariant = |this: &Self, n: &str| match this.block_of(n) {
            // Defined in a block that strictly dominates the header.
            Some(b) => b != header && crate::check_versioning::dominates(&this.idom, b, header),
            // An argument or a constant.
            None => true,
        };
        let bound = back_facts.iter().find_map(|f| {
            let n = match f.pred {
                "ne" | "ult" if f.a == value => &f.b,
                "ne" | "ugt" if f.b == value => &f.a,
                _ => return None,
            };
            invariant(self, n).then(|| n.clone())
        })?;
        let n = self
            .range(&bound, bits, entry_facts, depth + 1)
            .unsigned(bits);
        (start >= 0 && start <= n.lo).then(|| Range::new(start, n.hi.max(start)))
    }

    /// `(leader, step)` when the phi `value` always holds `leader - step`: `value = phi [c,
    /// %entry], [leader, %latch]` and `leader = phi [c + step, %entry], [leader + step,
    /// %latch]` in the same block, the two counters of a rotated loop (`i` and `i + 1`). It
    /// holds on entry, and each back edge gives `value` the leader's old value and the leader
    /// that plus `step` (modulo 2^bits, as the ranges are read).
    fn lagging(&self, value: &str, inst: &str) -> Option<(String, i128)> {
        let incoming = phi_incoming(inst);
        let ((start, entry), (leader, latch)) = start_and_back(&incoming)?;
        let led = strip_metadata(self.defs.get(leader.as_str())?);
        if !led.starts_with("phi ") || self.block_of(leader) != self.block_of(value) {
            return None;
        }
        let mut leader_start = None;
        let mut next = None;
        for (v, label) in phi_incoming(led) {
            if &label == entry {
                leader_start = constant(&v);
            } else if &label == latch {
                next = Some(v);
            } else {
                return None;
            }
        }
        let (counter, step) = self.added_constant(&next?)?;
        (counter == leader && leader_start? - start == step).then(|| (leader.clone(), step))
    }

    /// `(x, c)` when `value = add x, c` (either operand order, any flags) with a constant `c`.
    fn added_constant(&self, value: &str) -> Option<(&str, i128)> {
        let inst = strip_metadata(self.defs.get(value)?);
        let (_, operands) = strip_words(inst, "add", &["nuw", "nsw"])?.split_once(' ')?;
        let (x, y) = operands.split_once(", ")?;
        let (x, y) = (x.trim(), y.trim());
        match (constant(x), constant(y)) {
            (None, Some(c)) => Some((x, c)),
            (Some(c), None) => Some((y, c)),
            _ => None,
        }
    }

    /// `(block, line)` of every line of the fast copies' blocks (labelled with
    /// [`PREFIX`]), the only code the pass changes.
    fn fast_copy_lines(&self) -> Vec<(usize, usize)> {
        self.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.label.as_deref().is_some_and(|l| l.starts_with(PREFIX)))
            .flat_map(|(i, b)| b.lines.clone().map(move |line| (i, line)))
            .collect()
    }

    /// The index of the block that defines `value`.
    fn block_of(&self, value: &str) -> Option<usize> {
        self.def_block.get(value).copied()
    }
}

impl Range {
    fn min_hi(self, hi: i128) -> Self {
        if self.hi > hi && self.lo <= hi {
            Range::new(self.lo, hi)
        } else {
            self
        }
    }
}

/// The predicate with its operands swapped (`a < b` is `b > a`).
fn swapped(pred: &'static str) -> &'static str {
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
fn refine(r: Range, pred: &str, o: Range, bits: u32) -> Range {
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
fn arithmetic(opcode: &str, disjoint: bool, x: Range, y: Range, bits: u32) -> Range {
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

/// `((start, its edge), (value, its edge))` of [`start_and_back`].
type LoopEntries<'a, T> = ((i128, &'a T), (&'a String, &'a T));

/// The two incoming entries of a loop phi, `(value, edge)` each, split into the constant it
/// starts with and the value its back edge brings: `((start, its edge), (value, its edge))`.
fn start_and_back<T>(entries: &[(String, T)]) -> Option<LoopEntries<'_, T>> {
    let [(first, first_edge), (second, second_edge)] = entries else {
        return None;
    };
    match (constant(first), constant(second)) {
        (Some(c), None) => Some(((c, first_edge), (second, second_edge))),
        (None, Some(c)) => Some(((c, second_edge), (first, first_edge))),
        _ => None,
    }
}

/// `(name, width, a, b)` of a call of a two-operand LLVM intrinsic, `call iN @llvm.<name>.iN(iN
/// a, iN b)` (`umin`, `usub.sat`, ...).
fn binary_intrinsic(inst: &str) -> Option<(&str, u32, &str, &str)> {
    let call = inst.split_once("@llvm.")?.1;
    let open = call.find('(')?;
    let close = open + crate::ir_syntax::matching_paren(&call[open..])?;
    let (name, ty) = call[..open].rsplit_once('.')?;
    let operands: Vec<&str> = crate::ir_syntax::split_top_level(&call[open + 1..close])
        .into_iter()
        .map(|a| a.trim().rsplit(' ').next().unwrap_or(""))
        .collect();
    let [a, b] = operands[..] else {
        return None;
    };
    Some((name, bits_of(ty)?, a, b))
}

/// The range of a special-register read (`llvm.nvvm.read.ptx.sreg.*`) or of a `umin`/`umax`
/// of constants, when `inst` is one.
fn special_register(inst: &str) -> Option<Range> {
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

/// Whether `inst` reads a special register that is the same for every thread of a block
/// (`ctaid`, `ntid`, `nctaid`).
pub(crate) fn block_register(inst: &str) -> bool {
    let Some(name) = inst
        .split("@llvm.nvvm.read.ptx.sreg.")
        .nth(1)
        .and_then(|r| r.split('(').next())
    else {
        return false;
    };
    (inst.starts_with("call ") || inst.starts_with("tail call "))
        && ["ctaid.", "ntid.", "nctaid."].iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|a| ["x", "y", "z"].contains(&a))
        })
}

/// The axis (`x`, `y`, `z`) of a thread-index read.
pub(crate) fn thread_axis(inst: &str) -> Option<&str> {
    let inst = strip_metadata(inst);
    if !(inst.starts_with("call ") || inst.starts_with("tail call ")) {
        return None;
    }
    let axis = inst
        .split("@llvm.nvvm.read.ptx.sreg.tid.")
        .nth(1)?
        .strip_suffix("()")?;
    ["x", "y", "z"].contains(&axis).then_some(axis)
}

/// `(value, predecessor label)` of each incoming entry of a phi.
fn phi_incoming(inst: &str) -> Vec<(String, String)> {
    inst.split('[')
        .skip(1)
        .filter_map(|entry| {
            let entry = entry.split(']').next()?;
            let (v, label) = entry.split_once(", ")?;
            Some((
                v.trim().to_string(),
                label.trim().strip_prefix('%')?.to_string(),
            ))
        })
        .collect()
}

/// The narrowed predicate for `pred` over operands in ranges `a` and `b` (64-bit), if any.
fn narrowed_predicate(pred: &str, a: Range, b: Range) -> Option<&str> {
    let (au, bu) = (a.unsigned(64), b.unsigned(64));
    let (as_, bs) = (a.signed(64), b.signed(64));
    let both_u = a.fits_unsigned32() && b.fits_unsigned32();
    let both_s = a.fits_signed32() && b.fits_signed32();
    match pred {
        "eq" | "ne" => {
            let close =
                |x: Range, y: Range| x.lo - y.hi > -(1i128 << 32) && x.hi - y.lo < 1i128 << 32;
            (both_u || both_s || close(au, bu) || close(as_, bs)).then_some(pred)
        }
        "ult" | "ule" | "ugt" | "uge" => (both_u || both_s).then_some(pred),
        "slt" | "sle" | "sgt" | "sge" => {
            if both_s {
                Some(pred)
            } else if both_u {
                Some(match pred {
                    "slt" => "ult",
                    "sle" => "ule",
                    "sgt" => "ugt",
                    _ => "uge",
                })
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A compare to narrow: its line, its new predicate, its operands.
struct Narrowing {
    line: usize,
    pred: &'static str,
    a: String,
    b: String,
}

/// The function body with its provably narrow compares in 32 bits, or `None`.
fn narrow_function(body: &[&str], counter: &mut usize) -> Option<String> {
    let mut analysis = Analysis::new(body)?;
    let (narrowings, addresses) = plan(&mut analysis, body)?;
    emit(&mut analysis, body, &narrowings, &addresses, counter)
}

/// How many compares and addresses of the fast copy in the function body `body` (its text)
/// the pass makes 32-bit.
pub(crate) fn narrowed(body: &str) -> usize {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let Some(mut analysis) = Analysis::new(&lines) else {
        return 0;
    };
    plan(&mut analysis, &lines).map_or(0, |(n, a)| n.len() + a.len())
}

/// An address to form from a 32-bit index: its line, the `getelementptr`, and
/// `(base, offset, extension)` as [`Analysis::narrow_index`] gives them.
type Address = (usize, Gep, (String, i128, &'static str));

/// The compares and addresses of the fast copies in `body` that fit in 32 bits, or `None`.
fn plan(analysis: &mut Analysis, body: &[&str]) -> Option<(Vec<Narrowing>, Vec<Address>)> {
    let holds = format!("%{PREFIX}holds.");
    let mut narrowings = Vec::new();
    let mut addresses = Vec::new();
    // Addresses in loops stay 64-bit: there `llc` turns them into pointers stepped by a
    // constant, which a 32-bit index would turn back into a `mul.wide` per iteration (the
    // convolution's row loop ran 0.27 -> 0.43 ms on the H100 with its taps' indices narrowed).
    let in_loops = analysis.loop_blocks();
    for (index, line) in analysis.fast_copy_lines() {
        let Some((_, inst)) = definition(body[line]) else {
            continue;
        };
        if let Some(gep) = Gep::parse(inst) {
            if in_loops.contains(&index) {
                continue;
            }
            let facts = analysis.facts(index);
            let widen = analysis
                .narrow_index(&gep.index, &facts)
                .or_else(|| analysis.narrow_at_uses(definition(body[line])?.0, &gep.index));
            if let Some(widen) = widen {
                addresses.push((line, gep, widen));
            }
            continue;
        }
        let Some(rest) = strip_words(inst, "icmp", &["samesign"]) else {
            continue;
        };
        if definition(body[line]).is_some_and(|(name, _)| name.starts_with(&holds)) {
            // What a dropped check established: only an assumption reads it.
            continue;
        }
        let Some((pred, rest)) = rest.split_once(' ') else {
            continue;
        };
        let Some(operands) = strip_metadata(rest).strip_prefix("i64 ") else {
            continue;
        };
        let Some((a, b)) = operands.split_once(", ") else {
            continue;
        };
        let (a, b) = (a.trim(), b.trim());
        let facts = analysis.facts(index);
        let ra = analysis.range(a, 64, &facts, 0);
        let rb = analysis.range(b, 64, &facts, 0);
        if let Some(new) = narrowed_predicate(pred, ra, rb) {
            narrowings.push(Narrowing {
                line,
                pred: crate::check_versioning::canonical(new)?,
                a: a.to_string(),
                b: b.to_string(),
            });
        }
    }
    if narrowings.is_empty() && addresses.is_empty() {
        return None;
    }
    Some((narrowings, addresses))
}

/// The `min`/`max` calls of the fast copies whose low halves [`Analysis::narrow_call`]
/// computes in 32 bits.
fn narrow_calls(analysis: &mut Analysis, body: &[&str]) -> HashMap<String, NarrowCall> {
    let mut calls = HashMap::new();
    for (index, line) in analysis.fast_copy_lines() {
        let Some((name, inst)) = definition(body[line]) else {
            continue;
        };
        if !inst.contains(" i64 @llvm.") {
            continue;
        }
        if let Some(call) = analysis.narrow_call(name, index) {
            calls.insert(name.to_string(), call);
        }
    }
    calls
}

/// The body with the planned compares and addresses in 32 bits.
fn emit(
    analysis: &mut Analysis,
    body: &[&str],
    narrowings: &[Narrowing],
    addresses: &[Address],
    counter: &mut usize,
) -> Option<String> {
    let calls = narrow_calls(analysis, body);
    let mut emitter = Emitter {
        calls,
        lines: body
            .iter()
            .enumerate()
            .filter_map(|(i, l)| Some((definition(l)?.0, i)))
            .collect(),
        defs: &analysis.defs,
        low: HashMap::new(),
        after: HashMap::new(),
        at_entry: Vec::new(),
        counter,
    };
    let mut replaced: HashMap<usize, String> = HashMap::new();
    for n in narrowings {
        let a = emitter.low(&n.a, 0);
        let b = emitter.low(&n.b, 0);
        let (name, _) = definition(body[n.line])?;
        let indent = &body[n.line][..body[n.line].len() - body[n.line].trim_start().len()];
        replaced.insert(
            n.line,
            format!(
                "{indent}{name} = icmp {} i32 {a}, {b}{}\n",
                n.pred,
                trailing_metadata(body[n.line])
            ),
        );
    }
    for (line, gep, (base, offset, widen)) in addresses {
        let low = emitter.low(base, 0);
        let (name, _) = definition(body[*line])?;
        let wide = emitter.fresh();
        let mut text = format!("  {wide} = {widen} i32 {low} to i64\n");
        let tail = trailing_metadata(body[*line]);
        if *offset == 0 {
            text.push_str(&format!(
                "  {name} = getelementptr {}{}, ptr {}, i64 {wide}{tail}\n",
                gep.flags, gep.ty, gep.pointer
            ));
        } else {
            // `p + (x + c)` as `(p + x) + c`: the constant stays an offset of the address.
            let at = emitter.fresh();
            text.push_str(&format!(
                "  {at} = getelementptr {}, ptr {}, i64 {wide}\n  {name} = getelementptr {}, ptr {at}, i64 {offset}{tail}\n",
                gep.ty, gep.pointer, gep.ty
            ));
        }
        replaced.insert(*line, text);
    }
    let entry_first = analysis.blocks[0]
        .lines
        .clone()
        .find(|&i| {
            definition(body[i]).is_none_or(|(_, inst)| !inst.starts_with("alloca "))
                && crate::ir_syntax::block_label(body[i]).is_none()
        })
        .unwrap_or(0);
    let mut out = String::new();
    for (i, line) in body.iter().enumerate() {
        if i == entry_first {
            emitter.at_entry.iter().for_each(|l| out.push_str(l));
        }
        match replaced.get(&i) {
            Some(text) => out.push_str(text),
            None => out.push_str(line),
        }
        if let Some(extra) = emitter.after.get(&i) {
            extra.iter().for_each(|l| out.push_str(l));
        }
    }
    Some(out)
}

/// A `getelementptr` with one 64-bit index: `getelementptr FLAGS TY, ptr POINTER, i64 INDEX`.
struct Gep {
    /// `inbounds `, `inbounds nuw ` or the like (with its trailing space), or empty.
    flags: String,
    ty: String,
    pointer: String,
    index: String,
}

impl Gep {
    fn parse(inst: &str) -> Option<Gep> {
        let rest = strip_metadata(inst.strip_prefix("getelementptr ")?);
        let mut flags = String::new();
        let mut rest = rest;
        while let Some((word, after)) = rest.split_once(' ') {
            if !["inbounds", "nuw", "nusw"].contains(&word) {
                break;
            }
            flags.push_str(word);
            flags.push(' ');
            rest = after;
        }
        let parts = crate::ir_syntax::split_top_level(rest);
        let [ty, pointer, index] = parts[..] else {
            return None;
        };
        Some(Gep {
            flags,
            ty: ty.to_string(),
            pointer: pointer.strip_prefix("ptr ")?.to_string(),
            index: index.strip_prefix("i64 ")?.trim().to_string(),
        })
    }
}

/// Writes the 32-bit mirrors of 64-bit values.
struct Emitter<'a, 'c> {
    /// The line index of each defined value.
    lines: HashMap<&'a str, usize>,
    defs: &'a HashMap<&'a str, &'a str>,
    /// The 32-bit operand text of each mirrored value.
    low: HashMap<String, String>,
    /// Lines to add after each body line.
    after: HashMap<usize, Vec<String>>,
    /// Lines to add at the top of the entry block (truncations of arguments).
    at_entry: Vec<String>,
    counter: &'c mut usize,
    /// The `min`/`max` calls computed in 32 bits, by name.
    calls: HashMap<String, NarrowCall>,
}

/// A 64-bit `min`/`max` call whose low half is the 32-bit intrinsic `op` of the low halves of
/// `a` (less `minus`, when given) and `b` ([`Analysis::narrow_call`]).
#[derive(Clone)]
struct NarrowCall {
    op: String,
    a: String,
    minus: Option<String>,
    b: String,
}

impl Emitter<'_, '_> {
    fn fresh(&mut self) -> String {
        *self.counter += 1;
        format!("%{NARROW_PREFIX}{}", *self.counter)
    }

    /// The line index that defines `value`.
    fn line_of(&self, value: &str) -> Option<usize> {
        self.lines.get(value).copied()
    }

    /// The low 32 bits of the 64-bit `value`, as an `i32` operand.
    fn low(&mut self, value: &str, depth: usize) -> String {
        if let Some(c) = constant(value) {
            return ((c as i64) as i32).to_string();
        }
        if let Some(l) = self.low.get(value) {
            return l.clone();
        }
        let Some(line) = self.line_of(value) else {
            // An argument: truncated at the top of the entry block.
            let name = self.fresh();
            self.at_entry
                .push(format!("  {name} = trunc i64 {value} to i32\n"));
            self.low.insert(value.to_string(), name.clone());
            return name;
        };
        let inst = strip_metadata(self.defs.get(value).copied().unwrap_or(""));
        let opcode = inst.split(' ').next().unwrap_or("");
        let text = match opcode {
            "zext" | "sext" if depth < MAX_DEPTH => {
                let rest = strip_words(inst, opcode, &["nneg"]).unwrap_or("");
                let (ty, rest) = rest.split_once(' ').unwrap_or(("", ""));
                let operand = rest.split(" to ").next().unwrap_or("").trim();
                match bits_of(ty) {
                    Some(32) => {
                        self.low.insert(value.to_string(), operand.to_string());
                        return operand.to_string();
                    }
                    Some(b) if b < 32 => format!("{opcode} {ty} {operand} to i32"),
                    _ => format!("trunc i64 {value} to i32"),
                }
            }
            "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" if depth < MAX_DEPTH => {
                let rest = strip_words(inst, opcode, &["nuw", "nsw", "disjoint"]).unwrap_or("");
                let operands = rest.strip_prefix("i64 ").and_then(|r| r.split_once(", "));
                match operands {
                    Some((a, b))
                        if opcode != "shl" || constant(b.trim()).is_some_and(|s| s < 32) =>
                    {
                        let a = self.low(a.trim(), depth + 1);
                        let b = self.low(b.trim(), depth + 1);
                        format!("{opcode} i32 {a}, {b}")
                    }
                    _ => format!("trunc i64 {value} to i32"),
                }
            }
            "select" if depth < MAX_DEPTH => {
                let parts: Vec<&str> = inst["select ".len()..].split(", ").collect();
                match parts[..] {
                    [c, a, b] if a.starts_with("i64 ") && b.starts_with("i64 ") => {
                        let a = self.low(a[4..].trim(), depth + 1);
                        let b = self.low(b[4..].trim(), depth + 1);
                        format!("select {c}, i32 {a}, i32 {b}")
                    }
                    _ => format!("trunc i64 {value} to i32"),
                }
            }
            "call" | "tail" if depth < MAX_DEPTH && self.calls.contains_key(value) => {
                let NarrowCall { op, a, minus, b } = self.calls[value].clone();
                let mut a = self.low(&a, depth + 1);
                if let Some(minus) = minus {
                    let minus = self.low(&minus, depth + 1);
                    let difference = self.fresh();
                    self.after
                        .entry(line)
                        .or_default()
                        .push(format!("  {difference} = sub i32 {a}, {minus}\n"));
                    a = difference;
                }
                let b = self.low(&b, depth + 1);
                format!("call i32 @llvm.{op}.i32(i32 {a}, i32 {b})")
            }
            // A phi is mirrored by a phi at any depth (a `trunc` after it could split the
            // block's phis); it is named before its incoming values, which may use it.
            "phi" => {
                let name = self.fresh();
                self.low.insert(value.to_string(), name.clone());
                let entries: Vec<String> = phi_incoming(inst)
                    .into_iter()
                    .map(|(v, label)| format!("[ {}, %{label} ]", self.low(&v, depth + 1)))
                    .collect();
                self.after
                    .entry(line)
                    .or_default()
                    .push(format!("  {name} = phi i32 {}\n", entries.join(", ")));
                return name;
            }
            _ => format!("trunc i64 {value} to i32"),
        };
        if let Some(l) = self.low.get(value) {
            // Mirrored meanwhile, through a phi among its operands.
            return l.clone();
        }
        let name = self.fresh();
        self.after
            .entry(line)
            .or_default()
            .push(format!("  {name} = {text}\n"));
        self.low.insert(value.to_string(), name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compare `pred` of two values given as their signed and unsigned readings.
    fn compare<S: Ord, U: Ord>(pred: &str, (sa, ua): (S, U), (sb, ub): (S, U)) -> bool {
        match pred {
            "eq" => ua == ub,
            "ne" => ua != ub,
            "ult" => ua < ub,
            "ule" => ua <= ub,
            "ugt" => ua > ub,
            "uge" => ua >= ub,
            "slt" => sa < sb,
            "sle" => sa <= sb,
            "sgt" => sa > sb,
            _ => sa >= sb,
        }
    }

    /// The 64-bit compare `pred` of `a` and `b`.
    fn compare64(pred: &str, a: i64, b: i64) -> bool {
        compare(pred, (a, a as u64), (b, b as u64))
    }

    /// The 32-bit compare `pred` of the low halves of `a` and `b`.
    fn compare32(pred: &str, a: i64, b: i64) -> bool {
        let (a, b) = (a as i32, b as i32);
        compare(pred, (a, a as u32), (b, b as u32))
    }

    const PREDICATES: [&str; 10] = [
        "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
    ];

    #[test]
    fn a_narrowed_compare_decides_what_the_wide_one_did() {
        // Ranges around every boundary the rules use, and values at and next to their ends.
        let edges = [
            -(1i128 << 40),
            -(1i128 << 32),
            -(1i128 << 31) - 1,
            -(1i128 << 31),
            -3,
            0,
            5,
            (1 << 31) - 1,
            1 << 31,
            (1 << 32) - 1,
            1 << 32,
            1 << 40,
        ];
        let mut ranges = Vec::new();
        for &lo in &edges {
            for &hi in &edges {
                if lo <= hi {
                    ranges.push(Range::new(lo, hi));
                }
            }
        }
        let samples = |r: Range| {
            let mut v = vec![
                r.lo,
                r.hi,
                r.lo + (r.hi - r.lo) / 2,
                r.lo + (r.hi - r.lo) / 3,
            ];
            for &e in &edges {
                for d in [-1, 0, 1] {
                    if (r.lo..=r.hi).contains(&(e + d)) {
                        v.push(e + d);
                    }
                }
            }
            v
        };
        let mut narrowed = 0;
        for &ra in &ranges {
            for &rb in &ranges {
                for pred in PREDICATES {
                    let Some(new) = narrowed_predicate(pred, ra, rb) else {
                        continue;
                    };
                    narrowed += 1;
                    for a in samples(ra) {
                        for b in samples(rb) {
                            let (a, b) = (a as i64, b as i64);
                            assert_eq!(
                                compare64(pred, a, b),
                                compare32(new, a, b),
                                "{pred} -> {new}, a = {a} in {ra:?}, b = {b} in {rb:?}"
                            );
                        }
                    }
                }
            }
        }
        // The rules narrow something (and refuse mixed ranges).
        assert!(narrowed > 1000, "{narrowed}");
        let wide = Range::new(0, 1 << 32);
        assert_eq!(narrowed_predicate("ult", wide, Range::new(0, 10)), None);
        let mixed = (Range::new(-3, 10), Range::new((1 << 31) + 1, (1 << 31) + 2));
        assert_eq!(narrowed_predicate("slt", mixed.0, mixed.1), None);
        assert_eq!(narrowed_predicate("eq", mixed.0, mixed.1), Some("eq"));
    }

    fn narrowed(ir: &str) -> String {
        let versioned = crate::check_versioning::apply(ir).expect("versioned").text;
        apply(&versioned).expect("narrowed")
    }

    #[test]
    fn narrows_the_fast_copys_guards_and_loop_counter() {
        let out = narrowed(crate::check_versioning::tests::TAPS);
        let has = |line: &str| out.lines().any(|l| l.trim() == line);
        // The loop counter gets a 32-bit twin, and the row guards read it.
        assert!(
            has(
                "%ferrocuda.narrow.1 = phi i32 [ 0, %ferrocuda.fast.pre ], [ %ferrocuda.narrow.2, %ferrocuda.fast.30 ]"
            ),
            "{out}"
        );
        assert!(
            has("%ferrocuda.fast.19 = icmp ugt i32 %ferrocuda.narrow.4, 2"),
            "{out}"
        );
        assert!(
            has("%ferrocuda.fast.20 = icmp slt i32 %ferrocuda.narrow.5, %5"),
            "{out}"
        );
        assert!(has(
            "%ferrocuda.narrow.4 = add i32 %ferrocuda.narrow.1, %ferrocuda.narrow.3"
        ));
        assert!(has("%ferrocuda.narrow.2 = add i32 %ferrocuda.narrow.1, 1"));
        assert!(
            has("%ferrocuda.fast.33 = icmp ult i32 %ferrocuda.narrow.2, 7"),
            "{out}"
        );
        // The row argument is 64-bit: its low half is taken at the top of the entry block.
        assert!(has("%ferrocuda.narrow.3 = trunc i64 %6 to i32"), "{out}");
        // The original body is left as it was; the fast copy's proved check is `true`.
        assert!(has(
            "%ferrocuda.checked.19 = icmp samesign ugt i64 %ferrocuda.checked.17, 2"
        ));
        assert!(has(
            "%ferrocuda.checked.20 = icmp slt i64 %ferrocuda.checked.18, %ferrocuda.checked.11"
        ));
        assert!(has("%ferrocuda.fast.25 = and i1 true, true"), "{out}");
    }

    #[test]
    fn computes_addresses_outside_loops_from_32_bit_indices() {
        let out = narrowed(crate::check_versioning::tests::STENCIL);
        let lines: Vec<&str> = out.lines().map(str::trim).collect();
        let at = |prefix: &str| {
            lines
                .iter()
                .position(|l| l.starts_with(prefix))
                .unwrap_or_else(|| panic!("{prefix}\n{out}"))
        };
        // The output's index `(z ny + y) nx + x`, below `len` by the assumption its check left:
        // computed in 32 bits and widened once, for the address only.
        let write = at("%ferrocuda.fast.p = getelementptr");
        let wide = lines[write - 1];
        assert!(
            wide.starts_with("%ferrocuda.narrow.")
                && wide.contains(" = zext i32 %ferrocuda.narrow."),
            "{out}"
        );
        let wide_name = wide.split(' ').next().unwrap();
        assert_eq!(
            lines[write],
            format!("%ferrocuda.fast.p = getelementptr inbounds float, ptr %2, i64 {wide_name}")
        );
        for line in [
            "%ferrocuda.narrow.4 = mul i32 %5, %9",
            "%ferrocuda.narrow.5 = add i32 %ferrocuda.narrow.4, %8",
            "%ferrocuda.narrow.6 = mul i32 %ferrocuda.narrow.5, %4",
            "%ferrocuda.narrow.7 = add i32 %ferrocuda.narrow.6, %7",
        ] {
            assert!(lines.contains(&line), "{line}\n{out}");
        }
        assert_eq!(
            wide,
            format!("{wide_name} = zext i32 %ferrocuda.narrow.7 to i64")
        );
        // `i - 1`: the 32-bit `i` widened, the -1 kept as the address's constant offset.
        let read = at("%ferrocuda.fast.q = getelementptr");
        assert_eq!(
            lines[read],
            format!(
                "%ferrocuda.fast.q = getelementptr float, ptr {}, i64 -1",
                lines[read - 1].split(' ').next().unwrap()
            )
        );
        assert!(
            lines[read - 1].contains(" = getelementptr float, ptr %0, i64 %ferrocuda.narrow."),
            "{out}"
        );
        // The checked copy keeps its 64-bit addresses.
        assert!(lines.contains(
            &"%ferrocuda.checked.p = getelementptr inbounds float, ptr %2, i64 %ferrocuda.checked.i"
        ));
        assert!(lines.contains(&"%ferrocuda.checked.q = getelementptr inbounds float, ptr %0, i64 %ferrocuda.checked.im1"));
        // An address in a loop stays 64-bit (`llc` steps a pointer through it).
        let taps = narrowed(crate::check_versioning::tests::TAPS);
        assert!(taps.contains("  %ferrocuda.fast.27 = getelementptr inbounds float, ptr %0, i64 %ferrocuda.fast.24\n"), "{taps}");
    }

    #[test]
    fn leaves_compares_that_may_need_64_bits() {
        // Without the fast copy's limit the row may be close to 2^32: `row + 6 - 3` can pass
        // 2^32, and nothing is narrowed.
        let versioned = crate::check_versioning::apply(crate::check_versioning::tests::TAPS)
            .expect("versioned")
            .text
            .replace("icmp ult i32 %5, 1073741824", "icmp ult i32 %5, -1")
            .replace("icmp ult i32 %4, 1073741824", "icmp ult i32 %4, -1");
        let out = apply(&versioned).unwrap_or(versioned);
        let has = |line: &str| out.lines().any(|l| l.trim() == line);
        assert!(
            has("%ferrocuda.fast.19 = icmp samesign ugt i64 %ferrocuda.fast.17, 2"),
            "{out}"
        );
        assert!(has(
            "%ferrocuda.fast.20 = icmp slt i64 %ferrocuda.fast.18, %ferrocuda.fast.11"
        ));
        // The loop counter, bounded by its own exit test, is narrowed all the same.
        assert!(
            has("%ferrocuda.fast.33 = icmp ult i32 %ferrocuda.narrow.2, 7"),
            "{out}"
        );
        assert_eq!(out.matches("= add i32 ").count(), 1, "{out}");
    }

    #[test]
    fn a_loop_counter_is_bounded_by_its_back_edge() {
        let body = "\
define void @f(i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, 100
  br i1 %more, label %loop, label %exit

exit:
  ret void
}
";
        let lines: Vec<&str> = body.split_inclusive('\n').skip(1).collect();
        let mut analysis = Analysis::new(&lines[..lines.len() - 1]).expect("modelled");
        assert_eq!(analysis.range("%i", 64, &[], 0), Range::new(0, 99));
        assert_eq!(analysis.range("%next", 64, &[], 0), Range::new(1, 100));
        // Counting down leaves the loop at once (`0 - 1` wraps past 100): still bounded.
        let down = body.replace("add i64 %i, 1", "add i64 %i, -1");
        let lines: Vec<&str> = down.split_inclusive('\n').skip(1).collect();
        let mut analysis = Analysis::new(&lines[..lines.len() - 1]).expect("modelled");
        assert_eq!(analysis.range("%i", 64, &[], 0), Range::new(0, 99));
        // Counting down until `!= 100`: it wraps, and nothing bounds it.
        let down = down.replace("icmp ult i64 %next, 100", "icmp ne i64 %next, 100");
        let lines: Vec<&str> = down.split_inclusive('\n').skip(1).collect();
        let mut analysis = Analysis::new(&lines[..lines.len() - 1]).expect("modelled");
        assert_eq!(analysis.range("%i", 64, &[], 0), Range::full(64));
    }

    /// The range analysis of a body given as text, and the facts at the block labelled
    /// `block`.
    fn decided(body: &str, block: &str, value: &str) -> Option<bool> {
        // The body's lines: without a `define` line and its `}` where the text has them.
        let lines: Vec<&str> = body
            .split_inclusive('\n')
            .filter(|l| !l.starts_with("define ") && l.trim() != "}")
            .collect();
        let mut analysis = Analysis::new(&lines).expect("modelled");
        let index = analysis
            .blocks
            .iter()
            .position(|b| b.label.as_deref() == Some(block))
            .expect("block");
        let facts = analysis.facts(index);
        analysis.decide(value, &facts)
    }

    /// A loop `for k in 1..=n` (rotated: `k == n` leaves) with `n < 100` assumed, and compares
    /// of `k`, `min`/`max`/`saturating_sub` of it, and `!k`, in its body.
    const COUNTED: &str = "start:
  %limit = icmp ult i32 %n, 100
  call void @llvm.assume(i1 %limit)
  br label %entry

entry:
  %none = icmp eq i32 %n, 0
  br i1 %none, label %exit, label %loop

loop:
  %k = phi i32 [ 1, %entry ], [ %step, %loop ]
  %below = icmp ult i32 %k, 100
  %at_most = icmp ugt i32 %k, 99
  %some = icmp ne i32 %k, 0
  %wide = zext i32 %k to i64
  %low = tail call i64 @llvm.umin.i64(i64 %wide, i64 7)
  %low_fits = icmp ule i64 %low, 7
  %high = tail call i64 @llvm.umax.i64(i64 %wide, i64 200)
  %high_is = icmp uge i64 %high, 200
  %high_max = icmp ult i64 %high, 201
  %sat = tail call i64 @llvm.usub.sat.i64(i64 %wide, i64 500)
  %sat_zero = icmp eq i64 %sat, 0
  %not = xor i64 %wide, -1
  %negative = icmp slt i64 %not, -1
  %smax = tail call i64 @llvm.smax.i64(i64 %not, i64 -50)
  %smax_low = icmp sge i64 %smax, -50
  %done = icmp eq i32 %k, %n
  %step = add nuw i32 %k, 1
  br i1 %done, label %exit, label %loop

exit:
  ret void
";

    #[test]
    fn bounds_a_counter_by_its_exit_test() {
        // `k` runs from 1 to `n`, at most 99: below 100, never 0.
        assert_eq!(decided(COUNTED, "loop", "%below"), Some(true));
        assert_eq!(decided(COUNTED, "loop", "%at_most"), Some(false));
        assert_eq!(decided(COUNTED, "loop", "%some"), Some(true));
        // Without the limit on `n`, `k` may be any `u32` but 0.
        let any = COUNTED.replace("call void @llvm.assume(i1 %limit)", "");
        assert_eq!(decided(&any, "loop", "%below"), None);
        // Without the `n != 0` test in front, the first `k` (1) may pass `n` (0): `k` wraps.
        let unguarded = COUNTED.replace("br i1 %none, label %exit, label %loop", "br label %loop");
        assert_eq!(decided(&unguarded, "loop", "%below"), None);
        // Stepping by 2 from 1 may step over `n`.
        let by_two = COUNTED.replace("%step = add nuw i32 %k, 1", "%step = add nuw i32 %k, 2");
        assert_eq!(decided(&by_two, "loop", "%below"), None);
    }

    #[test]
    fn reads_min_max_saturating_sub_and_not() {
        for (value, expected) in [
            ("%low_fits", true),
            ("%high_is", true),
            ("%high_max", true),
            ("%sat_zero", true),
            ("%negative", true),
            ("%smax_low", true),
        ] {
            assert_eq!(decided(COUNTED, "loop", value), Some(expected), "{value}");
        }
    }

    /// A fast copy's clamped neighbour, `tx.saturating_sub(1).max(valid_min)` with
    /// `valid_min = if origin < 0 { -origin } else { 0 }`, compared with the tile's edge.
    const CLAMPED: &str = "define ptx_kernel void @k(i32 %origin) {
start:
  %limit = icmp sgt i32 %origin, -1000
  call void @llvm.assume(i1 %limit)
  br label %ferrocuda.fast.0

ferrocuda.fast.0:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tw = zext i32 %t to i64
  %ow = sext i32 %origin to i64
  %negative = icmp slt i64 %ow, 0
  %minus = sub i64 0, %ow
  %valid_min = select i1 %negative, i64 %minus, i64 0
  %west_sat = tail call i64 @llvm.usub.sat.i64(i64 %tw, i64 1)
  %west = tail call i64 @llvm.umax.i64(i64 %valid_min, i64 %west_sat)
  %inside = icmp ult i64 %west, 16
  br i1 %inside, label %ferrocuda.fast.1, label %ferrocuda.fast.2

ferrocuda.fast.1:
  br label %ferrocuda.fast.2

ferrocuda.fast.2:
  ret void
}
";

    #[test]
    fn reads_each_select_arm_where_it_is_chosen() {
        // `-origin` is chosen only where `origin < 0`: positive, at most 2^31.
        let body = CLAMPED.replace(
            "%inside = icmp ult i64 %west, 16",
            "%inside = icmp slt i64 %valid_min, 0",
        );
        assert_eq!(decided(&body, "ferrocuda.fast.0", "%inside"), Some(false));
        // Both arms read under all the block's facts, `-origin` could be negative.
        let both = body.replace(
            "%valid_min = select i1 %negative,",
            "%valid_min = select i1 true,",
        );
        assert_eq!(decided(&both, "ferrocuda.fast.0", "%inside"), None);
    }

    #[test]
    fn a_saturated_subtract_under_a_max_is_a_signed_max_of_the_difference() {
        let out = apply(CLAMPED).expect("narrowed");
        let lines: Vec<&str> = out.lines().map(str::trim).collect();
        let at = |needle: &str| {
            lines
                .iter()
                .position(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("{needle}\n{out}"))
        };
        let difference = at(" = sub i32 %t, 1");
        let max = at("call i32 @llvm.smax.i32(");
        assert!(difference < max, "{out}");
        let name = lines[difference].split(' ').next().unwrap();
        assert!(lines[max].contains(&format!("(i32 {name}, i32 ")), "{out}");
        assert!(!out.contains("usub.sat.i32"), "{out}");
        // Without the assumption `-origin` may be 2^31, past a signed 32-bit max: the
        // saturating form stays.
        let unbounded = CLAMPED.replace(
            "icmp sgt i32 %origin, -1000",
            "icmp sge i32 %origin, -2147483648",
        );
        let kept = apply(&unbounded).unwrap_or(unbounded);
        assert!(!kept.contains("@llvm.smax.i32("), "{kept}");
        // The identity itself, over the edges of its domain.
        let values = [0i64, 1, 2, 15, 16, 1000, (1 << 31) - 2, (1 << 31) - 1];
        for v in values {
            for c in values {
                for w in values {
                    let saturating = (v - c).max(0).max(w);
                    let signed = i64::from((v as i32).wrapping_sub(c as i32).max(w as i32));
                    assert_eq!(saturating, signed, "v {v} c {c} w {w}");
                }
            }
        }
    }

    /// `i` lags `j` by one: `j = phi [1], [j + 1]`, `i = phi [0], [j]`, the loop's `if`
    /// bounding `j` by 15.
    #[test]
    fn a_lagging_counter_follows_its_leader() {
        let body = "entry:
  br label %loop

loop:
  %j = phi i32 [ 1, %entry ], [ %next, %latch ]
  %i = phi i32 [ 0, %entry ], [ %j, %latch ]
  %in = icmp ult i32 %j, 16
  br i1 %in, label %body, label %latch

body:
  %fits = icmp ult i32 %i, 15
  br label %latch

latch:
  %next = add nuw i32 %j, 1
  br label %loop
";
        assert_eq!(decided(body, "body", "%fits"), Some(true));
        // Started at 5 instead of 0, `i` is not `j - 1`.
        let apart = body.replace("[ 0, %entry ]", "[ 5, %entry ]");
        assert_eq!(decided(&apart, "body", "%fits"), None);
    }
}
