//! The simulator's side of the device API: [`SimHooks`] for a launch being simulated.
//!
//! Every hook runs on the calling simulated thread's coroutine; `Launch::current` says which
//! thread that is.

use super::block::ThreadState;
use super::output::print_device_text;
use super::panic_capture;
use super::scheduler::{ConstantView, Launch};
use super::shared_memory::{RaceReport, SharedLimitExceeded};
use crate::device::sim::{BarrierOp, SharedSite, SimHooks, WarpOp};
use crate::vocabulary::fault::{SharedAccess, SimulatorFault, SourceSite};
use std::panic::Location;

impl SimHooks for Launch<'_> {
    fn barrier(&self, op: BarrierOp, predicate: bool, location: &'static Location<'static>) -> u32 {
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        if std::thread::panicking() {
            // A destructor running while the thread unwinds: it cannot wait any more.
            return 0;
        }
        let rank = self.current.get();
        self.wait(
            rank,
            ThreadState::AtBarrier {
                op,
                predicate,
                location,
            },
        ) as u32
    }

    fn warp(&self, op: WarpOp, location: &'static Location<'static>) -> u64 {
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        let rank = self.current.get();
        if std::thread::panicking() {
            // A destructor running while the thread unwinds: answer as if alone in the warp.
            return match op {
                WarpOp::Sync { .. } | WarpOp::Mma { .. } => 0,
                WarpOp::Shuffle { value, .. } => value,
                WarpOp::Ballot { predicate, .. } => (predicate as u64) << (rank % 32),
                WarpOp::Gather { .. } => 0,
            };
        }
        self.wait(rank, ThreadState::AtWarp { op, location })
    }

    fn active_mask(&self) -> u32 {
        self.active_lanes(self.current.get())
    }

    fn shared_static(&self, site: SharedSite) -> *mut u8 {
        let result = self.shared.borrow_mut().static_site(site);
        match result {
            Ok(pointer) => pointer,
            Err(exceeded) => self.stop(self.shared_limit_fault(exceeded)),
        }
    }

    fn shared_dynamic(&self) -> (*mut u8, usize) {
        let result = self.shared.borrow_mut().dynamic();
        match result {
            Ok(region) => region,
            Err(exceeded) => self.stop(self.shared_limit_fault(exceeded)),
        }
    }

    #[inline]
    fn shared_access(
        &self,
        address: *const u8,
        bytes: usize,
        write: bool,
        location: &'static Location<'static>,
    ) {
        if self.aborting.get() || std::thread::panicking() {
            return;
        }
        self.check_not_pending(address, bytes, write, location);
        self.record_shared_access(address, bytes, write, location);
    }

    fn async_copy(&self, destination: *mut u8, data: &[u8], location: &'static Location<'static>) {
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        if !std::thread::panicking() {
            self.start_async_copy(destination, data, location);
        }
    }

    fn async_copy_commit(&self) {
        if !self.aborting.get() && !std::thread::panicking() {
            self.commit_async_copies();
        }
    }

    fn async_copy_wait(&self, pending_groups: u32, location: &'static Location<'static>) {
        if !self.aborting.get() && !std::thread::panicking() {
            self.wait_async_copies(pending_groups, location);
        }
    }

    fn print(&self, text: &str) {
        if !self.aborting.get() && !std::thread::panicking() {
            self.check_watchdog(self.current.get());
        }
        print_device_text(text);
    }

    fn stack_overflowed(&self) -> ! {
        let slot = &self.threads[self.current.get()];
        self.overflowed.set(true);
        slot.state.set(ThreadState::Aborted);
        loop {
            // SAFETY: the yielder was set when the coroutine started, and the calling thread
            // still runs on that coroutine (on the guard's escape stack). The scheduler never
            // resumes a thread it finds overflowed, so this suspends for good.
            unsafe { (*slot.yielder.get()).suspend(()) };
        }
    }

    fn unsupported(&self, instruction: &'static str, location: &'static Location<'static>) -> ! {
        let fault = SimulatorFault::UnsupportedInstruction {
            kernel: self.info.name.to_string(),
            block: self.block_idx.get(),
            instruction,
            site: SharedAccess {
                thread: self.coords(self.current.get()),
                write: false,
                site: SourceSite::from_location(location),
            },
        };
        self.stop(fault)
    }

    fn grid_barrier(&self, location: &'static Location<'static>) -> bool {
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        if !self.cooperative {
            return false;
        }
        if std::thread::panicking() {
            // A destructor running while the thread unwinds: it cannot wait any more.
            return true;
        }
        let rank = self.current.get();
        self.wait(
            rank,
            ThreadState::AtBarrier {
                op: BarrierOp::Grid,
                predicate: false,
                location,
            },
        );
        true
    }

    fn is_cooperative_launch(&self) -> bool {
        self.cooperative
    }

    fn yield_now(&self) {
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        if std::thread::panicking() {
            return;
        }
        self.yields.set(self.yields.get() + 1);
        self.wait(self.current.get(), ThreadState::Ready);
    }

    fn constant(&self, name: &'static str, init: &'static [u8]) -> *const u8 {
        let mut constants = self.constants.borrow_mut();
        if let Some(view) = constants
            .iter()
            .find(|c| c.name == name && c.len == init.len())
        {
            return view.ptr;
        }
        let ptr = self.constants_store.storage(name, init).cast_const();
        constants.push(ConstantView {
            name,
            len: init.len(),
            ptr,
        });
        ptr
    }
}

impl Launch<'_> {
    /// Records a fault found by a hook and ends the calling thread; the scheduler then stops the
    /// block and the launch.
    pub(super) fn stop(&self, fault: SimulatorFault) -> ! {
        self.fail(fault);
        panic_capture::abort_thread()
    }

    /// Shows the running thread's access to the race detector; ends the thread with a fault when
    /// it races.
    pub(super) fn record_shared_access(
        &self,
        address: *const u8,
        bytes: usize,
        write: bool,
        location: &'static Location<'static>,
    ) {
        let rank = self.current.get();
        let report = self
            .shared
            .borrow_mut()
            .access(address, bytes, rank, write, location);
        if let Some(report) = report {
            let fault = self.race_fault(&report);
            self.stop(fault);
        }
    }

    /// The fault for a data race.
    fn race_fault(&self, report: &RaceReport) -> SimulatorFault {
        let access = |a: &super::race::Access| SharedAccess {
            thread: self.coords(a.thread),
            write: a.write,
            site: SourceSite::from_location(a.location),
        };
        SimulatorFault::DataRace {
            kernel: self.info.name.to_string(),
            block: self.block_idx.get(),
            first: access(&report.race.first),
            second: access(&report.race.second),
            memory: report.memory,
            offset: report.race.offset,
            region_bytes: report.region_bytes,
        }
    }

    /// The fault for shared memory beyond the limit.
    fn shared_limit_fault(&self, exceeded: SharedLimitExceeded) -> SimulatorFault {
        let kernel = self.info.name.to_string();
        match exceeded {
            SharedLimitExceeded::Static {
                static_bytes,
                limit,
            } => SimulatorFault::StaticSharedMemoryLimit {
                kernel,
                static_bytes,
                limit,
            },
            SharedLimitExceeded::Total {
                static_bytes,
                dynamic_bytes,
                limit,
            } => SimulatorFault::SharedMemoryLimit {
                kernel,
                static_bytes,
                dynamic_bytes,
                limit,
            },
        }
    }
}

/// The asynchronous-copy hooks' work (the bookkeeping is `async_copy.rs`).
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
