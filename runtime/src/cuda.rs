//! The CUDA backend: a context on one GPU, its loaded modules and functions, and the launch.

use crate::Dim3;
use crate::device::panic::{PANIC_RECORD_SYMBOL, PANIC_STATE_EMPTY, PanicRecord};
use crate::device_handle::DeviceLimits;
use crate::error::{Error, Result, driver};
use crate::kernel::{KernelInfo, PtxModule};
use crate::panic_report::{FORMATTED_MESSAGE, KernelPanic};
use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, result};
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};

/// Static description of a CUDA device.
pub(crate) struct CudaDeviceInfo {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub total_memory: usize,
    pub limits: DeviceLimits,
}

/// One GPU: its primary context and what has been loaded on it.
pub(crate) struct CudaDevice {
    pub context: Arc<CudaContext>,
    pub default_stream: Arc<CudaStream>,
    modules: Mutex<Vec<(usize, Arc<LoadedModule>)>>,
}

/// A PTX module loaded on one device.
pub(crate) struct LoadedModule {
    pub module: Arc<CudaModule>,
    /// Device address of the module's panic record, if the module has one.
    pub panic_record: Option<u64>,
}

/// A kernel function loaded on one device, with the attributes launches are checked against.
pub(crate) struct LoadedFunction {
    pub function: CudaFunction,
    /// The most threads per block this kernel can run with (limited by its registers).
    pub max_threads_per_block: u32,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block, in bytes.
    pub static_shared_bytes: u32,
    /// The dynamic shared memory the function is currently allowed (raised on demand).
    pub dynamic_shared_allowed: AtomicU32,
}

fn attribute(context: &CudaContext, attr: CUdevice_attribute) -> Result<u32> {
    context
        .attribute(attr)
        .map(|v| v as u32)
        .map_err(driver("cuDeviceGetAttribute"))
}

impl CudaDevice {
    /// Whether the CUDA driver library can be loaded at all.
    pub fn driver_present() -> bool {
        // SAFETY: only tries to open the library.
        unsafe { cudarc::driver::sys::is_culib_present() }
    }

    /// The number of CUDA devices (0 when the driver is missing or finds none).
    pub fn count() -> Result<usize> {
        if !Self::driver_present() {
            return Ok(0);
        }
        result::init().map_err(driver("cuInit"))?;
        result::device::get_count()
            .map(|n| n as usize)
            .map_err(driver("cuDeviceGetCount"))
    }

