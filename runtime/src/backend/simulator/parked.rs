//! What a block holds while another block of the same launch runs, and the swap that makes it
//! the running one: the simulator runs several blocks of a launch in turns when they must be
//! resident together (a cooperative launch, `grid_barrier.rs`; a block spinning on another's
//! flag, `residency.rs`).

use super::async_copy::AsyncCopies;
use super::block::ThreadSlot;
use super::scheduler::{BlockStep, Launch, SimThread, Workers};
use super::shared_memory::SharedMemory;
use crate::Dim3;
use std::cell::Cell;

/// What a block holds while another block runs: everything of the launch and of the workers
/// that belongs to one block. [`Launch::exchange`] swaps it with the running block's.
pub(super) struct ParkedBlock {
    /// The block's threads.
    pub(super) threads: Vec<ThreadSlot>,
    /// Their coroutines.
    coroutines: Vec<Option<SimThread>>,
    /// Where their stacks start, for `stack_guard`.
    stack_limits: Vec<Cell<usize>>,
    /// The block's shared memory and race detector.
    shared: SharedMemory,
    /// The block's asynchronous copies not yet waited for.
    async_copies: AsyncCopies,
}

impl ParkedBlock {
    /// A block that has not started: every thread ready, fresh shared memory.
    pub(super) fn new(launch: &Launch<'_>) -> Self {
        let threads = launch.threads.len();
        let mut shared = SharedMemory::new(launch.shared_bytes, threads);
        shared.begin_block();
        ParkedBlock {
            threads: (0..threads).map(|_| ThreadSlot::new()).collect(),
            coroutines: (0..threads).map(|_| None).collect(),
            stack_limits: (0..threads).map(|_| Cell::new(0)).collect(),
            shared,
            async_copies: AsyncCopies::new(threads),
        }
    }
}

impl Launch<'_> {
    /// Makes block `index` the one the launch runs, parking the one that ran.
    pub(super) fn switch_to(
        &self,
        index: usize,
        blocks: &[Dim3],
        running: &mut Option<usize>,
        parked: &mut [ParkedBlock],
        workers: &mut Workers<'_>,
    ) {
        if *running == Some(index) {
            return;
        }
        if let Some(previous) = running.take() {
            self.exchange(&mut parked[previous], workers);
        }
        self.exchange(&mut parked[index], workers);
        *running = Some(index);
        let block_idx = blocks[index];
        self.block_idx.set(block_idx);
        if let Some(watch) = self.watch.get() {
            watch.set_block(block_idx);
        }
        for context in &mut workers.contexts {
            context.block_idx = block_idx;
        }
    }

    /// Swaps the running block's state (in the launch and `workers`) with `block`'s. No thread
    /// runs meanwhile: the scheduler calls it between passes.
    pub(super) fn exchange(&self, block: &mut ParkedBlock, workers: &mut Workers<'_>) {
        for (running, parked) in self.threads.iter().zip(&block.threads) {
            running.state.swap(&parked.state);
            running.result.swap(&parked.result);
            running.yielder.swap(&parked.yielder);
        }
        for (running, parked) in workers.stack_limits.iter().zip(&block.stack_limits) {
            running.swap(parked);
        }
        std::mem::swap(&mut workers.coroutines, &mut block.coroutines);
        std::mem::swap(&mut *self.shared.borrow_mut(), &mut block.shared);
        std::mem::swap(
            &mut *self.async_copies.borrow_mut(),
            &mut block.async_copies,
        );
    }

    /// Stops the threads of every block that has not ended (after a fault or a panic).
    pub(super) fn stop_blocks(
        &self,
        blocks: &[Dim3],
        steps: &[BlockStep],
        running: &mut Option<usize>,
        parked: &mut [ParkedBlock],
        workers: &mut Workers<'_>,
    ) {
        for (index, step) in steps.iter().enumerate() {
            if *step != BlockStep::Ended {
                self.switch_to(index, blocks, running, parked, workers);
                self.abort_block(workers);
            }
        }
        if let Some(index) = running.take() {
            self.exchange(&mut parked[index], workers);
        }
    }
}
