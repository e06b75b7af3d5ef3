//! What a launch does on a GPU, start to end: find the kernel's function on this device (loaded
//! on first use), check the shape against what the compiled kernel allows (registers, static
//! shared memory), opt in to more dynamic shared memory when asked, make the context current,
//! and call `cuLaunchKernel` (`cuLaunchCooperativeKernel` for `#[kernel(cooperative)]`) with
//! the parameter pointers, on the given stream or the legacy
//! default stream. The launch is asynchronous: panics are collected at the next synchronization
//! ([`CudaDevice::take_panics`]).
//!
//! The hot path (a cached function, a shape within limits) takes one uncontended lock, one
//! binary search and one `Arc` clone, allocates nothing and makes one driver call besides the
//! launch (`cuCtxGetCurrent`, which the driver answers from thread-local state); a versioned
//! kernel's entry test is answered from its memo when the parameters it reads (and the grid,
//! for a test of block indices) are those of the previous launch, else evaluated on them (a
//! few dozen integer operations, at most once per corner of the grid when it reads block
//! indices, see `vocabulary/entry_test/`), and when it holds, `ENTRY_TEST_TOKEN_BIT` is set in
//! the token.

use super::CudaDevice;
use super::driver::driver;
use super::module::LoadedFunction;
use super::stream::CudaStreamHandle;
use crate::device::panic::ENTRY_TEST_TOKEN_BIT;
use crate::vocabulary::error::{LaunchError, Result, shape};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::limits::DeviceLimits;
use crate::vocabulary::params::ParamBuffer;
use crate::vocabulary::shape::LaunchShape;
use cudarc::driver::result;
use cudarc::driver::sys::CUfunction_attribute;
use std::sync::atomic::Ordering;

impl CudaDevice {
    /// Launches `info` with `launch` on `stream` (`None`: the legacy default stream). The shape
    /// is already checked against the device's limits; `device` names the device in messages.
    #[inline]
    pub(crate) fn launch(
        &self,
        info: &'static KernelInfo,
        launch: &LaunchShape,
        stream: Option<&CudaStreamHandle>,
        params: &mut ParamBuffer,
        limits: &DeviceLimits,
        device: &str,
    ) -> Result<()> {
        let function = self.function(info)?;
        check_function(launch, info, &function, limits, device)?;
        if let Some(sizes) = &function.param_sizes
            && params.sizes() != &sizes[..]
        {
            return Err(parameter_mismatch(info, sizes, params.sizes()));
        }
        // The kernel's test of its parameters, done here once instead of in every thread; the
        // token (the last parameter) tells the kernel it held.
        if let Some(test) = &function.entry_test
            && test.holds(params, [launch.grid.x, launch.grid.y, launch.grid.z])
        {
            params.or_into_last(ENTRY_TEST_TOKEN_BIT);
        }
        allow_dynamic_shared(launch.shared_mem_bytes, &function)?;
        self.bind()?;
        let mut pointers = params.pointers();
        let (g, b) = (launch.grid, launch.block);
        let raw_stream = match stream {
            Some(stream) => stream.stream.cu_stream(),
            None => self.default_stream.cu_stream(),
        };
        // A cooperative kernel's grid was checked to fit on the device at once
        // (`launch/cooperative.rs`); the driver refuses it otherwise.
        if info.cooperative {
            // SAFETY: as for `cuLaunchKernel` below.
            return unsafe {
                result::launch_cooperative_kernel(
                    function.function.cu_function(),
                    (g.x, g.y, g.z),
                    (b.x, b.y, b.z),
                    launch.shared_mem_bytes,
                    raw_stream,
                    &mut pointers,
                )
            }
            .map_err(driver("cuLaunchCooperativeKernel"));
        }
        // SAFETY: the parameters match the kernel's entry (both generated from one model), and
        // every slice points into a live allocation of this device that outlives the launch:
        // buffers are borrowed for the call, uploads are freed stream-ordered after the kernel.
        // `function` belongs to this context, made current above, and `raw_stream` is a live
        // stream of it (the caller holds its handle).
        unsafe {
            result::launch_kernel(
                function.function.cu_function(),
                (g.x, g.y, g.z),
                (b.x, b.y, b.z),
                launch.shared_mem_bytes,
                raw_stream,
                &mut pointers,
            )
        }
        .map_err(driver("cuLaunchKernel"))
    }
}

/// The error of a launch whose parameter buffer does not have the bytes the PTX entry declares
/// (what the driver would read shifted or cut): both lists, for a bug report.
#[cold]
fn parameter_mismatch(
    info: &'static KernelInfo,
    declared: &[u32],
    written: &[u32],
) -> crate::vocabulary::error::Error {
    LaunchError::new(
        info.name,
        format!(
            "the launch wrote {} parameters of {written:?} bytes but the kernel's PTX entry declares {} of {declared:?} bytes; the launch was not made (the kernel's module and its Rust declaration disagree: rebuild the kernel crate, and report it if it persists)",
            written.len(),
            declared.len(),
        ),
    )
    .into()
}

/// Checks what depends on the compiled kernel: registers and static shared memory.
#[inline]
fn check_function(
    launch: &LaunchShape,
    info: &'static KernelInfo,
    function: &LoadedFunction,
    limits: &DeviceLimits,
    device: &str,
) -> Result<()> {
    let threads = launch.block.product();
    if threads > function.max_threads_per_block as u64 {
        return Err(LaunchError::new(
            info.name,
            format!(
                "block of {threads} threads ({}) exceeds this kernel's limit of {} threads per block (it uses {} registers per thread)",
                shape(launch.block),
                function.max_threads_per_block,
                function.registers
            ),
        )
        .into());
    }
    let optin = limits.max_shared_memory_per_block_optin;
    let total = function.static_shared_bytes as u64 + launch.shared_mem_bytes as u64;
    if total > optin as u64 {
        return Err(LaunchError::new(
            info.name,
            format!(
                "{} bytes of dynamic shared memory plus {} bytes of static shared memory exceed the limit of {optin} bytes per block on {device}",
                launch.shared_mem_bytes, function.static_shared_bytes,
            ),
        )
        .into());
    }
    Ok(())
}

/// Above 48 KiB a kernel must opt in to more dynamic shared memory: raises the function's
/// allowance when a launch (or an occupancy question) asks for more than it has. The caller has
/// checked `shared_mem_bytes` against the device's opt-in limit.
#[inline]
pub(super) fn allow_dynamic_shared(shared_mem_bytes: u32, function: &LoadedFunction) -> Result<()> {
    if shared_mem_bytes <= function.dynamic_shared_allowed.load(Ordering::Relaxed) {
        return Ok(());
    }
    // SAFETY: the function is loaded and alive (the caller holds it); the value was checked
    // against the device's opt-in limit.
    unsafe {
        result::function::set_function_attribute(
            function.function.cu_function(),
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            shared_mem_bytes as i32,
        )
    }
    .map_err(driver("cuFuncSetAttribute"))?;
    function
        .dynamic_shared_allowed
        .fetch_max(shared_mem_bytes, Ordering::Relaxed);
    Ok(())
}
