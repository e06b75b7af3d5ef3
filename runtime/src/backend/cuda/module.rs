//! PTX modules and kernel functions on one GPU, loaded on first use and cached for the life of
//! the device; the device panic records of the loaded modules; constant-memory symbols.
//!
//! A module is loaded from the cubin that suits the GPU when its build made one, else from its
//! PTX ([`module_choice`] decides; `FERROCUDA_MODULE_LOAD` overrides), and remembers which
//! ([`LoadedModule::format`]).
//!
//! Panic records: each module has `PANIC_SLOTS` records and a `u32` epoch the device increments
//! after completing one. [`ModuleCache::take_panics`] reads a module's epoch (4 bytes) and, only
//! when it changed since the synchronizing host thread last looked, the records, handing each
//! record's launch token to the caller, which says whether to claim it (report and clear),
//! keep it for a later synchronization of the same thread, clear it as abandoned, or leave it
//! to another thread.

use super::driver::{driver, driver_error};
use super::module_choice::{self, LOAD_MODE_ENV, LoadMode, LoadPlan};
use crate::Dim3;
use crate::device::panic::{
    PANIC_EPOCH_SYMBOL, PANIC_RECORD_SYMBOL, PANIC_SLOTS, PANIC_STATE_COMPLETE, PanicRecord,
};
use crate::vocabulary::entry_test::{EntryTest, entry_test_of};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::kernel::{KernelInfo, ModuleFormat, PtxModule};
use crate::vocabulary::panic_report::{
    Claim, FORMATTED_MESSAGE, KernelPanic, SeenEpochs, check_message,
};
use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DevicePtr, result};
use std::sync::atomic::AtomicU32;
use std::sync::{Arc, Mutex};

/// What one GPU has loaded: PTX modules and kernel functions, for the life of the device.
#[derive(Default)]
pub(crate) struct ModuleCache {
    /// PTX modules loaded so far, by the address of their `PtxModule` static.
    modules: Mutex<Vec<(usize, Arc<LoadedModule>)>>,
    /// Kernel functions loaded so far, sorted by the address of their `KernelInfo` static.
    functions: Mutex<Vec<(usize, Arc<LoadedFunction>)>>,
}

/// A PTX module loaded on one device.
pub(crate) struct LoadedModule {
    /// The driver's module.
    pub(crate) module: Arc<CudaModule>,
    /// The module's panic records and epoch, if the module has them.
    pub(crate) panic_records: Option<PanicSymbols>,
    /// Which image was loaded: a cubin (which) or the PTX.
    pub(crate) format: ModuleFormat,
}

/// Device addresses of a module's panic globals.
#[derive(Clone, Copy)]
pub(crate) struct PanicSymbols {
    /// `[PanicRecord; PANIC_SLOTS]`.
    records: u64,
    /// The `u32` epoch.
    epoch: u64,
}

/// A kernel function loaded on one device, with the attributes launches are checked against.
pub(crate) struct LoadedFunction {
    /// The driver's function.
    pub(crate) function: CudaFunction,
    /// The most threads per block this kernel can run with (limited by its registers).
    pub(crate) max_threads_per_block: u32,
    /// Registers per thread.
    pub(crate) registers: u32,
    /// Static shared memory per block, in bytes.
    pub(crate) static_shared_bytes: u32,
    /// The dynamic shared memory the function is currently allowed (raised on demand).
    pub(crate) dynamic_shared_allowed: AtomicU32,
    /// The test of its parameters that chooses its fast copy, when nvptx-builder versioned it
    /// and noted the test in the PTX: a launch whose parameters pass it sets
    /// `ENTRY_TEST_TOKEN_BIT` in its token, sparing each thread the test.
    pub(crate) entry_test: Option<EntryTest>,
    /// The size in bytes of each parameter the PTX entry declares, when the module's PTX
    /// declares the entry readably: every launch's parameter buffer must have exactly these
    /// (a parameter the host writes and the entry lacks would shift every later one).
    pub(crate) param_sizes: Option<Box<[u32]>>,
}

