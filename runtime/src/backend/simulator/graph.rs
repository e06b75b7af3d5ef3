//! CUDA graphs on the simulator: a capture records the operations queued on the capturing
//! stream, in order, instead of running them (as the driver does), and a replay runs them in
//! that order.
//!
//! A launch is recorded with its kernel, its shape and a copy of its parameter bytes (the
//! buffers' addresses and the scalars, as the launcher wrote them), so a replay runs exactly
//! what a launch with those arguments would have run; a copy is recorded with its two
//! addresses and its length. An update replaces the recorded operations with those of a new
//! capture of the same sequence (checked by the handle layer), which is how the parameters of a
//! captured launch change on both backends.

use super::Simulator;
use crate::vocabulary::error::Error;
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::params::ParamBuffer;
use crate::vocabulary::shape::LaunchShape;

/// One recorded operation.
#[derive(Clone)]
enum SimulatedOperation {
    /// A kernel launch.
    Launch {
        /// The kernel.
        info: &'static KernelInfo,
        /// Its grid, block and dynamic shared memory.
        shape: LaunchShape,
        /// Its parameter bytes, launch token last (boxed: most parameter lists are kept inline).
        params: Box<ParamBuffer>,
    },
    /// A copy between two simulated device allocations.
    Copy {
        /// The first byte written.
        destination: u64,
        /// The first byte read.
        source: u64,
        /// How many bytes.
        bytes: usize,
    },
}

/// The operations of a capture, in the order they were queued.
#[derive(Clone, Default)]
pub(crate) struct SimulatedGraph {
    /// What a replay runs, in order.
    operations: Vec<SimulatedOperation>,
}

impl SimulatedGraph {
    /// Records a launch of `info` with `shape` and `params`.
    pub(crate) fn record_launch(
        &mut self,
        info: &'static KernelInfo,
        shape: &LaunchShape,
        params: &ParamBuffer,
    ) {
        self.operations.push(SimulatedOperation::Launch {
            info,
            shape: *shape,
            params: Box::new(params.clone()),
        });
    }

    /// Records a copy of `bytes` bytes from `source` to `destination`.
    pub(crate) fn record_copy(&mut self, destination: u64, source: u64, bytes: usize) {
        self.operations.push(SimulatedOperation::Copy {
            destination,
            source,
            bytes,
        });
    }

    /// Runs the recorded operations in order on `simulator`; `on_launch` is told, for each
    /// launch in order, whether it failed (a fault or a kernel panic, which does not stop the
    /// replay: a GPU runs the later nodes too).
    ///
    /// # Safety
    /// Every recorded address is still inside a live allocation of its recorded length (the
    /// handle layer keeps the captured buffers alive as long as the graph).
    pub(crate) unsafe fn replay(
        &self,
        simulator: &Simulator,
        on_launch: &mut dyn FnMut(Option<Error>),
    ) {
        for operation in &self.operations {
            match operation {
                SimulatedOperation::Launch {
                    info,
                    shape,
                    params,
                } => on_launch(simulator.launch(info, shape, &params.reader()).err()),
                SimulatedOperation::Copy {
                    destination,
                    source,
                    bytes,
                } => {
                    // SAFETY: the caller guarantees both ranges are live; they are two
                    // different buffers (one borrowed `&`, one `&mut` at capture), so they do
                    // not overlap.
                    unsafe {
                        std::ptr::copy_nonoverlapping(
                            *source as *const u8,
                            *destination as *mut u8,
                            *bytes,
                        )
                    }
                }
            }
        }
    }
}
