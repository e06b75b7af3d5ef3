//! Parsing the text of an entry test's program (the syntax of the module documentation) into an
//! [`EntryTest`]: each op checked as it is read, then the facts of each op (the block-index axes
//! it depends on, whether the last op uses it) and the parameters the program reads.

use super::exact::mask;
use super::memo::Memo;
use super::syntax::{
    EntryTest, FLAG_DISJOINT, FLAG_EXACT, FLAG_NNEG, FLAG_NSW, FLAG_NUW, FLAG_SAMESIGN, Op,
    OpFacts, Opcode, Operand, Predicate, result_width,
};

impl EntryTest {
    /// Parses a program (the note without its prefix and entry name); `None` when malformed.
    pub(super) fn parse(program: &str) -> Option<EntryTest> {
        let mut ops: Vec<Op> = Vec::new();
        for text in program.split(';') {
            let op = parse_op(text, &ops)?;
            ops.push(op);
        }
        // `split` yields at least one piece, and an empty one fails to parse, so `ops` is not
        // empty here; the last op must be a 1-bit value.
        if result_width(ops.last()?) != 1 {
            return None;
        }
        let mut facts: Vec<OpFacts> = Vec::with_capacity(ops.len());
        let mut reads: Vec<(u32, u32)> = Vec::new();
        for op in &ops {
            let mut axes = 0;
            for operand in op.operands {
                match operand {
                    Operand::Value(index) => axes |= facts.get(index as usize)?.axes,
                    Operand::Block { axis } => axes |= 1 << axis,
                    Operand::Param { index, bits } => {
                        if !reads.contains(&(index, bits)) {
                            reads.push((index, bits));
                        }
                    }
                    Operand::Constant(_) => {}
                }
            }
            facts.push(OpFacts { axes, live: false });
        }
        // Liveness, from the last op back: an op is live when a live op reads it.
        if let Some(last) = facts.last_mut() {
            last.live = true;
        }
        for index in (0..ops.len()).rev() {
            if facts[index].live {
                for operand in ops[index].operands {
                    if let Operand::Value(earlier) = operand
                        && let Some(fact) = facts.get_mut(earlier as usize)
                    {
                        fact.live = true;
                    }
                }
            }
        }
        let block_axes =
            ops.iter()
                .flat_map(|op| op.operands)
                .fold(0, |axes, operand| match operand {
                    Operand::Block { axis } => axes | 1 << axis,
                    _ => axes,
                });
        Some(EntryTest {
            ops: ops.into_boxed_slice(),
            facts: facts.into_boxed_slice(),
            block_axes,
            reads: reads.into_boxed_slice(),
            memo: Memo::default(),
        })
    }
}

/// Parses op number `ops.len()` from `text`, given the ops before it.
fn parse_op(text: &str, ops: &[Op]) -> Option<Op> {
    let mut fields = text.split(' ');
    let mut names = fields.next()?.split('.');
    let opcode = match names.next()? {
        "zext" => Opcode::Zext,
        "sext" => Opcode::Sext,
        "trunc" => Opcode::Trunc,
        "add" => Opcode::Add,
        "sub" => Opcode::Sub,
        "mul" => Opcode::Mul,
        "shl" => Opcode::Shl,
        "lshr" => Opcode::Lshr,
        "and" => Opcode::And,
        "or" => Opcode::Or,
        "xor" => Opcode::Xor,
        "umin" => Opcode::Umin,
        "umax" => Opcode::Umax,
        "smin" => Opcode::Smin,
        "smax" => Opcode::Smax,
        "select" => Opcode::Select,
        "icmp" => Opcode::Icmp(parse_predicate(names.next()?)?),
        _ => return None,
    };
    let mut flags = 0;
    for name in names {
        let flag = parse_flag(name)?;
        if allowed_flags(opcode) & flag == 0 {
            return None;
        }
        flags |= flag;
    }
    let width = parse_width(fields.next()?)?;
    let unused = Operand::Constant(0);
    let (source_width, operands) = match opcode {
        Opcode::Zext | Opcode::Sext | Opcode::Trunc => {
            // A constant has no width of its own, so a cast of one is refused.
            let (operand, source_width) = parse_operand(fields.next()?, None, ops)?;
            let larger = matches!(opcode, Opcode::Zext | Opcode::Sext);
            if (larger && source_width >= width) || (!larger && source_width <= width) {
                return None;
            }
            (source_width, [operand, unused, unused])
        }
        Opcode::Select => {
            let (c, c_width) = parse_operand(fields.next()?, Some(1), ops)?;
            let (a, a_width) = parse_operand(fields.next()?, Some(width), ops)?;
            let (b, b_width) = parse_operand(fields.next()?, Some(width), ops)?;
            if c_width != 1 || a_width != width || b_width != width {
                return None;
            }
            (1, [c, a, b])
        }
        _ => {
            let (a, a_width) = parse_operand(fields.next()?, Some(width), ops)?;
            let (b, b_width) = parse_operand(fields.next()?, Some(width), ops)?;
            if a_width != width || b_width != width {
                return None;
            }
            (width, [a, b, unused])
        }
    };
    if fields.next().is_some() {
        return None;
    }
    Some(Op {
        opcode,
        flags,
        width,
        source_width,
        operands,
    })
}

