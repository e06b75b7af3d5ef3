//! The memo of an [`EntryTest`]'s last answer for a program that reads block indices, and
//! [`EntryTest::holds`], the runtime's question at each launch, which consults it before
//! deciding the grid's blocks afresh.

#[cfg(doc)]
use super::decide::BOX_BUDGET;
use super::syntax::EntryTest;
use crate::vocabulary::params::ParamBuffer;
use smallvec::SmallVec;
use std::sync::Mutex;

/// The last answer of [`EntryTest::holds`] for a program that reads block indices: the
/// launch's grid, the values of the parameters in [`EntryTest::reads`] (`None` for one that
/// could not be read), and the answer.
pub(super) type Answer = ([u32; 3], SmallVec<[Option<u64>; 8]>, bool);

/// The memo of an [`EntryTest`]'s last [`Answer`], shared by the threads launching the kernel.
///
/// It is a cache, not part of the test: a clone starts empty and any two memos are equal, so
/// that [`EntryTest`] can still derive `Clone`, `PartialEq` and `Eq`, which compare programs.
#[derive(Default)]
pub(super) struct Memo(pub(super) Mutex<Option<Answer>>);

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
}
