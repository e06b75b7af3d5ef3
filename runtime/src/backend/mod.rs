//! The backend layer: the one type, [`DeviceBackend`], through which the handles reach a device,
//! with one method per operation (allocate, copy, synchronize, streams, events, constants,
//! page-locked memory, asynchronous copies, launch, panic collection, kernel attributes and
//! occupancy). Each method dispatches to
//! the CUDA backend ([`cuda`], the only module that names cudarc) or to the CPU simulator
//! ([`simulator`]); it is an enum, not a trait object, so a launch pays one predictable branch.
//!
//! The backend imports only the vocabulary layer.

pub(crate) mod collective_call;
pub(crate) mod collectives;
pub(crate) mod copy;
pub(crate) mod cuda;
pub(crate) mod graph;
pub(crate) mod multi_device;
pub(crate) mod simulator;

use crate::vocabulary::allocation_failure;
use crate::vocabulary::error::{Error, LaunchError, Result};
use crate::vocabulary::kernel::{KernelInfo, PtxModule};
use crate::vocabulary::kernel_attributes::KernelAttributes;
use crate::vocabulary::limits::{Backend, DeviceDescription, DeviceLimits};
use crate::vocabulary::occupancy::{
    KernelFootprint, KernelLimits, MultiprocessorLimits, Occupancy, check_occupancy_query,
    model_active_blocks, model_suggested_block_size,
};
use crate::vocabulary::panic_report::{Claim, KernelPanic, SeenEpochs};
use crate::vocabulary::params::ParamBuffer;
use crate::vocabulary::shape::LaunchShape;
use copy::AsyncCopy;
use cuda::CudaDevice;
use cuda::memory::{CudaAllocation, PinnedHostMemory};
use cuda::stream::{CudaEvent, CudaStreamHandle};
use simulator::Simulator;
use simulator::host_memory::HostAllocation;
use std::sync::Mutex;
use std::time::Instant;

/// The device a handle talks to: a GPU or the simulator.
pub(crate) enum DeviceBackend {
    /// A CUDA GPU.
    Cuda(CudaDevice),
    /// The CPU simulator.
    Simulator(Simulator),
}

/// Device memory of some backend (never empty).
pub(crate) enum Allocation {
    /// GPU memory.
    Cuda(CudaAllocation),
    /// Host memory standing in for device memory.
    Host(HostAllocation),
}

impl Allocation {
    /// The address of the first byte, as kernels see it.
    pub(crate) fn address(&self) -> u64 {
        match self {
            Allocation::Cuda(memory) => memory.address(),
            Allocation::Host(memory) => memory.as_ptr() as u64,
        }
    }
}

/// Page-locked host memory of some backend (never empty).
pub(crate) enum PinnedAllocation {
    /// `cuMemHostAlloc` memory.
    Cuda(PinnedHostMemory),
    /// Ordinary host memory on the simulator.
    Host(HostAllocation),
}

impl PinnedAllocation {
    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        match self {
            PinnedAllocation::Cuda(memory) => memory.as_ptr(),
            PinnedAllocation::Host(memory) => memory.as_ptr(),
        }
    }
}

/// A stream of some backend. Cheap to clone.
#[derive(Clone)]
pub(crate) enum StreamHandle {
    /// A GPU stream.
    Cuda(CudaStreamHandle),
    /// The simulator, where all work is synchronous.
    Simulator,
}

impl StreamHandle {
    /// Whether two handles are the same stream.
    pub(crate) fn same_as(&self, other: &StreamHandle) -> bool {
        match (self, other) {
            (StreamHandle::Cuda(a), StreamHandle::Cuda(b)) => a.same_as(b),
            (StreamHandle::Simulator, StreamHandle::Simulator) => true,
            _ => false,
        }
    }
}

/// An event of some backend.
pub(crate) enum EventHandle {
    /// A CUDA event.
    Cuda(CudaEvent),
    /// On the simulator: when the event was recorded (work is synchronous there).
    Simulator(Mutex<Option<Instant>>),
}

