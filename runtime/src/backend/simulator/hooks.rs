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

    fn print(&self, text: &str) {
        if !self.aborting.get() && !std::thread::panicking() {
            self.check_watchdog(self.current.get());
        }
        print_device_text(text);
    }

    fn yield_now(&self) {
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        if std::thread::panicking() {
            return;
        }
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
    fn stop(&self, fault: SimulatorFault) -> ! {
        self.fail(fault);
        panic_capture::abort_thread()
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
