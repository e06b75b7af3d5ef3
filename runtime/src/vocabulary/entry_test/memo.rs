//! The memo of an entry test's last answer, which `EntryTest::holds` (in `decide.rs`) consults at
//! each launch before evaluating the program: a launch loop that repeats one launch (a stencil
//! swapping two buffers of one length) then pays a few loads and compares, not the program nor,
//! for a program that reads block indices, the boxes of blocks. It imports nothing of the test's
//! other files, which hold one.
//!
//! The memo is a sequence lock over atomics, so that a launch never waits for another thread and
//! takes no lock: a reader loads the sequence, the fields and the sequence again, and trusts the
//! fields only when the sequence was even (no write in progress), not 0 (an answer was written)
//! and unchanged. A writer that finds a write in progress leaves the memo as it is. This is
//! written here rather than taken from a crate: `crossbeam_utils::atomic::AtomicCell` of a
//! struct this size falls back to a global striped lock and reads the fields with
//! `read_volatile`, where every field here is an atomic of its own and a failed read is simply a
//! miss (the program is evaluated).

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering, fence};

/// The most parameters a program may read for its answers to be kept: the memo's key holds one
/// value per parameter read. A program reading more is evaluated at every launch.
pub(super) const MEMO_VALUES: usize = 8;

/// What an answer depends on: the launch's grid (`[0; 3]` for a program that reads no block
/// index) and the values of the parameters in `EntryTest::reads`, in that order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Key {
    /// The grid, `[x, y, z]` blocks.
    pub(super) grid: [u32; 3],
    /// The values read, the first `count` used.
    pub(super) values: [u64; MEMO_VALUES],
    /// How many parameters the program reads.
    pub(super) count: usize,
}

/// The memo of an entry test's last answer and its [`Key`], shared by the threads launching
/// the kernel.
///
/// It is a cache, not part of the test: a clone starts empty and any two memos are equal, so
/// that `EntryTest` can still derive `Clone`, `PartialEq` and `Eq`, which compare programs.
#[derive(Default)]
pub(super) struct Memo {
    /// Odd while an answer is being written; 0 before the first one.
    sequence: AtomicU64,
    /// The key's grid.
    grid: [AtomicU32; 3],
    /// The key's values.
    values: [AtomicU64; MEMO_VALUES],
    /// The answer kept.
    answer: AtomicBool,
}

impl Memo {
    /// The answer kept for `key`, if the last answer written was for it.
    #[inline]
    pub(super) fn get(&self, key: &Key) -> Option<bool> {
        let before = self.sequence.load(Ordering::Acquire);
        if before == 0 || before & 1 == 1 {
            return None;
        }
        let same_grid =
            (0..3).all(|axis| self.grid[axis].load(Ordering::Relaxed) == key.grid[axis]);
        let same_values = key.values[..key.count]
            .iter()
            .zip(&self.values)
            .all(|(&value, kept)| kept.load(Ordering::Relaxed) == value);
        let answer = self.answer.load(Ordering::Relaxed);
        // Orders the loads above before the sequence's second load: had a writer begun before
        // any of them read its stores, the second load sees the writer's odd sequence or later.
        fence(Ordering::Acquire);
        let unchanged = self.sequence.load(Ordering::Relaxed) == before;
        (unchanged && same_grid && same_values).then_some(answer)
    }

    /// Keeps `answer` for `key`, unless another thread is writing the memo.
    #[inline]
    pub(super) fn put(&self, key: &Key, answer: bool) {
        let before = self.sequence.load(Ordering::Relaxed);
        if before & 1 == 1
            || self
                .sequence
                .compare_exchange(before, before + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        // Orders the odd sequence before the stores below (see `get`).
        fence(Ordering::Release);
        for axis in 0..3 {
            self.grid[axis].store(key.grid[axis], Ordering::Relaxed);
        }
        for (kept, &value) in self.values.iter().zip(&key.values[..key.count]) {
            kept.store(value, Ordering::Relaxed);
        }
        self.answer.store(answer, Ordering::Relaxed);
        self.sequence.store(before + 2, Ordering::Release);
    }
}

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