impl DeviceBackend {
    /// Opens GPU `ordinal`.
    pub(crate) fn open_cuda(ordinal: usize) -> Result<(DeviceBackend, DeviceDescription)> {
        let (device, description) = CudaDevice::open(ordinal)?;
        Ok((DeviceBackend::Cuda(device), description))
    }

    /// The number of GPUs (0 when the driver is missing or finds none).
    pub(crate) fn cuda_device_count() -> Result<usize> {
        CudaDevice::count()
    }

    /// The simulator, and what it says about itself.
    pub(crate) fn simulator() -> (DeviceBackend, DeviceDescription) {
        let description = DeviceDescription {
            name: "ferrocuda CPU simulator".to_string(),
            label: "ferrocuda CPU simulator".to_string(),
            compute_capability: Simulator::COMPUTE_CAPABILITY,
            total_memory: Simulator::total_memory(),
            limits: Simulator::LIMITS,
        };
        (DeviceBackend::Simulator(Simulator::new()), description)
    }

    /// Which kind of backend this is.
    #[inline]
    pub(crate) fn kind(&self) -> Backend {
        match self {
            DeviceBackend::Cuda(_) => Backend::Cuda,
            DeviceBackend::Simulator(_) => Backend::Simulator,
        }
    }

    /// The GPU, if this is one (for the cudarc escape hatches).
    pub(crate) fn as_cuda(&self) -> Option<&CudaDevice> {
        match self {
            DeviceBackend::Cuda(cuda) => Some(cuda),
            DeviceBackend::Simulator(_) => None,
        }
    }

