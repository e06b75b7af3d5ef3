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
//! `<opcode>[.<flag>]* <width> <operand>...` (one operand for a cast, three for `select`, two
//! otherwise):
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
//!   `and`, `or` (flag `disjoint`), `xor`; and, without flags, `umin`, `umax`, `smin`, `smax`
//!   (the smaller or larger operand, both read unsigned or both signed: `umin 32 %3 15`).
//! - `select <w> <c> <a> <b>` (no flags): `a` when `c` is 1, else `b`; `c` is 1 bit wide (a
//!   1-bit value or the constant 0 or 1), `a` and `b` are `w` bits wide.
//! - Comparisons: `icmp.<pred>[.samesign]`, `pred` one of `eq ne ult ule ugt uge slt sle sgt
//!   sge`. Flags mean what they mean in LLVM IR: the result is poison when the flag's promise
//!   is broken; so is a shift by the width or more.
//!
//! The test holds when no op is poison (used or not: a `select` whose unchosen arm is poison
//! fails it too, where LLVM would not mind) and the last op, which must be 1 bit wide, is 1.
//!
//! Evaluation keeps the values in a [`SmallVec`] of 32 inline words, so a program of up to
//! 32 ops allocates nothing.
//!
//! # Tests of every block
//!
//! A program that reads block indices holds for a launch when it holds in every block of the
//! launch's grid, and the runtime decides that without visiting every block. It evaluates the
//! program over a box of blocks (a range of indices on each axis the program reads; at first
//! the whole grid) with sets of values: each value is an interval of integers, read as its
//! `w`-bit values (unsigned or signed where the interval does not cross that reading's wrap
//! point, and as any value where it does), which contains the op's value in every block of the
//! box where the op is not poison; each op is also known to be poison in no block, in every
//! block, or maybe in some, and a 1-bit value is known true, known false or unknown. The box
//! holds when the last value is known 1 and no op may be poison. When an op is poison in every
//! block of the box, or the last value is known 0, every block of the box fails and so does the
//! test, at once. Otherwise the box is cut in two halves, each decided the same way (a single
//! block exactly, as a program without block indices is), along the longest of the axes that
//! the first undetermined op depends on (an op that may be poison, or an unknown 1-bit value
//! the last op uses, such as a `select`'s condition), else along the longest axis.
//!
//! An affine test (a block-index limit such as `icmp.ult 32 ^x 32768`, a tile's affine ends)
//! is decided by the first box: the interval of a sum of terms each reading one block index is
//! exact. Clamped tile ends (HotSpot's, `blk + umin(select(blk + 15 < rows, 15, rows - 1 -
//! blk), 15)` on each axis with `blk = 12 * ^x - 2`, 43 ops in this module's test of them) are not affine: over
//! 683 x 683 blocks they take 37 boxes, about 19 us on one core of an AMD EPYC host (release
//! build): cutting along the axis of the first undetermined `select` condition soon leaves
//! only the grid's last row and column undecided. After [`BOX_BUDGET`] boxes the answer is
//! false, which is always correct: the kernel then computes its test itself.
//!
//! The answer for a program that reads block indices is kept with the launch's grid and the
//! values of the parameters the program reads, so a launch loop repeating one launch (a
//! stencil swapping two buffers of one length) pays a comparison, not the boxes.

#[cfg(doc)]
use crate::device::panic::ENTRY_TEST_TOKEN_BIT;
use crate::vocabulary::params::ParamBuffer;
use smallvec::SmallVec;
use std::sync::Mutex;

/// What starts an entry-test note line of the PTX.
pub(crate) const ENTRY_TEST_NOTE_PREFIX: &str = "// ferrocuda entry test: ";

/// The most boxes of blocks [`EntryTest::holds`] evaluates for one launch (single blocks
/// included) before it answers false. HotSpot's clamped tile ends take 37 over its 683 x 683
/// blocks and an affine test takes 1, so 256 leaves room for several clamped tests with
/// different edges in one program. A box of a 40-op program costs about half a microsecond,
/// so a program that exhausts the budget (then the answer is false and the kernel computes
/// its test itself, as it would without the note) costs a launch some 130 us, once per grid
/// and parameter values: the answer is kept.
const BOX_BUDGET: u32 = 256;

/// The entry test of a versioned kernel: a straight-line program over its integer parameters
/// whose last value says whether the kernel may take its fast copy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryTest {
    /// The ops, in order; op `i` defines value `%i`. Never empty; the last one is 1 bit wide.
    ops: Box<[Op]>,
    /// What is known of each op before evaluating it, by op.
    facts: Box<[OpFacts]>,
    /// The block-index axes the ops read (bit 0 `x`, bit 1 `y`, bit 2 `z`).
    block_axes: u8,
    /// The parameters the ops read, each `(index, bits)` once: with the grid, all an answer
    /// depends on.
    reads: Box<[(u32, u32)]>,
    /// The last answer, for a program that reads block indices.
    memo: Memo,
}

/// What [`EntryTest::parse`] finds out about an op from the program alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct OpFacts {
    /// The block-index axes the op's value depends on, through its operands (bit 0 `x`, bit 1
    /// `y`, bit 2 `z`): the axes along which cutting a box can make its set of values smaller.
    axes: u8,
    /// Whether the last op's value depends on this op's (the last op's included).
    live: bool,
}

/// The last answer of [`EntryTest::holds`] for a program that reads block indices: the
/// launch's grid, the values of the parameters in [`EntryTest::reads`] (`None` for one that
/// could not be read), and the answer.
type Answer = ([u32; 3], SmallVec<[Option<u64>; 8]>, bool);

/// The memo of an [`EntryTest`]'s last [`Answer`], shared by the threads launching the kernel.
///
/// It is a cache, not part of the test: a clone starts empty and any two memos are equal, so
/// that [`EntryTest`] can still derive `Clone`, `PartialEq` and `Eq`, which compare programs.
#[derive(Default)]
struct Memo(Mutex<Option<Answer>>);

impl Clone for Memo {
    fn clone(&self) -> Memo {
        Memo::default()
    }
}

impl PartialEq for Memo {
    fn eq(&self, _: &Memo) -> bool {
        true
    }
}

