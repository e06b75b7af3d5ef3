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
//! the branches that dominate the value's use ([`crate::analysis::facts::facts_at`]), on
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
//! The pass narrows compares in the fast copies of [`crate::passes::check_versioning`], whose entry
//! test bounds the 32-bit arguments the kernel's indices are built from (below 2^30): there a
//! convolution's `iy < height as isize` (with `iy = y + fy - 3`) provably fits, where the
//! original body, run for any `u32` height, does not.

use crate::analysis::fast_copy::PREFIX;
use crate::analysis::ranges::interval::{Range, bits_of, constant};
use crate::analysis::ranges::narrowing::NarrowCall;
use crate::analysis::ranges::{Analysis, MAX_DEPTH};
use crate::ir::instructions::{
    definition, phi_incoming, strip_metadata, strip_words, trailing_metadata,
};
use crate::ir::min_max::declare_min_max;
use std::collections::HashMap;

/// Prefix of the 32-bit values the pass adds.
const NARROW_PREFIX: &str = "ferrocuda.narrow.";

/// The module text with its compares narrowed, or `None` when none was.
pub(crate) fn apply(ir: &str) -> Option<String> {
    let mut counter = 0usize;
    let mut out =
        crate::ir::syntax::rewrite_bodies(ir, |_, body| narrow_function(body, &mut counter))?;
    // The 32-bit `min`/`max` intrinsics the mirrors call.
    declare_min_max(&mut out);
    Some(out)
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
                pred: crate::analysis::facts::canonical(new)?,
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
                && crate::ir::syntax::block_label(body[i]).is_none()
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
        let parts = crate::ir::syntax::split_top_level(rest);
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
mod tests;