    /// Free and total memory in bytes (on the simulator: its total less its allocations).
    pub(crate) fn memory_info(&self, total: usize) -> Result<(usize, usize)> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.memory_info(),
            DeviceBackend::Simulator(_) => Ok((
                total.saturating_sub(simulator::host_memory::device_bytes_in_use()),
                total,
            )),
        }
    }

    /// Abandons a GPU's context and resets its primary context (see [`cuda::context_loss`]); the
    /// simulator has nothing to reset.
    pub(crate) fn reset_context(&self) -> Result<()> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.reset_primary_context(),
            DeviceBackend::Simulator(_) => Ok(()),
        }
    }

    /// Waits for all work on the device (the simulator has none pending).
    pub(crate) fn synchronize(&self) -> Result<()> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.synchronize(),
            DeviceBackend::Simulator(_) => Ok(()),
        }
    }

    /// The device panic records that `claim` takes, by launch token, reported and cleared
    /// (GPU only: the simulator returns a panic with its launch). `seen` is what the calling
    /// thread knows of the records: when nothing changed since it last looked, this costs one
    /// 4-byte read per loaded module.
    pub(crate) fn take_panics(
        &self,
        seen: &mut SeenEpochs,
        claim: &mut dyn FnMut(u64) -> Claim,
    ) -> Result<Vec<(u64, KernelPanic)>> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.take_panics(seen, claim),
            DeviceBackend::Simulator(_) => Ok(Vec::new()),
        }
    }

    /// What the calling thread's simulated kernels printed since the last call ("" on a GPU).
    pub(crate) fn take_output(&self) -> String {
        match self {
            DeviceBackend::Cuda(_) => String::new(),
            DeviceBackend::Simulator(sim) => sim.take_output(),
        }
    }

    /// The 128 bytes of a tensor map for `tensor` (checked by the caller): the driver's
    /// encoding on a GPU; zeros on the simulator, which refuses the TMA copies that would read
    /// them (`SimulatorFault::UnsupportedInstruction`).
    pub(crate) fn encode_tensor_map(
        &self,
        tensor: &crate::vocabulary::tensor_map::TiledTensor2d,
    ) -> Result<[u64; 16]> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.encode_tensor_map(tensor),
            DeviceBackend::Simulator(_) => Ok([0; 16]),
        }
    }

    /// `bytes > 0` zeroed bytes of device memory aligned for `align`.
    pub(crate) fn allocate_zeroed(&self, bytes: usize, align: usize) -> Result<Allocation> {
        allocation_failure::check(bytes)?;
        match self {
            DeviceBackend::Cuda(cuda) => cuda.allocate_zeroed(bytes).map(Allocation::Cuda),
            DeviceBackend::Simulator(_) => {
                HostAllocation::device(bytes, align, Simulator::total_memory())
                    .map(Allocation::Host)
            }
        }
    }

    /// `bytes > 0` bytes of device memory aligned for `align`, maybe not initialised.
    ///
    /// # Safety
    /// The caller writes every byte before any read.
    pub(crate) unsafe fn allocate_uninit(&self, bytes: usize, align: usize) -> Result<Allocation> {
        allocation_failure::check(bytes)?;
        match self {
            DeviceBackend::Cuda(cuda) => {
                // SAFETY: the caller writes every byte before reading one.
                unsafe { cuda.allocate_uninit(bytes) }.map(Allocation::Cuda)
            }
            DeviceBackend::Simulator(_) => {
                HostAllocation::device(bytes, align, Simulator::total_memory())
                    .map(Allocation::Host)
            }
        }
    }

    /// Copies `data` to `address`, after the work queued on the default stream.
    ///
    /// # Safety
    /// `address..address + data.len()` lies inside a live allocation of this backend.
    pub(crate) unsafe fn copy_to_device(&self, address: u64, data: &[u8]) -> Result<()> {
        match self {
            // SAFETY: the caller guarantees the range.
            DeviceBackend::Cuda(cuda) => unsafe { cuda.copy_to_device(address, data) },
            DeviceBackend::Simulator(_) => {
                // SAFETY: simulator memory is host memory; the caller guarantees the range,
                // and `data` is a separate borrow, so they do not overlap.
                unsafe {
                    std::ptr::copy_nonoverlapping(data.as_ptr(), address as *mut u8, data.len())
                };
                Ok(())
            }
        }
    }

    /// Copies the memory at `address` into `out`, after the work queued on the default stream.
    ///
    /// # Safety
    /// `address..address + out.len()` lies inside a live allocation of this backend.
    pub(crate) unsafe fn copy_to_host(&self, address: u64, out: &mut [u8]) -> Result<()> {
        match self {
            // SAFETY: the caller guarantees the range.
            DeviceBackend::Cuda(cuda) => unsafe { cuda.copy_to_host(address, out) },
            DeviceBackend::Simulator(_) => {
                // SAFETY: as in `copy_to_device`, the other way.
                unsafe {
                    std::ptr::copy_nonoverlapping(address as *const u8, out.as_mut_ptr(), out.len())
                };
                Ok(())
            }
        }
    }

    /// `bytes > 0` zeroed bytes of page-locked host memory, aligned for `align`.
    pub(crate) fn allocate_pinned(&self, bytes: usize, align: usize) -> Result<PinnedAllocation> {
        allocation_failure::check(bytes)?;
        match self {
            DeviceBackend::Cuda(cuda) => cuda.allocate_pinned(bytes).map(PinnedAllocation::Cuda),
            DeviceBackend::Simulator(_) => {
                HostAllocation::zeroed(bytes, align).map(PinnedAllocation::Host)
            }
        }
    }

    /// The default stream.
    pub(crate) fn default_stream(&self) -> StreamHandle {
        match self {
            DeviceBackend::Cuda(cuda) => StreamHandle::Cuda(cuda.default_stream_handle()),
            DeviceBackend::Simulator(_) => StreamHandle::Simulator,
        }
    }

    /// A new blocking stream.
    pub(crate) fn new_stream(&self) -> Result<StreamHandle> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.new_stream().map(StreamHandle::Cuda),
            DeviceBackend::Simulator(_) => Ok(StreamHandle::Simulator),
        }
    }

    /// A new event, not yet recorded.
    pub(crate) fn new_event(&self) -> Result<EventHandle> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.new_event().map(EventHandle::Cuda),
            DeviceBackend::Simulator(_) => Ok(EventHandle::Simulator(Mutex::new(None))),
        }
    }

    /// Writes the constant-memory symbol `name` of `module` (`init` is its initial value, for
    /// the simulator's first use; `type_name` names its Rust type in messages).
    pub(crate) fn write_constant(
        &self,
        module: &'static PtxModule,
        name: &'static str,
        init: &'static [u8],
        value: &[u8],
        type_name: &'static str,
    ) -> Result<()> {
        match self {
            DeviceBackend::Cuda(cuda) => {
                let address = cuda.constant_address(module, name, value.len(), type_name)?;
                // SAFETY: `address` is the symbol, whose size was checked to be `value.len()`.
                unsafe { cuda.copy_to_device(address, value) }
            }
            DeviceBackend::Simulator(sim) => {
                sim.write_constant(name, init, value);
                Ok(())
            }
        }
    }

    /// Reads the constant-memory symbol `name` of `module` into `out` (as `write_constant`).
    pub(crate) fn read_constant(
        &self,
        module: &'static PtxModule,
        name: &'static str,
        init: &'static [u8],
        out: &mut [u8],
        type_name: &'static str,
    ) -> Result<()> {
        match self {
            DeviceBackend::Cuda(cuda) => {
                let address = cuda.constant_address(module, name, out.len(), type_name)?;
                // SAFETY: `address` is the symbol, whose size was checked to be `out.len()`.
                unsafe { cuda.copy_to_host(address, out) }
            }
            DeviceBackend::Simulator(sim) => {
                sim.read_constant(name, init, out);
                Ok(())
            }
        }
    }

    /// Launches `info` with `launch` on `stream` (`None`: the default stream; the shape is
    /// already checked against `limits`, the limits of the device named `device`).
    ///
    /// `Err` is a launch that did not happen. `Ok(Some(error))` is a launch that ran and failed
    /// (a simulator fault or kernel panic), which the launching thread's next synchronization
    /// of `stream` (or of the device) reports; `Ok(None)` a launch queued (GPU) or run cleanly
    /// (simulator). The last parameter in `params` is the launch token.
    #[inline]
    pub(crate) fn launch(
        &self,
        info: &'static KernelInfo,
        launch: &LaunchShape,
        stream: Option<&StreamHandle>,
        params: &mut ParamBuffer,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<Option<Error>> {
        match self {
            DeviceBackend::Cuda(cuda) => {
                let stream = match stream {
                    Some(StreamHandle::Cuda(stream)) => Some(stream),
                    _ => None,
                };
                cuda.launch(info, launch, stream, params, limits, device)
                    .map(|()| None)
            }
            DeviceBackend::Simulator(sim) => Ok(sim.launch(info, launch, &params.reader()).err()),
        }
    }
}

