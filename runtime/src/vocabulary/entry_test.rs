//! [`EntryTest`]: the test a versioned kernel's entry makes of its integer parameters, read
//! from the comment lines nvptx-builder writes at the top of the PTX module and evaluated on the
//! host at each launch.
//!
//! # Why
//!
//! nvptx-builder versions some kernels on their bounds checks: the entry tests its integer
//! parameters (e.g. `nz*ny*nx <= input.len() && nx < 2^30`) and branches to a fast copy of the
//! body, without the checks the test proves, or to the original. Computed on the GPU the test
//! costs every thread some 14 instructions, though its answer is the same for the whole launch.
//! So the builder also writes the test into the PTX, and the kernel skips it when bit 62 of its
//! launch token ([`ENTRY_TEST_TOKEN_BIT`]) is set: the runtime sets the bit when the test holds
//! on the launch's parameters. When the bit is clear the kernel computes the test itself, so
//! leaving it clear is always correct; setting it when the test does not hold would run the
//! copy without bounds checks out of bounds. Hence the evaluation is exact and conservative:
//! any operation whose result LLVM would call poison, a parameter of an unexpected size, or a
//! malformed program makes the test fail (or leaves the kernel without one).
//!
//! # The note
//!
//! `// ferrocuda entry test: <entry> <program>`, among the comment lines before `.version`
//! (lines after it are never notes). The program is ops separated by `;`; op `i` (from 0)
//! defines the value `%i`. An op is fields separated by single spaces,
//! `<opcode>[.<flag>]* <width> <operand> [<operand>]`:
//!
//! - `<width>` is 1, 8, 16, 32 or 64: the result's width, or for `icmp` both operands' width
//!   (its result is 1 bit).
//! - An operand is `%<n>` (an earlier op's value), `$<n>:<w>` (entry parameter `n` read as an
//!   unsigned integer of `w` = 32 or 64 bits, whose bytes must be exactly `w / 8` long), `^x`,
//!   `^y` or `^z` (a block index, 32 bits: see below), or a
//!   decimal constant, possibly negative, taken as a two's-complement value of the width the op
//!   expects (not allowed as a cast's operand, whose width it could not tell).
//! - Casts of one operand: `zext` (flag `nneg`), `sext`, `trunc` (flags `nuw`, `nsw`), to a
//!   larger (`zext`, `sext`) or smaller (`trunc`) width. Binary ops on two operands of the op's
//!   width, wrapping: `add`, `sub`, `mul`, `shl` (flags `nuw`, `nsw`), `lshr` (flag `exact`),
//!   `and`, `or` (flag `disjoint`), `xor`. Comparisons: `icmp.<pred>[.samesign]`, `pred` one of
//!   `eq ne ult ule ugt uge slt sle sgt sge`. Flags mean what they mean in LLVM IR: the result
//!   is poison when the flag's promise is broken; so is a shift by the width or more.
//!
//! The test holds when no op is poison (used or not) and the last op, which must be 1 bit wide,
//! is 1.
//!
//! Evaluation keeps the values in a [`SmallVec`] of 32 inline words, so a program of up to
//! 32 ops allocates nothing.
//!
//! # Tests of every block
//!
//! A program that reads block indices holds for a launch when it holds at every corner of the
//! launch's grid: each index it reads at 0 and at the grid's last block on that axis (2, 4 or
//! 8 evaluations). That decides every block for a conjunction of half-spaces of the block
//! indices (an affine function compared with a bound, exactly), which is what the builder
//! writes: the block-index limits of a narrowed copy (`icmp.ult 32 ^x 32768`, true at the last
//! block and so at all). With the bit set, the kernel skips those limits with the rest of its
//! test.

#[cfg(doc)]
use crate::device::panic::ENTRY_TEST_TOKEN_BIT;
use crate::vocabulary::params::ParamBuffer;
use smallvec::SmallVec;

/// What starts an entry-test note line of the PTX.
pub(crate) const ENTRY_TEST_NOTE_PREFIX: &str = "// ferrocuda entry test: ";

/// The entry test of a versioned kernel: a straight-line program over its integer parameters
/// whose last value says whether the kernel may take its fast copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryTest {
    /// The ops, in order; op `i` defines value `%i`. Never empty; the last one is 1 bit wide.
    ops: Box<[Op]>,
    /// The block-index axes the ops read (bit 0 `x`, bit 1 `y`, bit 2 `z`).
    block_axes: u8,
}

/// One op of an [`EntryTest`], checked when parsed: its operands exist and have the widths the
/// opcode needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Op {
    /// What it computes.
    opcode: Opcode,
    /// Its flags (`FLAG_*`), each allowed for `opcode`.
    flags: u8,
    /// The width of its result, or of its operands for a comparison.
    width: u32,
    /// The width of its first operand: `width` except for casts.
    source_width: u32,
    /// Its operands; a cast's second one is unused (`Constant(0)`).
    operands: [Operand; 2],
}

/// What an [`Op`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opcode {
    Zext,
    Sext,
    Trunc,
    Add,
    Sub,
    Mul,
    Shl,
    Lshr,
    And,
    Or,
    Xor,
    Icmp(Predicate),
}

/// The comparison of an `icmp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Predicate {
    Eq,
    Ne,
    Ult,
    Ule,
    Ugt,
    Uge,
    Slt,
    Sle,
    Sgt,
    Sge,
}

/// Poison on unsigned overflow (or, for `trunc`, when bits are lost unsigned).
const FLAG_NUW: u8 = 1 << 0;
/// Poison on signed overflow (or, for `trunc`, when the signed value changes).
const FLAG_NSW: u8 = 1 << 1;
/// `zext`: poison when the operand is negative.
const FLAG_NNEG: u8 = 1 << 2;
/// `lshr`: poison when a 1 bit is shifted out.
const FLAG_EXACT: u8 = 1 << 3;
/// `or`: poison when the operands share a 1 bit.
const FLAG_DISJOINT: u8 = 1 << 4;
/// `icmp`: poison when the operands' sign bits differ.
const FLAG_SAMESIGN: u8 = 1 << 5;

/// An operand of an [`Op`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operand {
    /// The value of an earlier op.
    Value(u32),
    /// Entry parameter `index`, read as an unsigned integer of `bits` bits (32 or 64).
    Param { index: u32, bits: u32 },
    /// A constant, reduced to the width the op expects.
    Constant(u64),
    /// The block index on axis `axis` (0 = `x`, 1 = `y`, 2 = `z`), 32 bits.
    Block { axis: u8 },
}

