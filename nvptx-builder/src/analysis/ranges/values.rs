//! The range of a value where some facts hold: from its definition, refined by the facts that
//! name it, memoised; and the facts on a branch's edge.

use super::interval::{Range, arithmetic, bits_of, constant, refine, special_register, swapped};
use super::narrowing::binary_intrinsic;
use super::{Analysis, MAX_DEPTH};
use crate::analysis::facts::{Fact, add_edge_facts, add_facts};
use crate::analysis::fast_copy::PREFIX;
use crate::ir::blocks::terminator;
use crate::ir::instructions::{strip_metadata, strip_words};

impl<'a> Analysis<'a> {
    /// The facts on the edge from block `from` to the block labelled `to`: those of `from`
    /// and its terminator's condition for that edge.
    pub(super) fn edge_facts(&mut self, from: usize, to: &str) -> Vec<Fact> {
        let mut facts = self.facts(from);
        let term = terminator(&self.blocks[from], self.body);
        add_edge_facts(term, to, &self.defs, &mut facts);
        facts
    }

    /// The range of `value` (of `bits` bits) wherever `facts` hold.
    pub(crate) fn range(&mut self, value: &str, bits: u32, facts: &[Fact], depth: usize) -> Range {
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
    pub(super) fn fingerprint(&self, facts: &[Fact]) -> u64 {
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
    pub(super) fn refined(
        &mut self,
        value: &str,
        bits: u32,
        facts: &[Fact],
        depth: usize,
    ) -> Range {
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
    pub(super) fn defined(
        &mut self,
        value: &str,
        bits: u32,
        facts: &[Fact],
        depth: usize,
    ) -> Range {
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
    pub(super) fn min_max(
        &mut self,
        inst: &str,
        bits: u32,
        facts: &[Fact],
        depth: usize,
    ) -> Option<Range> {
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
    /// `[1, 1]` when the facts say the compare `value` holds, `[0, 0]` when they say it
    /// fails, `[0, 1]` otherwise.
    pub(super) fn truth(&mut self, value: &str, facts: &[Fact]) -> Range {
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
}
