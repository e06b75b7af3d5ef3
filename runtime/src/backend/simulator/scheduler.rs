//! The scheduler: runs the blocks of a launch one after another (or in turns, once one spins:
//! `residency.rs`), and the threads of a block as coroutines, round-robin in thread order. A
//! cooperative launch runs its blocks interleaved instead, each parked at a grid barrier until
//! all have arrived (`grid_barrier.rs`).
//!
//! A *pass* resumes every runnable thread of the block in rank order (x fastest); each runs until
//! it finishes or waits at a barrier or a warp operation. After a pass no thread can run, and the
//! scheduler [resolves](Launch::resolve) the block:
//! 1. it completes every warp operation whose lanes have all arrived (their lanes can run again);
//! 2. otherwise, if a thread of the block panicked, the threads still waiting would wait forever
//!    for it: they are stopped, and the launch reports the panic;
//! 3. otherwise, if every thread that has not exited waits at the same barrier and none exited,
//!    the barrier is released (a new race-detector epoch starts), or for a grid barrier, the
//!    block waits there for the rest of the grid;
//! 4. otherwise the block is stuck, and the launch ends with a fault saying who waits where.
//!
//! Stopping a thread resumes it with the block marked as aborting: the hook it waits in unwinds
//! its stack with a payload the panic hook never sees, so destructors run and the stack goes back
//! to the pool.

use super::async_copy::AsyncCopies;
use super::block::{ThreadSlot, ThreadState};
use super::constants::ConstantStore;
use super::panic_capture::{self, AbortThread};
use super::report::thread_groups;
use super::shared_memory::SharedMemory;
use super::stack_guard;
use super::stack_pool::StackPool;
use super::watchdog::WatchGuard;
use crate::Dim3;
use crate::device::sim::{self, BarrierOp, SimHooks, ThreadContext};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::fault::SimulatorFault;
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::panic_report::KernelPanic;
use crate::vocabulary::params::ParamReader;
use crate::vocabulary::shape::LaunchShape;
use crate::vocabulary::thread_set::thread_coords;
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::AssertUnwindSafe;
use std::time::Duration;

/// A simulated thread: a coroutine running one thread's kernel body.
pub(super) type SimThread = Coroutine<(), (), (), DefaultStack>;

/// A constant-memory symbol a kernel of this launch has read (cached to avoid a lock per read).
pub(super) struct ConstantView {
    /// The symbol's name.
    pub name: &'static str,
    /// Its size in bytes.
    pub len: usize,
    /// The simulator's storage for it.
    pub ptr: *const u8,
}

/// One launch being simulated: the state of the block being run, and the hooks its threads call
/// (see `hooks.rs`).
pub(super) struct Launch<'a> {
    /// The simulator's constant memory.
    pub(super) constants_store: &'a ConstantStore,
    /// The kernel.
    pub(super) info: &'static KernelInfo,
    /// The launch's parameters.
    params: &'a ParamReader<'a>,
    /// `gridDim`.
    pub(super) grid: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub(super) shared_bytes: usize,
    /// `blockDim`.
    pub(super) block: Dim3,
    /// Whether the launch is cooperative (`#[kernel(cooperative)]`): all blocks resident, grid
    /// barriers allowed.
    pub(super) cooperative: bool,
    /// `blockIdx` of the block being run.
    pub(super) block_idx: Cell<Dim3>,
    /// Rank of the thread running now.
    pub(super) current: Cell<usize>,
    /// The threads of the block, by rank.
    pub(super) threads: Vec<ThreadSlot>,
    /// Set while the scheduler stops the threads of a block: every hook unwinds the caller.
    pub(super) aborting: Cell<bool>,
    /// Shared memory and the race detector.
    pub(super) shared: RefCell<SharedMemory>,
    /// The block's asynchronous copies not yet waited for.
    pub(super) async_copies: RefCell<AsyncCopies>,
    /// The fault that ends the launch.
    fault: RefCell<Option<SimulatorFault>>,
    /// Whether `fault` is set (checked after every resume).
    pub(super) failed: Cell<bool>,
    /// Set by the stack guard's escape when the running thread's stack overflowed
    /// ([`SimHooks::stack_overflowed`]).
    pub(super) overflowed: Cell<bool>,
    /// How many times a thread yielded at an atomic operation so far (`residency.rs` watches it
    /// for a block spinning on another's flag).
    pub(super) yields: Cell<u64>,
    /// The first panic of the launch, counting the others.
    pub(super) panic: RefCell<Option<KernelPanic>>,
    /// Constant-memory symbols read so far.
    pub(super) constants: RefCell<Vec<ConstantView>>,
    /// The watchdog's view of this launch (see `watchdog.rs`).
    pub(super) watch: WatchGuard,
}