/// The entry test of entry `name` in the PTX module `ptx`: `None` when no note names it, more
/// than one does, or its program is malformed (the kernel then computes its test itself).
pub(crate) fn entry_test_of(ptx: &str, name: &str) -> Option<EntryTest> {
    let mut notes = super::ptx_entry::entry_notes(ptx, ENTRY_TEST_NOTE_PREFIX, name);
    let program = notes.next()?;
    if notes.next().is_some() {
        // Two notes for one entry: trust neither.
        return None;
    }
    EntryTest::parse(program.trim_end())
}

/// Whether the entry test of `entry` in the PTX module `ptx` holds on `params`, the entry's
/// parameters as a raw launcher holds them (one 8-byte slot each, a 32-bit parameter in the low
/// half, the launch token last), for a launch of `grid` blocks (`[x, y, z]`): `None` when the
/// entry has no test (it is not versioned).
///
/// For launches made outside `launch!` (through cudarc, say): such a launcher that finds the
/// test true may set [`ENTRY_TEST_TOKEN_BIT`](crate::device::panic::ENTRY_TEST_TOKEN_BIT)
/// in the token it passes, as the runtime does, and the kernel skips computing the test itself.
pub fn entry_test_holds(ptx: &str, entry: &str, params: &[u64], grid: [u32; 3]) -> Option<bool> {
    let test = entry_test_of(ptx, entry)?;
    // The widths the program reads each parameter at (the entry's own parameter types).
    let mut bits = vec![64u32; params.len()];
    for op in &test.ops {
        for operand in op.operands {
            if let Operand::Param { index, bits: b } = operand
                && let Some(slot) = bits.get_mut(index as usize)
            {
                *slot = b;
            }
        }
    }
    let mut buffer = ParamBuffer::default();
    for (&value, &b) in params.iter().zip(&bits) {
        if b == 32 {
            buffer.push(value as u32);
        } else {
            buffer.push(value);
        }
    }
    Some(test.holds(&buffer, grid))
}

impl EntryTest {
    /// Parses a program (the note without its prefix and entry name); `None` when malformed.
    fn parse(program: &str) -> Option<EntryTest> {
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
        let block_axes =
            ops.iter()
                .flat_map(|op| op.operands)
                .fold(0, |axes, operand| match operand {
                    Operand::Block { axis } => axes | 1 << axis,
                    _ => axes,
                });
        Some(EntryTest {
            ops: ops.into_boxed_slice(),
            block_axes,
        })
    }

    /// Whether the test holds on a launch's parameters for every block of `grid` (`[x, y, z]`
    /// blocks): every op defined (not poison) and the last one 1, at each corner of the grid
    /// when the program reads block indices (see the module documentation). False when a
    /// parameter the program reads is missing or of another size, or the grid is empty.
    pub(crate) fn holds(&self, params: &ParamBuffer, grid: [u32; 3]) -> bool {
        let axes = self.block_axes;
        if grid.contains(&0) {
            return false;
        }
        // The corners: each subset of the axes read, at the last block, the others at 0.
        (0u8..8).filter(|corner| corner & !axes == 0).all(|corner| {
            let block: [u32; 3] = std::array::from_fn(|axis| {
                if corner & 1 << axis != 0 {
                    grid[axis] - 1
                } else {
                    0
                }
            });
            self.holds_at(params, block)
        })
    }

    /// Whether the test holds on `params` in the block of indices `block`.
    fn holds_at(&self, params: &ParamBuffer, block: [u32; 3]) -> bool {
        let mut values: SmallVec<[u64; 32]> = SmallVec::new();
        for op in &self.ops {
            match op.evaluate(&values, params, block) {
                Some(value) => values.push(value),
                None => return false,
            }
        }
        values.last() == Some(&1)
    }
}

