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

use super::scheduler::Launch;
use crate::vocabulary::fault::{SharedAccess, SimulatorFault, SourceSite};
use std::panic::Location;

/// One copy that has started and not completed.
#[derive(Clone, Copy, Debug)]
pub(super) struct PendingCopy {
    /// The issuing thread's rank.
    thread: usize,
    /// Its group (the thread's commit count when it was committed), `None` before the commit.
    group: Option<u64>,
    /// The shared-memory address of the first byte.
    destination: usize,
    /// The bytes to write (the first `len`).
    data: [u8; 16],
    /// The copy's size in bytes (4, 8 or 16).
    len: usize,
    /// Where the copy was started.
    location: &'static Location<'static>,
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
    fn start(
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
    fn commit(&mut self, thread: usize) {
        let group = self.commits[thread];
        self.commits[thread] += 1;
        for copy in self.pending.iter_mut().filter(|c| c.thread == thread) {
            copy.group.get_or_insert(group);
        }
    }

    /// Removes and returns `thread`'s copies in groups older than its `keep` most recent ones.
    fn complete(&mut self, thread: usize, keep: u32) -> Vec<PendingCopy> {
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

impl Launch<'_> {
    /// Starts a copy for the running thread (the `async_copy` hook).
    pub(super) fn start_async_copy(
        &self,
        destination: *mut u8,
        data: &[u8],
        location: &'static Location<'static>,
    ) {
        let rank = self.current.get();
        self.check_not_pending(destination, data.len(), true, location);
        self.record_shared_access(destination, data.len(), true, location);
        self.async_copies
            .borrow_mut()
            .start(rank, destination as usize, data, location);
    }

    /// Commits the running thread's copies (the `async_copy_commit` hook).
    pub(super) fn commit_async_copies(&self) {
        self.async_copies.borrow_mut().commit(self.current.get());
    }

    /// Completes the running thread's groups but the `keep` most recent (the `async_copy_wait`
    /// hook): writes their bytes to shared memory.
    pub(super) fn wait_async_copies(&self, keep: u32, location: &'static Location<'static>) {
        let rank = self.current.get();
        let completed = self.async_copies.borrow_mut().complete(rank, keep);
        for copy in completed {
            // SAFETY: the device side checked that `destination..+len` lies in a shared array of
            // the block being run, which lives until the block ends; the running thread is the
            // only one executing, and no reference to those bytes is held across this hook.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    copy.data.as_ptr(),
                    copy.destination as *mut u8,
                    copy.len,
                );
            }
            self.record_shared_access(copy.destination as *const u8, copy.len, true, location);
        }
    }

    /// Ends the running thread with a fault when `address..address + bytes` overlaps a pending
    /// copy (an access by the kernel, or a new copy to the same bytes).
    #[inline]
    pub(super) fn check_not_pending(
        &self,
        address: *const u8,
        bytes: usize,
        write: bool,
        location: &'static Location<'static>,
    ) {
        let Some(copy) = self
            .async_copies
            .borrow()
            .overlapping(address as usize, bytes)
        else {
            return;
        };
        let fault = SimulatorFault::AsyncCopyPending {
            kernel: self.info.name.to_string(),
            block: self.block_idx.get(),
            access: SharedAccess {
                thread: self.coords(self.current.get()),
                write,
                site: SourceSite::from_location(location),
            },
            copy: SharedAccess {
                thread: self.coords(copy.thread),
                write: true,
                site: SourceSite::from_location(copy.location),
            },
            committed: copy.group.is_some(),
        };
        self.stop(fault);
    }
}
