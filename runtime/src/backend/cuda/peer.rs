//! Peer access between two GPUs, and the copies from one device buffer to another on a GPU:
//! within one device (`cuMemcpyDtoDAsync`) and between two (`cuMemcpyPeerAsync`).
//!
//! A peer copy runs on a stream of the destination GPU, so the driver does not order it with
//! the source GPU's work by itself. [`CudaDevice::copy_from_peer`] orders it both ways through
//! the source's legacy default stream, which every blocking stream of the source synchronizes
//! with: the copy waits for an event recorded there (so it reads what the source's earlier work
//! wrote), and the source's default stream waits for an event recorded after the copy (so a
//! later free of the source buffer, which runs there, comes after the copy).

use super::CudaDevice;
use super::driver::{driver, driver_error};
use super::stream::CudaStreamHandle;
use crate::vocabulary::error::Result;
use cudarc::driver::sys::{self, cudaError_enum};
use cudarc::driver::{DriverError, result};

impl CudaDevice {
    /// Whether this GPU can map `peer`'s memory (`cuDeviceCanAccessPeer`; false for the GPU
    /// itself, which the caller handles).
    pub(crate) fn can_access_peer(&self, peer: &CudaDevice) -> Result<bool> {
        let mut can = 0;
        // SAFETY: both devices are valid handles of initialised contexts; the call writes one int.
        unsafe {
            sys::cuDeviceCanAccessPeer(&mut can, self.context.cu_device(), peer.context.cu_device())
        }
        .result()
        .map_err(driver("cuDeviceCanAccessPeer"))?;
        Ok(can != 0)
    }

    /// Lets kernels and copies of this GPU's context reach `peer`'s memory directly
    /// (`cuCtxEnablePeerAccess`); enabling it again is not an error.
    pub(crate) fn enable_peer_access(&self, peer: &CudaDevice) -> Result<()> {
        self.bind()?;
        // SAFETY: the current context is this GPU's; `peer`'s context is alive (held by `peer`).
        let status = unsafe { sys::cuCtxEnablePeerAccess(peer.context.cu_ctx(), 0) };
        match status {
            cudaError_enum::CUDA_SUCCESS
            | cudaError_enum::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => Ok(()),
            other => Err(driver_error("cuCtxEnablePeerAccess", DriverError(other))),
        }
    }

    /// Queues a copy of `bytes` bytes from `source` to `destination`, both in this GPU's
    /// memory, on `stream` (of this GPU); recorded as a memcpy node when the stream captures a
    /// graph (`Stream::copy_buffer`).
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of this GPU that stay alive until the copy is
    /// done (buffers are freed on the default stream, which orders after `stream`), and do not
    /// overlap.
    pub(crate) unsafe fn copy_within(
        &self,
        stream: &CudaStreamHandle,
        destination: u64,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller guarantees both ranges.
        unsafe { result::memcpy_dtod_async(destination, source, bytes, stream.stream.cu_stream()) }
            .map_err(driver("cuMemcpyDtoDAsync"))
    }

    /// Queues a copy of `bytes` bytes from `source` in `peer`'s memory to `destination` in this
    /// GPU's memory on `stream` (of this GPU), ordered with `peer`'s work as the module
    /// documentation says.
    ///
    /// # Safety
    /// Both ranges lie inside live allocations of their GPUs, freed only on their default
    /// streams, and do not overlap.
    pub(crate) unsafe fn copy_from_peer(
        &self,
        stream: &CudaStreamHandle,
        destination: u64,
        peer: &CudaDevice,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        let source_ready = peer
            .default_stream
            .record_event(None)
            .map_err(driver("cuEventRecord"))?;
        self.bind()?;
        stream.wait(&source_ready)?;
        // SAFETY: the caller guarantees both ranges; the copy runs after the source's queued
        // work (the wait above).
        unsafe {
            result::memcpy_peer_async(
                self.context.cu_ctx(),
                destination,
                peer.context.cu_ctx(),
                source,
                bytes,
                stream.stream.cu_stream(),
            )
        }
        .map_err(driver("cuMemcpyPeerAsync"))?;
        // The copy is queued: if it cannot be tracked, finish it before the caller may free
        // either side (if that fails too, the context is broken and runs nothing).
        let copied = stream
            .record_new_event()
            .inspect_err(|_| drop(stream.synchronize()))?;
        peer.default_stream
            .wait(&copied)
            .map_err(driver("cuStreamWaitEvent"))
            .inspect_err(|_| drop(stream.synchronize()))
    }
}
