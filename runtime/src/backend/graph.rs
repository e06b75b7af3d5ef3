//! The backend side of CUDA graphs: a capture in progress ([`CaptureRecording`]), the graph it
//! made ([`GraphTemplate`]) and its executable form ([`GraphExecutable`]), each over the GPU
//! ([`cuda::graph`](super::cuda::graph): the driver's capture, `CUgraph`, `CUgraphExec`) or the
//! simulator ([`simulator::graph`](super::simulator::graph): a recorded list of operations), and
//! the [`DeviceBackend`] methods that make, replay and update them.
//!
//! Which stream captures, which buffers a graph keeps alive, and how replayed launches report
//! their panics is the handle layer's business (`handles/graph.rs`).

use super::cuda::graph::{CudaGraph, CudaGraphExec};
use super::simulator::graph::SimulatedGraph;
use super::{DeviceBackend, StreamHandle};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::limits::DeviceLimits;
use crate::vocabulary::params::ParamBuffer;
use crate::vocabulary::shape::LaunchShape;

/// A capture in progress on one stream.
pub(crate) enum CaptureRecording {
    /// The driver records the stream's work itself.
    Cuda,
    /// The simulator's list of recorded operations.
    Simulator(SimulatedGraph),
}

/// A graph made by a capture, not yet executable.
pub(crate) enum GraphTemplate {
    /// The driver's `CUgraph`.
    Cuda(CudaGraph),
    /// The recorded operations.
    Simulator(SimulatedGraph),
}

/// An executable graph, replayed on a stream.
pub(crate) enum GraphExecutable {
    /// The driver's `CUgraphExec`.
    Cuda(CudaGraphExec),
    /// The recorded operations.
    Simulator(SimulatedGraph),
}

impl DeviceBackend {
    /// Starts capturing the work queued on `stream` (a stream of this backend that is not the
    /// legacy default stream and is not capturing: checked by the caller).
    pub(crate) fn begin_capture(&self, stream: &StreamHandle) -> Result<CaptureRecording> {
        match (self, stream) {
            (DeviceBackend::Cuda(_), StreamHandle::Cuda(stream)) => {
                stream.begin_capture()?;
                Ok(CaptureRecording::Cuda)
            }
            (DeviceBackend::Simulator(_), StreamHandle::Simulator) => {
                Ok(CaptureRecording::Simulator(SimulatedGraph::default()))
            }
            _ => unreachable!("a stream is used only with its own device's backend"),
        }
    }