impl Eq for Memo {}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
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
    /// The width of its first operand: `width` except for casts (their operand's) and `select`
    /// (1, its condition's).
    source_width: u32,
    /// Its operands; those it does not have (a cast's second and third, a binary op's third)
    /// are `Constant(0)`.
    operands: [Operand; 3],
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
/// Each call parses the note and decides it afresh: a test that reads block indices is decided
/// over the grid's blocks (HotSpot's 87 ops: about 0.1 ms on one core), so a launcher that
/// repeats a launch should keep the answer, as `launch!` does.
pub fn entry_test_holds(ptx: &str, entry: &str, params: &[u64], grid: [u32; 3]) -> Option<bool> {
    let test = entry_test_of(ptx, entry)?;
    // The widths the program reads each parameter at (the entry's own parameter types).
    let mut bits = vec![64u32; params.len()];
    for &(index, b) in &test.reads {
        if let Some(slot) = bits.get_mut(index as usize) {
            *slot = b;
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

/// A box of blocks: the indices from `lo` to `hi` (both included) on each axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Blocks {
    /// The first block's index on each axis.
    lo: [u32; 3],
    /// The last block's index on each axis (at least `lo`'s).
    hi: [u32; 3],
}

impl Blocks {
    /// How many indices the box spans on `axis`.
    fn extent(&self, axis: usize) -> u64 {
        u64::from(self.hi[axis] - self.lo[axis]) + 1
    }

    /// The two halves of the box cut across the longest of `axes` (bit 0 `x`, ...) that spans
    /// more than one index, else across the longest axis. The box must span more than one
    /// block.
    fn halves(&self, axes: u8) -> (Blocks, Blocks) {
        let longest = |candidates: u8| {
            (0..3)
                .filter(|&axis| candidates & 1 << axis != 0 && self.extent(axis) > 1)
                .max_by_key(|&axis| (self.extent(axis), std::cmp::Reverse(axis)))
        };
        let axis = longest(axes).or_else(|| longest(0b111)).unwrap_or(0);
        let middle = self.lo[axis] + (self.hi[axis] - self.lo[axis]) / 2;
        let (mut low, mut high) = (*self, *self);
        low.hi[axis] = middle;
        high.lo[axis] = middle.saturating_add(1).min(self.hi[axis]);
        (low, high)
    }
}

/// What evaluating a program over a box of blocks tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BoxAnswer {
    /// The test holds in every block of the box.
    Holds,
    /// The test fails in every block of the box (so for the launch).
    Fails,
    /// Undecided: cut the box, preferably across these axes (bit 0 `x`, ...).
    Unknown(u8),
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

    /// Whether the test holds on a launch's parameters for every block of `grid` (`[x, y, z]`
    /// blocks): every op defined (not poison) and the last one 1 (see the module
    /// documentation for how the blocks are covered). False when a parameter the program reads
    /// is missing or of another size, the grid is empty, or the blocks take more than
    /// [`BOX_BUDGET`] boxes to decide.
    pub(crate) fn holds(&self, params: &ParamBuffer, grid: [u32; 3]) -> bool {
        if grid.contains(&0) {
            return false;
        }
        if self.block_axes == 0 {
            return self.holds_at(params, [0; 3]);
        }
        let values: SmallVec<[Option<u64>; 8]> = self
            .reads
            .iter()
            .map(|&(index, bits)| params.unsigned(index as usize, bits))
            .collect();
        // A memo another thread holds is not waited for: the test is evaluated instead.
        if let Ok(memo) = self.memo.0.try_lock()
            && let Some((memo_grid, memo_values, answer)) = memo.as_ref()
            && *memo_grid == grid
            && *memo_values == values
        {
            return *answer;
        }
        let (answer, _) = self.decide(params, grid);
        if let Ok(mut memo) = self.memo.0.try_lock() {
            *memo = Some((grid, values, answer));
        }
        answer
    }

    /// Whether the test holds in every block of the non-empty `grid`, decided box by box (see
    /// the module documentation), with the number of boxes evaluated.
    fn decide(&self, params: &ParamBuffer, grid: [u32; 3]) -> (bool, u32) {
        // The axes the program does not read stay at index 0.
        let whole = Blocks {
            lo: [0; 3],
            hi: std::array::from_fn(|axis| {
                if self.block_axes & 1 << axis != 0 {
                    grid[axis].saturating_sub(1)
                } else {
                    0
                }
            }),
        };
        // Depth first: each cut halves one axis, so at most 3 * 32 boxes wait at once.
        let mut pending: SmallVec<[Blocks; 32]> = SmallVec::new();
        pending.push(whole);
        let mut values: SmallVec<[Interval; 32]> = SmallVec::new();
        let mut boxes = 0;
        while let Some(blocks) = pending.pop() {
            if boxes == BOX_BUDGET {
                return (false, boxes);
            }
            boxes += 1;
            if blocks.lo == blocks.hi {
                if !self.holds_at(params, blocks.lo) {
                    return (false, boxes);
                }
                continue;
            }
            match self.holds_over(params, &blocks, &mut values) {
                BoxAnswer::Holds => {}
                BoxAnswer::Fails => return (false, boxes),
                BoxAnswer::Unknown(axes) => {
                    let (low, high) = blocks.halves(axes);
                    // The high half first: a grid's blocks past its data are at its far end.
                    pending.push(low);
                    pending.push(high);
                }
            }
        }
        (true, boxes)
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

    /// Evaluates the program over the box `blocks`, each value a set ([`Interval`]) that
    /// contains its value in every block where it is not poison; `values` is scratch space.
    fn holds_over(
        &self,
        params: &ParamBuffer,
        blocks: &Blocks,
        values: &mut SmallVec<[Interval; 32]>,
    ) -> BoxAnswer {
        values.clear();
        // The axes of the first op that may be poison, and of the first that may be poison
        // or whose unknown 1-bit value the last op uses (a `select`'s condition, say).
        let (mut poison, mut undetermined): (Option<u8>, Option<u8>) = (None, None);
        for (op, facts) in self.ops.iter().zip(&self.facts) {
            let mut operands = [Interval::point(0); 3];
            for (slot, operand) in operands.iter_mut().zip(op.operands) {
                *slot = match operand {
                    Operand::Value(index) => match values.get(index as usize) {
                        Some(&value) => value,
                        None => return BoxAnswer::Fails,
                    },
                    Operand::Param { index, bits } => match params.unsigned(index as usize, bits) {
                        Some(value) => Interval::point(value),
                        // Unreadable in every block.
                        None => return BoxAnswer::Fails,
                    },
                    Operand::Constant(value) => Interval::point(value),
                    Operand::Block { axis } => Interval {
                        lo: i128::from(blocks.lo[usize::from(axis)]),
                        hi: i128::from(blocks.hi[usize::from(axis)]),
                    },
                };
            }
            let Some(result) = op.evaluate_over(operands) else {
                // Poison in every block of the box.
                return BoxAnswer::Fails;
            };
            let unknown_bit =
                facts.live && result_width(op) == 1 && result.value.as_point().is_none();
            if result.maybe_poison {
                poison = poison.or(Some(facts.axes));
            }
            if result.maybe_poison || unknown_bit {
                undetermined = undetermined.or(Some(facts.axes));
            }
            values.push(result.value);
        }
        match values.last().and_then(|last| last.as_point()) {
            Some(0) => BoxAnswer::Fails,
            // Known 1: undecided only where some op may be poison.
            Some(_) => poison.map_or(BoxAnswer::Holds, BoxAnswer::Unknown),
            None => BoxAnswer::Unknown(undetermined.unwrap_or(0)),
        }
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
fn allowed_flags(opcode: Opcode) -> u8 {
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
        let read = |index: usize| operand(self.operands[index], values, params, block);
        let a = read(0)?;
        match self.opcode {
            Opcode::Zext | Opcode::Sext | Opcode::Trunc => self.apply(a, 0, 0),
            Opcode::Select => self.apply(a, read(1)?, read(2)?),
            _ => self.apply(a, read(1)?, 0),
        }
    }

    /// The op's value on its operands' values `a`, `b`, `c` (0 for an operand it does not
    /// have); `None` when it is poison.
    #[inline]
    fn apply(&self, a: u64, b: u64, c: u64) -> Option<u64> {
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
            Opcode::Select => Some(if a == 1 { b } else { c }),
            _ => binary(self.opcode, self.flags, w, a, b),
        }
    }

    /// The op over a box of blocks, given each operand's set of values over the box (see
    /// [`Interval`]; a point for an operand it does not have): the set of its values where it
    /// is not poison, and whether it may be poison; `None` when it is poison in every block of
    /// the box where its operands are not.
    #[inline]
    fn evaluate_over(&self, operands: [Interval; 3]) -> Option<Over> {
        if let [Some(a), Some(b), Some(c)] = operands.map(Interval::as_point) {
            return self
                .apply(a, b, c)
                .map(|value| Over::new(Interval::point(value)));
        }
        let [a, b, c] = operands;
        let (w, from) = (self.width, self.source_width);
        let flag = |f: u8| self.flags & f != 0;
        let (nuw, nsw) = (flag(FLAG_NUW), flag(FLAG_NSW));
        // The limits of the result read unsigned and signed.
        let (max_u, min_s, max_s) = (modulus(w) - 1, -(modulus(w) >> 1), (modulus(w) >> 1) - 1);
        // The operands read unsigned and signed (casts read theirs at `from`).
        let (ua, ub) = (a.unsigned(w), b.unsigned(w));
        let (sa, sb) = (a.signed(w), b.signed(w));
        match self.opcode {
            Opcode::Zext => {
                let (lo, hi) = a.unsigned(from);
                let over = Over::new(Interval::of(lo, hi, w));
                if flag(FLAG_NNEG) {
                    over.promise(lo, hi, 0, (modulus(from) >> 1) - 1, w)
                } else {
                    Some(over)
                }
            }
            Opcode::Sext => {
                let (lo, hi) = a.signed(from);
                Some(Over::new(Interval::of(lo, hi, w)))
            }
            Opcode::Trunc => {
                // The low bits of any integer that stands for the operand.
                let mut over = Over::new(Interval::of(a.lo, a.hi, w));
                if nuw {
                    let (lo, hi) = a.unsigned(from);
                    over = over.promise(lo, hi, 0, max_u, w)?;
                }
                if nsw {
                    let (lo, hi) = a.signed(from);
                    over = over.promise(lo, hi, min_s, max_s, w)?;
                }
                Some(over)
            }
            Opcode::Add | Opcode::Sub => {
                let add = self.opcode == Opcode::Add;
                // The exact sum or difference of two ranges.
                let combine = |x: (i128, i128), y: (i128, i128)| {
                    if add {
                        (x.0 + y.0, x.1 + y.1)
                    } else {
                        (x.0 - y.1, x.1 - y.0)
                    }
                };
                // Wrapping, the integers standing for the operands give the result's.
                let (lo, hi) = combine((a.lo, a.hi), (b.lo, b.hi));
                let mut over = Over::new(Interval::of(lo, hi, w));
                if nuw {
                    let (lo, hi) = combine(ua, ub);
                    over = over.promise(lo, hi, 0, max_u, w)?;
                }
                if nsw {
                    let (lo, hi) = combine(sa, sb);
                    over = over.promise(lo, hi, min_s, max_s, w)?;
                }
                Some(over)
            }
            Opcode::Mul => multiply(a, [ub, sb], nuw, nsw, w),
            Opcode::Shl | Opcode::Lshr => {
                let (lo, hi) = ub;
                let bits = i128::from(w);
                if lo >= bits {
                    // Shifted by the width or more everywhere.
                    return None;
                }
                let top = hi.min(bits - 1);
                let mut over = if self.opcode == Opcode::Shl {
                    // A multiplication by 2^lo to 2^top.
                    let factor = (1i128 << lo, 1i128 << top);
                    multiply(a, [factor, factor], nuw, nsw, w)?
                } else {
                    let (alo, ahi) = ua;
                    let mut over = Over::new(Interval::of(alo >> top, ahi >> lo, w));
                    if flag(FLAG_EXACT) && top > 0 && ahi > 0 {
                        // A 1 bit shifted out of every operand: none is a multiple of 2^lo,
                        // nor so of any larger power of two.
                        let unit = 1i128 << lo;
                        if lo > 0 && (alo + unit - 1) / unit * unit > ahi {
                            return None;
                        }
                        over.maybe_poison = true;
                    }
                    over
                };
                over.maybe_poison |= hi > top;
                Some(over)
            }
            Opcode::And | Opcode::Or | Opcode::Xor => {
                // Unsigned readings lie in `0..2^w`, so in a `u64`.
                let (a0, a1, b0, b1) = (ua.0 as u64, ua.1 as u64, ub.0 as u64, ub.1 as u64);
                let (lo, hi) = match self.opcode {
                    Opcode::And => (min_and(a0, a1, b0, b1), max_and(a0, a1, b0, b1)),
                    Opcode::Or => (min_or(a0, a1, b0, b1), max_or(a0, a1, b0, b1)),
                    _ => (min_xor(a0, a1, b0, b1), max_xor(a0, a1, b0, b1)),
                };
                let mut over = Over::new(Interval::of(i128::from(lo), i128::from(hi), w));
                if flag(FLAG_DISJOINT) {
                    if min_and(a0, a1, b0, b1) != 0 {
                        return None;
                    }
                    over.maybe_poison = max_and(a0, a1, b0, b1) != 0;
                }
                Some(over)
            }
            Opcode::Umin => Some(Over::range(ua.0.min(ub.0), ua.1.min(ub.1), w)),
            Opcode::Umax => Some(Over::range(ua.0.max(ub.0), ua.1.max(ub.1), w)),
            Opcode::Smin => Some(Over::range(sa.0.min(sb.0), sa.1.min(sb.1), w)),
            Opcode::Smax => Some(Over::range(sa.0.max(sb.0), sa.1.max(sb.1), w)),
            Opcode::Select => Some(Over::new(match a.as_point() {
                Some(1) => b,
                Some(_) => c,
                None => b.union(c, w),
            })),
            Opcode::Icmp(predicate) => {
                // `Some(true)` when `x < y` for every `x` and `y` of the ranges, `Some(false)`
                // when for none; `or_equal`: `x <= y`.
                let less = |x: (i128, i128), y: (i128, i128), or_equal: bool| {
                    if x.1 < y.0 || (or_equal && x.1 == y.0) {
                        Some(true)
                    } else if x.0 > y.1 || (!or_equal && x.0 == y.1) {
                        Some(false)
                    } else {
                        None
                    }
                };
                let disjoint = |x: (i128, i128), y: (i128, i128)| x.1 < y.0 || y.1 < x.0;
                let answer = match predicate {
                    Predicate::Eq | Predicate::Ne => {
                        // Operands that are points and equal were decided exactly above.
                        let differ = disjoint(ua, ub) || disjoint(sa, sb);
                        differ.then_some(predicate == Predicate::Ne)
                    }
                    Predicate::Ult => less(ua, ub, false),
                    Predicate::Ule => less(ua, ub, true),
                    Predicate::Ugt => less(ub, ua, false),
                    Predicate::Uge => less(ub, ua, true),
                    Predicate::Slt => less(sa, sb, false),
                    Predicate::Sle => less(sa, sb, true),
                    Predicate::Sgt => less(sb, sa, false),
                    Predicate::Sge => less(sb, sa, true),
                };
                let mut over = Over::new(match answer {
                    Some(answer) => Interval::point(u64::from(answer)),
                    None => Interval::full(1),
                });
                if flag(FLAG_SAMESIGN) {
                    // Whether every value is negative (`Some(true)`) or none is.
                    let negative = |x: (i128, i128)| {
                        if x.1 < 0 {
                            Some(true)
                        } else if x.0 >= 0 {
                            Some(false)
                        } else {
                            None
                        }
                    };
                    match (negative(sa), negative(sb)) {
                        (Some(x), Some(y)) if x != y => return None,
                        (Some(_), Some(_)) => {}
                        _ => over.maybe_poison = true,
                    }
                }
                Some(over)
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
        Opcode::Umin => (a.min(b), false),
        Opcode::Umax => (a.max(b), false),
        Opcode::Smin => (if sa <= sb { a } else { b }, false),
        Opcode::Smax => (if sa >= sb { a } else { b }, false),
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
        // Casts and selects are evaluated by `Op::apply`, never here.
        Opcode::Zext | Opcode::Sext | Opcode::Trunc | Opcode::Select => return None,
    };
    (!poison).then_some(result & mask(w))
}

/// `2^w`, for a width `w` from 1 to 64.
fn modulus(w: u32) -> i128 {
    1i128 << w
}

/// A set of `w`-bit values, for a width `w` the user of the set knows: the values `n mod 2^w`
/// of the integers `n` from `lo` to `hi`. Kept with `0 <= lo < 2^w` and `lo <= hi < lo + 2^w`;
/// every value is `0..=2^w - 1` ([`Interval::full`]).
///
/// Read unsigned, the set is `lo..=hi` when `hi < 2^w` (it does not wrap past `2^w - 1`), and
/// taken as every value otherwise; read signed, likewise around `2^(w - 1)`
/// ([`Interval::unsigned`], [`Interval::signed`]). So `-2..=5` at 32 bits is known for what it
/// is signed, and any value unsigned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Interval {
    /// The least integer standing for a value of the set.
    lo: i128,
    /// The greatest integer standing for a value of the set.
    hi: i128,
}

impl Interval {
    /// The one value `value` (already reduced to its width).
    fn point(value: u64) -> Interval {
        Interval {
            lo: i128::from(value),
            hi: i128::from(value),
        }
    }

    /// Every `w`-bit value.
    fn full(w: u32) -> Interval {
        Interval {
            lo: 0,
            hi: modulus(w) - 1,
        }
    }

    /// The `w`-bit values of the integers from `lo` to `hi` (every value when they are 2^w or
    /// more, or `hi < lo`, which no caller asks).
    fn of(lo: i128, hi: i128, w: u32) -> Interval {
        match hi.checked_sub(lo) {
            Some(span) if (0..modulus(w) - 1).contains(&span) => {
                let m = modulus(w);
                // Mostly already in `0..2^w` or just below it: no 128-bit division.
                let lo = if (0..m).contains(&lo) {
                    lo
                } else if (-m..0).contains(&lo) {
                    lo + m
                } else {
                    lo.rem_euclid(m)
                };
                Interval { lo, hi: lo + span }
            }
            _ => Interval::full(w),
        }
    }

    /// The set's one value, when it has one.
    fn as_point(self) -> Option<u64> {
        (self.lo == self.hi).then_some(self.lo as u64)
    }

    /// The least and greatest value of the set read as `w`-bit unsigned integers.
    fn unsigned(self, w: u32) -> (i128, i128) {
        if self.hi < modulus(w) {
            (self.lo, self.hi)
        } else {
            (0, modulus(w) - 1)
        }
    }

    /// The least and greatest value of the set read as `w`-bit signed integers.
    fn signed(self, w: u32) -> (i128, i128) {
        let half = modulus(w) >> 1;
        let (lo, hi) = if self.lo >= half {
            (self.lo - modulus(w), self.hi - modulus(w))
        } else {
            (self.lo, self.hi)
        };
        if hi < half {
            (lo, hi)
        } else {
            (-half, half - 1)
        }
    }

    /// Whichever of the two sets, both containing what is sought, has fewer values.
    fn narrower(self, other: Interval) -> Interval {
        if other.hi - other.lo < self.hi - self.lo {
            other
        } else {
            self
        }
    }

    /// A set of `w`-bit values containing both sets' values.
    fn union(self, other: Interval, w: u32) -> Interval {
        let hull = |x: (i128, i128), y: (i128, i128)| Interval::of(x.0.min(y.0), x.1.max(y.1), w);
        hull(self.unsigned(w), other.unsigned(w)).narrower(hull(self.signed(w), other.signed(w)))
    }
}

/// An op's value over a box of blocks: what [`Op::evaluate_over`] finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Over {
    /// Its values in the blocks where it is not poison.
    value: Interval,
    /// Whether it may be poison in some block of the box.
    maybe_poison: bool,
}

impl Over {
    /// Never poison, of values `value`.
    fn new(value: Interval) -> Over {
        Over {
            value,
            maybe_poison: false,
        }
    }

    /// Never poison, of the `w`-bit values of the integers from `lo` to `hi`.
    fn range(lo: i128, hi: i128, w: u32) -> Over {
        Over::new(Interval::of(lo, hi, w))
    }

    /// The op with a flag's promise: the op's exact result (before wrapping) is in `lo..=hi`,
    /// and the op is poison where that lies outside `min..=max`. `None` when it lies outside
    /// everywhere; otherwise the values are also those from `lo.max(min)` to `hi.min(max)`.
    fn promise(mut self, lo: i128, hi: i128, min: i128, max: i128, w: u32) -> Option<Over> {
        if hi < min || lo > max {
            return None;
        }
        self.maybe_poison |= lo < min || hi > max;
        self.value = self
            .value
            .narrower(Interval::of(lo.max(min), hi.min(max), w));
        Some(self)
    }
}

/// The least and greatest product of an integer of `x` and one of `y` (each a range); `None`
/// when one overflows 128 bits.
fn products(x: (i128, i128), y: (i128, i128)) -> Option<(i128, i128)> {
    let corners = [
        product(x.0, y.0)?,
        product(x.0, y.1)?,
        product(x.1, y.0)?,
        product(x.1, y.1)?,
    ];
    Some((corners.into_iter().min()?, corners.into_iter().max()?))
}

/// `x * y`, `None` when it overflows 128 bits.
fn product(x: i128, y: i128) -> Option<i128> {
    let fits = |v: i128| i64::try_from(v).is_ok();
    if fits(x) && fits(y) {
        // At most 2^126 in magnitude: a plain multiplication.
        Some(x * y)
    } else {
        x.checked_mul(y)
    }
}

/// `a * b` over a box for `w`-bit sets: `b` as its unsigned and its signed range (for `shl`,
/// both the range of powers of two it multiplies by), with the flags `nuw` and `nsw`.
fn multiply(a: Interval, b: [(i128, i128); 2], nuw: bool, nsw: bool, w: u32) -> Option<Over> {
    let readings = [a.unsigned(w), a.signed(w)];
    // Wrapping, any reading of the operands gives the result's low bits: the narrowest (each
    // distinct pair of readings once).
    let mut value = Interval::full(w);
    for (i, &x) in readings.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            if (i == 1 && x == readings[0]) || (j == 1 && y == b[0]) {
                continue;
            }
            if let Some((lo, hi)) = products(x, y) {
                value = value.narrower(Interval::of(lo, hi, w));
            }
        }
    }
    let mut over = Over::new(value);
    if nuw {
        let (x, y) = (readings[0], b[0]);
        // Past 128 bits the least product is past every `w`-bit value: poison everywhere.
        let lo = product(x.0, y.0)?;
        let hi = product(x.1, y.1).unwrap_or(i128::MAX);
        over = over.promise(lo, hi, 0, modulus(w) - 1, w)?;
    }
    if nsw {
        let half = modulus(w) >> 1;
        match products(readings[1], b[1]) {
            Some((lo, hi)) => over = over.promise(lo, hi, -half, half - 1, w)?,
            None => over.maybe_poison = true,
        }
    }
    Some(over)
}

