//! Deciding an entry test over a launch's grid: the program evaluated in one block
//! ([`EntryTest::holds_at`]) or over a box of blocks with sets of values
//! ([`EntryTest::holds_over`]), the boxes cut in halves until each is decided or
//! [`BOX_BUDGET`] is spent ([`EntryTest::decide`]).

use super::interval::Interval;
use super::memo::{Key, MEMO_VALUES};
use super::syntax::{EntryTest, Operand, result_width};
use crate::vocabulary::params::ParamBuffer;
use smallvec::SmallVec;

/// The most boxes of blocks [`EntryTest::holds`] evaluates for one launch (single blocks
/// included) before it answers false. HotSpot's clamped tile ends take 37 over its 683 x 683
/// blocks and an affine test takes 1, so 256 leaves room for several clamped tests with
/// different edges in one program. A box of a 40-op program costs about half a microsecond,
/// so a program that exhausts the budget (then the answer is false and the kernel computes
/// its test itself, as it would without the note) costs a launch some 130 us, once per grid
/// and parameter values: the answer is kept.
pub(super) const BOX_BUDGET: u32 = 256;

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
    /// Whether the test holds in every block of the non-empty `grid`, decided box by box (see
    /// the module documentation), with the number of boxes evaluated.
    pub(super) fn decide(&self, params: &ParamBuffer, grid: [u32; 3]) -> (bool, u32) {
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
    pub(super) fn holds_at(&self, params: &ParamBuffer, block: [u32; 3]) -> bool {
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

impl EntryTest {
    /// Whether the test holds on a launch's parameters for every block of `grid` (`[x, y, z]`
    /// blocks): every op defined (not poison) and the last one 1 (see the module
    /// documentation for how the blocks are covered). False when a parameter the program reads
    /// is missing or of another size, the grid is empty, or the blocks take more than
    /// [`BOX_BUDGET`] boxes to decide.
    pub(crate) fn holds(&self, params: &ParamBuffer, grid: [u32; 3]) -> bool {
        if grid.contains(&0) {
            return false;
        }
        let key = self.memo_key(params, grid);
        if let Some(answer) = key.as_ref().and_then(|key| self.memo.get(key)) {
            return answer;
        }
        let answer = if self.block_axes == 0 {
            self.holds_at(params, [0; 3])
        } else {
            self.decide(params, grid).0
        };
        if let Some(key) = &key {
            self.memo.put(key, answer);
        }
        answer
    }

    /// What the answer on `params` and `grid` depends on, when the memo can keep it: the
    /// program reads at most [`MEMO_VALUES`] parameters, each readable (a parameter missing or
    /// of another size fails the test at once, and is not worth keeping).
    #[inline]
    pub(super) fn memo_key(&self, params: &ParamBuffer, grid: [u32; 3]) -> Option<Key> {
        if self.reads.len() > MEMO_VALUES {
            return None;
        }
        let mut key = Key {
            grid: if self.block_axes == 0 { [0; 3] } else { grid },
            values: [0; MEMO_VALUES],
            count: self.reads.len(),
        };
        for (slot, &(index, bits)) in key.values.iter_mut().zip(&self.reads) {
            *slot = params.unsigned(index as usize, bits)?;
        }
        Some(key)
    }
}
