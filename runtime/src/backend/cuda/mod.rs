//! The CUDA backend: a primary context on one GPU, and every driver call the runtime makes.
//!
//! This folder is the only place that names `cudarc`. [`launch`] is what a launch does on a GPU;
//! [`module`] loads PTX modules and kernel functions and reads device panic records; [`inspect`]
//! reads a kernel's attributes and occupancy; [`memory`]
//! allocates and copies; [`stream`] holds streams and events; [`interop`] is the public escape
//! hatch to the underlying cudarc objects. The context is made current in one place,
//! [`make_current`] (in [`mod@driver`], with the conversion of driver errors). Before the first
//! driver call, [`driver_library`] checks that the loaded `libcuda.so` exports every entry point
//! the runtime calls, so that a missing one is an error rather than a panic inside cudarc.

pub(crate) mod context_loss;
pub(crate) mod driver;
pub(crate) mod driver_library;
pub(crate) mod graph;
pub(crate) mod inspect;
pub(crate) mod interop;
pub(crate) mod launch;
pub(crate) mod memory;
pub(crate) mod module;
pub(crate) mod module_choice;
pub(crate) mod nccl;
pub(crate) mod nccl_library;
pub(crate) mod peer;
pub(crate) mod stream;
pub(crate) mod tensor_map;

use crate::Dim3;
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::kernel::{KernelInfo, ModuleFormat, PtxModule};
use crate::vocabulary::limits::{DeviceDescription, DeviceLimits};
use crate::vocabulary::panic_report::{Claim, KernelPanic, SeenEpochs};
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaStream, result};
use driver::{driver, make_current};
use module::{LoadedFunction, ModuleCache};
use std::sync::Arc;

/// One GPU: its primary context and what has been loaded on it.
pub(crate) struct CudaDevice {
    /// The device's primary context.
    pub(crate) context: Arc<CudaContext>,
    /// The legacy default stream, where synchronous work and launches without a stream go.
    pub(crate) default_stream: Arc<CudaStream>,
    /// The PTX modules and kernel functions loaded so far.
    loaded: ModuleCache,
}

/// One device attribute, as `u32`.
fn attribute(context: &CudaContext, attr: CUdevice_attribute) -> Result<u32> {
    context
        .attribute(attr)
        .map(|v| v as u32)
        .map_err(driver("cuDeviceGetAttribute"))
}

/// The limits of the GPU of `context`.
fn limits(context: &CudaContext) -> Result<DeviceLimits> {
    use CUdevice_attribute::*;
    Ok(DeviceLimits {
        max_threads_per_block: attribute(context, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
        max_block_dim: Dim3::new(
            attribute(context, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
            attribute(context, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
            attribute(context, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
        ),
        max_grid_dim: Dim3::new(
            attribute(context, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
            attribute(context, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
            attribute(context, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
        ),
        max_shared_memory_per_block: attribute(
            context,
            CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
        )?,
        max_shared_memory_per_block_optin: attribute(
            context,
            CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?,
        warp_size: attribute(context, CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
        multiprocessor_count: attribute(context, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
    })
}

impl CudaDevice {
    /// Whether the CUDA driver library can be loaded at all.
    pub(crate) fn driver_present() -> bool {
        // SAFETY: `is_culib_present` only tries to open the driver library (dlopen) and reports
        // whether that worked; it calls no driver function.
        unsafe { cudarc::driver::sys::is_culib_present() }
    }

    /// The number of CUDA devices (0 when the driver is missing or finds none); an
    /// [`Error::DriverIncompatible`] when the driver library lacks what the runtime calls.
    /// Every path to the driver starts here, so the library is checked before its first call.
    pub(crate) fn count() -> Result<usize> {
        if !Self::driver_present() {
            return Ok(0);
        }
        driver::check_not_forked("Device::new")?;
        driver_library::check()?;
        driver::note_driver_init();
        result::init().map_err(driver("cuInit"))?;
        result::device::get_count()
            .map(|n| n as usize)
            .map_err(driver("cuDeviceGetCount"))
    }

    /// Opens GPU `ordinal`: retains its primary context and reads what it is.
    pub(crate) fn open(ordinal: usize) -> Result<(CudaDevice, DeviceDescription)> {
        let count = Self::count()?;
        if ordinal >= count {
            return Err(Error::NoDevice(if count == 0 {
                "no CUDA driver or GPU found on this machine (use Device::simulator() to run kernels on the CPU)".to_string()
            } else {
                format!(
                    "device ordinal {ordinal} requested, but this machine has {count} CUDA device(s) (ordinals 0..{count})"
                )
            }));
        }
        let context = CudaContext::new(ordinal).map_err(driver("cuDevicePrimaryCtxRetain"))?;
        // ferrocuda orders work with streams and events explicitly, as CUDA C does; cudarc's
        // per-buffer event tracking would add driver calls to every launch.
        // SAFETY: the context was retained just above: no buffer or stream of it exists yet.
        unsafe { context.disable_event_tracking() };
        let (major, minor) = context
            .compute_capability()
            .map_err(driver("cuDeviceGetAttribute"))?;
        let name = context.name().map_err(driver("cuDeviceGetName"))?;
        let description = DeviceDescription {
            label: format!("{name} (GPU {ordinal})"),
            name,
            compute_capability: (major as u32, minor as u32),
            total_memory: context.total_mem().map_err(driver("cuDeviceTotalMem"))?,
            limits: limits(&context)?,
        };
        let default_stream = context.default_stream();
        let device = CudaDevice {
            context,
            default_stream,
            loaded: ModuleCache::default(),
        };
        Ok((device, description))
    }

    /// Makes the context current on the calling thread.
    #[inline]
    pub(crate) fn bind(&self) -> Result<()> {
        make_current(&self.context)
    }

    /// Waits for all work on the device.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.context
            .synchronize()
            .map_err(driver("cuCtxSynchronize"))
    }

    /// Free and total device memory in bytes.
    pub(crate) fn memory_info(&self) -> Result<(usize, usize)> {
        self.context.mem_get_info().map_err(driver("cuMemGetInfo"))
    }

    /// The kernel's function on this device, loaded on first use.
    #[inline]
    pub(crate) fn function(&self, info: &'static KernelInfo) -> Result<Arc<LoadedFunction>> {
        self.loaded
            .function(&self.context, &self.default_stream, info)
    }

    /// How `module` was loaded on this GPU (a cubin or the PTX); `None` before its first use.
    pub(crate) fn module_format(&self, module: &'static PtxModule) -> Option<ModuleFormat> {
        self.loaded.format_of(module)
    }

    /// The device address of the constant-memory symbol `name` of `module` (`bytes` long).
    pub(crate) fn constant_address(
        &self,
        module: &'static PtxModule,
        name: &'static str,
        bytes: usize,
        type_name: &'static str,
    ) -> Result<u64> {
        self.loaded.constant_address(
            &self.context,
            &self.default_stream,
            module,
            name,
            bytes,
            type_name,
        )
    }

    /// The panics of the loaded modules that `claim` takes (see [`ModuleCache::take_panics`]).
    pub(crate) fn take_panics(
        &self,
        seen: &mut SeenEpochs,
        claim: &mut dyn FnMut(u64) -> Claim,
    ) -> Result<Vec<(u64, KernelPanic)>> {
        self.bind()?;
        self.loaded.take_panics(seen, claim)
    }
}