/// What the scheduler decided when no thread of the block could run.
pub(super) enum Resolution {
    /// Some threads can run again.
    Progress,
    /// Every thread has ended.
    Finished,
    /// A thread panicked and the others wait for it: stop them.
    AbortForPanic,
    /// The block can never finish.
    Fault(SimulatorFault),
    /// Every thread of the block waits at the same grid barrier (cooperative launches).
    AtGridBarrier,
}

/// Where a block stands after one pass over its threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BlockStep {
    /// Some of its threads can run.
    Runnable,
    /// Every thread waits at the same grid barrier.
    AtGridBarrier,
    /// It has ended: finished, stopped for a panic, or faulted (the launch records which).
    Ended,
}

/// What the scheduler found when it looked at a warp operation's lanes.
pub(super) enum GroupOutcome {
    /// Every lane had arrived: the operation completed and its lanes can run.
    Completed,
    /// Some lane of the mask panicked or was stopped (the launch reports the panic).
    Waiting,
    /// The operation can never complete.
    Problem(SimulatorFault),
}

/// The coroutines and contexts of the threads of the block being run.
pub(super) struct Workers<'p> {
    /// Each thread's coroutine while it has started and not finished (dropped before `contexts`).
    pub(super) coroutines: Vec<Option<SimThread>>,
    /// Each thread's context, made current while it runs.
    pub(super) contexts: Vec<ThreadContext>,
    /// Where each started thread's stack mapping (and its guard page) starts, for `stack_guard`.
    pub(super) stack_limits: Vec<Cell<usize>>,
    /// Where stacks come from and go back to.
    pool: &'p mut StackPool,
}

impl<'a> Launch<'a> {
    /// A launch of `info` with `config` and `params` (the block size is already validated),
    /// watched by the watchdog when `watchdog` is a time.
    pub(super) fn new(
        constants_store: &'a ConstantStore,
        info: &'static KernelInfo,
        config: &LaunchShape,
        params: &'a ParamReader<'a>,
        watchdog: Option<Duration>,
    ) -> Self {
        let threads = config.block.product() as usize;
        Launch {
            constants_store,
            info,
            params,
            grid: config.grid,
            shared_bytes: config.shared_mem_bytes as usize,
            block: config.block,
            cooperative: info.cooperative,
            block_idx: Cell::new(Dim3::new(0, 0, 0)),
            current: Cell::new(0),
            threads: (0..threads).map(|_| ThreadSlot::new()).collect(),
            aborting: Cell::new(false),
            shared: RefCell::new(SharedMemory::new(config.shared_mem_bytes as usize, threads)),
            async_copies: RefCell::new(AsyncCopies::new(threads)),
            fault: RefCell::new(None),
            failed: Cell::new(false),
            yields: Cell::new(0),
            overflowed: Cell::new(false),
            panic: RefCell::new(None),
            constants: RefCell::new(Vec::new()),
            watch: WatchGuard::new(info.name, watchdog),
        }
    }

    /// Runs every block, x fastest, then y, then z; stops at the first fault.
    pub(super) fn run(&self, pool: &mut StackPool) -> Result<()> {
        // Forget a panic recorded outside any launch of this thread.
        let _ = panic_capture::take_captured();
        sim::reset_atomic_count();
        let hooks = self.hooks_pointer();
        let contexts = (0..self.threads.len())
            .map(|rank| ThreadContext {
                thread_idx: thread_coords(rank, self.block),
                block_idx: Dim3::new(0, 0, 0),
                block_dim: self.block,
                grid_dim: self.grid,
                hooks,
            })
            .collect();
        let mut workers = Workers {
            coroutines: (0..self.threads.len()).map(|_| None).collect(),
            contexts,
            stack_limits: (0..self.threads.len()).map(|_| Cell::new(0)).collect(),
            pool,
        };
        // SAFETY: `stack_limits` is neither resized nor dropped before `unwatch_stacks` below.
        unsafe { stack_guard::watch_stacks(&workers.stack_limits) };
        if self.cooperative {
            self.run_cooperative(&mut workers);
        } else {
            self.run_blocks(&mut workers);
        }
        stack_guard::unwatch_stacks();
        drop(workers);
        if let Some(panic) = self.panic.borrow_mut().take() {
            return Err(Error::KernelPanic(panic));
        }
        if let Some(fault) = self.fault.borrow_mut().take() {
            return Err(fault.into());
        }
        Ok(())
    }

