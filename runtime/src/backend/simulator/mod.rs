//! The CPU simulator: runs a kernel's threads on the host with CUDA semantics.
//!
//! # Model
//! - **Blocks** run one after another, x fastest, then y, then z, on the OS thread that launched
//!   the kernel, until one spins: a block that keeps yielding at atomics (waiting for a flag a
//!   later block sets) makes the rest of the grid run in turns, as many blocks at once as the
//!   simulated device holds ([`residency`]). The launch is synchronous and deterministic: the
//!   same launch gives the same results, output and reports every time.
//! - **Cooperative launches** (`#[kernel(cooperative)]`) run all their blocks interleaved,
//!   each resident until the launch ends, so that a grid barrier (`grid_sync`) releases when
//!   every thread of the grid has reached it ([`grid_barrier`]).
//! - **Threads** of a block are stackful coroutines ([`corosensei`]) on pooled stacks
//!   ([`stack_pool`]). The [`scheduler`] resumes every runnable thread in thread order (x fastest);
//!   a thread runs until it finishes, waits at a barrier or a warp operation, or yields at its
//!   4096th atomic since the last yield (so a spin-wait on a flag another thread of the block, or
//!   another block, sets completes). When no thread can
//!   run, the scheduler completes the warp operations whose lanes have all arrived, or releases the
//!   block barrier when every thread waits at the same one; otherwise the block is divergent or
//!   deadlocked, and the launch ends with a [`SimulatorFault`] naming who waits where — a GPU
//!   would hang.
//! - **Shared memory** is allocated per block on first use ([`shared_memory`]), filled with
//!   [`shared_memory::POISON`] bytes so that reading memory never written gives obviously wrong
//!   values (NaN for floats, -1 for signed integers).
//! - **Asynchronous copies** (`cp.async`) stay pending per thread until a wait completes their
//!   group; touching a pending destination is a fault ([`async_copy`]).
//! - **Data races** on shared memory between two barriers are found by the [`race`] detector.
//! - **No progress** for `FERROCUDA_SIMULATOR_WATCHDOG_SECS` ends the launch with a fault, or
//!   the process with a report when the thread cannot be stopped ([`watchdog`]).
//! - **Stack overflow** of a simulated thread ends the launch with
//!   [`SimulatorFault::StackOverflow`](crate::SimulatorFault::StackOverflow) naming
//!   `FERROCUDA_SIMULATOR_STACK_KIB` ([`stack_guard`]).
//! - **Device memory** is counted against [`Simulator::total_memory`] ([`host_memory`]).
//! - **Panics** of kernel threads (`assert!`, an index out of bounds) are caught per thread
//!   ([`panic_capture`]) and reported as [`Error::KernelPanic`] with the full message; the other
//!   threads run to completion, as on a GPU.
//!
//! Device functions reach the simulator through [`ferrocuda_device::sim::SimHooks`], implemented
//! in [`hooks`].

mod async_copy;
mod block;
pub(crate) mod collectives;
mod constants;
pub(crate) mod graph;
mod grid_barrier;
mod hooks;
pub(crate) mod host_memory;
mod inspect;
mod limits;
mod output;
mod panic_capture;
mod parked;
mod race;
mod report;
mod residency;
mod scheduler;
mod shared_memory;
mod stack_guard;
mod stack_pool;
mod warp;
mod watchdog;

#[cfg(test)]
mod tests;

#[cfg(doc)]
use crate::vocabulary::error::Error;
use crate::vocabulary::error::{LaunchError, Result};
#[cfg(doc)]
use crate::vocabulary::fault::SimulatorFault;
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::limits::DeviceLimits;
use crate::vocabulary::params::ParamReader;
use crate::vocabulary::shape::LaunchShape;
use constants::ConstantStore;
use scheduler::Launch;
use stack_pool::StackPool;
use std::sync::Mutex;

/// The environment variable that sets the stack size of each simulated thread, in KiB.
pub(crate) const STACK_SIZE_ENV: &str = "FERROCUDA_SIMULATOR_STACK_KIB";

/// The default stack size of a simulated thread: room for kernels built without optimisation and
/// for the unwinding of a panic.
pub(crate) const DEFAULT_STACK_BYTES: usize = 256 * 1024;

/// The CPU simulator: a device that runs kernels on the host (see the module documentation).
///
/// One instance serves the whole process; launches from several OS threads run concurrently,
/// each on its own OS thread, with their own state.
pub(crate) struct Simulator {
    /// Coroutine stacks kept between launches.
    stacks: Mutex<Vec<corosensei::stack::DefaultStack>>,
    /// The stack size of each simulated thread, in bytes.
    stack_bytes: usize,
    /// The watchdog's time (`None`: disabled).
    watchdog: Option<std::time::Duration>,
    /// Constant-memory symbols.
    constants: ConstantStore,
}