/// The highest power of two not above `bound` (0 for 0): where the searches of the bounds of
/// bitwise ops on ranges below `bound + 1` start.
fn top_bit(bound: u64) -> u64 {
    (1u64 << 63).checked_shr(bound.leading_zeros()).unwrap_or(0)
}

/// The least `x | y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
fn min_or(mut a: u64, b: u64, mut c: u64, d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if !a & c & m != 0 {
            let t = (a | m) & m.wrapping_neg();
            if t <= b {
                a = t;
                break;
            }
        } else if a & !c & m != 0 {
            let t = (c | m) & m.wrapping_neg();
            if t <= d {
                c = t;
                break;
            }
        }
        m >>= 1;
    }
    a | c
}

/// The greatest `x | y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
fn max_or(a: u64, mut b: u64, c: u64, mut d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if b & d & m != 0 {
            let t = (b - m) | (m - 1);
            if t >= a {
                b = t;
                break;
            }
            let t = (d - m) | (m - 1);
            if t >= c {
                d = t;
                break;
            }
        }
        m >>= 1;
    }
    b | d
}

/// The least `x & y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
fn min_and(mut a: u64, b: u64, mut c: u64, d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if !a & !c & m != 0 {
            let t = (a | m) & m.wrapping_neg();
            if t <= b {
                a = t;
                break;
            }
            let t = (c | m) & m.wrapping_neg();
            if t <= d {
                c = t;
                break;
            }
        }
        m >>= 1;
    }
    a & c
}

