//! CUDA graphs on a GPU: stream capture (`cuStreamBeginCapture` in relaxed mode,
//! `cuStreamEndCapture`), instantiation (`cuGraphInstantiateWithFlags`), replay (`cuGraphLaunch`),
//! whole-graph parameter update (`cuGraphExecUpdate`), and the copies a capture records as
//! memcpy nodes (`cuMemcpyDtoDAsync`, and `cuMemcpyHtoDAsync` from page-locked memory).
//!
//! The driver records what is queued on a capturing stream instead of running it, so a captured
//! launch is an ordinary [`CudaDevice::launch`] on that stream: nothing here re-implements it.
//! Relaxed mode lets the calls a first launch may make (loading a module, raising a kernel's
//! dynamic shared memory) run during a capture; what would make the capturing stream wait on the
//! legacy default stream is refused earlier, in the handle layer (`handles/graph.rs`).

use super::CudaDevice;
use super::driver::{driver, make_current};
use super::stream::CudaStreamHandle;
use crate::vocabulary::error::{Error, Result};
use cudarc::driver::{CudaContext, result, sys};
use std::sync::Arc;

/// A graph made by a capture (`CUgraph`), destroyed on drop.
pub(crate) struct CudaGraph {
    /// The driver's graph.
    graph: sys::CUgraph,
    /// The context it belongs to, kept alive as long as the graph.
    context: Arc<CudaContext>,
}

/// An executable graph (`CUgraphExec`), destroyed on drop. The driver frees one still running
/// when its replays have completed.
pub(crate) struct CudaGraphExec {
    /// The driver's executable graph.
    exec: sys::CUgraphExec,
    /// The context it belongs to.
    context: Arc<CudaContext>,
}

// SAFETY: graph objects may be used from any thread as long as the calls on one object are
// serialized (CUDA's graph thread-safety rule); the handles that own these (`Graph`,
// `GraphExec`) are `Send` but not `Sync`, and updating takes `&mut`.
unsafe impl Send for CudaGraph {}
// SAFETY: as for `CudaGraph`.
unsafe impl Send for CudaGraphExec {}

impl Drop for CudaGraph {
    fn drop(&mut self) {
        if super::context_loss::is_abandoned(&self.context) || make_current(&self.context).is_err()
        {
            return;
        }
        // SAFETY: created by `end_capture` and destroyed only here; instantiated executables
        // do not depend on it.
        let _ = unsafe { result::graph::destroy(self.graph) };
    }
}

impl Drop for CudaGraphExec {
    fn drop(&mut self) {
        if super::context_loss::is_abandoned(&self.context) || make_current(&self.context).is_err()
        {
            return;
        }
        // SAFETY: created by `instantiate` and destroyed only here; replays still running are
        // completed before the driver frees it.
        let _ = unsafe { result::graph::exec_destroy(self.exec) };
    }
}

impl CudaStreamHandle {
    /// Starts recording the work queued on this stream (relaxed capture mode).
    pub(crate) fn begin_capture(&self) -> Result<()> {
        make_current(self.stream.context())?;
        // SAFETY: a live stream of the current context (the handle keeps it alive).
        unsafe {
            result::stream::begin_capture(
                self.stream.cu_stream(),
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED,
            )
        }
        .map_err(driver("cuStreamBeginCapture"))
    }

    /// Ends the capture begun on this stream and returns the graph it recorded.
    pub(crate) fn end_capture(&self) -> Result<CudaGraph> {
        make_current(self.stream.context())?;
        // SAFETY: a live stream of the current context, capturing (the handle layer checks).
        let graph = unsafe { result::stream::end_capture(self.stream.cu_stream()) }
            .map_err(driver("cuStreamEndCapture"))?;
        if graph.is_null() {
            return Err(Error::DriverContract {
                call: "cuStreamEndCapture",
                problem: "returned no graph for a capture that succeeded".to_string(),
            });
        }
        Ok(CudaGraph {
            graph,
            context: self.stream.context().clone(),
        })
    }
}

impl CudaGraph {
    /// An executable graph of this graph.
    pub(crate) fn instantiate(&self) -> Result<CudaGraphExec> {
        make_current(&self.context)?;
        // SAFETY: a live graph of the current context.
        let exec =
            unsafe { result::graph::instantiate(self.graph, sys::CUgraphInstantiate_flags(0)) }
                .map_err(driver("cuGraphInstantiateWithFlags"))?;
        Ok(CudaGraphExec {
            exec,
            context: self.context.clone(),
        })
    }
}

impl CudaGraphExec {
    /// Queues one replay of the graph on `stream`.
    #[inline]
    pub(crate) fn launch(&self, stream: &CudaStreamHandle) -> Result<()> {
        make_current(&self.context)?;
        // SAFETY: a live executable graph and a live stream, both of the current context; the
        // buffers the graph uses are kept alive by its owner (`handles/graph.rs`).
        unsafe { result::graph::launch(self.exec, stream.stream.cu_stream()) }
            .map_err(driver("cuGraphLaunch"))
    }

    /// Gives every node of this executable graph the parameters of the matching node of
    /// `graph`, which has the same sequence of operations (checked by the caller).
    pub(crate) fn update(&mut self, graph: &CudaGraph) -> Result<()> {
        make_current(&self.context)?;
        let mut info = sys::CUgraphExecUpdateResultInfo {
            result: sys::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS,
            errorNode: std::ptr::null_mut(),
            errorFromNode: std::ptr::null_mut(),
        };
        // SAFETY: a live executable graph and a live graph of the current context; `info` is a
        // valid place for the driver's answer.
        let status = unsafe { sys::cuGraphExecUpdate_v2(self.exec, graph.graph, &mut info) };
        match status.result() {
            Ok(()) => Ok(()),
            Err(error)
                if info.result != sys::CUgraphExecUpdateResult::CU_GRAPH_EXEC_UPDATE_SUCCESS =>
            {
                Err(Error::Graph {
                    operation: "GraphExec::update",
                    problem: format!(
                        "the driver refused the update ({:?}, {}): the new graph must repeat the captured launches and copies with only their arguments changed",
                        info.result,
                        super::driver::driver_error("cuGraphExecUpdate", error)
                    ),
                })
            }
            Err(error) => Err(super::driver::driver_error("cuGraphExecUpdate", error)),
        }
    }
}

impl CudaDevice {
    /// Queues a copy of `bytes` bytes from host memory at `source` to device address
    /// `destination` on `stream` (recorded as a memcpy node when the stream captures). From
    /// pageable memory the driver stages the bytes before returning (after the stream's earlier
    /// work); from page-locked memory it reads them when the copy runs.
    ///
    /// # Safety
    /// `source` is `bytes` readable bytes and `destination` lies inside a live allocation of
    /// this device; page-locked `source` memory stays alive and unwritten until the copy has
    /// run, and pageable memory is not used while capturing.
    pub(crate) unsafe fn copy_host_to_device_async(
        &self,
        stream: &CudaStreamHandle,
        destination: u64,
        source: *const u8,
        bytes: usize,
    ) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller guarantees `bytes` readable bytes at `source`.
        let source = unsafe { std::slice::from_raw_parts(source, bytes) };
        // SAFETY: the caller guarantees both sides; the stream is live (its handle is held).
        unsafe { result::memcpy_htod_async(destination, source, stream.stream.cu_stream()) }
            .map_err(driver("cuMemcpyHtoDAsync"))
    }
}