impl Default for Simulator {
    fn default() -> Self {
        Simulator::new()
    }
}

impl Simulator {
    /// The compute capability the simulator reports.
    pub const COMPUTE_CAPABILITY: (u32, u32) = (7, 0);

    /// The limits launches on the simulator are checked against (those of a current GPU).
    pub const LIMITS: DeviceLimits = limits::LIMITS;

    /// A simulator; the stack size of simulated threads comes from `FERROCUDA_SIMULATOR_STACK_KIB`
    /// (default 256 KiB).
    pub fn new() -> Self {
        let stack_bytes = std::env::var(STACK_SIZE_ENV)
            .ok()
            .and_then(|kib| kib.trim().parse::<usize>().ok())
            .filter(|&kib| kib >= 16)
            .map_or(DEFAULT_STACK_BYTES, |kib| kib.saturating_mul(1024));
        Simulator {
            stacks: Mutex::new(Vec::new()),
            stack_bytes,
            watchdog: watchdog::timeout_from_env(),
            constants: ConstantStore::default(),
        }
    }

    /// The memory the simulated device reports (host memory backs it).
    pub fn total_memory() -> usize {
        16 << 30
    }

    /// Runs every thread of every block of a launch, synchronously.
    ///
    /// Returns [`Error::KernelPanic`] when a kernel thread panicked (the other threads still ran),
    /// and [`Error::SimulatorFault`] when the launch would hang or corrupt memory on a GPU (a
    /// divergent barrier or warp operation, a deadlock, a data race on shared memory, too much
    /// shared memory); a fault ends the launch at once.
    pub fn launch(
        &self,
        info: &'static KernelInfo,
        config: &LaunchShape,
        params: &ParamReader<'_>,
    ) -> Result<()> {
        let threads = config.block.product();
        if threads == 0 || config.grid.product() == 0 {
            return Err(LaunchError::new(
                info.name,
                format!(
                    "grid {} and block {} must have every dimension at least 1",
                    config.grid, config.block
                ),
            )
            .into());
        }
        if threads > Self::LIMITS.max_threads_per_block as u64 {
            return Err(LaunchError::new(
                info.name,
                format!(
                    "block of {threads} threads exceeds the limit of {} threads per block",
                    Self::LIMITS.max_threads_per_block
                ),
            )
            .into());
        }
        if info.cooperative {
            grid_barrier::check_cooperative_grid(info.name, config)?;
        }
        panic_capture::install();
        stack_guard::install();
        stack_guard::begin_launch(info.name, self.stack_bytes);
        panic_capture::begin_launch(info.name);
        let stacks = std::mem::take(&mut *self.stacks.lock().unwrap_or_else(|e| e.into_inner()));
        let mut pool = StackPool::new(stacks, self.stack_bytes);
        let result =
            Launch::new(&self.constants, info, config, params, self.watchdog).run(&mut pool);
        let mut kept = self.stacks.lock().unwrap_or_else(|e| e.into_inner());
        kept.extend(pool.into_stacks());
        kept.truncate(Self::LIMITS.max_threads_per_block as usize);
        result
    }

    /// Writes `value` to the constant-memory symbol `name` (initial value `init`).
    pub(crate) fn write_constant(&self, name: &'static str, init: &[u8], value: &[u8]) {
        assert_eq!(
            value.len(),
            init.len(),
            "a constant's value and initial value differ in size"
        );
        let storage = self.constants.storage(name, init);
        // SAFETY: the storage holds `init.len()` bytes, as many as `value` (checked); launches on
        // the simulator run synchronously, so none reads it now.
        unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), storage, value.len()) };
    }

    /// Reads the constant-memory symbol `name` (initial value `init`) into `out`.
    pub(crate) fn read_constant(&self, name: &'static str, init: &[u8], out: &mut [u8]) {
        assert_eq!(
            out.len(),
            init.len(),
            "a constant's value and initial value differ in size"
        );
        let storage = self.constants.storage(name, init);
        // SAFETY: the storage holds `init.len()` bytes, as many as `out` (checked); launches on
        // the simulator run synchronously, so none writes it now.
        unsafe { std::ptr::copy_nonoverlapping(storage, out.as_mut_ptr(), out.len()) };
    }

    /// What the kernels launched from the calling OS thread printed since the last call, in the
    /// order the simulator ran the threads (deterministic). The text also went to stdout as it was
    /// printed.
    pub(crate) fn take_output(&self) -> String {
        output::take_output()
    }
}
