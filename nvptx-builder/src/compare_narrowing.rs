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
    Fact, PREFIX, add_facts, facts_at, immediate_dominators, successors,
};
use crate::offset_checks::{
    Block, definition, definitions, split_blocks, strip_metadata, strip_words, terminator,
    trailing_metadata,
};
use std::collections::HashMap;

/// Prefix of the 32-bit values the pass adds.
const NARROW_PREFIX: &str = "ferrocuda.narrow.";

/// How deep the analysis follows operands (and facts about them) from a compare.
const MAX_DEPTH: usize = 12;

/// Bounds beyond which an interval is given up (well inside `i128`).
const HUGE: i128 = 1 << 100;

/// The module text with its compares narrowed, or `None` when none was.
pub(crate) fn apply(ir: &str) -> Option<String> {
    let mut counter = 0usize;
    crate::ir_syntax::rewrite_bodies(ir, |_, body| narrow_function(body, &mut counter))
}

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
struct Analysis<'a> {
    body: &'a [&'a str],
    blocks: Vec<Block>,
    defs: HashMap<&'a str, &'a str>,
    succ: Vec<Vec<usize>>,
    idom: Vec<Option<usize>>,
    label_index: HashMap<String, usize>,
    /// The block of each defined value.
    def_block: HashMap<&'a str, usize>,
    facts: HashMap<usize, Vec<Fact>>,
    /// The ranges assumed for the phis under evaluation.
    assumed: HashMap<String, Range>,
}

