//! The tiles' tests: the interval of a check's index over a block's threads, its ends computed
//! from the block's corner threads, and the test that they are in bounds.

use crate::analysis::facts::Fact;
use crate::analysis::fast_copy::PREFIX;
use crate::analysis::ranges::Analysis;
use crate::ir::instructions::{pure_operands, remat_operands, strip_metadata, strip_words};
use crate::ir::special_registers::{block_register, thread_axis};
use std::collections::HashSet;

/// Prefix of the values the entry block computes for the tiles' tests.
pub(super) const TILE_PREFIX: &str = "ferrocuda.tile.";

/// How large (in magnitude) a value's interval may be: far enough from 2^63 that no step of
/// the index arithmetic, nor of its ends' computation, wraps.
const SAFE: i128 = 1 << 62;

/// How deep the interval evaluation follows an index's operands.
const MAX_DEPTH: usize = 12;

/// The ends of a value over a block's threads, and its interval over all blocks.
pub(super) struct Ends {
    pub(super) lo: String,
    pub(super) hi: String,
    /// The interval of the value for every thread of every block.
    pub(super) range: (i128, i128),
    /// The width of `lo` and `hi` (32: they are the low halves, the value fitting in 32 bits).
    pub(super) bits: u32,
}

impl Ends {
    /// One value for the whole block.
    fn point(value: String, range: (i128, i128), bits: u32) -> Self {
        Ends {
            lo: value.clone(),
            hi: value,
            range,
            bits,
        }
    }
}

/// Whether the interval lies in `[-2^31, 2^31)`.
fn fits32((lo, hi): (i128, i128)) -> bool {
    lo >= -(1 << 31) && hi < 1 << 31
}

/// The lines the entry block gains for the tiles' tests.
pub(super) struct Tiles<'a> {
    pub(super) lines: Vec<String>,
    /// The fast copy's values already recomputed in the entry block (by their new names).
    pub(super) defined: HashSet<String>,
    pub(super) args: &'a HashSet<String>,
    pub(super) counter: usize,
}

