//! Asynchronous copies to shared memory (`cp.async`) and their groups, per thread of the block.
//!
//! A copy's source bytes are read when it starts (the device side passes them); the copy stays
//! *pending* until its thread waits for its group, and only then are the bytes written to
//! shared memory. Groups are numbered per thread in commit order (`commit_group` numbers the
//! thread's uncommitted copies, and counts as a group even when it closes none), so
//! `wait_group N` completes exactly the copies whose group is older than the thread's `N` most
//! recent ones; copies not yet committed stay pending.
//!
//! Any shared-memory access, by any thread, to the bytes of a pending copy is a fault
//! ([`SimulatorFault::AsyncCopyPending`]): on a GPU it would see old, new or partly written
//! bytes. The race detector sees each copy as a write by its thread when it starts and again when
//! it completes, so other threads must be ordered after the wait by a barrier. Copies never
//! waited for stay pending until the block ends and are then dropped.
//!
//! This file holds the bookkeeping; the hooks that use it (start, commit, wait, and the check of
//! every shared-memory access) are in `hooks.rs`.

use std::panic::Location;

/// One copy that has started and not completed.
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingCopy {
    /// The issuing thread's rank.
    pub(super) thread: usize,
    /// Its group (the thread's commit count when it was committed), `None` before the commit.
    pub(super) group: Option<u64>,
    /// The shared-memory address of the first byte.
    pub(super) destination: usize,
    /// The bytes to write (the first `len`).
    pub(super) data: [u8; 16],
    /// The copy's size in bytes (4, 8 or 16).
    pub(super) len: usize,
    /// Where the copy was started.
    pub(super) location: &'static Location<'static>,
}

/// The pending copies of the block being run and each thread's count of commits.
#[derive(Debug)]
pub(super) struct AsyncCopies {
    /// Copies started and not completed, in start order.
    pending: Vec<PendingCopy>,
    /// Groups committed so far, per thread rank.
    commits: Vec<u64>,
}

impl AsyncCopies {
    /// No copies, for a block of `threads` threads.
    pub(super) fn new(threads: usize) -> Self {
        AsyncCopies {
            pending: Vec::new(),
            commits: vec![0; threads],
        }
    }

    /// Forgets every copy and group (a new block starts).
    pub(super) fn begin_block(&mut self) {
        self.pending.clear();
        self.commits.fill(0);
    }

    /// Records a copy of `data` (at most 16 bytes) to `destination` by `thread`.
    pub(super) fn start(
        &mut self,
        thread: usize,
        destination: usize,
        data: &[u8],
        location: &'static Location<'static>,
    ) {
        let mut bytes = [0u8; 16];
        bytes[..data.len()].copy_from_slice(data);
        self.pending.push(PendingCopy {
            thread,
            group: None,
            destination,
            data: bytes,
            len: data.len(),
            location,
        });
    }

    /// Closes `thread`'s uncommitted copies into its next group.
    pub(super) fn commit(&mut self, thread: usize) {
        let group = self.commits[thread];
        self.commits[thread] += 1;
        for copy in self.pending.iter_mut().filter(|c| c.thread == thread) {
            copy.group.get_or_insert(group);
        }
    }

    /// Removes and returns `thread`'s copies in groups older than its `keep` most recent ones.
    pub(super) fn complete(&mut self, thread: usize, keep: u32) -> Vec<PendingCopy> {
        let Some(limit) = self.commits[thread].checked_sub(u64::from(keep)) else {
            return Vec::new();
        };
        let done = |c: &PendingCopy| c.thread == thread && c.group.is_some_and(|g| g < limit);
        let completed = self.pending.iter().copied().filter(done).collect();
        self.pending.retain(|c| !done(c));
        completed
    }

    /// The first pending copy whose bytes overlap `address..address + bytes`.
    #[inline]
    pub(super) fn overlapping(&self, address: usize, bytes: usize) -> Option<PendingCopy> {
        if self.pending.is_empty() {
            return None;
        }
        self.pending
            .iter()
            .find(|c| c.destination < address + bytes && address < c.destination + c.len)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A copy of one 4-byte word at `destination` whose bytes all equal `fill`.
    fn start(copies: &mut AsyncCopies, thread: usize, destination: usize, fill: u8) {
        copies.start(thread, destination, &[fill; 4], Location::caller());
    }

    /// The first bytes of the completed copies, in start order.
    fn completed(copies: &mut AsyncCopies, thread: usize, keep: u32) -> Vec<u8> {
        copies
            .complete(thread, keep)
            .iter()
            .map(|c| c.data[0])
            .collect()
    }

    #[test]
    fn wait_group_completes_all_but_the_newest_groups_empty_ones_counted() {
        let mut copies = AsyncCopies::new(2);
        start(&mut copies, 0, 0, 1);
        copies.commit(0); // group 0: copy 1
        copies.commit(0); // group 1: empty
        start(&mut copies, 0, 4, 2);
        copies.commit(0); // group 2: copy 2
        start(&mut copies, 0, 8, 3); // not committed
        start(&mut copies, 1, 12, 4);
        copies.commit(1); // thread 1's group 0
        // The two newest groups (1, 2) stay pending: only group 0 completes.
        assert_eq!(completed(&mut copies, 0, 2), [1]);
        assert_eq!(completed(&mut copies, 0, 2), Vec::<u8>::new());
        // Keeping one group still keeps group 2 (group 1 is empty).
        assert_eq!(completed(&mut copies, 0, 1), Vec::<u8>::new());
        assert_eq!(completed(&mut copies, 0, 0), [2]);
        // The uncommitted copy and thread 1's group are untouched.
        assert!(copies.overlapping(8, 4).is_some());
        assert!(copies.overlapping(12, 1).is_some());
        copies.commit(0);
        assert_eq!(completed(&mut copies, 0, 0), [3]);
        assert_eq!(completed(&mut copies, 1, 0), [4]);
        assert!(copies.overlapping(0, 16).is_none());
    }

    #[test]
    fn overlap_is_byte_exact() {
        let mut copies = AsyncCopies::new(1);
        copies.start(0, 16, &[0; 16], Location::caller());
        assert!(copies.overlapping(15, 1).is_none());
        assert!(copies.overlapping(12, 5).is_some());
        assert!(copies.overlapping(31, 1).is_some());
        assert!(copies.overlapping(32, 4).is_none());
        copies.begin_block();
        assert!(copies.overlapping(16, 16).is_none());
    }
}
