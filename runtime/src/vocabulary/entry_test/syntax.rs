//! The program of an entry test as parsed: [`EntryTest`] and its ops ([`Op`], [`Opcode`],
//! [`Predicate`], the `FLAG_*` flags, [`Operand`]), with what parsing finds out about each op
//! ([`OpFacts`]).

use super::memo::Memo;

/// The entry test of a versioned kernel: a straight-line program over its integer parameters
/// whose last value says whether the kernel may take its fast copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryTest {
    /// The ops, in order; op `i` defines value `%i`. Never empty; the last one is 1 bit wide.
    pub(super) ops: Box<[Op]>,
    /// What is known of each op before evaluating it, by op.
    pub(super) facts: Box<[OpFacts]>,
    /// The block-index axes the ops read (bit 0 `x`, bit 1 `y`, bit 2 `z`).
    pub(super) block_axes: u8,
    /// The parameters the ops read, each `(index, bits)` once: with the grid, all an answer
    /// depends on.
    pub(super) reads: Box<[(u32, u32)]>,
    /// The last answer, for a program that reads block indices.
    pub(super) memo: Memo,
}

/// What [`EntryTest::parse`] finds out about an op from the program alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct OpFacts {
    /// The block-index axes the op's value depends on, through its operands (bit 0 `x`, bit 1
    /// `y`, bit 2 `z`): the axes along which cutting a box can make its set of values smaller.
    pub(super) axes: u8,
    /// Whether the last op's value depends on this op's (the last op's included).
    pub(super) live: bool,
}

/// One op of an [`EntryTest`], checked when parsed: its operands exist and have the widths the
/// opcode needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Op {
    /// What it computes.
    pub(super) opcode: Opcode,
    /// Its flags (`FLAG_*`), each allowed for `opcode`.
    pub(super) flags: u8,
    /// The width of its result, or of its operands for a comparison.
    pub(super) width: u32,
    /// The width of its first operand: `width` except for casts (their operand's) and `select`
    /// (1, its condition's).
    pub(super) source_width: u32,
    /// Its operands; those it does not have (a cast's second and third, a binary op's third)
    /// are `Constant(0)`.
    pub(super) operands: [Operand; 3],
}

/// What an [`Op`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Opcode {
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
    /// The smaller operand, read unsigned.
    Umin,
    /// The larger operand, read unsigned.
    Umax,
    /// The smaller operand, read signed.
    Smin,
    /// The larger operand, read signed.
    Smax,
    /// The second operand when the first (1 bit) is 1, else the third.
    Select,
    Icmp(Predicate),
}

/// The comparison of an `icmp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Predicate {
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
pub(super) const FLAG_NUW: u8 = 1 << 0;
/// Poison on signed overflow (or, for `trunc`, when the signed value changes).
pub(super) const FLAG_NSW: u8 = 1 << 1;
/// `zext`: poison when the operand is negative.
pub(super) const FLAG_NNEG: u8 = 1 << 2;
/// `lshr`: poison when a 1 bit is shifted out.
pub(super) const FLAG_EXACT: u8 = 1 << 3;
/// `or`: poison when the operands share a 1 bit.
pub(super) const FLAG_DISJOINT: u8 = 1 << 4;
/// `icmp`: poison when the operands' sign bits differ.
pub(super) const FLAG_SAMESIGN: u8 = 1 << 5;

/// An operand of an [`Op`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Operand {
    /// The value of an earlier op.
    Value(u32),
    /// Entry parameter `index`, read as an unsigned integer of `bits` bits (32 or 64).
    Param { index: u32, bits: u32 },
    /// A constant, reduced to the width the op expects.
    Constant(u64),
    /// The block index on axis `axis` (0 = `x`, 1 = `y`, 2 = `z`), 32 bits.
    Block { axis: u8 },
}

/// The width of `op`'s result.
pub(super) fn result_width(op: &Op) -> u32 {
    match op.opcode {
        Opcode::Icmp(_) => 1,
        _ => op.width,
    }
}