impl Tiles<'_> {
    fn fresh(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("%{TILE_PREFIX}{what}{}", self.counter)
    }

    /// The ends of the 64-bit `value` over the block's threads, as operands valid in the
    /// entry block (with the lines computing them added), and its interval over every block
    /// and thread; `None` when the value depends on anything but the thread, block and
    /// arguments in the ways the module documentation lists, or may be too large.
    pub(super) fn interval(
        &mut self,
        analysis: &mut Analysis<'_>,
        value: &str,
        facts: &[Fact],
        threads: &[Fact],
        depth: usize,
    ) -> Option<Ends> {
        if let Ok(c) = value.parse::<i128>() {
            return (c.abs() < SAFE).then(|| Ends::point(value.to_string(), (c, c), 64));
        }
        if depth > MAX_DEPTH {
            return None;
        }
        if self.args.contains(value) || self.uniform(analysis, value, 0) {
            let (lo, hi) = analysis.signed_range(value, 64, facts)?;
            if lo <= -SAFE || hi >= SAFE {
                return None;
            }
            // A value that fits in 32 bits is computed from the low halves of its operands
            // (exact, as for [`crate::passes::compare_narrowing`]), so the ends' arithmetic is 32-bit
            // or one `mul.wide.s32` where it can be.
            return Some(if fits32((lo, hi)) {
                Ends::point(self.low(analysis, value), (lo, hi), 32)
            } else {
                Ends::point(self.recompute(analysis, value), (lo, hi), 64)
            });
        }
        let inst = strip_metadata(analysis.definition_of(value)?);
        let opcode = inst.split(' ').next()?;
        if opcode == "zext" || opcode == "sext" {
            // A thread index, widened.
            let rest = strip_words(inst, opcode, &["nneg"])?.strip_prefix("i32 ")?;
            let (operand, ty) = rest.split_once(" to ")?;
            if ty.trim() != "i64" {
                return None;
            }
            let operand = operand.trim();
            let axis = thread_axis(analysis.definition_of(operand)?)?;
            // Where the check is, the facts may bound the index (a kernel's `max_block`
            // assumes `tid.x < 16` at its entry): every thread that runs the check is then
            // within constants, which cost the block's test nothing to read.
            let (lo, hi) = analysis.signed_range(operand, 32, threads)?;
            if lo >= 0 && hi < 1023 {
                let (low, high) =
                    self.guarded(analysis, (operand, value), (facts, threads), (lo, hi));
                return Some(Ends {
                    lo: low,
                    hi: high,
                    range: (lo, hi),
                    bits: 32,
                });
            }
            let size = self.fresh("ntid.");
            let last = self.fresh("last.");
            self.lines.push(format!(
                "  {size} = call i32 @llvm.nvvm.read.ptx.sreg.ntid.{axis}()\n  \
                 {last} = sub i32 {size}, 1\n"
            ));
            return Some(Ends {
                lo: "0".to_string(),
                hi: last,
                range: (0, 1023),
                bits: 32,
            });
        }
        let rest = strip_words(inst, opcode, &["nuw", "nsw", "disjoint"])?;
        let (a, b) = rest.strip_prefix("i64 ")?.split_once(", ")?;
        let (a, b) = (a.trim(), b.trim());
        let disjoint = inst.starts_with("or disjoint ");
        let x = self.interval(analysis, a, facts, threads, depth + 1)?;
        let y = self.interval(analysis, b, facts, threads, depth + 1)?;
        let (sa, sb) = (x.range, y.range);
        // Which ends combine: `(x end, y end)` for the low end, then for the high end.
        let (opcode, ends, range) = match opcode {
            "add" => (
                "add",
                [(&x.lo, &y.lo), (&x.hi, &y.hi)],
                (sa.0 + sb.0, sa.1 + sb.1),
            ),
            "or" if disjoint => (
                "add",
                [(&x.lo, &y.lo), (&x.hi, &y.hi)],
                (sa.0 + sb.0, sa.1 + sb.1),
            ),
            "sub" => (
                "sub",
                [(&x.lo, &y.hi), (&x.hi, &y.lo)],
                (sa.0 - sb.1, sa.1 - sb.0),
            ),
            "shl" => {
                let shift = u32::try_from(b.parse::<i128>().ok()?).ok()?;
                if shift >= 62 {
                    return None;
                }
                (
                    "shl",
                    [(&x.lo, &y.lo), (&x.hi, &y.hi)],
                    (sa.0 << shift, sa.1 << shift),
                )
            }
            "mul" => {
                // One side one point per block and non-negative: the ends scale.
                let (t, u) = if x.lo == x.hi {
                    (&y, &x)
                } else if y.lo == y.hi {
                    (&x, &y)
                } else {
                    return None;
                };
                if u.range.0 < 0 {
                    return None;
                }
                let (s, su) = (t.range, u.range);
                let corners = [s.0 * su.0, s.0 * su.1, s.1 * su.0, s.1 * su.1];
                let range = (*corners.iter().min()?, *corners.iter().max()?);
                ("mul", [(&t.lo, &u.lo), (&t.hi, &u.lo)], range)
            }
            _ => return None,
        };
        if range.0 <= -SAFE || range.1 >= SAFE {
            return None;
        }
        let bits = if fits32(range) { 32 } else { 64 };
        let (x_bits, y_bits) = if opcode == "mul" && x.lo == x.hi {
            (y.bits, x.bits)
        } else {
            (x.bits, y.bits)
        };
        let [(a_lo, b_lo), (a_hi, b_hi)] = ends.map(|(a, b)| (a.clone(), b.clone()));
        let lo = self.op(opcode, (&a_lo, x_bits), (&b_lo, y_bits), bits);
        let hi = if (&a_lo, &b_lo) == (&a_hi, &b_hi) {
            lo.clone()
        } else {
            self.op(opcode, (&a_hi, x_bits), (&b_hi, y_bits), bits)
        };
        Some(Ends {
            lo,
            hi,
            range,
            bits,
        })
    }

    /// The ends of the thread index `tid` (32 bits, widened to `wide`; in `[lo, hi]` where
    /// the check is) over the threads that reach the check: `lo` and `hi`, narrowed by the
    /// facts there that bound either by a value the block shares and the host can compute
    /// (from the arguments and block indices: HotSpot's `valid_x_min <= tx <= valid_x_max`,
    /// which keep its edge blocks' stores inside the grid). A thread that reaches the check is
    /// within every such bound, so the largest lower bound and the smallest upper one are its
    /// ends; where they cross, no thread reaches the check. Each bound is clamped to `[lo,
    /// hi]` (in its own width, then truncated), the range the ends' arithmetic was proved for.
    fn guarded(
        &mut self,
        analysis: &mut Analysis<'_>,
        (tid, wide): (&str, &str),
        (facts, threads): (&[Fact], &[Fact]),
        (lo, hi): (i128, i128),
    ) -> (String, String) {
        let (mut low, mut high) = (lo.to_string(), hi.to_string());
        for fact in threads {
            let bits = if fact.a == tid || fact.b == tid {
                32
            } else {
                64
            };
            let index = if bits == 32 { tid } else { wide };
            // `(bound, whether it bounds from above, whether strictly)`.
            let (bound, upper, strict) = match (fact.a == index, fact.b == index, fact.pred) {
                (true, false, "uge") => (&fact.b, false, false),
                (true, false, "ugt") => (&fact.b, false, true),
                (true, false, "ule") => (&fact.b, true, false),
                (true, false, "ult") => (&fact.b, true, true),
                (false, true, "ule") => (&fact.a, false, false),
                (false, true, "ult") => (&fact.a, false, true),
                (false, true, "uge") => (&fact.a, true, false),
                (false, true, "ugt") => (&fact.a, true, true),
                _ => continue,
            };
            if bound.parse::<i128>().is_ok()
                || !self.uniform(analysis, bound, 0)
                || reads_block_size(analysis, bound, 0)
            {
                continue;
            }
            // A 64-bit bound in `[-2^31, 2^31)` compares with the index as its low half does
            // (a negative one is above every index in both widths).
            let (mut value, bits) = match analysis.signed_range(bound, bits, facts) {
                Some(range) if bits == 64 && fits32(range) => (self.low(analysis, bound), 32),
                _ => (self.recompute(analysis, bound), bits),
            };
            if strict {
                // Wraps only where no thread satisfies the fact (`tid < 0`, `tid > max`).
                let op = if upper { "sub" } else { "add" };
                value = self.op(op, (&value, bits), ("1", bits), bits);
            }
            // In `[0, hi]`: exact in 32 bits.
            let mut clamped = self.min_max("umin", bits, &value, &hi.to_string());
            if bits == 64 {
                clamped = self.op("add", (&clamped, 64), ("0", 32), 32);
            }
            if upper {
                high = self.min_max("umin", 32, &high, &clamped);
            } else {
                low = self.min_max("umax", 32, &low, &clamped);
            }
        }
        if lo != 0 {
            high = self.min_max("umax", 32, &high, &lo.to_string());
        }
        (low, high)
    }

    /// `op(a, b)` of two `bits`-bit values, `op` one of `umin`, `umax`, as a new line (or
    /// the answer, where both are constants).
    fn min_max(&mut self, op: &str, bits: u32, a: &str, b: &str) -> String {
        if let (Ok(x), Ok(y)) = (a.parse::<u64>(), b.parse::<u64>()) {
            return if op == "umin" { x.min(y) } else { x.max(y) }.to_string();
        }
        if op == "umax" && (a == "0" || b == "0") {
            return if a == "0" { b } else { a }.to_string();
        }
        let name = self.fresh("bound.");
        self.lines.push(format!(
            "  {name} = call i{bits} @llvm.{op}.i{bits}(i{bits} {a}, i{bits} {b})\n"
        ));
        name
    }

    /// `a op b` in `bits` bits (32: the low halves, exact when the result fits; 64: the
    /// operands sign-extended, which fit where they are 32-bit), as a new line.
    pub(super) fn op(
        &mut self,
        opcode: &str,
        (a, a_bits): (&str, u32),
        (b, b_bits): (&str, u32),
        bits: u32,
    ) -> String {
        let mut operand = |v: &str, from: u32| -> String {
            if v.parse::<i128>().is_ok() || from == bits {
                return v.to_string();
            }
            let name = self.fresh("cast.");
            let cast = if bits == 64 {
                format!("sext i32 {v} to i64")
            } else {
                format!("trunc i64 {v} to i32")
            };
            self.lines.push(format!("  {name} = {cast}\n"));
            name
        };
        let (a, b) = (operand(a, a_bits), operand(b, b_bits));
        match (opcode, a.as_str(), b.as_str()) {
            ("add" | "sub" | "shl", a, "0") => return a.to_string(),
            ("add", "0", b) => return b.to_string(),
            _ => {}
        }
        let name = self.fresh("end.");
        self.lines
            .push(format!("  {name} = {opcode} i{bits} {a}, {b}\n"));
        name
    }

    /// The low 32 bits of the uniform 64-bit `value`, computed in the entry block from the
    /// low halves of its operands where the operation allows (`add`, `sub`, `mul`, `shl` by
    /// less than 32, bitwise operations, widening of a 32-bit value), else truncated.
    fn low(&mut self, analysis: &Analysis<'_>, value: &str) -> String {
        if let Ok(c) = value.parse::<i128>() {
            return ((c as i64) as i32).to_string();
        }
        let renamed = value.replacen(&format!("%{PREFIX}"), &format!("%{TILE_PREFIX}low."), 1);
        let renamed = if renamed == value {
            format!("%{TILE_PREFIX}low.{}", value.trim_start_matches('%'))
        } else {
            renamed
        };
        if self.defined.contains(&renamed) {
            return renamed;
        }
        let inst = strip_metadata(analysis.definition_of(value).unwrap_or(""));
        let opcode = inst.split(' ').next().unwrap_or("");
        let text = match (opcode, remat_operands(inst)) {
            ("zext" | "sext", Some(ops)) if inst.contains(" i32 ") && inst.ends_with(" to i64") => {
                let narrow = ops[0];
                if narrow.starts_with('%') && !self.args.contains(narrow) {
                    return self.recompute(analysis, narrow);
                }
                return narrow.to_string();
            }
            ("add" | "sub" | "mul" | "and" | "or" | "xor" | "shl", Some(ops))
                if inst.contains(" i64 ")
                    && (opcode != "shl" || ops[1].parse::<u32>().is_ok_and(|s| s < 32)) =>
            {
                let a = self.low(analysis, ops[0]);
                let b = self.low(analysis, ops[1]);
                format!("{opcode} i32 {a}, {b}")
            }
            _ => {
                let wide = self.recompute(analysis, value);
                format!("trunc i64 {wide} to i32")
            }
        };
        self.defined.insert(renamed.clone());
        self.lines.push(format!("  {renamed} = {text}\n"));
        renamed
    }

    /// `lo >= 0 && hi < len`, as a new line's name.
    pub(super) fn test(&mut self, lo: &str, hi: &str, len: &str) -> String {
        let from = self.fresh("from.");
        let to = self.fresh("to.");
        let ok = self.fresh("ok.");
        self.lines.push(format!(
            "  {from} = icmp sge i64 {lo}, 0\n  {to} = icmp ult i64 {hi}, {len}\n  \
             {ok} = and i1 {from}, {to}\n"
        ));
        ok
    }

    /// Whether `value` is computed from the arguments, constants and the block's indices,
    /// size and the grid's size alone (the same for every thread of a block).
    pub(super) fn uniform(&self, analysis: &Analysis<'_>, value: &str, depth: usize) -> bool {
        if !value.starts_with('%') || self.args.contains(value) {
            return true;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(inst) = analysis.definition_of(value) else {
            return false;
        };
        let inst = strip_metadata(inst);
        if block_register(inst) {
            return true;
        }
        pure_operands(inst)
            .is_some_and(|ops| ops.iter().all(|o| self.uniform(analysis, o, depth + 1)))
    }

    /// The name of `value` (uniform) recomputed in the entry block, adding its lines.
    pub(super) fn recompute(&mut self, analysis: &Analysis<'_>, value: &str) -> String {
        if !value.starts_with('%') || self.args.contains(value) {
            return value.to_string();
        }
        // The fast copy's names, and those the passes before gave it (`%ferrocuda.narrow.3`).
        let renamed = match value.strip_prefix(&format!("%{PREFIX}")) {
            Some(name) => format!("%{TILE_PREFIX}v.{name}"),
            None => format!("%{TILE_PREFIX}v.{}", value.trim_start_matches('%')),
        };
        if !self.defined.insert(renamed.clone()) {
            return renamed;
        }
        let inst = strip_metadata(analysis.definition_of(value).unwrap_or(""));
        let mut text = inst.to_string();
        if !block_register(inst) {
            for operand in pure_operands(inst).unwrap_or_default() {
                let new = self.recompute(analysis, operand);
                text = replace_operand(&text, operand, &new);
            }
        }
        self.lines.push(format!("  {renamed} = {text}\n"));
        renamed
    }
}

/// `inst` with the operand `old` (a whole name, not a prefix of a longer one) renamed.
fn replace_operand(inst: &str, old: &str, new: &str) -> String {
    let mut out = String::new();
    let mut rest = inst;
    while let Some(at) = rest.find(old) {
        let end = at + old.len();
        let next = rest[end..].chars().next();
        out.push_str(&rest[..at]);
        if next.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_') {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Whether `value` is computed from the block's or the grid's size (`ntid`, `nctaid`), which
/// the host's test does not read.
fn reads_block_size(analysis: &Analysis<'_>, value: &str, depth: usize) -> bool {
    let Some(inst) = analysis.definition_of(value) else {
        return false;
    };
    let inst = strip_metadata(inst);
    if inst.contains("@llvm.nvvm.read.ptx.sreg.ntid.")
        || inst.contains("@llvm.nvvm.read.ptx.sreg.nctaid.")
    {
        return true;
    }
    depth > MAX_DEPTH
        || pure_operands(inst)
            .unwrap_or_default()
            .iter()
            .any(|o| reads_block_size(analysis, o, depth + 1))
}
