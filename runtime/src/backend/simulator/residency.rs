//! Ordinary launches on the simulator: blocks one after another, until one spins.
//!
//! A block runs alone, pass after pass, to its end, then the next block starts: the cheapest
//! order, and deterministic. A block whose threads wait for a flag that a *later* block sets
//! would never finish that way, where on a GPU the later block runs beside it on another
//! multiprocessor. So the scheduler watches for a spin: a block that has yielded at atomic
//! operations (a simulated thread offers to yield every
//! [`ATOMICS_PER_YIELD`](crate::device::sim::ATOMICS_PER_YIELD) atomics) in [`SPIN_PASSES`]
//! passes in a row makes the launch switch to *resident* order for the rest of its blocks: as
//! many blocks as the simulated device holds at once ([`resident_blocks`]) start, in block
//! order, and run in turns, one pass each, as a cooperative launch's blocks do
//! (`grid_barrier.rs`); whenever one ends, the next block of the grid takes its place.
//!
//! Resident order changes nothing a correct kernel can observe beyond what a GPU allows (blocks
//! of a launch run in no guaranteed order), and it is decided only by the launch (the count of
//! atomics), so a launch still gives the same results every time. A kernel whose blocks work for
//! long on atomics (a histogram) may switch too: its blocks then interleave, at the cost of a
//! stack per resident thread. A block waiting for a block that cannot start (more waiting
//! blocks than fit at once) spins until the watchdog ends the launch with
//! [`SimulatorFault::NoProgress`](crate::SimulatorFault::NoProgress), as a GPU would hang.

use super::limits::RESIDENT_THREADS;
use super::parked::ParkedBlock;
use super::scheduler::{BlockStep, Launch, Workers};
use crate::Dim3;
use crate::vocabulary::thread_set::thread_coords;

/// Passes in a row with a yield at an atomic after which a block is taken to be spinning. At 16,
/// a block of 256 threads spinning on one flag reads it about 16 million times first (a fraction
/// of a second); a block doing real work on atomics finishes in fewer passes unless each thread
/// does tens of thousands of them.
pub(super) const SPIN_PASSES: u32 = 16;

/// How many blocks of `threads_per_block` threads the simulated device holds at once (at least
/// one): [`RESIDENT_THREADS`] of them.
pub(super) fn resident_blocks(threads_per_block: usize) -> usize {
    (RESIDENT_THREADS / threads_per_block.max(1)).max(1)
}

impl Launch<'_> {
    /// Runs the blocks of an ordinary launch (see the module documentation); faults and panics
    /// are recorded in the launch.
    pub(super) fn run_blocks(&self, workers: &mut Workers<'_>) {
        let count = self.grid.product() as usize;
        let resident = resident_blocks(self.threads.len());
        for index in 0..count {
            self.begin_block(thread_coords(index, self.grid), workers);
            let mut spinning = 0;
            loop {
                let yields = self.yields.get();
                if self.step_block(workers) != BlockStep::Runnable {
                    break;
                }
                spinning = if self.yields.get() != yields {
                    spinning + 1
                } else {
                    0
                };
                if spinning >= SPIN_PASSES && resident > 1 && index + 1 < count {
                    self.run_resident(index, resident, workers);
                    return;
                }
            }
            if self.failed.get() {
                return;
            }
        }
    }

    /// Runs block `first` (the running one, started) and every later block in resident order,
    /// at most `resident` at a time.
    fn run_resident(&self, first: usize, resident: usize, workers: &mut Workers<'_>) {
        let count = self.grid.product() as usize;
        // The launch holds block `first`; its entry in `parked` is the spare the next switch
        // swaps in (the state `switch_to` expects of the running block's entry).
        let mut blocks: Vec<Dim3> = vec![self.block_idx.get()];
        let mut parked: Vec<ParkedBlock> = vec![ParkedBlock::new(self)];
        let mut steps = vec![BlockStep::Runnable];
        let mut running = Some(0);
        let mut next = first + 1;
        loop {
            while blocks.len() < resident && next < count {
                blocks.push(thread_coords(next, self.grid));
                parked.push(ParkedBlock::new(self));
                steps.push(BlockStep::Runnable);
                next += 1;
            }
            if blocks.is_empty() {
                break;
            }
            for index in 0..blocks.len() {
                self.switch_to(index, &blocks, &mut running, &mut parked, workers);
                steps[index] = self.step_block(workers);
                if self.failed.get() {
                    self.stop_blocks(&blocks, &steps, &mut running, &mut parked, workers);
                    return;
                }
            }
            // Ended blocks leave (the running one swapped out first), making room for the next.
            if let Some(index) = running.take() {
                self.exchange(&mut parked[index], workers);
            }
            let mut index = 0;
            while index < blocks.len() {
                if steps[index] == BlockStep::Ended {
                    blocks.remove(index);
                    parked.remove(index);
                    steps.remove(index);
                } else {
                    index += 1;
                }
            }
        }
    }
}