    /// Records a launch on the capturing `stream` (the shape is already checked against
    /// `limits`, the limits of the device named `device`). On a GPU this is the launch itself,
    /// which the driver records; on the simulator the launch is kept, not run.
    #[expect(
        clippy::too_many_arguments,
        reason = "the arguments of `launch`, plus the recording"
    )]
    pub(crate) fn capture_launch(
        &self,
        recording: &mut CaptureRecording,
        info: &'static KernelInfo,
        shape: &LaunchShape,
        stream: &StreamHandle,
        params: &mut ParamBuffer,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<()> {
        match (self, recording) {
            (DeviceBackend::Cuda(_), CaptureRecording::Cuda) => self
                .launch(info, shape, Some(stream), params, limits, device)
                .map(|_| ()),
            (DeviceBackend::Simulator(_), CaptureRecording::Simulator(graph)) => {
                graph.record_launch(info, shape, params);
                Ok(())
            }
            _ => unreachable!("a capture is used only with its own device's backend"),
        }
    }

    /// Queues a copy of `bytes > 0` bytes from device address `source` to `destination` on
    /// `stream`, or, when `recording` is the stream's capture, records it.
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of this backend, which do not overlap and stay
    /// alive until the copy has run (for a recorded copy: as long as the graph).
    pub(crate) unsafe fn copy_device_to_device(
        &self,
        stream: &StreamHandle,
        recording: Option<&mut CaptureRecording>,
        destination: u64,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        match (self, stream, recording) {
            (DeviceBackend::Cuda(cuda), StreamHandle::Cuda(stream), _) => {
                // SAFETY: the caller's guarantee is the callee's.
                unsafe { cuda.copy_within(stream, destination, source, bytes) }
            }
            (DeviceBackend::Simulator(_), _, Some(CaptureRecording::Simulator(graph))) => {
                graph.record_copy(destination, source, bytes);
                Ok(())
            }
            (DeviceBackend::Simulator(_), _, _) => {
                // SAFETY: simulator memory is host memory; the caller guarantees both ranges
                // and that they do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        source as *const u8,
                        destination as *mut u8,
                        bytes,
                    )
                };
                Ok(())
            }
            _ => unreachable!("a stream is used only with its own device's backend"),
        }
    }

    /// Queues a copy of `bytes > 0` bytes from host memory at `source` to device address
    /// `destination` on `stream`, or, when `recording` is the stream's capture, records it (a
    /// replay copies what `source` holds then).
    ///
    /// # Safety
    /// `destination` lies inside a live allocation that stays alive until the copy has run.
    /// `source` is either page-locked memory of this backend (from `allocate_pinned`), alive
    /// and unwritten until the copy has run (for a recorded copy: as long as the graph), or,
    /// outside a capture only, any host memory, which the driver copies to its own staging
    /// memory before returning.
    pub(crate) unsafe fn copy_host_to_device(
        &self,
        stream: &StreamHandle,
        recording: Option<&mut CaptureRecording>,
        destination: u64,
        source: *const u8,
        bytes: usize,
    ) -> Result<()> {
        match (self, stream, recording) {
            (DeviceBackend::Cuda(cuda), StreamHandle::Cuda(stream), _) => {
                // SAFETY: the caller's guarantee is the callee's.
                unsafe { cuda.copy_host_to_device_async(stream, destination, source, bytes) }
            }
            (DeviceBackend::Simulator(_), _, Some(CaptureRecording::Simulator(graph))) => {
                graph.record_copy(destination, source as u64, bytes);
                Ok(())
            }
            (DeviceBackend::Simulator(_), _, _) => {
                // SAFETY: simulator memory is host memory; the caller guarantees both ranges,
                // which are two allocations.
                unsafe { std::ptr::copy_nonoverlapping(source, destination as *mut u8, bytes) };
                Ok(())
            }
            _ => unreachable!("a stream is used only with its own device's backend"),
        }
    }

    /// Ends the capture `recording` of `stream` and returns its graph.
    pub(crate) fn end_capture(
        &self,
        stream: &StreamHandle,
        recording: CaptureRecording,
    ) -> Result<GraphTemplate> {
        match (stream, recording) {
            (StreamHandle::Cuda(stream), CaptureRecording::Cuda) => {
                stream.end_capture().map(GraphTemplate::Cuda)
            }
            (StreamHandle::Simulator, CaptureRecording::Simulator(graph)) => {
                Ok(GraphTemplate::Simulator(graph))
            }
            _ => unreachable!("a capture is used only with its own device's backend"),
        }
    }

    /// An executable form of `graph`.
    pub(crate) fn instantiate(&self, graph: &GraphTemplate) -> Result<GraphExecutable> {
        match graph {
            GraphTemplate::Cuda(graph) => graph.instantiate().map(GraphExecutable::Cuda),
            GraphTemplate::Simulator(graph) => Ok(GraphExecutable::Simulator(graph.clone())),
        }
    }

    /// Queues one replay of `graph` on `stream` (on the simulator: runs it). `on_launch` is
    /// called once per captured launch, in order, with its failure on the simulator (a fault
    /// or a kernel panic) and `None` on a GPU, where panics are collected at the next
    /// synchronization.
    ///
    /// # Safety
    /// The buffers the graph uses are alive (the handle layer keeps them alive with the graph).
    pub(crate) unsafe fn launch_graph(
        &self,
        graph: &GraphExecutable,
        stream: &StreamHandle,
        launches: usize,
        on_launch: &mut dyn FnMut(Option<Error>),
    ) -> Result<()> {
        match (self, graph, stream) {
            (DeviceBackend::Cuda(_), GraphExecutable::Cuda(graph), StreamHandle::Cuda(stream)) => {
                graph.launch(stream)?;
                (0..launches).for_each(|_| on_launch(None));
                Ok(())
            }
            (DeviceBackend::Simulator(sim), GraphExecutable::Simulator(graph), _) => {
                // SAFETY: the caller keeps every captured buffer alive.
                unsafe { graph.replay(sim, on_launch) };
                Ok(())
            }
            _ => unreachable!("a graph is used only with its own device's backend"),
        }
    }

    /// Gives the executable `graph` the parameters of `new`, a capture of the same sequence of
    /// operations (checked by the caller).
    pub(crate) fn update_graph(
        &self,
        graph: &mut GraphExecutable,
        new: &GraphTemplate,
    ) -> Result<()> {
        match (graph, new) {
            (GraphExecutable::Cuda(graph), GraphTemplate::Cuda(new)) => graph.update(new),
            (GraphExecutable::Simulator(graph), GraphTemplate::Simulator(new)) => {
                *graph = new.clone();
                Ok(())
            }
            _ => unreachable!("a graph is used only with its own device's backend"),
        }
    }
}
