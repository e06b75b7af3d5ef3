//! What compare narrowing asks the range analysis: which addresses' indices and which
//! `min`/`max` calls can be computed from 32-bit values.

use super::Analysis;
use super::interval::{Range, bits_of, constant};
use crate::analysis::facts::Fact;
use crate::ir::instructions::{definition, strip_metadata, strip_words};
use crate::ir::min_max::MIN_MAX;

impl<'a> Analysis<'a> {
    /// `(intrinsic, a, b)` when the 64-bit `value = call @llvm.<intrinsic>.i64(a, b)` (one of
    /// [`MIN_MAX`]) has operands that fit in 32 bits where it is computed (both in `[0, 2^32)`
    /// for the unsigned ones, both in `[-2^31, 2^31)` for `smin`/`smax`), so that its low half
    /// is the 32-bit intrinsic of the operands' low halves.
    pub(crate) fn narrow_call(&mut self, value: &str, block: usize) -> Option<NarrowCall> {
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
    /// How an address's 64-bit `index` can be computed in 32 bits where `facts` hold:
    /// `(base, offset, extension)` with `index = base + offset` (a constant `offset`, 0 when
    /// there is none) and `base` equal to the `zext` (or `sext`) of its low 32 bits. `None`
    /// when the index is already a widened 32-bit value, or may not fit.
    pub(crate) fn narrow_index(
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
    pub(crate) fn narrow_at_uses(
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
                        crate::ir::syntax::split_top_level(strip_metadata(rest))
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
    pub(super) fn uses(&self, value: &str) -> Vec<(usize, &'a str)> {
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
}

/// A 64-bit `min`/`max` call whose low half is the 32-bit intrinsic `op` of the low halves of
/// `a` (less `minus`, when given) and `b` ([`Analysis::narrow_call`]).
#[derive(Clone)]
pub(crate) struct NarrowCall {
    pub(crate) op: String,
    pub(crate) a: String,
    pub(crate) minus: Option<String>,
    pub(crate) b: String,
}

/// `(name, width, a, b)` of a call of a two-operand LLVM intrinsic, `call iN @llvm.<name>.iN(iN
/// a, iN b)` (`umin`, `usub.sat`, ...).
pub(super) fn binary_intrinsic(inst: &str) -> Option<(&str, u32, &str, &str)> {
    let call = inst.split_once("@llvm.")?.1;
    let open = call.find('(')?;
    let close = open + crate::ir::syntax::matching_paren(&call[open..])?;
    let (name, ty) = call[..open].rsplit_once('.')?;
    let operands: Vec<&str> = crate::ir::syntax::split_top_level(&call[open + 1..close])
        .into_iter()
        .map(|a| a.trim().rsplit(' ').next().unwrap_or(""))
        .collect();
    let [a, b] = operands[..] else {
        return None;
    };
    Some((name, bits_of(ty)?, a, b))
}