/// The comparison named `name`.
fn parse_predicate(name: &str) -> Option<Predicate> {
    Some(match name {
        "eq" => Predicate::Eq,
        "ne" => Predicate::Ne,
        "ult" => Predicate::Ult,
        "ule" => Predicate::Ule,
        "ugt" => Predicate::Ugt,
        "uge" => Predicate::Uge,
        "slt" => Predicate::Slt,
        "sle" => Predicate::Sle,
        "sgt" => Predicate::Sgt,
        "sge" => Predicate::Sge,
        _ => return None,
    })
}

/// The flag named `name`.
fn parse_flag(name: &str) -> Option<u8> {
    Some(match name {
        "nuw" => FLAG_NUW,
        "nsw" => FLAG_NSW,
        "nneg" => FLAG_NNEG,
        "exact" => FLAG_EXACT,
        "disjoint" => FLAG_DISJOINT,
        "samesign" => FLAG_SAMESIGN,
        _ => return None,
    })
}

/// The flags `opcode` may carry.
pub(super) fn allowed_flags(opcode: Opcode) -> u8 {
    match opcode {
        Opcode::Zext => FLAG_NNEG,
        Opcode::Trunc | Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Shl => {
            FLAG_NUW | FLAG_NSW
        }
        Opcode::Lshr => FLAG_EXACT,
        Opcode::Or => FLAG_DISJOINT,
        Opcode::Icmp(_) => FLAG_SAMESIGN,
        Opcode::Sext
        | Opcode::And
        | Opcode::Xor
        | Opcode::Umin
        | Opcode::Umax
        | Opcode::Smin
        | Opcode::Smax
        | Opcode::Select => 0,
    }
}

/// A width field: 1, 8, 16, 32 or 64.
fn parse_width(text: &str) -> Option<u32> {
    match text {
        "1" => Some(1),
        "8" => Some(8),
        "16" => Some(16),
        "32" => Some(32),
        "64" => Some(64),
        _ => None,
    }
}

/// Parses an operand of an op that follows `ops`, with its width. A constant is taken at
/// `constant_width`, and refused when that is `None` or the constant does not fit in it.
fn parse_operand(text: &str, constant_width: Option<u32>, ops: &[Op]) -> Option<(Operand, u32)> {
    if let Some(index) = text.strip_prefix('%') {
        let index = decimal(index)?;
        let op = ops.get(usize::try_from(index).ok()?)?;
        return Some((Operand::Value(u32::try_from(index).ok()?), result_width(op)));
    }
    if let Some(param) = text.strip_prefix('$') {
        let (index, bits) = param.split_once(':')?;
        let index = u32::try_from(decimal(index)?).ok()?;
        let bits = match bits {
            "32" => 32,
            "64" => 64,
            _ => return None,
        };
        return Some((Operand::Param { index, bits }, bits));
    }
    if let Some(axis) = text.strip_prefix('^') {
        let axis = match axis {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return None,
        };
        return Some((Operand::Block { axis }, 32));
    }
    let width = constant_width?;
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text),
    };
    let magnitude = i128::from(decimal(digits)?);
    let value = if negative { -magnitude } else { magnitude };
    // Anything from the smallest signed to the largest unsigned value of the width.
    if value < -(1i128 << (width - 1)) || value > (1i128 << width) - 1 {
        return None;
    }
    Some((Operand::Constant(value as u64 & mask(width)), width))
}

/// A non-empty string of ASCII digits as a number (no sign, no spaces); `None` otherwise or on
/// overflow.
fn decimal(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}