    /// This launch as the hooks of its threads' contexts.
    fn hooks_pointer(&self) -> *const dyn SimHooks {
        let hooks: *const (dyn SimHooks + '_) = self;
        // SAFETY: only the lifetime bound changes. The contexts holding the pointer are made
        // current only while `self` runs a thread, and cleared after.
        unsafe {
            std::mem::transmute::<*const (dyn SimHooks + '_), *const (dyn SimHooks + 'static)>(
                hooks,
            )
        }
    }

    /// Prepares block `block_idx`: every thread ready, shared memory fresh.
    pub(super) fn begin_block(&self, block_idx: Dim3, workers: &mut Workers<'_>) {
        self.block_idx.set(block_idx);
        if let Some(watch) = self.watch.get() {
            watch.set_block(block_idx);
        }
        for context in &mut workers.contexts {
            context.block_idx = block_idx;
        }
        for slot in &self.threads {
            slot.state.set(ThreadState::Ready);
            slot.result.set(0);
        }
        self.shared.borrow_mut().begin_block();
        self.async_copies.borrow_mut().begin_block();
    }

    /// One pass over the current block's runnable threads, then the resolution of the block
    /// (see the module documentation): where the block stands after it.
    pub(super) fn step_block(&self, workers: &mut Workers<'_>) -> BlockStep {
        for rank in 0..self.threads.len() {
            if matches!(self.threads[rank].state.get(), ThreadState::Ready) {
                self.resume(rank, workers);
                if self.failed.get() {
                    self.abort_block(workers);
                    return BlockStep::Ended;
                }
            }
        }
        match self.resolve() {
            Resolution::Progress => BlockStep::Runnable,
            Resolution::Finished => BlockStep::Ended,
            Resolution::AtGridBarrier => BlockStep::AtGridBarrier,
            Resolution::AbortForPanic => {
                self.abort_block(workers);
                BlockStep::Ended
            }
            Resolution::Fault(fault) => {
                self.fail(fault);
                self.abort_block(workers);
                BlockStep::Ended
            }
        }
    }

    /// Runs thread `rank` until it finishes or waits (starting its coroutine if needed).
    fn resume(&self, rank: usize, workers: &mut Workers<'_>) {
        let coroutine = match &mut workers.coroutines[rank] {
            Some(coroutine) => coroutine,
            empty @ None => {
                let stack = match workers.pool.take() {
                    Ok(stack) => stack,
                    Err((stack_bytes, reason)) => {
                        self.fail(SimulatorFault::StackAllocation {
                            kernel: self.info.name.to_string(),
                            stack_bytes,
                            reason,
                        });
                        return;
                    }
                };
                workers.stack_limits[rank].set(corosensei::stack::Stack::limit(&stack).get());
                // SAFETY: the closure borrows `self`, which outlives every coroutine: `run`
                // drives each to completion (or drops it) before returning.
                let coroutine = unsafe {
                    SimThread::with_stack_unchecked(stack, move |yielder: &Yielder<(), ()>, ()| {
                        self.thread_body(rank, yielder)
                    })
                };
                empty.insert(coroutine)
            }
        };
        self.current.set(rank);
        if let Some(watch) = self.watch.get() {
            watch.set_thread(rank);
        }
        // SAFETY: the context lives in `workers` until after the thread is suspended again, and
        // its hooks (`self`) longer.
        unsafe { sim::set_current(&workers.contexts[rank]) };
        panic_capture::set_in_kernel(true);
        let outcome = coroutine.resume(());
        panic_capture::set_in_kernel(false);
        // SAFETY: clearing is always valid.
        unsafe { sim::set_current(std::ptr::null()) };
        if let CoroutineResult::Return(()) = outcome
            && let Some(finished) = workers.coroutines[rank].take()
        {
            workers.pool.put(finished.into_stack());
            self.progressed();
        } else if self.overflowed.replace(false) {
            self.overflow_fault(rank, workers);
        }
    }

    /// Ends the launch after thread `rank`'s stack overflowed (see `stack_guard.rs`): its
    /// coroutine is leaked with its stack, never resumed or unwound (its frames were abandoned
    /// mid-instruction), and the launch fails with [`SimulatorFault::StackOverflow`].
    #[cold]
    fn overflow_fault(&self, rank: usize, workers: &mut Workers<'_>) {
        std::mem::forget(workers.coroutines[rank].take());
        workers.stack_limits[rank].set(0);
        self.fail(SimulatorFault::StackOverflow {
            kernel: self.info.name.to_string(),
            block: self.block_idx.get(),
            thread: self.coords(rank),
            stack_bytes: stack_guard::stack_bytes(),
        });
    }

    /// The body of a simulated thread's coroutine: runs the kernel for thread `rank`, catching its
    /// panic.
    fn thread_body(&self, rank: usize, yielder: &Yielder<(), ()>) {
        let slot = &self.threads[rank];
        slot.yielder.set(yielder);
        let simulate = self.info.simulate;
        let params = self.params;
        // SAFETY: the launcher wrote `params` for this kernel, and the thread's context is current.
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| unsafe { simulate(params) }));
        let state = match outcome {
            Ok(()) => ThreadState::Exited,
            Err(payload) if payload.is::<AbortThread>() || self.aborting.get() => {
                ThreadState::Aborted
            }
            Err(payload) => {
                self.record_panic(rank, payload.as_ref());
                ThreadState::Panicked
            }
        };
        slot.state.set(state);
    }

    /// Records the panic of thread `rank`: the first of the launch in full, later ones counted.
    fn record_panic(&self, rank: usize, payload: &(dyn Any + Send)) {
        let captured = panic_capture::take_captured();
        let mut panic = self.panic.borrow_mut();
        if let Some(first) = panic.as_mut() {
            first.other_panics = first.other_panics.saturating_add(1);
            return;
        }
        let (message, file, line, column) = match captured {
            Some(c) => (c.message, c.file, c.line, c.column),
            None => (
                panic_capture::payload_message(payload),
                "<unknown>".to_string(),
                0,
                0,
            ),
        };
        *panic = Some(KernelPanic {
            kernel: self.info.name.to_string(),
            message,
            file,
            line,
            column,
            block: self.block_idx.get(),
            thread: self.coords(rank),
            other_panics: 0,
            other_failed_launches: 0,
        });
    }

    /// Suspends the calling thread `rank` in `state` until the scheduler releases it; returns the
    /// result of the barrier or warp operation. Unwinds the thread if the block is being stopped.
    pub(super) fn wait(&self, rank: usize, state: ThreadState) -> u64 {
        self.check_watchdog(rank);
        let slot = &self.threads[rank];
        slot.state.set(state);
        let yielder = slot.yielder.get();
        // SAFETY: set when the coroutine started; the calling thread runs on that coroutine.
        unsafe { (*yielder).suspend(()) };
        if self.aborting.get() {
            panic_capture::abort_thread();
        }
        slot.result.get()
    }

    /// Counts a progress event for the watchdog.
    #[inline]
    pub(super) fn progressed(&self) {
        if let Some(watch) = self.watch.get() {
            watch.progressed();
        }
    }

    /// Ends the launch with [`SimulatorFault::NoProgress`] if the watchdog found it stalled;
    /// `rank` is the calling thread.
    #[inline]
    pub(super) fn check_watchdog(&self, rank: usize) {
        if let Some(watch) = self.watch.get()
            && watch.stalled()
        {
            let states = self
                .threads
                .iter()
                .map(|s| s.state.get())
                .enumerate()
                .filter(|(_, state)| !state.is_dead());
            self.fail(SimulatorFault::NoProgress {
                kernel: self.info.name.to_string(),
                block: self.block_idx.get(),
                block_dim: self.block,
                thread: self.coords(rank),
                seconds: watch.seconds(),
                groups: thread_groups(self.block, states),
            });
            panic_capture::abort_thread();
        }
    }

    /// Records a fault that ends the launch (the first one wins).
    pub(super) fn fail(&self, fault: SimulatorFault) {
        let mut first = self.fault.borrow_mut();
        if first.is_none() {
            *first = Some(fault);
        }
        self.failed.set(true);
    }

    /// Stops every thread of the block that has not ended: each waiting one is resumed and
    /// unwinds; threads that never started are marked stopped.
    pub(super) fn abort_block(&self, workers: &mut Workers<'_>) {
        self.aborting.set(true);
        for rank in 0..self.threads.len() {
            // A thread that catches the unwinding and waits again is resumed a few more times.
            for _ in 0..4 {
                if workers.coroutines[rank].is_none() {
                    break;
                }
                self.resume(rank, workers);
            }
            // Still suspended: dropping the coroutine unwinds it by force.
            drop(workers.coroutines[rank].take());
            let slot = &self.threads[rank];
            if !slot.state.get().has_ended() {
                slot.state.set(ThreadState::Aborted);
            }
        }
        self.aborting.set(false);
    }

    /// Decides what happens when no thread of the block can run (see the module documentation).
    fn resolve(&self) -> Resolution {
        let (mut live, mut dead, mut at_warp) = (0usize, false, false);
        for slot in &self.threads {
            match slot.state.get() {
                ThreadState::Ready => return Resolution::Progress,
                ThreadState::AtBarrier { .. } => live += 1,
                ThreadState::AtWarp { .. } => {
                    live += 1;
                    at_warp = true;
                }
                ThreadState::Exited => {}
                ThreadState::Panicked | ThreadState::Aborted => dead = true,
            }
        }
        if live == 0 {
            return Resolution::Finished;
        }
        let mut problem = None;
        if at_warp {
            let mut progressed = false;
            for rank in 0..self.threads.len() {
                if !matches!(self.threads[rank].state.get(), ThreadState::AtWarp { .. }) {
                    continue;
                }
                match self.resolve_warp_group(rank) {
                    GroupOutcome::Completed => progressed = true,
                    GroupOutcome::Waiting => {}
                    GroupOutcome::Problem(fault) => {
                        problem.get_or_insert(fault);
                    }
                }
            }
            if progressed {
                self.progressed();
                return Resolution::Progress;
            }
        }
        if dead {
            return Resolution::AbortForPanic;
        }
        if let Some(fault) = problem {
            return Resolution::Fault(fault);
        }
        if at_warp {
            return Resolution::Fault(self.deadlock());
        }
        self.release_barrier()
    }

    /// Releases the block barrier every live thread waits at, or reports the divergence. At a
    /// grid barrier the block stays where it is: the cooperative scheduler releases every block
    /// when the whole grid has arrived.
    fn release_barrier(&self) -> Resolution {
        let mut first: Option<(BarrierOp, &'static std::panic::Location<'static>)> = None;
        let (mut same_site, mut exited, mut count) = (true, false, 0u32);
        for slot in &self.threads {
            match slot.state.get() {
                ThreadState::AtBarrier {
                    op,
                    predicate,
                    location,
                } => {
                    match first {
                        None => first = Some((op, location)),
                        Some((_, site)) => same_site &= *site == *location,
                    }
                    count += predicate as u32;
                }
                ThreadState::Exited => exited = true,
                _ => {}
            }
        }
        let Some((op, _)) = first else {
            return Resolution::Finished;
        };
        if !same_site || exited {
            let states = self.threads.iter().map(|s| s.state.get()).enumerate();
            return Resolution::Fault(SimulatorFault::DivergentBarrier {
                kernel: self.info.name.to_string(),
                block: self.block_idx.get(),
                block_dim: self.block,
                groups: thread_groups(self.block, states),
            });
        }
        let result = match op {
            BarrierOp::Grid => return Resolution::AtGridBarrier,
            BarrierOp::Sync => 0,
            BarrierOp::Count => count,
            BarrierOp::And => (count as usize == self.threads.len()) as u32,
            BarrierOp::Or => (count > 0) as u32,
        };
        for slot in &self.threads {
            slot.result.set(result as u64);
            slot.state.set(ThreadState::Ready);
        }
        self.shared.borrow_mut().end_epoch();
        self.progressed();
        Resolution::Progress
    }

    /// The fault of a stuck block: every thread that has not ended, grouped by where it
    /// waits, and the threads that exited.
    pub(super) fn deadlock(&self) -> SimulatorFault {
        let states = self
            .threads
            .iter()
            .map(|s| s.state.get())
            .enumerate()
            .filter(|(_, state)| !state.is_dead());
        SimulatorFault::Deadlock {
            kernel: self.info.name.to_string(),
            block: self.block_idx.get(),
            block_dim: self.block,
            groups: thread_groups(self.block, states),
        }
    }
}