/// Inspection and occupancy: what a compiled kernel uses and how many of its blocks fit on a
/// multiprocessor (the driver's answers on a GPU, the build's `ptxas -v` report and an H100's
/// multiprocessor on the simulator).
impl DeviceBackend {
    /// The kernel's attributes on this device (on a GPU, loading its module on first use).
    pub(crate) fn kernel_attributes(&self, info: &'static KernelInfo) -> Result<KernelAttributes> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.kernel_attributes(info),
            DeviceBackend::Simulator(_) => Ok(Simulator::kernel_attributes(info)),
        }
    }

    /// The resources of one multiprocessor.
    pub(crate) fn multiprocessor_limits(&self) -> Result<MultiprocessorLimits> {
        match self {
            DeviceBackend::Cuda(cuda) => cuda.multiprocessor_limits(),
            DeviceBackend::Simulator(_) => Ok(Simulator::MULTIPROCESSOR),
        }
    }

    /// The occupancy of `info` with blocks of `block_size` threads and `dynamic_shared_bytes`
    /// of dynamic shared memory (checked first against the kernel's and the device's limits;
    /// `device` names it in messages). On a GPU the count is the driver's, and the limit that
    /// binds is named where the model agrees with it.
    pub(crate) fn occupancy(
        &self,
        info: &'static KernelInfo,
        block_size: u32,
        dynamic_shared_bytes: u32,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<Occupancy> {
        let attributes = self.kernel_attributes(info)?;
        check_occupancy_query(
            KernelLimits::of(&attributes),
            block_size,
            dynamic_shared_bytes,
            limits,
            device,
        )?;
        let sm = self.multiprocessor_limits()?;
        let (modelled, limit) = model_active_blocks(
            &sm,
            KernelFootprint::of(&attributes),
            block_size,
            dynamic_shared_bytes,
        );
        let (active, limited_by) = match self {
            DeviceBackend::Cuda(cuda) => {
                let active = cuda.max_active_blocks(info, block_size, dynamic_shared_bytes)?;
                (active, (active == modelled).then_some(limit))
            }
            DeviceBackend::Simulator(_) => (modelled, Some(limit)),
        };
        Ok(Occupancy::new(
            &sm,
            block_size,
            dynamic_shared_bytes,
            active,
            limited_by,
        ))
    }

    /// How many blocks of `info` (of `block_size` threads and `dynamic_shared_bytes` of dynamic
    /// shared memory) the device holds at once, for the check before a cooperative launch: the
    /// driver's count per multiprocessor times the multiprocessors on a GPU, the occupancy
    /// model's on the simulator. `None` when the device cannot launch cooperatively
    /// (`CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH` is 0).
    pub(crate) fn co_resident_blocks(
        &self,
        info: &'static KernelInfo,
        block_size: u32,
        dynamic_shared_bytes: u32,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<Option<u64>> {
        let per_multiprocessor = match self {
            DeviceBackend::Cuda(cuda) => {
                if !cuda.supports_cooperative_launch()? {
                    return Ok(None);
                }
                cuda.max_active_blocks(info, block_size, dynamic_shared_bytes)?
            }
            DeviceBackend::Simulator(_) => {
                self.occupancy(info, block_size, dynamic_shared_bytes, limits, device)?
                    .active_blocks
            }
        };
        Ok(Some(
            per_multiprocessor as u64 * limits.multiprocessor_count as u64,
        ))
    }

    /// The block size that gives `info` the most resident warps with `dynamic_shared_bytes` of
    /// dynamic shared memory per block (a multiple of the warp size, within the kernel's limit).
    /// Every `.forall(n)` launch asks: on a GPU it costs a cached function lookup and one
    /// `cuOccupancyMaxPotentialBlockSize`.
    pub(crate) fn suggested_block_size(
        &self,
        info: &'static KernelInfo,
        dynamic_shared_bytes: u32,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<u32> {
        let suggested = match self {
            DeviceBackend::Cuda(cuda) => {
                let function = cuda.function(info)?;
                let kernel = KernelLimits {
                    name: info.name,
                    max_threads_per_block: function.max_threads_per_block,
                    static_shared_bytes: function.static_shared_bytes,
                };
                check_occupancy_query(kernel, 1, dynamic_shared_bytes, limits, device)?;
                cuda.suggested_block_size(info, dynamic_shared_bytes)?
            }
            DeviceBackend::Simulator(_) => {
                let attributes = Simulator::kernel_attributes(info);
                let kernel = KernelLimits::of(&attributes);
                check_occupancy_query(kernel, 1, dynamic_shared_bytes, limits, device)?;
                model_suggested_block_size(
                    &Simulator::MULTIPROCESSOR,
                    KernelFootprint::of(&attributes),
                    attributes.max_threads_per_block,
                    dynamic_shared_bytes,
                )
                .unwrap_or(0)
            }
        };
        if suggested == 0 {
            return Err(LaunchError::new(
                info.name,
                format!(
                    "no block size lets a block of this kernel run on {device} with {dynamic_shared_bytes} bytes of dynamic shared memory"
                ),
            )
            .into());
        }
        // A `max_block` kernel may not take a wider block than its bound along x.
        Ok(suggested.min(info.max_block_x()))
    }
}

/// Stream and event operations: they need no device, only the handles.
impl StreamHandle {
    /// Waits for everything queued on the stream.
    pub(crate) fn synchronize(&self) -> Result<()> {
        match self {
            StreamHandle::Cuda(stream) => stream.synchronize(),
            StreamHandle::Simulator => Ok(()),
        }
    }

    /// Makes later work on the stream wait for `event`.
    pub(crate) fn wait_event(&self, event: &EventHandle) -> Result<()> {
        match (self, event) {
            (StreamHandle::Cuda(stream), EventHandle::Cuda(event)) => stream.wait(event),
            _ => Ok(()),
        }
    }

    /// Queues `copy` on this stream of `backend`, after `wait_for` has made the stream wait for
    /// what the copy must follow. Returns the event that completes with the copy, or `None`
    /// when the copy is already done (the simulator).
    ///
    /// # Safety
    /// Both sides of the copy stay alive, and the host side is neither written (nor, for a copy
    /// to the host, read) until the returned event has completed.
    pub(crate) unsafe fn copy_async(
        &self,
        backend: &DeviceBackend,
        copy: AsyncCopy,
        wait_for: impl FnOnce() -> Result<()>,
    ) -> Result<Option<EventHandle>> {
        match (self, backend) {
            (StreamHandle::Cuda(stream), DeviceBackend::Cuda(cuda)) => {
                // SAFETY: the caller's guarantee is the callee's.
                let done = unsafe { cuda.copy_async(stream, copy, wait_for) }?;
                Ok(Some(EventHandle::Cuda(done)))
            }
            (StreamHandle::Simulator, DeviceBackend::Simulator(_)) => {
                // SAFETY: the caller's guarantee, and simulator memory is host memory.
                unsafe { simulator::host_memory::copy_now(copy) };
                Ok(None)
            }
            _ => unreachable!("a stream is used only with its own device's backend"),
        }
    }
}

impl EventHandle {
    /// Records the event at the current end of `stream`'s work.
    pub(crate) fn record(&self, stream: &StreamHandle) -> Result<()> {
        match (self, stream) {
            (EventHandle::Cuda(event), StreamHandle::Cuda(stream)) => {
                cuda::stream::record_event(event, stream)
            }
            (EventHandle::Simulator(at), _) => {
                *at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
                Ok(())
            }
            (EventHandle::Cuda(_), StreamHandle::Simulator) => Ok(()),
        }
    }

    /// Waits for the work before the event.
    pub(crate) fn synchronize(&self) -> Result<()> {
        match self {
            EventHandle::Cuda(event) => cuda::stream::synchronize_event(event),
            EventHandle::Simulator(_) => Ok(()),
        }
    }

    /// Whether the work before the event has completed.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        match self {
            EventHandle::Cuda(event) => cuda::stream::event_is_complete(event),
            EventHandle::Simulator(_) => Ok(true),
        }
    }

    /// Milliseconds between this event and the later `end`.
    pub(crate) fn elapsed_ms(&self, end: &EventHandle) -> Result<f32> {
        match (self, end) {
            (EventHandle::Cuda(start), EventHandle::Cuda(end)) => {
                cuda::stream::elapsed_ms(start, end)
            }
            (EventHandle::Simulator(start), EventHandle::Simulator(end)) => {
                let start = *start.lock().unwrap_or_else(|e| e.into_inner());
                let stop = *end.lock().unwrap_or_else(|e| e.into_inner());
                match (start, stop) {
                    (Some(a), Some(b)) => Ok(b.saturating_duration_since(a).as_secs_f32() * 1e3),
                    _ => Err(Error::EventNotRecorded {
                        operation: "Event::elapsed_ms",
                    }),
                }
            }
            _ => Err(Error::EventNotRecorded {
                operation: "Event::elapsed_ms",
            }),
        }
    }
}
