//! The range of a loop phi: its incoming values to a fixpoint, a counter bounded by its exit
//! test or its back edge, a counter that lags another.

use super::Analysis;
use super::interval::{Range, constant};
use crate::analysis::facts::Fact;
use crate::ir::instructions::{phi_incoming, strip_metadata, strip_words};

impl<'a> Analysis<'a> {
    /// The range of a phi: the union of its incoming values, each on its edge, iterated to
    /// a fixpoint (widened to every value after a few rounds, then narrowed once).
    pub(super) fn phi(&mut self, value: &str, inst: &str, bits: u32, depth: usize) -> Range {
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
    pub(super) fn counted(
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
            Some(b) => b != header && crate::analysis::dominance::dominates(&this.idom, b, header),
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
    pub(super) fn lagging(&self, value: &str, inst: &str) -> Option<(String, i128)> {
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
    pub(super) fn added_constant(&self, value: &str) -> Option<(&str, i128)> {
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
}

/// `((start, its edge), (value, its edge))` of [`start_and_back`].
pub(super) type LoopEntries<'a, T> = ((i128, &'a T), (&'a String, &'a T));

/// The two incoming entries of a loop phi, `(value, edge)` each, split into the constant it
/// starts with and the value its back edge brings: `((start, its edge), (value, its edge))`.
pub(super) fn start_and_back<T>(entries: &[(String, T)]) -> Option<LoopEntries<'_, T>> {
    let [(first, first_edge), (second, second_edge)] = entries else {
        return None;
    };
    match (constant(first), constant(second)) {
        (Some(c), None) => Some(((c, first_edge), (second, second_edge))),
        (None, Some(c)) => Some(((c, second_edge), (first, first_edge))),
        _ => None,
    }
}