impl<'a> Analysis<'a> {
    fn new(body: &'a [&'a str]) -> Self {
        let mut blocks = split_blocks(body);
        if blocks.len() > 1 && blocks[0].lines.is_empty() {
            blocks.remove(0);
        }
        let succ = successors(&blocks, body);
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
        Analysis {
            body,
            def_block,
            defs: definitions(body),
            blocks,
            succ,
            idom,
            label_index,
            facts: HashMap::new(),
            assumed: HashMap::new(),
        }
    }

    /// The compares known to hold throughout block `block`.
    fn facts(&mut self, block: usize) -> Vec<Fact> {
        if let Some(f) = self.facts.get(&block) {
            return f.clone();
        }
        let f = facts_at(
            &self.blocks,
            self.body,
            &self.defs,
            &self.succ,
            &self.idom,
            block,
        );
        self.facts.insert(block, f.clone());
        f
    }

    /// The facts on the edge from block `from` to the block labelled `to`: those of `from`
    /// and its terminator's condition for that edge.
    fn edge_facts(&mut self, from: usize, to: &str) -> Vec<Fact> {
        let mut facts = self.facts(from);
        let term = terminator(&self.blocks[from], self.body);
        if let Some(rest) = term.strip_prefix("br i1 ") {
            let parts: Vec<&str> = strip_metadata(rest).split(", ").map(str::trim).collect();
            if let [condition, taken, not_taken] = parts[..] {
                let target = format!("label %{to}");
                if taken == target && not_taken != target {
                    add_facts(condition, true, &self.defs, &mut facts, 0);
                } else if not_taken == target && taken != target {
                    add_facts(condition, false, &self.defs, &mut facts, 0);
                }
            }
        }
        facts
    }

    /// The range of `value` (of `bits` bits) wherever `facts` hold.
    fn range(&mut self, value: &str, bits: u32, facts: &[Fact], depth: usize) -> Range {
        if let Some(c) = constant(value) {
            return Range::new(c, c);
        }
        if depth > MAX_DEPTH {
            return Range::full(bits);
        }
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
            "add" | "sub" | "mul" | "shl" | "and" | "or" | "lshr" | "udiv" | "urem" => {
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
                arithmetic(opcode, disjoint, x, y, bits)
            }
            "select" => {
                let parts: Vec<&str> = inst["select ".len()..].split(", ").collect();
                let [_, a, b] = parts[..] else {
                    return full;
                };
                let operand = |s: &str| s.split_once(' ').map(|(_, v)| v.trim().to_string());
                let (Some(a), Some(b)) = (operand(a), operand(b)) else {
                    return full;
                };
                let x = self.range(&a, bits, facts, depth + 1);
                let y = self.range(&b, bits, facts, depth + 1);
                x.union(y)
            }
            "icmp" => self.truth(value, facts),
            "phi" => self.phi(value, inst, bits, depth),
            "call" | "tail" => special_register(inst).unwrap_or(full),
            _ => full,
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
        let (u, s) = (r.unsigned(64), r.signed(64));
        let extension = if u.lo >= 0 && u.hi < 1i128 << 32 {
            "zext"
        } else if s.lo >= -(1i128 << 31) && s.hi < 1i128 << 31 {
            "sext"
        } else {
            return None;
        };
        Some((base, offset, extension))
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
    let in_u = |r: Range| r.lo >= 0 && r.hi < 1i128 << 32;
    let in_s = |r: Range| r.lo >= -(1i128 << 31) && r.hi < 1i128 << 31;
    let both_u = in_u(au) && in_u(bu);
    let both_s = in_s(as_) && in_s(bs);
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
    let mut analysis = Analysis::new(body);
    let mut narrowings = Vec::new();
    let mut addresses = Vec::new();
    // Addresses in loops stay 64-bit: there `llc` turns them into pointers stepped by a
    // constant, which a 32-bit index would turn back into a `mul.wide` per iteration (the
    // convolution's row loop ran 0.27 -> 0.43 ms on the H100 with its taps' indices narrowed).
    let in_loops: std::collections::HashSet<usize> =
        crate::check_versioning::natural_loops(&analysis.succ, &analysis.idom)
            .into_iter()
            .flat_map(|(_, blocks)| blocks)
            .collect();
    for index in 0..analysis.blocks.len() {
        let in_scope = analysis.blocks[index]
            .label
            .as_deref()
            .is_some_and(|l| l.starts_with(PREFIX));
        if !in_scope {
            continue;
        }
        for line in analysis.blocks[index].lines.clone() {
            let Some((_, inst)) = definition(body[line]) else {
                continue;
            };
            if let Some(gep) = Gep::parse(inst) {
                if in_loops.contains(&index) {
                    continue;
                }
                let facts = analysis.facts(index);
                if let Some(widen) = analysis.narrow_index(&gep.index, &facts) {
                    addresses.push((line, gep, widen));
                }
                continue;
            }
            let Some(rest) = strip_words(inst, "icmp", &["samesign"]) else {
                continue;
            };
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
    }
    if narrowings.is_empty() && addresses.is_empty() {
        return None;
    }
    let mut emitter = Emitter {
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
    for n in &narrowings {
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
    for (line, gep, (base, offset, widen)) in &addresses {
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
        // The original body is left as it was, and so is the fast copy's 64-bit check.
        assert!(has(
            "%ferrocuda.checked.19 = icmp samesign ugt i64 %ferrocuda.checked.17, 2"
        ));
        assert!(has(
            "%ferrocuda.checked.20 = icmp slt i64 %ferrocuda.checked.18, %ferrocuda.checked.11"
        ));
        assert!(has(
            "%ferrocuda.fast.25 = icmp ult i64 %ferrocuda.fast.24, %ferrocuda.fast.8, !dbg !6"
        ));
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
            "%ferrocuda.narrow.15 = zext i32 %ferrocuda.narrow.7 to i64"
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
        let mut analysis = Analysis::new(&lines[..lines.len() - 1]);
        assert_eq!(analysis.range("%i", 64, &[], 0), Range::new(0, 99));
        assert_eq!(analysis.range("%next", 64, &[], 0), Range::new(1, 100));
        // Counting down leaves the loop at once (`0 - 1` wraps past 100): still bounded.
        let down = body.replace("add i64 %i, 1", "add i64 %i, -1");
        let lines: Vec<&str> = down.split_inclusive('\n').skip(1).collect();
        let mut analysis = Analysis::new(&lines[..lines.len() - 1]);
        assert_eq!(analysis.range("%i", 64, &[], 0), Range::new(0, 99));
        // Counting down until `!= 100`: it wraps, and nothing bounds it.
        let down = down.replace("icmp ult i64 %next, 100", "icmp ne i64 %next, 100");
        let lines: Vec<&str> = down.split_inclusive('\n').skip(1).collect();
        let mut analysis = Analysis::new(&lines[..lines.len() - 1]);
        assert_eq!(analysis.range("%i", 64, &[], 0), Range::full(64));
    }
}