/// The greatest `x & y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
fn max_and(a: u64, mut b: u64, c: u64, mut d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if b & !d & m != 0 {
            let t = (b & !m) | (m - 1);
            if t >= a {
                b = t;
                break;
            }
        } else if !b & d & m != 0 {
            let t = (d & !m) | (m - 1);
            if t >= c {
                d = t;
                break;
            }
        }
        m >>= 1;
    }
    b & d
}

/// The least `x ^ y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
fn min_xor(mut a: u64, b: u64, mut c: u64, d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if !a & c & m != 0 {
            let t = (a | m) & m.wrapping_neg();
            if t <= b {
                a = t;
            }
        } else if a & !c & m != 0 {
            let t = (c | m) & m.wrapping_neg();
            if t <= d {
                c = t;
            }
        }
        m >>= 1;
    }
    a ^ c
}

/// The greatest `x ^ y` for `x` in `a..=b` and `y` in `c..=d` (Hacker's Delight, 4-3).
fn max_xor(a: u64, mut b: u64, c: u64, mut d: u64) -> u64 {
    let mut m = top_bit(b | d);
    while m != 0 {
        if b & d & m != 0 {
            let t = (b - m) | (m - 1);
            if t >= a {
                b = t;
            } else {
                let t = (d - m) | (m - 1);
                if t >= c {
                    d = t;
                }
            }
        }
        m >>= 1;
    }
    b ^ d
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
                    "umin" => a.min(b),
                    "umax" => a.max(b),
                    "smin" => sa.min(sb) as $u,
                    "smax" => sa.max(sb) as $u,
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
    /// by one: the reference for the boxes.
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
    fn the_largest_grids_are_decided_without_overflow() {
        let full = [u32::MAX; 3];
        let any = EntryTest::parse(
            "icmp.ule 32 ^x -1;icmp.ule 32 ^y -1;icmp.ule 32 ^z -1;and 1 %0 %1;and 1 %3 %2",
        )
        .expect("parses");
        assert_eq!(any.decide(&buffer(&[]), full), (true, 1));
        // The last block of the widest grid is 2^32 - 2.
        let limit = EntryTest::parse("icmp.ult 32 ^x -2").expect("parses");
        assert!(!limit.holds(&buffer(&[]), full));
        assert!(limit.holds(&buffer(&[]), [u32::MAX - 1, 1, 1]));
        // Not decided by sets (no square is 7 modulo 8, so none is modulo 2^32): each block
        // is, until the budget is spent.
        let square = EntryTest::parse("mul 32 ^x ^x;icmp.ne 32 %0 7").expect("parses");
        assert_eq!(square.decide(&buffer(&[]), full), (false, BOX_BUDGET));
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
            ("umin", &[]),
            ("umax", &[]),
            ("smin", &[]),
            ("smax", &[]),
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
        for valid in [
            "zext 64 $0:32;icmp.ule 64 %0 $1:64",
            "icmp.eq 32 $0:32 1;select 32 %0 $1:32 7;umin 32 %1 15;smax 32 %2 -1;\
             umax 32 %3 %2;smin 32 %4 0;icmp.ult 32 %5 9",
            "select 64 1 $0:64 -1;icmp.eq 64 %0 3",
            "trunc 1 $0:32;select 1 %0 0 %0;select 1 -1 %1 1",
        ] {
            assert!(EntryTest::parse(valid).is_some(), "{valid}");
        }
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
            // A select's condition not 1 bit wide, its arms not of its width, an operand
            // missing or one too many, a flag.
            "add 32 $0:32 1;select 32 %0 1 2;icmp.eq 32 %1 1",
            "select 32 2 $0:32 1;icmp.eq 32 %0 1",
            "select 32 $0:32 $0:32 1;icmp.eq 32 %0 1",
            "icmp.eq 32 $0:32 1;select 32 %0 $1:64 1;icmp.eq 32 %1 1",
            "icmp.eq 32 $0:32 1;select 64 %0 $1:32 1;icmp.eq 64 %1 1",
            "icmp.eq 32 $0:32 1;select 32 %0 1 $1:64;icmp.eq 32 %1 1",
            "icmp.eq 32 $0:32 1;select 32 %0 $1:32;icmp.eq 32 %1 1",
            "icmp.eq 32 $0:32 1;select 32 %0;icmp.eq 32 %1 1",
            "icmp.eq 32 $0:32 1;select 32 %0 $1:32 1 2;icmp.eq 32 %1 1",
            "icmp.eq 32 $0:32 1;select.nuw 32 %0 $1:32 1;icmp.eq 32 %1 1",
            "icmp.eq 32 $0:32 1;select 32 %5 $1:32 1;icmp.eq 32 %1 1",
            // Min and max: flags, widths, operand counts.
            "umin.nuw 32 $0:32 1;icmp.eq 32 %0 1",
            "umax.nsw 32 $0:32 1;icmp.eq 32 %0 1",
            "smin.disjoint 32 $0:32 1;icmp.eq 32 %0 1",
            "smax.exact 32 $0:32 1;icmp.eq 32 %0 1",
            "umin 64 $0:32 1;icmp.eq 64 %0 1",
            "smax 32 $0:32 $1:64;icmp.eq 32 %0 1",
            "umin 32 $0:32;icmp.eq 32 %0 1",
            "umin 32 $0:32 1 2;icmp.eq 32 %0 1",
            "smin 8 $0:32 1;icmp.eq 8 %0 1",
            "umax 32 $0:32 4294967296;icmp.eq 32 %0 1",
            "min 32 $0:32 1;icmp.eq 32 %0 1",
        ] {
            assert_eq!(EntryTest::parse(program), None, "{program:?}");
        }
    }

    #[test]
    fn parsing_and_evaluating_mutated_programs_never_panics() {
        let seed = "zext 64 $4:32;zext 64 $5:32;mul.nuw 64 %0 %1;icmp.ule 64 %2 $1:64;\
                    icmp.ult.samesign 32 $4:32 -1;shl.nsw 64 %2 $2:64;lshr.exact 64 %5 3;\
                    trunc.nuw.nsw 8 %6;sext 16 %7;or.disjoint 16 %8 -1;and 1 %3 %4;\
                    mul.nsw 32 ^x 12;sub.nsw 32 %11 2;add 32 %12 ^y;icmp.slt 32 %13 $4:32;\
                    select 32 %14 15 %13;umin 32 %15 15;smax 32 %16 %12;umax 32 %17 ^z;\
                    smin 32 %18 $5:32;zext 64 %19;mul.nsw 64 %20 %1;icmp.ult 64 %21 $1:64;\
                    and 1 %10 %22";
        let alphabet = b"%$:;.- ^0123456789abcdeilmnopqrstuwxyz\xc3\xa9";
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
                // Over a few blocks too: the boxes' evaluation.
                let grid = [
                    (random.next() % 6) as u32,
                    (random.next() % 6) as u32,
                    (random.next() % 3) as u32,
                ];
                test.holds(&buffer(&params), grid);
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

    #[test]
    fn select_takes_the_arm_its_condition_names() {
        let mut random = Random(5);
        let mut taken = [0; 2];
        for width in [1, 8, 16, 32, 64] {
            for _ in 0..400 {
                let (c, a, b) = (random.next() % 2, random.value(width), random.value(width));
                let reference = if c == 1 { a } else { b };
                taken[c as usize] += 1;
                let wrong = random.value(width);
                for claimed in [reference, wrong] {
                    // The condition a value, or the constant.
                    for constant in [false, true] {
                        let mut program = Program::default();
                        let condition = if constant {
                            c.to_string()
                        } else {
                            program.input(c, 1)
                        };
                        let (x, y) = (program.input(a, width), program.input(b, width));
                        let expected = program.input(claimed, width);
                        let result = program.op(format!("select {width} {condition} {x} {y}"));
                        program.op(format!("icmp.eq {width} {result} {expected}"));
                        assert_eq!(
                            program.holds(),
                            reference == claimed,
                            "{} on {c}, {a}, {b}",
                            program.text()
                        );
                    }
                }
            }
        }
        assert!(taken.iter().all(|&n| n > 500), "{taken:?}");
    }

    /// Every value of `set` at `width` bits, in order from `set.lo`.
    fn members(set: Interval, width: u32) -> impl Iterator<Item = u64> {
        (set.lo..=set.hi).map(move |n| n.rem_euclid(modulus(width)) as u64)
    }

    /// Whether `set` at `width` bits contains `value`.
    fn contains(set: Interval, value: u64, width: u32) -> bool {
        (i128::from(value) - set.lo).rem_euclid(modulus(width)) <= set.hi - set.lo
    }

    /// A random set of `width`-bit values for [`Op::evaluate_over`]: a point, or up to 48
    /// values around an edge value (so often across the unsigned or signed wrap), or at 8 bits
    /// and less sometimes every value.
    fn random_set(random: &mut Random, width: u32) -> Interval {
        if width <= 8 && random.next().is_multiple_of(12) {
            return Interval::full(width);
        }
        let size = match random.next() % 3 {
            0 => 0,
            1 => random.next() % 4,
            _ => random.next() % 48,
        };
        let start = i128::from(random.value(width)) - (random.next() % (size + 1)) as i128;
        Interval::of(start, start + size as i128, width)
    }

    /// One op of each kind and flags, with the widths of its result and operands (`[result,
    /// first operand, others]`).
    fn every_op() -> Vec<(Op, [u32; 3])> {
        let op = |opcode, flags, width, source_width| Op {
            opcode,
            flags,
            width,
            source_width,
            operands: [Operand::Constant(0); 3],
        };
        let mut ops = Vec::new();
        for width in [1, 8, 16, 32, 64] {
            for opcode in [
                Opcode::Add,
                Opcode::Sub,
                Opcode::Mul,
                Opcode::Shl,
                Opcode::Lshr,
                Opcode::And,
                Opcode::Or,
                Opcode::Xor,
                Opcode::Umin,
                Opcode::Umax,
                Opcode::Smin,
                Opcode::Smax,
            ] {
                let allowed = allowed_flags(opcode);
                // Every subset of the allowed flags.
                for flags in 0..=allowed {
                    if flags & !allowed == 0 {
                        ops.push((op(opcode, flags, width, width), [width; 3]));
                    }
                }
            }
            for predicate in [
                Predicate::Eq,
                Predicate::Ne,
                Predicate::Ult,
                Predicate::Ule,
                Predicate::Ugt,
                Predicate::Uge,
                Predicate::Slt,
                Predicate::Sle,
                Predicate::Sgt,
                Predicate::Sge,
            ] {
                for flags in [0, FLAG_SAMESIGN] {
                    let icmp = op(Opcode::Icmp(predicate), flags, width, width);
                    ops.push((icmp, [1, width, width]));
                }
            }
            ops.push((op(Opcode::Select, 0, width, 1), [width, 1, width]));
            for from in [1, 8, 16, 32, 64] {
                if from < width {
                    for flags in [0, FLAG_NNEG] {
                        ops.push((op(Opcode::Zext, flags, width, from), [width, from, width]));
                    }
                    ops.push((op(Opcode::Sext, 0, width, from), [width, from, width]));
                }
                if from > width {
                    for flags in 0..=FLAG_NUW | FLAG_NSW {
                        ops.push((op(Opcode::Trunc, flags, width, from), [width, from, width]));
                    }
                }
            }
        }
        ops
    }

    #[test]
    fn ops_over_sets_contain_every_value_and_poison() {
        let mut random = Random(6);
        // Ops found poison everywhere, maybe poison, and bitwise bounds checked exact.
        let (mut always, mut maybe, mut exact) = (0, 0, 0);
        for (op, [result, first, others]) in every_op() {
            let is_cast = matches!(op.opcode, Opcode::Zext | Opcode::Sext | Opcode::Trunc);
            for _ in 0..60 {
                let a = random_set(&mut random, first);
                let (b, c) = match op.opcode {
                    _ if is_cast => (Interval::point(0), Interval::point(0)),
                    Opcode::Select => (
                        random_set(&mut random, others),
                        random_set(&mut random, others),
                    ),
                    // Shift amounts mostly around the width.
                    Opcode::Shl | Opcode::Lshr if random.next().is_multiple_of(2) => {
                        let lo = random.next() % (u64::from(others) + 2);
                        let hi = lo + random.next() % 4;
                        (
                            Interval::of(lo.into(), hi.into(), others),
                            Interval::point(0),
                        )
                    }
                    _ => (random_set(&mut random, others), Interval::point(0)),
                };
                let over = op.evaluate_over([a, b, c]);
                let (mut poisoned, mut values) = (false, Vec::new());
                for x in members(a, first) {
                    for y in members(b, others) {
                        for z in members(c, others) {
                            match op.apply(x, y, z) {
                                Some(value) => values.push(value),
                                None => poisoned = true,
                            }
                        }
                    }
                }
                let context = format!("{op:?} on {a:?} {b:?} {c:?}: {over:?}");
                let Some(over) = over else {
                    assert!(values.is_empty(), "{context}: defined somewhere");
                    always += 1;
                    continue;
                };
                assert!(
                    !poisoned || over.maybe_poison,
                    "{context}: poison somewhere"
                );
                maybe += usize::from(over.maybe_poison);
                for &value in &values {
                    assert!(contains(over.value, value, result), "{context}: {value}");
                }
                // Bitwise ops and min and max: the bounds are the values' own, unsigned.
                let bitwise = matches!(
                    op.opcode,
                    Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Umin | Opcode::Umax
                );
                let wraps = |set: Interval, width| set.hi >= modulus(width);
                if bitwise && op.flags == 0 && !wraps(a, first) && !wraps(b, others) {
                    let (lo, hi) = over.value.unsigned(result);
                    let least = values.iter().min().map(|&v| i128::from(v));
                    let greatest = values.iter().max().map(|&v| i128::from(v));
                    assert_eq!((Some(lo), Some(hi)), (least, greatest), "{context}");
                    exact += 1;
                }
            }
        }
        assert!(
            always > 300 && maybe > 1000 && exact > 1000,
            "{always} {maybe} {exact}"
        );
    }

    /// The values of `test`'s ops in the block `block`, `None` when one is poison (or a
    /// parameter cannot be read).
    fn values_at(test: &EntryTest, params: &ParamBuffer, block: [u32; 3]) -> Option<Vec<u64>> {
        let mut values = Vec::new();
        for op in &test.ops {
            let value = op.evaluate(&values, params, block)?;
            values.push(value);
        }
        Some(values)
    }

    /// Every block of `grid`.
    fn blocks(grid: [u32; 3]) -> impl Iterator<Item = [u32; 3]> {
        (0..grid[2])
            .flat_map(move |z| (0..grid[1]).flat_map(move |y| (0..grid[0]).map(move |x| [x, y, z])))
    }

    /// The reference: `test` holds in each block of `grid`, one by one.
    fn holds_in_every_block(test: &EntryTest, params: &ParamBuffer, grid: [u32; 3]) -> bool {
        blocks(grid).all(|block| test.holds_at(params, block))
    }

    /// A random program over the block indices and parameters `$0:32` and `$1:64`, grown
    /// from values of one width.
    #[derive(Default)]
    struct Grower {
        ops: Vec<String>,
        /// The operands made so far (block indices, parameters, op values) and their widths.
        pool: Vec<(String, u32)>,
    }

    impl Grower {
        /// Appends an op of a `width`-bit result; its value.
        fn push(&mut self, text: String, width: u32) -> String {
            self.ops.push(text);
            let name = format!("%{}", self.ops.len() - 1);
            self.pool.push((name.clone(), width));
            name
        }

        /// A `width`-bit operand (8 bits or more): a constant, or a value of the pool, cast to
        /// `width` from 32 bits when the pool has none.
        fn value(&mut self, random: &mut Random, width: u32) -> String {
            if random.next().is_multiple_of(4) {
                return match random.next() % 3 {
                    0 => random.value(width).to_string(),
                    _ => (random.next() % 20).to_string(),
                };
            }
            let of_width: Vec<&String> = self
                .pool
                .iter()
                .filter(|(_, w)| *w == width)
                .map(|(name, _)| name)
                .collect();
            if !of_width.is_empty() && !random.next().is_multiple_of(5) {
                return of_width[(random.next() as usize) % of_width.len()].clone();
            }
            let wide: Vec<String> = self
                .pool
                .iter()
                .filter(|(_, w)| *w == 32)
                .map(|(name, _)| name.clone())
                .collect();
            let source = wide[(random.next() as usize) % wide.len()].clone();
            let cast = match width {
                32 => return source,
                64 if random.next().is_multiple_of(2) => "sext",
                64 => "zext",
                _ => "trunc",
            };
            self.push(format!("{cast} {width} {source}"), width)
        }

        /// A 1-bit value: one of the pool, or a new comparison.
        fn bit(&mut self, random: &mut Random) -> String {
            let bits: Vec<&String> = self
                .pool
                .iter()
                .filter(|(_, w)| *w == 1)
                .map(|(name, _)| name)
                .collect();
            if !bits.is_empty() && random.next().is_multiple_of(2) {
                return bits[(random.next() as usize) % bits.len()].clone();
            }
            self.compare(random)
        }

        /// A new comparison of two values.
        fn compare(&mut self, random: &mut Random) -> String {
            let width = random_width(random);
            let (a, b) = (self.value(random, width), self.value(random, width));
            let predicates = [
                "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
            ];
            let predicate = predicates[(random.next() as usize) % predicates.len()];
            let samesign = if random.next().is_multiple_of(6) {
                ".samesign"
            } else {
                ""
            };
            self.push(format!("icmp.{predicate}{samesign} {width} {a} {b}"), 1)
        }

        /// Grows one op of a random kind.
        fn grow(&mut self, random: &mut Random) {
            let width = random_width(random);
            match random.next() % 10 {
                0..=3 => {
                    let opcodes: [(&str, &[&str]); 8] = [
                        ("add", &["nuw", "nsw"]),
                        ("sub", &["nuw", "nsw"]),
                        ("mul", &["nuw", "nsw"]),
                        ("shl", &["nuw", "nsw"]),
                        ("lshr", &["exact"]),
                        ("and", &[]),
                        ("or", &["disjoint"]),
                        ("xor", &[]),
                    ];
                    let (opcode, flags) = opcodes[(random.next() as usize) % opcodes.len()];
                    let mut name = opcode.to_string();
                    for flag in flags {
                        if random.next().is_multiple_of(4) {
                            name = format!("{name}.{flag}");
                        }
                    }
                    let a = self.value(random, width);
                    let b = if matches!(opcode, "shl" | "lshr") && !random.next().is_multiple_of(4)
                    {
                        (random.next() % u64::from(width + 1)).to_string()
                    } else {
                        self.value(random, width)
                    };
                    self.push(format!("{name} {width} {a} {b}"), width);
                }
                4 => {
                    let opcodes = ["umin", "umax", "smin", "smax"];
                    let opcode = opcodes[(random.next() as usize) % opcodes.len()];
                    let (a, b) = (self.value(random, width), self.value(random, width));
                    self.push(format!("{opcode} {width} {a} {b}"), width);
                }
                5 => {
                    let from = random_width(random);
                    // A value, not a constant (whose width a cast could not tell).
                    let a = loop {
                        let a = self.value(random, from);
                        if !a.starts_with(|c: char| c.is_ascii_digit()) {
                            break a;
                        }
                    };
                    let (cast, flags): (&str, &[&str]) = match from.cmp(&width) {
                        std::cmp::Ordering::Less if random.next().is_multiple_of(2) => {
                            ("sext", &[])
                        }
                        std::cmp::Ordering::Less => ("zext", &["nneg"]),
                        std::cmp::Ordering::Greater => ("trunc", &["nuw", "nsw"]),
                        std::cmp::Ordering::Equal => return,
                    };
                    let mut name = cast.to_string();
                    for flag in flags {
                        if random.next().is_multiple_of(5) {
                            name = format!("{name}.{flag}");
                        }
                    }
                    self.push(format!("{name} {width} {a}"), width);
                }
                6 => {
                    self.compare(random);
                }
                7 | 8 => {
                    let c = self.bit(random);
                    let (a, b) = (self.value(random, width), self.value(random, width));
                    self.push(format!("select {width} {c} {a} {b}"), width);
                }
                _ => {
                    // A product of two block-index expressions.
                    let axes = ["^x", "^y", "^z"];
                    let a = axes[(random.next() as usize) % 3];
                    let b = axes[(random.next() as usize) % 3];
                    let a = self.push(format!("add 32 {a} {}", random.next() % 5), 32);
                    let flags = if random.next().is_multiple_of(3) {
                        ".nsw"
                    } else {
                        ""
                    };
                    self.push(format!("mul{flags} 32 {a} {b}"), 32);
                }
            }
        }
    }

    /// A width for a random op: mostly 32 or 64 bits.
    fn random_width(random: &mut Random) -> u32 {
        [8, 16, 32, 32, 64, 64][(random.next() as usize) % 6]
    }

    /// A random program reading the block indices, of any op but mostly not affine in them,
    /// and its parameters: its last op compares one of its values with a constant, often the
    /// greatest that value takes over `grid` (so that the test often holds).
    fn random_block_program(random: &mut Random, grid: [u32; 3]) -> (String, Vec<(u64, u32)>) {
        let params = vec![
            (random.next() % 64, 32),
            (random.value(64) >> (random.next() % 64), 64),
        ];
        let mut grower = Grower {
            ops: Vec::new(),
            pool: ["^x", "^y", "^z", "$0:32"]
                .map(|name| (name.to_string(), 32))
                .into_iter()
                .chain([("$1:64".to_string(), 64)])
                .collect(),
        };
        for _ in 0..2 + random.next() % 9 {
            grower.grow(random);
        }
        // The value to bound: the last op's unless it is a bit.
        let (value, width) = match grower.pool.last() {
            Some((name, width)) if name.starts_with('%') && *width > 1 => (name.clone(), *width),
            _ => {
                let width = random_width(random);
                (grower.value(random, width), width)
            }
        };
        let and = random.next().is_multiple_of(3).then(|| grower.bit(random));
        // The greatest value over the grid, unsigned or signed, when no op is poison.
        let signed_bound = random.next().is_multiple_of(3);
        let mut probe = grower.ops.clone();
        probe.push(format!("icmp.eq {width} {value} {value}"));
        let test = EntryTest::parse(&probe.join(";")).unwrap_or_else(|| panic!("{probe:?}"));
        let params_buffer = buffer(&params);
        let index = value
            .strip_prefix('%')
            .and_then(|index| index.parse::<usize>().ok());
        let greatest = blocks(grid)
            .map(|block| {
                let values = values_at(&test, &params_buffer, block)?;
                // A parameter or constant is its own value.
                let value = match index {
                    Some(index) => values[index],
                    None => operand_value(&value, &params)?,
                };
                Some(if signed_bound {
                    i128::from(signed(value, width))
                } else {
                    i128::from(value)
                })
            })
            .try_fold(i128::MIN, |greatest, value| Some(greatest.max(value?)));
        let bound = match (greatest, random.next() % 4) {
            (Some(greatest), 0 | 1) => greatest,
            (Some(greatest), 2) => greatest - 1,
            _ => i128::from(random.value(width)),
        };
        let top = if signed_bound {
            (modulus(width) >> 1) - 1
        } else {
            modulus(width) - 1
        };
        let bound = bound.clamp(-(modulus(width) >> 1), top);
        let predicate = if signed_bound { "sle" } else { "ule" };
        let compared = grower.push(format!("icmp.{predicate} {width} {value} {bound}"), 1);
        if let Some(bit) = and {
            grower.push(format!("and 1 {compared} {bit}"), 1);
        }
        (grower.ops.join(";"), params)
    }

    /// The value of a parameter or constant operand `text` of [`random_block_program`].
    fn operand_value(text: &str, params: &[(u64, u32)]) -> Option<u64> {
        match text {
            "$0:32" => Some(params[0].0),
            "$1:64" => Some(params[1].0),
            _ => text.parse().ok(),
        }
    }

    /// A random grid of up to 9 x 7 x 3 blocks.
    fn random_grid(random: &mut Random) -> [u32; 3] {
        [
            1 + (random.next() % 9) as u32,
            1 + (random.next() % 7) as u32,
            1 + (random.next() % 3) as u32,
        ]
    }

    #[test]
    fn random_programs_of_block_indices_never_hold_where_a_block_fails() {
        let mut random = Random(7);
        // Programs that fail in every block, that fail in some blocks only (where boxes
        // must be cut to find them), that hold and are found to, that hold but are not found
        // to (more boxes than the budget, or undecided by sets).
        let (mut failed, mut partly, mut held, mut missed) = (0, 0, 0, 0);
        for _ in 0..6000 {
            let grid = random_grid(&mut random);
            let (program, params) = random_block_program(&mut random, grid);
            let test = EntryTest::parse(&program).unwrap_or_else(|| panic!("rejected {program}"));
            let params = buffer(&params);
            let reference = holds_in_every_block(&test, &params, grid);
            let holds = test.holds(&params, grid);
            assert!(
                !holds || reference,
                "{program} holds over {grid:?} but fails in a block"
            );
            let somewhere = blocks(grid).any(|block| test.holds_at(&params, block));
            match (reference, holds, somewhere) {
                (false, _, false) => failed += 1,
                (false, _, true) => partly += 1,
                (true, true, _) => held += 1,
                (true, false, _) => missed += 1,
            }
        }
        assert!(
            failed > 1000 && partly > 500 && held > 1500,
            "{failed} {partly} {held} {missed}"
        );
    }

    /// `hi = t_y * cols + t_x` and `lo = f_y * cols + f_x` over the tile of a block, HotSpot's
    /// shape: on each axis the tile starts at `blk = s * ^axis - b`, its first index
    /// `f = smax(blk, 0)` and its last `t = blk + umin(select(blk + t < n, t, n - 1 - blk), t)`
    /// (`n` the rows or columns); the test is `hi < len && lo >= 0`. Parameters: `$0:64` the
    /// length, `$1:32` the columns, `$2:32` the rows.
    fn clamped_tiles(s: u32, b: u32, t: u32) -> String {
        let mut p = Program::default();
        let ends = |p: &mut Program, axis: &str, n: &str| {
            let scaled = p.op(format!("mul.nsw 32 {axis} {s}"));
            let start = p.op(format!("sub.nsw 32 {scaled} {b}"));
            let end = p.op(format!("add.nsw 32 {start} {t}"));
            let inside = p.op(format!("icmp.slt 32 {end} {n}"));
            let limit = p.op(format!("sub.nsw 32 {n} 1"));
            let room = p.op(format!("sub.nsw 32 {limit} {start}"));
            let span = p.op(format!("select 32 {inside} {t} {room}"));
            let span = p.op(format!("umin 32 {span} {t}"));
            let last = p.op(format!("add.nsw 32 {start} {span}"));
            let first = p.op(format!("smax 32 {start} 0"));
            (first, last)
        };
        let (first_y, last_y) = ends(&mut p, "^y", "$2:32");
        let (first_x, last_x) = ends(&mut p, "^x", "$1:32");
        let cols = p.op("sext 64 $1:32".to_string());
        let index = |p: &mut Program, y: &str, x: &str| {
            let y = p.op(format!("sext 64 {y}"));
            let row = p.op(format!("mul.nsw 64 {y} {cols}"));
            let x = p.op(format!("sext 64 {x}"));
            p.op(format!("add.nsw 64 {row} {x}"))
        };
        let hi = index(&mut p, &last_y, &last_x);
        let lo = index(&mut p, &first_y, &first_x);
        let below = p.op(format!("icmp.ult 64 {hi} $0:64"));
        let above = p.op(format!("icmp.sge 64 {lo} 0"));
        p.op(format!("and 1 {below} {above}"));
        p.text()
    }

    /// An affine tile test as the builder writes it: `lo = cx*^x ± cy*^y + cz*^z + origin`,
    /// `hi = lo + t`, `0 <= lo`, `hi < len` and `^x < limit`. Parameters: `$0:32` to `$2:32` the
    /// coefficients, `$3:32` the origin, `$4:64` the length, `$5:32` the limit.
    fn affine_tiles(t: u32, subtract_y: bool) -> String {
        let y = if subtract_y { "sub" } else { "add" };
        format!(
            "mul.nsw 32 ^x $0:32;mul.nsw 32 ^y $1:32;mul.nsw 32 ^z $2:32;{y}.nsw 32 %0 %1;\
             add.nsw 32 %3 %2;add.nsw 32 %4 $3:32;add.nsw 32 %5 {t};sext 64 %5;sext 64 %6;\
             icmp.sge 64 %7 0;icmp.ult 64 %8 $4:64;icmp.ult 32 ^x $5:32;and 1 %9 %10;\
             and 1 %12 %11"
        )
    }

    #[test]
    fn affine_and_clamped_tile_tests_hold_exactly_when_every_block_passes() {
        let mut random = Random(8);
        let mut seen = [[0; 2]; 2];
        for round in 0..3000 {
            let grid = random_grid(&mut random);
            let near =
                |n: i128, random: &mut Random| (n + (random.next() % 4) as i128 - 1).max(0) as u64;
            let affine = round % 2 == 0;
            let (program, params) = if affine {
                let t = (random.next() % 20) as u32;
                let subtract_y = random.next().is_multiple_of(3);
                let c: [i128; 3] = std::array::from_fn(|_| (random.next() % 40) as i128);
                let [gx, gy, gz] = grid.map(|g| i128::from(g) - 1);
                // The least and greatest `lo` over the grid, less the origin.
                let (least, greatest) = if subtract_y {
                    (-c[1] * gy, c[0] * gx + c[2] * gz)
                } else {
                    (0, c[0] * gx + c[1] * gy + c[2] * gz)
                };
                // The origin often the least that keeps `lo` non-negative, or one less.
                let origin = if !random.next().is_multiple_of(4) {
                    -least - i128::from(random.next().is_multiple_of(4))
                } else {
                    (random.next() % 40) as i128 - 20
                };
                let len = near(greatest + origin + i128::from(t) + 1, &mut random);
                let limit = near(i128::from(grid[0]), &mut random);
                let params = vec![
                    (c[0] as u64, 32),
                    (c[1] as u64, 32),
                    (c[2] as u64, 32),
                    (u64::from(origin as i32 as u32), 32),
                    (len, 64),
                    (limit, 32),
                ];
                (affine_tiles(t, subtract_y), params)
            } else {
                let s = 1 + (random.next() % 16) as u32;
                let b = (random.next() % 4) as u32;
                let t = 1 + (random.next() % 16) as u32;
                // Columns and rows around where the grid's tiles end.
                let cols = near(
                    i128::from(s * grid[0]) + (random.next() % 9) as i128 - 4,
                    &mut random,
                )
                .max(1);
                let rows = near(
                    i128::from(s * grid[1]) + (random.next() % 9) as i128 - 4,
                    &mut random,
                )
                .max(1);
                let len = near(i128::from(cols) * i128::from(rows) - 1, &mut random);
                let params = vec![(len, 64), (cols, 32), (rows, 32)];
                (clamped_tiles(s, b, t), params)
            };
            let test = EntryTest::parse(&program).unwrap_or_else(|| panic!("rejected {program}"));
            let params = buffer(&params);
            let reference = holds_in_every_block(&test, &params, grid);
            let (holds, boxes) = test.decide(&params, grid);
            assert_eq!(holds, reference, "{program} over {grid:?}: {boxes} boxes");
            if affine && holds {
                assert_eq!(boxes, 1, "{program} over {grid:?}");
            }
            seen[usize::from(affine)][usize::from(reference)] += 1;
        }
        assert!(seen.iter().flatten().all(|&n| n > 300), "{seen:?}");
    }

    /// HotSpot's tiles over 683 x 683 blocks for a grid of 8192 x 8192 cells, and the
    /// parameters (`len`, the columns, the rows).
    fn hotspot() -> (EntryTest, [u32; 3], [(u64, u32); 3]) {
        let test = EntryTest::parse(&clamped_tiles(12, 2, 15)).expect("parses");
        (
            test,
            [683, 683, 1],
            [(8192 * 8192, 64), (8192, 32), (8192, 32)],
        )
    }

    #[test]
    fn hotspots_clamped_tiles_hold_over_683_by_683_blocks() {
        let (test, grid, params) = hotspot();
        // Every block's tile is inside the grid (natively): its last row and column below
        // 8192, its first at 0 or more.
        let last = |block: i64| {
            let start = 12 * block - 2;
            start + (if start + 15 < 8192 { 15 } else { 8191 - start }).min(15)
        };
        assert!((0..683).all(|block| last(block) < 8192 && last(block) >= 0));
        let (holds, boxes) = test.decide(&buffer(&params), grid);
        assert!(holds && boxes < BOX_BUDGET, "{boxes}");
        assert!(test.holds(&buffer(&params), grid));
        // One cell short: the last block's tile ends past the length.
        let short = [(8192 * 8192 - 1, 64), params[1], params[2]];
        assert!(!test.holds(&buffer(&short), grid));
        // One more column of blocks than of tiles: those tiles start past the last column.
        assert!(!test.holds(&buffer(&params), [684, 683, 1]));
        assert!(!test.holds(&buffer(&params), [683, 684, 1]));
        // More rows of cells than the length holds: the last row of tiles ends past it.
        let tall = [params[0], params[1], (8193, 32)];
        assert!(!test.holds(&buffer(&tall), grid));
    }

    #[test]
    fn a_repeated_launch_reuses_the_last_answer() {
        // `^x < $0`: holds while the grid is no wider than the parameter.
        let test = EntryTest::parse("icmp.ult 32 ^x $0:32").expect("parses");
        let params = |limit: u64| buffer(&[(limit, 32)]);
        assert!(test.holds(&params(10), [10, 1, 1]));
        assert!(test.holds(&params(10), [10, 1, 1]));
        assert!(!test.holds(&params(10), [11, 1, 1]));
        assert!(test.holds(&params(10), [10, 1, 1]));
        assert!(!test.holds(&params(9), [10, 1, 1]));
        assert!(test.holds(&params(11), [11, 1, 1]));
        assert!(test.holds(&params(11), [11, 2, 1]));
        // The answer kept is the one given: a planted wrong one is returned for the same
        // inputs (a repeat is only a comparison), and not for others.
        let mut memo = test.memo.0.lock().unwrap_or_else(|e| e.into_inner());
        let (grid, values, answer) = memo.clone().expect("an answer");
        assert_eq!(
            (grid, values.as_slice(), answer),
            ([11, 2, 1], &[Some(11)][..], true)
        );
        *memo = Some(([11, 2, 1], values, false));
        drop(memo);
        assert!(!test.holds(&params(11), [11, 2, 1]));
        assert!(test.holds(&params(12), [11, 2, 1]));
        // A parameter the program does not read (a buffer's address) is not part of it.
        let test = EntryTest::parse("icmp.ult 32 ^x $1:32").expect("parses");
        let with = |address: u64| buffer(&[(address, 64), (10, 32)]);
        assert!(test.holds(&with(0xdead_0000), [10, 1, 1]));
        *test.memo.0.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(([10, 1, 1], [Some(10)].into_iter().collect(), false));
        assert!(!test.holds(&with(0xbeef_0000), [10, 1, 1]));
        // A clone starts without an answer and equals its original; the test is shared by
        // the threads launching its kernel.
        assert!(test.memo.0.lock().is_ok_and(|memo| memo.is_some()));
        let clone = test.clone();
        assert!(clone.memo.0.lock().is_ok_and(|memo| memo.is_none()));
        assert_eq!(clone, test);
        fn shared<T: Send + Sync>(_: &T) {}
        shared(&test);
    }
}