/// The width of `op`'s result.
fn result_width(op: &Op) -> u32 {
    match op.opcode {
        Opcode::Icmp(_) => 1,
        _ => op.width,
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
    let is_cast = matches!(opcode, Opcode::Zext | Opcode::Sext | Opcode::Trunc);
    let (source_width, operands) = if is_cast {
        // A constant has no width of its own, so a cast of one is refused.
        let (operand, source_width) = parse_operand(fields.next()?, None, ops)?;
        let larger = matches!(opcode, Opcode::Zext | Opcode::Sext);
        if (larger && source_width >= width) || (!larger && source_width <= width) {
            return None;
        }
        (source_width, [operand, Operand::Constant(0)])
    } else {
        let (a, a_width) = parse_operand(fields.next()?, Some(width), ops)?;
        let (b, b_width) = parse_operand(fields.next()?, Some(width), ops)?;
        if a_width != width || b_width != width {
            return None;
        }
        (width, [a, b])
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
fn allowed_flags(opcode: Opcode) -> u8 {
    match opcode {
        Opcode::Zext => FLAG_NNEG,
        Opcode::Trunc | Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Shl => {
            FLAG_NUW | FLAG_NSW
        }
        Opcode::Lshr => FLAG_EXACT,
        Opcode::Or => FLAG_DISJOINT,
        Opcode::Icmp(_) => FLAG_SAMESIGN,
        Opcode::Sext | Opcode::And | Opcode::Xor => 0,
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

/// The low `width` bits set (`width` from 1 to 64).
fn mask(width: u32) -> u64 {
    u64::MAX >> (64 - width)
}

/// `value`, a `width`-bit integer, as a signed number.
fn signed(value: u64, width: u32) -> i64 {
    ((value << (64 - width)) as i64) >> (64 - width)
}

/// Whether the signed `value` fits in `width` bits.
fn fits_signed(value: i128, width: u32) -> bool {
    let half = 1i128 << (width - 1);
    (-half..half).contains(&value)
}

impl Op {
    /// The op's value given the values before it; `None` when it is poison or an operand
    /// cannot be read.
    #[inline]
    fn evaluate(&self, values: &[u64], params: &ParamBuffer, block: [u32; 3]) -> Option<u64> {
        let a = operand(self.operands[0], values, params, block)?;
        let (w, from) = (self.width, self.source_width);
        let flag = |f: u8| self.flags & f != 0;
        match self.opcode {
            Opcode::Zext => (!flag(FLAG_NNEG) || signed(a, from) >= 0).then_some(a),
            Opcode::Sext => Some(signed(a, from) as u64 & mask(w)),
            Opcode::Trunc => {
                let r = a & mask(w);
                let lost_unsigned = flag(FLAG_NUW) && r != a;
                let lost_signed = flag(FLAG_NSW) && signed(r, w) != signed(a, from);
                (!lost_unsigned && !lost_signed).then_some(r)
            }
            _ => {
                let b = operand(self.operands[1], values, params, block)?;
                binary(self.opcode, self.flags, w, a, b)
            }
        }
    }
}

/// The value of `operand` in the block of indices `block`: `None` when it cannot be read (a
/// missing value, or a parameter missing or of another size).
#[inline]
fn operand(operand: Operand, values: &[u64], params: &ParamBuffer, block: [u32; 3]) -> Option<u64> {
    match operand {
        Operand::Value(index) => values.get(index as usize).copied(),
        Operand::Param { index, bits } => params.unsigned(index as usize, bits),
        Operand::Constant(value) => Some(value),
        Operand::Block { axis } => Some(u64::from(block[usize::from(axis)])),
    }
}

/// A binary op or a comparison of two `w`-bit values `a` and `b`; `None` when poison.
fn binary(opcode: Opcode, flags: u8, w: u32, a: u64, b: u64) -> Option<u64> {
    let flag = |f: u8| flags & f != 0;
    let (nuw, nsw) = (flag(FLAG_NUW), flag(FLAG_NSW));
    // Exact results, signed and unsigned, in 128 bits (where no 64-bit op overflows).
    let (sa, sb) = (i128::from(signed(a, w)), i128::from(signed(b, w)));
    let (ua, ub) = (u128::from(a), u128::from(b));
    let max = u128::from(mask(w));
    // Each arm: the result before it is reduced to `w` bits, and whether it is poison.
    let (result, poison) = match opcode {
        Opcode::Add => (
            a.wrapping_add(b),
            (nuw && ua + ub > max) || (nsw && !fits_signed(sa + sb, w)),
        ),
        Opcode::Sub => (
            a.wrapping_sub(b),
            (nuw && a < b) || (nsw && !fits_signed(sa - sb, w)),
        ),
        Opcode::Mul => (
            a.wrapping_mul(b),
            (nuw && ua * ub > max) || (nsw && !fits_signed(sa * sb, w)),
        ),
        Opcode::Shl => {
            if b >= u64::from(w) {
                return None;
            }
            let r = (a << b) & mask(w);
            // Shifting back must give the operand: no 1 bit (`nuw`), or no bit that differs
            // from the result's sign (`nsw`), shifted out.
            (
                r,
                (nuw && r >> b != a) || (nsw && signed(r, w) >> b != signed(a, w)),
            )
        }
        Opcode::Lshr => {
            if b >= u64::from(w) {
                return None;
            }
            let r = a >> b;
            (r, flag(FLAG_EXACT) && r << b != a)
        }
        Opcode::And => (a & b, false),
        Opcode::Or => (a | b, flag(FLAG_DISJOINT) && a & b != 0),
        Opcode::Xor => (a ^ b, false),
        Opcode::Icmp(predicate) => {
            let r = match predicate {
                Predicate::Eq => a == b,
                Predicate::Ne => a != b,
                Predicate::Ult => a < b,
                Predicate::Ule => a <= b,
                Predicate::Ugt => a > b,
                Predicate::Uge => a >= b,
                Predicate::Slt => sa < sb,
                Predicate::Sle => sa <= sb,
                Predicate::Sgt => sa > sb,
                Predicate::Sge => sa >= sb,
            };
            (u64::from(r), flag(FLAG_SAMESIGN) && (sa < 0) != (sb < 0))
        }
        // Casts are evaluated by `Op::evaluate`, never here.
        Opcode::Zext | Opcode::Sext | Opcode::Trunc => return None,
    };
    (!poison).then_some(result & mask(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grid of one block.
    const ONE: [u32; 3] = [1, 1, 1];

    /// A deterministic generator (splitmix64) of test values, biased towards the edges.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        /// A `width`-bit value: often 0, 1, the largest or smallest signed or unsigned value,
        /// something small, or something around the square root of the range (whose products
        /// land at the wrap edge).
        fn value(&mut self, width: u32) -> u64 {
            let top = u64::MAX >> (64 - width);
            let half = 1u64 << (width / 2);
            let small = self.next() % 4;
            let value = match self.next() % 10 {
                0 => 0,
                1 => 1,
                2 => top,
                3 => top >> 1,
                4 => (top >> 1) + 1,
                5 => self.next() % 70,
                6 => half.wrapping_add(small).wrapping_sub(2),
                7 => top.wrapping_sub(small),
                8 => (top >> 1).wrapping_add(small).wrapping_sub(2),
                _ => self.next(),
            };
            value & top
        }

        /// A shift amount for `width` bits: mostly in range, sometimes at or past the width.
        fn shift(&mut self, width: u32) -> u64 {
            match self.next() % 4 {
                0 => self.value(width),
                _ => self.next() % (u64::from(width) + 2),
            }
        }
    }

    /// Builds a program and the parameters it reads (each pushed as the launcher would, then
    /// a launch token).
    #[derive(Default)]
    struct Program {
        ops: Vec<String>,
        /// Each parameter's value and width (32: pushed as a `u32`, 64: as a `u64`).
        params: Vec<(u64, u32)>,
    }

    impl Program {
        /// Appends an op; its value as an operand.
        fn op(&mut self, text: String) -> String {
            self.ops.push(text);
            format!("%{}", self.ops.len() - 1)
        }

        /// A new parameter of `width` bits holding `value`, as an operand (narrower than 32
        /// bits: a `trunc` of a 32-bit parameter).
        fn input(&mut self, value: u64, width: u32) -> String {
            let n = self.params.len();
            if width >= 32 {
                self.params.push((value, width));
                format!("${n}:{width}")
            } else {
                self.params.push((value, 32));
                self.op(format!("trunc {width} ${n}:32"))
            }
        }

        fn text(&self) -> String {
            self.ops.join(";")
        }

        fn holds(&self) -> bool {
            let text = self.text();
            let test = EntryTest::parse(&text).unwrap_or_else(|| panic!("rejected: {text}"));
            test.holds(&buffer(&self.params), ONE)
        }
    }

    /// A parameter buffer as the launcher writes it: the values, then a token.
    fn buffer(params: &[(u64, u32)]) -> ParamBuffer {
        let mut buffer = ParamBuffer::default();
        for &(value, width) in params {
            if width == 64 {
                buffer.push(value);
            } else {
                buffer.push(value as u32);
            }
        }
        buffer.push(7u64);
        buffer
    }

    fn holds(program: &str, params: &[(u64, u32)]) -> bool {
        let test = EntryTest::parse(program).unwrap_or_else(|| panic!("rejected: {program}"));
        test.holds(&buffer(params), ONE)
    }

    /// A reference for the binary ops and comparisons of one width, in the native types: the
    /// result, or `None` when LLVM's rules make it poison.
    macro_rules! reference_binary {
        ($name:ident, $u:ty, $i:ty) => {
            fn $name(opcode: &str, flags: &[&str], a: u64, b: u64) -> Option<u64> {
                let (a, b) = (a as $u, b as $u);
                let (sa, sb) = (a as $i, b as $i);
                let has = |flag: &str| flags.contains(&flag);
                let checked = |unsigned: Option<$u>, signed: Option<$i>, wrapped: $u| {
                    let poison =
                        (has("nuw") && unsigned.is_none()) || (has("nsw") && signed.is_none());
                    (!poison).then_some(wrapped)
                };
                let result: $u = match opcode {
                    "add" => checked(a.checked_add(b), sa.checked_add(sb), a.wrapping_add(b))?,
                    "sub" => checked(a.checked_sub(b), sa.checked_sub(sb), a.wrapping_sub(b))?,
                    "mul" => checked(a.checked_mul(b), sa.checked_mul(sb), a.wrapping_mul(b))?,
                    "shl" | "lshr" => {
                        if u32::try_from(b).map_or(true, |b| b >= <$u>::BITS) {
                            return None;
                        }
                        let n = b as u32;
                        if opcode == "lshr" {
                            if has("exact") && a.trailing_zeros() < n {
                                return None;
                            }
                            a >> n
                        } else {
                            // The top n bits leave; with nsw, they and the new sign bit must
                            // all equal the old sign bit.
                            if has("nuw") && a.leading_zeros() < n {
                                return None;
                            }
                            if has("nsw") && a.leading_zeros() <= n && a.leading_ones() <= n {
                                return None;
                            }
                            a << n
                        }
                    }
                    "and" => a & b,
                    "or" => {
                        if has("disjoint") && a & b != 0 {
                            return None;
                        }
                        a | b
                    }
                    "xor" => a ^ b,
                    predicate => {
                        if has("samesign") && (sa < 0) != (sb < 0) {
                            return None;
                        }
                        <$u>::from(match predicate {
                            "eq" => a == b,
                            "ne" => a != b,
                            "ult" => a < b,
                            "ule" => a <= b,
                            "ugt" => a > b,
                            "uge" => a >= b,
                            "slt" => sa < sb,
                            "sle" => sa <= sb,
                            "sgt" => sa > sb,
                            "sge" => sa >= sb,
                            _ => unreachable!("{predicate}"),
                        })
                    }
                };
                Some(result as u64)
            }
        };
    }

    reference_binary!(reference_8, u8, i8);
    reference_binary!(reference_16, u16, i16);
    reference_binary!(reference_32, u32, i32);
    reference_binary!(reference_64, u64, i64);

    fn reference_binary(width: u32, opcode: &str, flags: &[&str], a: u64, b: u64) -> Option<u64> {
        match width {
            8 => reference_8(opcode, flags, a, b),
            16 => reference_16(opcode, flags, a, b),
            32 => reference_32(opcode, flags, a, b),
            64 => reference_64(opcode, flags, a, b),
            _ => unreachable!(),
        }
    }

    /// `a` of `width` bits, signed and unsigned, through the native types.
    fn native(a: u64, width: u32) -> (i128, u128) {
        match width {
            8 => (i128::from(a as u8 as i8), u128::from(a as u8)),
            16 => (i128::from(a as u16 as i16), u128::from(a as u16)),
            32 => (i128::from(a as u32 as i32), u128::from(a as u32)),
            64 => (i128::from(a as i64), u128::from(a)),
            _ => unreachable!(),
        }
    }

    /// A reference for the casts, through the native types' conversions.
    fn reference_cast(opcode: &str, flags: &[&str], from: u32, to: u32, a: u64) -> Option<u64> {
        let (signed, unsigned) = native(a, from);
        let has = |flag: &str| flags.contains(&flag);
        // The value reduced to `to` bits, and whether it fits, unsigned and signed.
        let (reduced, fits_unsigned, fits_signed) = match (opcode, to) {
            ("sext", 16) => (signed as i16 as u16 as u64, true, true),
            ("sext", 32) => (signed as i32 as u32 as u64, true, true),
            ("sext", 64) => (signed as i64 as u64, true, true),
            ("zext", _) => (unsigned as u64, true, true),
            ("trunc", 8) => (
                unsigned as u8 as u64,
                u8::try_from(unsigned).is_ok(),
                i8::try_from(signed).is_ok(),
            ),
            ("trunc", 16) => (
                unsigned as u16 as u64,
                u16::try_from(unsigned).is_ok(),
                i16::try_from(signed).is_ok(),
            ),
            ("trunc", 32) => (
                unsigned as u32 as u64,
                u32::try_from(unsigned).is_ok(),
                i32::try_from(signed).is_ok(),
            ),
            _ => unreachable!("{opcode} {to}"),
        };
        let poison = (has("nneg") && signed < 0)
            || (has("nuw") && !fits_unsigned)
            || (has("nsw") && !fits_signed);
        (!poison).then_some(reduced)
    }

    const WIDTHS: [u32; 4] = [8, 16, 32, 64];

    /// The values of `width` bits at which arithmetic changes behaviour: around 0, the square
    /// root of the range (products at the wrap), the signed and unsigned limits, and shift
    /// amounts around the width.
    fn edges(width: u32) -> Vec<u64> {
        let top = u64::MAX >> (64 - width);
        let root = 1u64 << (width / 2);
        let sign = 1u64 << (width - 1);
        let w = u64::from(width);
        [
            0,
            1,
            2,
            3,
            root - 1,
            root,
            root + 1,
            sign - 1,
            sign,
            sign + 1,
            top - 1,
            top,
            w - 1,
            w,
            w + 1,
        ]
        .iter()
        .map(|&v| v & top)
        .collect()
    }

    #[test]
    fn the_example_holds_exactly_when_its_reference_does() {
        let program = "zext 64 $4:32;zext 64 $5:32;mul.nuw 64 %0 %1;icmp.ule 64 %2 $1:64;\
                       icmp.ult 32 $4:32 1073741824;and 1 %3 %4";
        let test = EntryTest::parse(program).expect("parses");
        let mut random = Random(1);
        let mut seen = [0; 2];
        for _ in 0..20_000 {
            let (nx, ny) = (random.value(32), random.value(32));
            // The length near the product, or anything.
            let len = match random.next() % 3 {
                0 => (nx * ny).wrapping_add(random.next() % 3).wrapping_sub(1),
                1 => nx * ny,
                _ => random.value(64),
            };
            let mut params = ParamBuffer::default();
            params.push(0xdead_0000u64);
            params.push(len);
            params.push(0u64);
            params.push(3u32);
            params.push(nx as u32);
            params.push(ny as u32);
            params.push(7u64);
            let expected = nx.checked_mul(ny).is_some_and(|n| n <= len) && nx < 1 << 30;
            assert_eq!(test.holds(&params, ONE), expected, "{nx} {ny} {len}");
            seen[usize::from(expected)] += 1;
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }

    /// The note `nvptx-builder` writes for a 2-D kernel `taps(image, out, w: u32, h: u32)`
    /// whose guards bound its reads by `h * w` and its writes by `w` (the program its unit test
    /// `a_kernel_with_a_launch_token_takes_the_fast_copy_on_its_bit` pins, verbatim): the two
    /// crates agree on the format when this holds exactly when the kernel's test does.
    #[test]
    fn the_builders_note_holds_exactly_when_the_kernels_test_does() {
        let program = "zext 64 $5:32;zext 64 $4:32;and 64 $1:64 4294967295;mul.nuw 64 %0 %1;\
                       icmp.ule 64 %3 %2;and 64 $3:64 4294967295;icmp.ule 64 %1 %5;\
                       icmp.ult 32 $5:32 1073741824;icmp.ult 32 $4:32 1073741824;and 1 %4 %6;\
                       and 1 %9 %7;and 1 %10 %8";
        let test = EntryTest::parse(program).expect("parses");
        let mut random = Random(11);
        let mut seen = [0; 2];
        for _ in 0..20_000 {
            let (w, h) = match random.next() % 3 {
                0 => (random.value(32), random.value(32)),
                _ => (random.next() % 5000, random.next() % 5000),
            };
            let near = |n: u64, random: &mut Random| match random.next() % 3 {
                0 => n.wrapping_add(random.next() % 3).wrapping_sub(1),
                1 => n,
                _ => random.value(32),
            };
            let image_len = near(w.wrapping_mul(h) & 0xffff_ffff, &mut random);
            let out_len = near(w, &mut random);
            let mut params = ParamBuffer::default();
            params.push(0xdead_0000u64);
            params.push(image_len);
            params.push(0xbeef_0000u64);
            params.push(out_len);
            params.push(w as u32);
            params.push(h as u32);
            params.push(7u64);
            // The kernel's test, on the lengths as its entry reads them (below 2^32).
            let (image_len, out_len) = (image_len & 0xffff_ffff, out_len & 0xffff_ffff);
            let expected = h * w <= image_len && w <= out_len && h < 1 << 30 && w < 1 << 30;
            assert_eq!(
                test.holds(&params, ONE),
                expected,
                "{w} {h} {image_len} {out_len}"
            );
            seen[usize::from(expected)] += 1;
        }
        assert!(seen[0] > 1000 && seen[1] > 1000, "{seen:?}");
    }

    /// `$0 <= a*^y + ^x + $1` and `a*^y + ^x + $1 + 15 < $2` (a tile's ends, affine in the
    /// block indices, as the builder writes a per-block test), for every block of `grid` one
    /// by one: the reference for the corner rule.
    fn every_block(params: &[(u64, u32)], grid: [u32; 3]) -> bool {
        let (a, origin, len) = (
            params[0].0 as i64,
            params[1].0 as i32 as i64,
            params[2].0 as i64,
        );
        (0..grid[1]).all(|y| {
            (0..grid[0]).all(|x| {
                let lo = a * i64::from(y) + i64::from(x) + origin;
                lo >= 0 && lo + 15 < len
            })
        }) && grid.iter().all(|&g| g > 0)
    }

    #[test]
    fn a_test_of_block_indices_holds_when_it_holds_for_every_block() {
        const TILE: &str = "mul.nsw 32 $0:32 ^y;add.nsw 32 %0 ^x;add.nsw 32 %1 $1:32;\
            add.nsw 32 %2 15;sext 64 %2;sext 64 %3;icmp.sge 64 %4 0;icmp.ult 64 %5 $2:64;\
            and 1 %6 %7";
        let test = EntryTest::parse(TILE).expect("parses");
        assert_eq!(test.block_axes, 0b011);
        let mut random = Random(11);
        let (mut held, mut failed) = (0, 0);
        for _ in 0..4000 {
            let a = random.next() % 40;
            let origin = (random.next() % 9) as i32 - 4;
            let len = random.next() % 900;
            let grid = [
                (random.next() % 12) as u32,
                (random.next() % 12) as u32,
                (random.next() % 3) as u32,
            ];
            let params = [(a, 32), (u64::from(origin as u32), 32), (len, 64)];
            let expected = every_block(&params, grid);
            assert_eq!(
                test.holds(&buffer(&params), grid),
                expected,
                "a {a} origin {origin} len {len} grid {grid:?}"
            );
            if expected { held += 1 } else { failed += 1 }
        }
        assert!(held > 200 && failed > 200, "{held} {failed}");
        // A limit on the block index holds at the last block, so for the whole grid; an axis the
        // program does not read is not looked at.
        let limit = EntryTest::parse("icmp.ult 32 ^x 100").expect("parses");
        assert!(limit.holds(&buffer(&[]), [100, 7, 1]));
        assert!(!limit.holds(&buffer(&[]), [101, 1, 1]));
        assert!(!limit.holds(&buffer(&[]), [0, 1, 1]));
        let z = EntryTest::parse("icmp.eq 32 ^z 0").expect("parses");
        assert!(z.holds(&buffer(&[]), [5, 5, 1]) && !z.holds(&buffer(&[]), [1, 1, 2]));
    }

    #[test]
    fn a_block_index_is_32_bits_and_named_by_its_axis() {
        for program in [
            "icmp.ult 64 ^x 3",
            "icmp.ult 32 ^w 3",
            "icmp.ult 32 ^ 3",
            "zext 32 ^x",
        ] {
            assert_eq!(EntryTest::parse(program), None, "{program}");
        }
        let wide = EntryTest::parse("zext 64 ^y;icmp.ult 64 %0 5").expect("parses");
        assert!(wide.holds(&buffer(&[]), [1, 5, 1]) && !wide.holds(&buffer(&[]), [1, 6, 1]));
    }

    #[test]
    fn a_raw_launcher_asks_with_8_byte_slots() {
        let ptx = "// ferrocuda entry test: k zext 64 $2:32;icmp.ule 64 %0 $1:64\n.version 7.8\n";
        // `n <= len`, `n` a 32-bit parameter in the low half of its slot.
        assert_eq!(
            entry_test_holds(ptx, "k", &[0xdead, 10, 10, 7], ONE),
            Some(true)
        );
        assert_eq!(
            entry_test_holds(ptx, "k", &[0xdead, 10, 11, 7], ONE),
            Some(false)
        );
        assert_eq!(
            entry_test_holds(ptx, "k", &[0xdead, 10, (1 << 32) | 3, 7], ONE),
            Some(true)
        );
        // Too few parameters: the test cannot hold. No note: no test.
        assert_eq!(entry_test_holds(ptx, "k", &[0xdead, 10], ONE), Some(false));
        assert_eq!(
            entry_test_holds(ptx, "other", &[0xdead, 10, 10, 7], ONE),
            None
        );
    }

    #[test]
    fn binary_ops_and_comparisons_match_native_arithmetic() {
        let mut arithmetic: Vec<(&str, &[&str])> = Vec::new();
        for opcode in ["add", "sub", "mul", "shl"] {
            for flags in [&[][..], &["nuw"], &["nsw"], &["nuw", "nsw"]] {
                arithmetic.push((opcode, flags));
            }
        }
        arithmetic.extend([
            ("lshr", &[][..]),
            ("lshr", &["exact"]),
            ("and", &[]),
            ("or", &[]),
            ("or", &["disjoint"]),
            ("xor", &[]),
        ]);
        let predicates = [
            "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
        ];
        let mut random = Random(2);
        let mut outcomes = [0; 2];
        for width in WIDTHS {
            for &(opcode, flags) in &arithmetic {
                let name: String = std::iter::once(opcode)
                    .chain(flags.iter().copied())
                    .collect::<Vec<_>>()
                    .join(".");
                // Every pair of edge values, then random pairs.
                let edges = edges(width);
                let pairs = edges
                    .iter()
                    .flat_map(|&a| edges.iter().map(move |&b| (a, b)));
                let random_pairs: Vec<(u64, u64)> = (0..400)
                    .map(|_| {
                        let a = random.value(width);
                        let b = if opcode == "shl" || opcode == "lshr" {
                            random.shift(width)
                        } else {
                            random.value(width)
                        };
                        (a, b)
                    })
                    .collect();
                for (a, b) in pairs.chain(random_pairs) {
                    let reference = reference_binary(width, opcode, flags, a, b);
                    // The result compared with the reference's, or when that is poison with
                    // the wrapped result (which must not pass either), and with something else.
                    let wrapped = reference_binary(width, opcode, &[], a, b);
                    let wrong = random.value(width);
                    for claimed in [reference.or(wrapped).unwrap_or(wrong), wrong] {
                        let mut program = Program::default();
                        let (x, y) = (program.input(a, width), program.input(b, width));
                        let expected = program.input(claimed, width);
                        let result = program.op(format!("{name} {width} {x} {y}"));
                        program.op(format!("icmp.eq {width} {result} {expected}"));
                        assert_eq!(
                            program.holds(),
                            reference == Some(claimed),
                            "{} on {a}, {b}",
                            program.text()
                        );
                    }
                    outcomes[usize::from(reference.is_some())] += 1;
                }
            }
            for predicate in predicates {
                for samesign in [false, true] {
                    let name = if samesign {
                        format!("icmp.{predicate}.samesign")
                    } else {
                        format!("icmp.{predicate}")
                    };
                    let flags: &[&str] = if samesign { &["samesign"] } else { &[] };
                    for _ in 0..300 {
                        let a = random.value(width);
                        // Often equal operands, which tell `lt` from `le`.
                        let b = if random.next().is_multiple_of(4) {
                            a
                        } else {
                            random.value(width)
                        };
                        let mut program = Program::default();
                        let (x, y) = (program.input(a, width), program.input(b, width));
                        program.op(format!("{name} {width} {x} {y}"));
                        let reference = reference_binary(width, predicate, flags, a, b);
                        assert_eq!(
                            program.holds(),
                            reference == Some(1),
                            "{} on {a}, {b}",
                            program.text()
                        );
                    }
                }
            }
        }
        // Both poison and defined results were seen many times.
        assert!(outcomes.iter().all(|&n| n > 1000), "{outcomes:?}");
    }

    #[test]
    fn casts_match_native_conversions() {
        let mut random = Random(3);
        let casts: [(&str, &[&str]); 6] = [
            ("zext", &[]),
            ("zext", &["nneg"]),
            ("sext", &[]),
            ("trunc", &[]),
            ("trunc", &["nuw"]),
            ("trunc", &["nsw"]),
        ];
        let mut poisoned = 0;
        for from in WIDTHS {
            for to in WIDTHS {
                for (opcode, flags) in casts {
                    let larger = opcode != "trunc";
                    if (larger && to <= from) || (!larger && to >= from) {
                        continue;
                    }
                    let flags = if opcode == "trunc" && random.next().is_multiple_of(2) {
                        &["nuw", "nsw"][..]
                    } else {
                        flags
                    };
                    let name: String = std::iter::once(opcode)
                        .chain(flags.iter().copied())
                        .collect::<Vec<_>>()
                        .join(".");
                    for _ in 0..400 {
                        let a = random.value(from);
                        let reference = reference_cast(opcode, flags, from, to, a);
                        poisoned += usize::from(reference.is_none());
                        // As for the binary ops: a poison result must not pass as its value.
                        let unflagged = reference_cast(opcode, &[], from, to, a);
                        let wrong = random.value(to);
                        for claimed in [reference.or(unflagged).unwrap_or(wrong), wrong] {
                            let mut program = Program::default();
                            let x = program.input(a, from);
                            let expected = program.input(claimed, to);
                            let result = program.op(format!("{name} {to} {x}"));
                            program.op(format!("icmp.eq {to} {result} {expected}"));
                            assert_eq!(
                                program.holds(),
                                reference == Some(claimed),
                                "{} on {a}",
                                program.text()
                            );
                        }
                    }
                }
            }
        }
        assert!(poisoned > 1000, "{poisoned}");
    }

    #[test]
    fn one_bit_values_wrap_and_extend() {
        // x = (p0 & 1) as 1 bit.
        for (p0, x) in [(0u64, 0u64), (1, 1), (2, 0), (3, 1)] {
            let params = [(p0, 32)];
            let bit = "trunc 1 $0:32";
            assert_eq!(holds(&format!("{bit};xor 1 %0 1"), &params), x == 0);
            assert_eq!(holds(&format!("{bit};xor 1 %0 -1"), &params), x == 0);
            assert_eq!(holds(&format!("{bit};add 1 %0 1"), &params), x == 0);
            // 1 + 1 overflows unsigned; signed, 1 is -1 and -1 + -1 overflows too, while
            // 0 + -1 does not.
            assert_eq!(holds(&format!("{bit};add.nuw 1 %0 1"), &params), x == 0);
            assert_eq!(holds(&format!("{bit};add.nsw 1 %0 1"), &params), x == 0);
            assert_eq!(
                holds(&format!("{bit};add.nsw 1 %0 0;icmp.eq 1 %1 1"), &params),
                x == 1
            );
            assert_eq!(
                holds(&format!("{bit};sext 32 %0;icmp.eq 32 %1 -1"), &params),
                x == 1
            );
            assert_eq!(
                holds(&format!("{bit};zext 64 %0;icmp.eq 64 %1 1"), &params),
                x == 1
            );
            assert_eq!(
                holds(&format!("{bit};zext.nneg 64 %0;icmp.eq 64 %1 0"), &params),
                x == 0
            );
            assert_eq!(holds(&format!("{bit};icmp.slt 1 %0 0"), &params), x == 1);
            assert_eq!(holds(&format!("{bit};trunc.nuw 1 $0:32"), &params), p0 == 1);
        }
    }

    #[test]
    fn constants_take_the_width_of_their_op() {
        let all_ones_32 = [(0xFFFF_FFFF, 64)];
        assert!(holds("icmp.eq 32 $0:32 -1", &[(0xFFFF_FFFF, 32)]));
        assert!(holds("icmp.eq 32 $0:32 4294967295", &[(0xFFFF_FFFF, 32)]));
        assert!(!holds("icmp.eq 64 $0:64 -1", &all_ones_32));
        assert!(holds("icmp.eq 64 $0:64 4294967295", &all_ones_32));
        assert!(holds("icmp.eq 64 $0:64 -1", &[(u64::MAX, 64)]));
        assert!(holds(
            "icmp.eq 64 $0:64 18446744073709551615",
            &[(u64::MAX, 64)]
        ));
        assert!(holds("icmp.slt 32 $0:32 0", &[(0x8000_0000, 32)]));
        assert!(!holds("icmp.ult 32 $0:32 0", &[(0x8000_0000, 32)]));
        assert!(holds("icmp.sgt 64 $0:64 -9223372036854775808", &[(0, 64)]));
        // x - (-1) is x + 1 at the op's width.
        assert!(holds(
            "sub 32 $0:32 -1;icmp.eq 32 %0 0",
            &[(0xFFFF_FFFF, 32)]
        ));
        assert!(holds("sub.nsw 32 $0:32 -1;icmp.eq 32 %0 6", &[(5, 32)]));
        assert!(!holds("sub.nuw 32 $0:32 -1;icmp.eq 32 %0 6", &[(5, 32)]));
        assert!(holds(
            "sub.nuw 32 $0:32 -1;icmp.eq 32 %0 0",
            &[(0xFFFF_FFFF, 32)]
        ));
        assert!(holds("trunc 8 $0:32;icmp.eq 8 %0 -128", &[(0x180, 32)]));
    }

    #[test]
    fn any_poison_fails_the_test_even_unused() {
        let program = "add.nuw 32 $0:32 $1:32;icmp.eq 32 $0:32 $0:32";
        assert!(holds(program, &[(1, 32), (2, 32)]));
        assert!(!holds(program, &[(0xFFFF_FFFF, 32), (1, 32)]));
        let program = "shl 64 $0:64 $1:64;icmp.uge 64 $0:64 0";
        assert!(holds(program, &[(5, 64), (63, 64)]));
        assert!(!holds(program, &[(5, 64), (64, 64)]));
        // The last op 1 but an earlier comparison poison.
        let program = "icmp.ult.samesign 32 $0:32 $1:32;icmp.eq 32 $0:32 $0:32";
        assert!(!holds(program, &[(0x8000_0000, 32), (1, 32)]));
    }

    #[test]
    fn a_parameter_missing_or_of_another_size_fails_the_test() {
        let narrow = "icmp.eq 32 $0:32 5";
        let wide = "icmp.eq 64 $0:64 5";
        assert!(holds(narrow, &[(5, 32)]));
        assert!(holds(wide, &[(5, 64)]));
        assert!(!holds(narrow, &[(5, 64)]));
        assert!(!holds(wide, &[(5, 32)]));
        // Parameter 1 is the token (a u64); parameter 2 does not exist.
        assert!(holds("icmp.eq 64 $1:64 7", &[(5, 32)]));
        assert!(!holds("icmp.eq 64 $2:64 7", &[(5, 32)]));
        assert!(!holds("icmp.eq 32 $4294967295:32 7", &[(5, 32)]));
        // A parameter of 2 or 16 bytes is neither.
        let mut params = ParamBuffer::default();
        params.push(5u16);
        params.push([5u64, 0]);
        params.push(5u64);
        for program in [narrow, wide, "icmp.eq 64 $1:64 5", "icmp.eq 32 $1:32 5"] {
            assert!(
                !EntryTest::parse(program).unwrap().holds(&params, ONE),
                "{program}"
            );
        }
        assert!(
            EntryTest::parse("icmp.eq 64 $2:64 5")
                .unwrap()
                .holds(&params, ONE)
        );
    }

    #[test]
    fn malformed_programs_are_rejected() {
        let valid = "zext 64 $0:32;icmp.ule 64 %0 $1:64";
        assert!(EntryTest::parse(valid).is_some());
        for program in [
            // Empty, or an empty op.
            "",
            ";",
            "icmp.eq 32 $0:32 1;",
            ";icmp.eq 32 $0:32 1",
            // Unknown opcode, flag, predicate; a flag its opcode cannot take.
            "udiv 32 $0:32 1;icmp.eq 32 %0 1",
            "add.nuw.wrap 32 $0:32 1;icmp.eq 32 %0 1",
            "icmp 32 $0:32 1",
            "icmp.lt 32 $0:32 1",
            "icmp.samesign 32 $0:32 1",
            "icmp.eq.nuw 32 $0:32 1",
            "lshr.nuw 32 $0:32 1;icmp.eq 32 %0 1",
            "sext.nneg 64 $0:32;icmp.eq 64 %0 1",
            "and.disjoint 32 $0:32 1;icmp.eq 32 %0 1",
            "zext.exact 64 $0:32;icmp.eq 64 %0 1",
            // Bad widths.
            "icmp.eq 33 $0:32 1",
            "icmp.eq 0 $0:32 1",
            "icmp.eq 128 $0:32 1",
            "icmp.eq x $0:32 1",
            "icmp.eq 32 $0:16 1",
            "icmp.eq 32 $0:33 1",
            "icmp.eq 32 $0 1",
            // Width mismatches.
            "icmp.eq 64 $0:32 1",
            "add 64 $0:32 $1:64;icmp.eq 64 %0 1",
            "zext 64 $0:32;icmp.eq 32 %0 1",
            "zext 32 $0:32;icmp.eq 32 %0 1",
            "sext 16 $0:32;icmp.eq 16 %0 1",
            "trunc 32 $0:32;icmp.eq 32 %0 1",
            "trunc 64 $0:32;icmp.eq 64 %0 1",
            "zext 64 5;icmp.eq 64 %0 5",
            // References to a later, the same or a missing op.
            "icmp.eq 32 %1 1;icmp.eq 1 %0 1",
            "icmp.eq 32 %0 1",
            "icmp.eq 32 $0:32 1;and 1 %0 %7",
            "icmp.eq 32 $0:32 1;and 1 %0 %",
            "icmp.eq 32 $0:32 1;and 1 %0 %-1",
            "icmp.eq 32 $0:32 1;and 1 %0 %+0",
            // The last op not 1 bit wide.
            "add 32 $0:32 1",
            "zext 64 $0:32",
            // Constants out of range or not decimal.
            "icmp.eq 8 $0:8 256",
            "trunc 8 $0:32;icmp.eq 8 %0 256",
            "trunc 8 $0:32;icmp.eq 8 %0 -129",
            "icmp.eq 32 $0:32 4294967296",
            "icmp.eq 32 $0:32 -2147483649",
            "icmp.eq 64 $0:64 18446744073709551616",
            "icmp.eq 64 $0:64 -9223372036854775809",
            "icmp.eq 32 $0:32 +1",
            "icmp.eq 32 $0:32 0x10",
            "icmp.eq 32 $0:32 --1",
            "icmp.eq 32 $0:32 -",
            "icmp.eq 32 $0:32 1.0",
            "icmp.eq 32 $+0:32 1",
            // Operand counts and spacing.
            "icmp.eq 32 $0:32",
            "icmp.eq 32 $0:32 1 2",
            "zext 64 $0:32 $1:32;icmp.eq 64 %0 1",
            "icmp.eq  32 $0:32 1",
            "icmp.eq 32 $0:32 1 ",
            " icmp.eq 32 $0:32 1",
            "icmp.eq 32 $0:32 1; icmp.eq 32 $0:32 1",
            "icmp.eq\t32 $0:32 1",
        ] {
            assert_eq!(EntryTest::parse(program), None, "{program:?}");
        }
    }

    #[test]
    fn parsing_and_evaluating_mutated_programs_never_panics() {
        let seed = "zext 64 $4:32;zext 64 $5:32;mul.nuw 64 %0 %1;icmp.ule 64 %2 $1:64;\
                    icmp.ult.samesign 32 $4:32 -1;shl.nsw 64 %2 $2:64;lshr.exact 64 %5 3;\
                    trunc.nuw.nsw 8 %6;sext 16 %7;or.disjoint 16 %8 -1;and 1 %3 %4";
        let alphabet = b"%$:;.- 0123456789abcdeilnopqrstuwxz\xc3\xa9";
        let mut random = Random(4);
        let mut parsed = 0;
        for _ in 0..20_000 {
            let mut bytes = seed.as_bytes().to_vec();
            for _ in 0..1 + random.next() % 4 {
                let at = (random.next() as usize) % (bytes.len() + 1);
                let byte = alphabet[(random.next() as usize) % alphabet.len()];
                match random.next() % 3 {
                    0 if at < bytes.len() => bytes[at] = byte,
                    1 if at < bytes.len() => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, byte),
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            if let Some(test) = EntryTest::parse(&text) {
                parsed += 1;
                let params: Vec<(u64, u32)> = (0..8)
                    .map(|_| {
                        let width = if random.next().is_multiple_of(2) {
                            32
                        } else {
                            64
                        };
                        (random.value(64), width)
                    })
                    .collect();
                test.holds(&buffer(&params), ONE);
            }
        }
        assert!(parsed > 100, "{parsed}");
    }

    #[test]
    fn entry_test_of_reads_the_note_of_its_entry() {
        let module = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n\
            // ferrocuda fast math: stencil contract\n\
            // ferrocuda entry test: stencil icmp.ult 32 $0:32 10\n\
            // ferrocuda entry test: conv icmp.ugt 32 $0:32 10\n\
            // ferrocuda entry test: broken add 32 $0:32 1\n\
            // ferrocuda entry test: twice icmp.ult 32 $0:32 10\n\
            // ferrocuda entry test: twice icmp.ult 32 $0:32 10\n\
            .version 7.0\n.target sm_70\n\
            // ferrocuda entry test: late icmp.ult 32 $0:32 10\n";
        let params = |value: u32| {
            let mut params = ParamBuffer::default();
            params.push(value);
            params.push(1u64);
            params
        };
        let stencil = entry_test_of(module, "stencil").expect("stencil's note");
        assert!(stencil.holds(&params(3), ONE) && !stencil.holds(&params(30), ONE));
        let conv = entry_test_of(module, "conv").expect("conv's note");
        assert!(!conv.holds(&params(3), ONE) && conv.holds(&params(30), ONE));
        // A malformed note, two notes, no note, a prefix of a name, a note after `.version`.
        for name in ["broken", "twice", "plain", "sten", "late"] {
            assert_eq!(entry_test_of(module, name), None, "{name}");
        }
        // A note with a carriage return at its end.
        let crlf = "// ferrocuda entry test: k icmp.eq 32 $0:32 3\r\n.version 7.0\r\n";
        assert!(
            entry_test_of(crlf, "k")
                .expect("k's note")
                .holds(&params(3), ONE)
        );
    }
}
