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
//! # The memo
//!
//! Every program's last answer is kept with what it depends on: the values of the parameters
//! the program reads (at most 8 of them) and, for a program that reads block indices, the
//! launch's grid. A launch loop that repeats one launch (a stencil swapping two buffers of one
//! length) pays a few loads and compares, not the program nor the boxes: about 20 ns for a
//! three-slice `vecadd`, where evaluating its 6 ops took about 140 ns (one core of this
//! workspace's build machine, release build). The memo takes no lock (a sequence lock over
//! atomics, `memo.rs`), so threads launching one kernel never wait for each other.

mod bitwise;
mod decide;
mod exact;
mod interval;
mod memo;
mod note;
mod over;
mod parse;
mod syntax;
#[cfg(test)]
mod tests;

#[cfg(doc)]
use crate::device::panic::ENTRY_TEST_TOKEN_BIT;
#[cfg(doc)]
use decide::BOX_BUDGET;
pub use note::entry_test_holds;
pub(crate) use note::entry_test_of;
#[cfg(doc)]
use smallvec::SmallVec;
pub(crate) use syntax::EntryTest;
