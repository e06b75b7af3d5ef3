//! Cooperative launches on the simulator: every block resident at once, and the grid barrier
//! (`grid_sync`).
//!
//! An ordinary launch runs its blocks one after another. A cooperative one cannot: a block that
//! waits at a grid barrier needs every other block to reach it, so all blocks must have
//! started. The scheduler keeps one [`ParkedBlock`] per block — its threads' states and
//! coroutines, its shared memory and its pending asynchronous copies — and runs the blocks in
//! turns, one pass each (`Launch::step_block`): the block whose turn it is is swapped into the
//! launch, run for one pass over its runnable threads, and swapped out again. A block whose
//! threads all wait at the same grid barrier stays parked there; a thread spinning on a flag
//! another block sets lets that block run at its next turn, as co-resident blocks do on a GPU.
//!
//! When no block can run:
//! 1. if every block has ended, the launch is over;
//! 2. otherwise, if a thread panicked, the blocks at the grid barrier would wait forever for it:
//!    they are stopped, and the launch reports the panic;
//! 3. otherwise, if every block waits at the same grid barrier, it is released: every waiting
//!    thread can run again, and each block's race detector starts a new epoch;
//! 4. otherwise some blocks ended (or wait at another grid barrier) while others wait: the
//!    launch ends with [`SimulatorFault::DivergentGridBarrier`], naming which blocks wait where.
//!
//! Within a block, a grid barrier is a block barrier first: threads of one block that reach it
//! while others exit or wait elsewhere are a [`SimulatorFault::DivergentBarrier`], as for
//! `syncthreads`.
//!
//! Every thread of the grid lives at once, each with its own coroutine stack; the simulated
//! device has one multiprocessor, so a cooperative grid has at most its 2048 threads (fewer
//! where the kernel's occupancy says so: the launch checks it first).

use super::block::{ThreadSlot, ThreadState};
use super::limits::RESIDENT_THREADS;
use super::parked::ParkedBlock;
use super::report::barrier_name;
use super::scheduler::{BlockStep, Launch, Workers};
use crate::Dim3;
use crate::device::sim::BarrierOp;
use crate::vocabulary::error::{LaunchError, Result};
use crate::vocabulary::fault::{BlockGroup, SimulatorFault, SourceSite, ThreadActivity};
use crate::vocabulary::shape::LaunchShape;
use crate::vocabulary::thread_set::thread_coords;
use std::panic::Location;

/// Refuses a cooperative grid with more threads than the simulated device holds at once (its
/// one multiprocessor's). The check before every cooperative launch (`launch/cooperative.rs`)
/// already refuses grids that do not fit, with the occupancy of the kernel; this guard keeps
/// the simulator from starting a grid that was never checked.
pub(super) fn check_cooperative_grid(kernel: &'static str, config: &LaunchShape) -> Result<()> {
    let blocks = config.grid.product();
    let threads = blocks.saturating_mul(config.block.product());
    let limit = RESIDENT_THREADS as u64;
    if threads <= limit {
        return Ok(());
    }
    Err(LaunchError::new(
        kernel,
        format!(
            "cooperative launch of {blocks} blocks of {} threads ({threads} threads) exceeds the {limit} threads the simulator holds at once; a grid barrier needs every block resident",
            config.block.product()
        ),
    )
    .into())
}

impl Launch<'_> {
    /// Runs a cooperative launch (see the module documentation); faults and panics are
    /// recorded in the launch as for an ordinary one.
    pub(super) fn run_cooperative(&self, workers: &mut Workers<'_>) {
        let blocks: Vec<Dim3> = (0..self.grid.product() as usize)
            .map(|index| thread_coords(index, self.grid))
            .collect();
        let mut parked: Vec<ParkedBlock> = blocks.iter().map(|_| ParkedBlock::new(self)).collect();
        let mut steps = vec![BlockStep::Runnable; blocks.len()];
        let mut running: Option<usize> = None;
        loop {
            for index in 0..blocks.len() {
                if steps[index] != BlockStep::Runnable {
                    continue;
                }
                self.switch_to(index, &blocks, &mut running, &mut parked, workers);
                steps[index] = self.step_block(workers);
                if self.failed.get() {
                    self.stop_blocks(&blocks, &steps, &mut running, &mut parked, workers);
                    return;
                }
            }
            if steps.contains(&BlockStep::Runnable) {
                continue;
            }
            if !steps.contains(&BlockStep::AtGridBarrier) {
                break;
            }
            if self.panic.borrow().is_some() {
                self.stop_blocks(&blocks, &steps, &mut running, &mut parked, workers);
                break;
            }
            if let Some(fault) = self.grid_divergence(&blocks, &steps, running, &parked) {
                self.fail(fault);
                self.stop_blocks(&blocks, &steps, &mut running, &mut parked, workers);
                break;
            }
            for (index, step) in steps.iter_mut().enumerate() {
                self.switch_to(index, &blocks, &mut running, &mut parked, workers);
                for slot in &self.threads {
                    if let ThreadState::AtBarrier { .. } = slot.state.get() {
                        slot.result.set(0);
                        slot.state.set(ThreadState::Ready);
                    }
                }
                self.shared.borrow_mut().end_epoch();
                *step = BlockStep::Runnable;
            }
            self.progressed();
        }
        // Put the last block back, so that what the launch holds is its own fresh state again.
        if let Some(index) = running.take() {
            self.exchange(&mut parked[index], workers);
        }
    }

    /// The fault of a grid barrier that not every block reached, or `None` when every block
    /// waits at the same one (then it can be released).
    fn grid_divergence(
        &self,
        blocks: &[Dim3],
        steps: &[BlockStep],
        running: Option<usize>,
        parked: &[ParkedBlock],
    ) -> Option<SimulatorFault> {
        let mut groups: Vec<BlockGroup> = Vec::new();
        for (index, step) in steps.iter().enumerate() {
            let threads = if running == Some(index) {
                &self.threads
            } else {
                &parked[index].threads
            };
            let activity = match step {
                BlockStep::AtGridBarrier => grid_barrier_site(threads),
                _ => ThreadActivity::Exited,
            };
            match groups.iter_mut().find(|g| g.activity == activity) {
                Some(group) => group.blocks.push(blocks[index]),
                None => groups.push(BlockGroup {
                    blocks: vec![blocks[index]],
                    activity,
                }),
            }
        }
        (groups.len() > 1).then(|| SimulatorFault::DivergentGridBarrier {
            kernel: self.info.name.to_string(),
            grid: self.grid,
            groups,
        })
    }
}

/// Where the threads of a block parked at a grid barrier wait (they all wait at one: the block
/// resolution checked it).
fn grid_barrier_site(threads: &[ThreadSlot]) -> ThreadActivity {
    let location: Option<&'static Location<'static>> =
        threads.iter().find_map(|slot| match slot.state.get() {
            ThreadState::AtBarrier {
                op: BarrierOp::Grid,
                location,
                ..
            } => Some(location),
            _ => None,
        });
    match location {
        Some(location) => ThreadActivity::AtBarrier {
            barrier: barrier_name(BarrierOp::Grid),
            site: SourceSite::from_location(location),
        },
        None => ThreadActivity::Exited,
    }
}