    pub fn open(ordinal: usize) -> Result<(CudaDevice, CudaDeviceInfo)> {
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
        // SAFETY: called before any buffer or stream of this context exists.
        unsafe { context.disable_event_tracking() };
        let (major, minor) = context
            .compute_capability()
            .map_err(driver("cuDeviceGetAttribute"))?;
        use CUdevice_attribute::*;
        let limits = DeviceLimits {
            max_threads_per_block: attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block_dim: Dim3::new(
                attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ),
            max_grid_dim: Dim3::new(
                attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attribute(&context, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ),
            max_shared_memory_per_block: attribute(
                &context,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
            )?,
            max_shared_memory_per_block_optin: attribute(
                &context,
                CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?,
            warp_size: attribute(&context, CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            multiprocessor_count: attribute(&context, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
        };
        let info = CudaDeviceInfo {
            name: context.name().map_err(driver("cuDeviceGetName"))?,
            compute_capability: (major as u32, minor as u32),
            total_memory: context.total_mem().map_err(driver("cuDeviceTotalMem"))?,
            limits,
        };
        let default_stream = context.default_stream();
        Ok((
            CudaDevice {
                context,
                default_stream,
                modules: Mutex::new(Vec::new()),
            },
            info,
        ))
    }

    /// The module, loaded on first use and cached for the life of the device.
    pub fn module(&self, module: &'static PtxModule) -> Result<Arc<LoadedModule>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, loaded)) = modules.iter().find(|(key, _)| *key == module.key()) {
            return Ok(loaded.clone());
        }
        let ptx = cudarc::nvrtc::Ptx::from_src(module.ptx);
        let cuda_module = self.context.load_module(ptx).map_err(|e| Error::Module {
            module: module.crate_name,
            message: format!(
                "the driver rejected the PTX ({}); the GPU may be older than the PTX's target architecture (FERROCUDA_ARCH at build time)",
                Error::driver("cuModuleLoadData", e)
            ),
        })?;
        let panic_record = match cuda_module.get_global(PANIC_RECORD_SYMBOL, &self.default_stream) {
            Ok(view) if view.len() == std::mem::size_of::<PanicRecord>() => {
                use cudarc::driver::DevicePtr;
                Some(view.device_ptr(&self.default_stream).0)
            }
            _ => None,
        };
        let loaded = Arc::new(LoadedModule {
            module: cuda_module,
            panic_record,
        });
        modules.push((module.key(), loaded.clone()));
        Ok(loaded)
    }

    /// The kernel's function on this device, loaded on first use.
    pub fn function(
        &self,
        device_id: u64,
        info: &'static KernelInfo,
    ) -> Result<Arc<LoadedFunction>> {
        let mut loaded = info.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, f)) = loaded.iter().find(|(id, _)| *id == device_id) {
            return Ok(f.clone());
        }
        let module = self.module(info.module)?;
        let function = module
            .module
            .load_function(info.name)
            .map_err(|e| Error::Module {
                module: info.module.crate_name,
                message: format!(
                    "kernel `{}` is not in the module ({})",
                    info.name,
                    Error::driver("cuModuleGetFunction", e)
                ),
            })?;
        let get = |attr| unsafe {
            result::function::get_function_attribute(function.cu_function(), attr)
                .map(|v| v as u32)
                .map_err(driver("cuFuncGetAttribute"))
        };
        use CUfunction_attribute::*;
        let f = Arc::new(LoadedFunction {
            max_threads_per_block: get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            registers: get(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            dynamic_shared_allowed: AtomicU32::new(get(
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            )?),
            function,
        });
        loaded.push((device_id, f.clone()));
        Ok(f)
    }

    /// Reads and clears the panic records of every loaded module; returns the first panic.
    pub fn take_panic(&self, kernels: &str) -> Result<Option<KernelPanic>> {
        let modules: Vec<Arc<LoadedModule>> = self
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, m)| m.clone())
            .collect();
        let mut found = None;
        for module in modules {
            let Some(address) = module.panic_record else {
                continue;
            };
            let mut record = [PanicRecord::default()];
            self.context
                .bind_to_thread()
                .map_err(driver("cuCtxSetCurrent"))?;
            unsafe { result::memcpy_dtoh_sync(&mut record, address) }
                .map_err(driver("cuMemcpyDtoH"))?;
            let record = record[0];
            if record.state == PANIC_STATE_EMPTY {
                continue;
            }
            unsafe { result::memcpy_htod_sync(address, &[PanicRecord::default()]) }
                .map_err(driver("cuMemcpyHtoD"))?;
            if found.is_some() {
                continue;
            }
            let file = self.read_string(record.file_ptr, record.file_len)?;
            let message = if record.message_ptr == 0 {
                FORMATTED_MESSAGE.to_string()
            } else {
                self.read_string(record.message_ptr, record.message_len)?
            };
            found = Some(KernelPanic {
                kernel: kernels.to_string(),
                message,
                file,
                line: record.line,
                column: record.column,
                block: Dim3::new(record.block[0], record.block[1], record.block[2]),
                thread: Dim3::new(record.thread[0], record.thread[1], record.thread[2]),
                other_panics: record.others,
            });
        }
        Ok(found)
    }

    fn read_string(&self, address: u64, len: u64) -> Result<String> {
        if address == 0 || len == 0 || len > 4096 {
            return Ok(String::from("<unknown>"));
        }
        let mut bytes = vec![0u8; len as usize];
        unsafe { result::memcpy_dtoh_sync(&mut bytes, address) }.map_err(driver("cuMemcpyDtoH"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}