impl ModuleCache {
    /// The module, loaded in `context` on first use and cached for the life of the device.
    pub(crate) fn module(
        &self,
        context: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        module: &'static PtxModule,
    ) -> Result<Arc<LoadedModule>> {
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, loaded)) = modules.iter().find(|(key, _)| *key == module.key()) {
            return Ok(loaded.clone());
        }
        let (cuda_module, format) = load_image(context, module)?;
        let records = match cuda_module.get_global(PANIC_RECORD_SYMBOL, stream) {
            Ok(view) if view.len() == PANIC_SLOTS * size_of::<PanicRecord>() => {
                Some(view.device_ptr(stream).0)
            }
            _ => None,
        };
        let epoch = match cuda_module.get_global(PANIC_EPOCH_SYMBOL, stream) {
            Ok(view) if view.len() == size_of::<u32>() => Some(view.device_ptr(stream).0),
            _ => None,
        };
        let panic_records = records
            .zip(epoch)
            .map(|(records, epoch)| PanicSymbols { records, epoch });
        let loaded = Arc::new(LoadedModule {
            module: cuda_module,
            panic_records,
            format,
        });
        modules.push((module.key(), loaded.clone()));
        Ok(loaded)
    }

    /// How `module` was loaded on this device; `None` before its first use here.
    pub(crate) fn format_of(&self, module: &'static PtxModule) -> Option<ModuleFormat> {
        let modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        modules
            .iter()
            .find(|(key, _)| *key == module.key())
            .map(|(_, loaded)| loaded.format)
    }

    /// The kernel's function on this device, loaded on first use. The cache is sorted by the
    /// address of the kernel's static description, so a launch finds its function with a
    /// binary search under one uncontended lock.
    #[inline]
    pub(crate) fn function(
        &self,
        context: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        info: &'static KernelInfo,
    ) -> Result<Arc<LoadedFunction>> {
        let key = info.key();
        let mut functions = self.functions.lock().unwrap_or_else(|e| e.into_inner());
        match functions.binary_search_by_key(&key, |(k, _)| *k) {
            Ok(found) => Ok(functions[found].1.clone()),
            Err(slot) => {
                let loaded = Arc::new(self.load_function(context, stream, info)?);
                functions.insert(slot, (key, loaded.clone()));
                Ok(loaded)
            }
        }
    }

    /// Loads the kernel's function and reads its attributes.
    #[cold]
    fn load_function(
        &self,
        context: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        info: &'static KernelInfo,
    ) -> Result<LoadedFunction> {
        let module = self.module(context, stream, info.module)?;
        let function = module
            .module
            .load_function(info.name)
            .map_err(|e| Error::Module {
                module: info.module.crate_name,
                message: format!(
                    "kernel `{}` is not in the module ({})",
                    info.name,
                    driver_error("cuModuleGetFunction", e)
                ),
            })?;
        let get = |attr| {
            // SAFETY: `function` was loaded just above and its module is kept alive by `module`
            // (and by the device's module cache); reading an attribute does not change it.
            unsafe { result::function::get_function_attribute(function.cu_function(), attr) }
                .map(|v| v as u32)
                .map_err(driver("cuFuncGetAttribute"))
        };
        use CUfunction_attribute::*;
        Ok(LoadedFunction {
            max_threads_per_block: get(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            registers: get(CU_FUNC_ATTRIBUTE_NUM_REGS)?,
            static_shared_bytes: get(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)?,
            dynamic_shared_allowed: AtomicU32::new(get(
                CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            )?),
            function,
            entry_test: entry_test_of(info.module.ptx, info.name),
            param_sizes: crate::vocabulary::ptx_entry::entry_param_sizes(
                info.module.ptx,
                info.name,
            )
            .map(Vec::into_boxed_slice),
        })
    }

    /// The device address of the constant-memory symbol `name` of `module`, which must have
    /// `bytes` bytes (`type_name` is the Rust type, for the message when it has not).
    pub(crate) fn constant_address(
        &self,
        context: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
        module: &'static PtxModule,
        name: &'static str,
        bytes: usize,
        type_name: &'static str,
    ) -> Result<u64> {
        let loaded = self.module(context, stream, module)?;
        let view = loaded
            .module
            .get_global(name, stream)
            .map_err(|e| Error::Module {
                module: module.crate_name,
                message: format!(
                    "constant `{name}` is not in the module ({})",
                    driver_error("cuModuleGetGlobal", e)
                ),
            })?;
        if view.len() != bytes {
            return Err(Error::Module {
                module: module.crate_name,
                message: format!(
                    "constant `{name}` has {} bytes in the module but its Rust type `{type_name}` has {bytes}",
                    view.len(),
                ),
            });
        }
        Ok(view.device_ptr(stream).0)
    }

    /// The panics of the loaded modules that `claim` takes, with their tokens; clears those
    /// and the abandoned ones. `seen` holds the epochs the calling thread last read, and is
    /// advanced for each module that holds nothing `claim` keeps. The device's context must be
    /// current.
    pub(crate) fn take_panics(
        &self,
        seen: &mut SeenEpochs,
        claim: &mut dyn FnMut(u64) -> Claim,
    ) -> Result<Vec<(u64, KernelPanic)>> {
        let modules: Vec<(usize, PanicSymbols)> = self
            .modules
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .filter_map(|(key, m)| Some((*key, m.panic_records?)))
            .collect();
        let mut taken = Vec::new();
        for (key, symbols) in modules {
            let mut epoch = [0u32];
            // SAFETY: `symbols.epoch` is the module's `u32` epoch (its size was checked when the
            // module was loaded), and `epoch` has room for one.
            unsafe { result::memcpy_dtoh_sync(&mut epoch, symbols.epoch) }
                .map_err(driver("cuMemcpyDtoH"))?;
            if seen.get(key) == Some(epoch[0]) {
                continue;
            }
            if self.take_module_panics(symbols, claim, &mut taken)? {
                seen.set(key, epoch[0]);
            }
        }
        Ok(taken)
    }

    /// Reads one module's records and acts on each complete one as `claim` says. Returns
    /// whether the module holds no record that `claim` keeps.
    #[cold]
    fn take_module_panics(
        &self,
        symbols: PanicSymbols,
        claim: &mut dyn FnMut(u64) -> Claim,
        taken: &mut Vec<(u64, KernelPanic)>,
    ) -> Result<bool> {
        let mut records = vec![PanicRecord::default(); PANIC_SLOTS];
        // SAFETY: `symbols.records` is the module's record array of `PANIC_SLOTS` records (its
        // size was checked when the module was loaded), and `records` has room for them.
        unsafe { result::memcpy_dtoh_sync(&mut records, symbols.records) }
            .map_err(driver("cuMemcpyDtoH"))?;
        let mut settled = true;
        for (slot, record) in records.iter().enumerate() {
            // A record still being written completes before its epoch increment, which the
            // next look sees.
            if record.state != PANIC_STATE_COMPLETE {
                continue;
            }
            match claim(record.token) {
                Claim::Take(kernel) => {
                    taken.push((record.token, self.panic_of(record, kernel)?));
                    clear_record(symbols, slot)?;
                }
                Claim::Keep => settled = false,
                Claim::Clear => clear_record(symbols, slot)?,
                Claim::Ignore => {}
            }
        }
        Ok(settled)
    }

    /// The host report of a device panic record.
    fn panic_of(&self, record: &PanicRecord, kernel: &str) -> Result<KernelPanic> {
        let file = self.read_string(record.file_ptr, record.file_len)?;
        let message = if let Some(text) = check_message(record.kind, record.operands) {
            text
        } else if record.message_ptr == 0 {
            FORMATTED_MESSAGE.to_string()
        } else {
            self.read_string(record.message_ptr, record.message_len)?
        };
        Ok(KernelPanic {
            kernel: kernel.to_string(),
            message,
            file,
            line: record.line,
            column: record.column,
            block: Dim3::new(record.block[0], record.block[1], record.block[2]),
            thread: Dim3::new(record.thread[0], record.thread[1], record.thread[2]),
            other_panics: record.others,
            other_failed_launches: 0,
        })
    }

    /// A string in device memory (a panic's file or message).
    fn read_string(&self, address: u64, len: u64) -> Result<String> {
        if address == 0 || len == 0 || len > 4096 {
            return Ok(String::from("<unknown>"));
        }
        let mut bytes = vec![0u8; len as usize];
        // SAFETY: the device wrote `len` bytes of a static string at `address` (the panic
        // location's file or a literal message of the loaded module); `bytes` has room for them.
        unsafe { result::memcpy_dtoh_sync(&mut bytes, address) }.map_err(driver("cuMemcpyDtoH"))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// Loads the image of `module` that [`module_choice::plan`] picks for the context's GPU: a cubin
/// (no JIT) or the PTX, which the driver compiles. In `auto` mode a cubin the driver rejects
/// (e.g. one made by a ptxas newer than the driver) falls back to the PTX, and the error, if the
/// PTX fails too, gives both reasons.
fn load_image(
    context: &Arc<CudaContext>,
    module: &'static PtxModule,
) -> Result<(Arc<CudaModule>, ModuleFormat)> {
    let module_error = |message: String| Error::Module {
        module: module.crate_name,
        message,
    };
    let mode = LoadMode::from_env().map_err(module_error)?;
    let (major, minor) = context
        .compute_capability()
        .map_err(driver("cuDeviceGetAttribute"))?;
    let capability = (major as u32, minor as u32);
    let archs: Vec<&str> = module.binaries.iter().map(|(arch, _)| *arch).collect();
    let plan = module_choice::plan(mode, capability, &archs).map_err(module_error)?;
    let cubin_rejected = match plan {
        LoadPlan::Ptx => None,
        LoadPlan::CubinOnly(i) | LoadPlan::CubinThenPtx(i) => {
            let (arch, bytes) = module.binaries[i];
            match context.load_module(cudarc::nvrtc::Ptx::from_binary(bytes.to_vec())) {
                Ok(loaded) => return Ok((loaded, ModuleFormat::Cubin { arch })),
                Err(e) => {
                    let reason = format!(
                        "the driver rejected the {arch} cubin ({})",
                        driver_error("cuModuleLoadData", e)
                    );
                    if plan == LoadPlan::CubinOnly(i) {
                        return Err(module_error(format!(
                            "{reason}; {LOAD_MODE_ENV}=cubin forbids falling back to the PTX"
                        )));
                    }
                    Some(reason)
                }
            }
        }
    };
    let ptx = cudarc::nvrtc::Ptx::from_src(module.ptx);
    match context.load_module(ptx) {
        Ok(loaded) => Ok((loaded, ModuleFormat::Ptx)),
        Err(e) => {
            let mut message = format!(
                "the driver rejected the PTX ({}); the GPU may be older than the PTX's target architecture (FERROCUDA_ARCH at build time)",
                driver_error("cuModuleLoadData", e)
            );
            if let Some(reason) = cubin_rejected {
                message = format!("{reason}, then {message}");
            }
            Err(module_error(message))
        }
    }
}

/// Empties slot `slot` of a module's records (the device's next panic there starts afresh).
fn clear_record(symbols: PanicSymbols, slot: usize) -> Result<()> {
    let address = symbols.records + (slot * size_of::<PanicRecord>()) as u64;
    // SAFETY: `slot < PANIC_SLOTS`, so `address` is one whole record of the module's array.
    unsafe { result::memcpy_htod_sync(address, &[PanicRecord::default()]) }
        .map_err(driver("cuMemcpyHtoD"))
}
