//! The driver library, checked before the first driver call: is every entry point ferrocuda
//! calls there, and is the driver new enough?
//!
//! cudarc loads `libcuda.so` lazily and resolves each entry point on its first call; a missing
//! one is a `panic!` ("Missing symbol ...") deep inside a driver call. A broken or partial
//! `libcuda.so` (a container's stub, a driver older than the bindings) would then abort the
//! program instead of letting [`Device::default_device`] fall back to the simulator. So
//! [`check`] looks every symbol of [`DRIVER_ENTRY_POINTS`] up in the loaded library first, and
//! reads the driver's version, and turns what is wrong into one [`Error::DriverIncompatible`].
//!
//! The runtime binds cudarc's `cuda-12000` API level (the root `Cargo.toml`): every entry point
//! below exists in CUDA 12.0 drivers (R525), so no call needs a version guard. Newer bindings
//! renamed some (`cuda-12080` and later call `cuEventElapsedTime_v2`, which R535 and R550
//! drivers lack).
//!
//! [`Device::default_device`]: crate::Device::default_device

use crate::vocabulary::driver_requirement::{MINIMUM_DRIVER_VERSION, split_version};
use crate::vocabulary::error::{Error, Result};
use cudarc::driver::sys;
use std::sync::OnceLock;

/// Every driver entry point ferrocuda reaches, with the cudarc call that reaches it.
///
/// Derived from the calls in this folder: each `result::` function (see `result.rs` of cudarc
/// for the `sys::` symbol it calls; a test checks that each one used here is listed) and each
/// method of cudarc's safe layer (`CudaContext`, `CudaStream`, `CudaEvent`, `CudaSlice`,
/// `CudaModule`, including their `Drop`s). Names are those of the `cuda-12000` bindings.
pub(crate) const DRIVER_ENTRY_POINTS: &[(&str, &str)] = &[
    ("cuDriverGetVersion", "driver_library::check"),
    ("cuGetErrorName", "DriverError::error_name"),
    ("cuGetErrorString", "DriverError::error_string"),
    ("cuInit", "result::init, CudaContext::new"),
    ("cuDeviceGetCount", "result::device::get_count"),
    ("cuDeviceGet", "CudaContext::new"),
    (
        "cuDeviceGetAttribute",
        "CudaContext::new, attribute, compute_capability",
    ),
    ("cuDeviceGetName", "CudaContext::name"),
    ("cuDeviceTotalMem_v2", "CudaContext::total_mem"),
    ("cuDevicePrimaryCtxRetain", "CudaContext::new"),
    ("cuDevicePrimaryCtxRelease_v2", "Drop for CudaContext"),
    ("cuCtxGetCurrent", "CudaContext::bind_to_thread"),
    ("cuCtxSetCurrent", "CudaContext::bind_to_thread"),
    ("cuCtxSynchronize", "CudaContext::synchronize"),
    ("cuMemGetInfo_v2", "CudaContext::mem_get_info"),
    ("cuStreamCreate", "result::stream::create"),
    ("cuStreamDestroy_v2", "result::stream::destroy"),
    ("cuStreamSynchronize", "CudaStream::synchronize"),
    ("cuStreamWaitEvent", "CudaStream::wait"),
    (
        "cuEventCreate",
        "CudaContext::new_event, CudaStream::record_event",
    ),
    (
        "cuEventRecord",
        "CudaEvent::record, CudaStream::record_event",
    ),
    ("cuEventSynchronize", "CudaEvent::synchronize, elapsed_ms"),
    ("cuEventQuery", "CudaEvent::try_is_complete"),
    ("cuEventElapsedTime", "CudaEvent::elapsed_ms"),
    ("cuEventDestroy_v2", "Drop for CudaEvent"),
    ("cuMemAlloc_v2", "CudaStream::alloc (no memory pools)"),
    ("cuMemAllocAsync", "CudaStream::alloc (memory pools)"),
    ("cuMemFree_v2", "Drop for CudaSlice (no memory pools)"),
    ("cuMemFreeAsync", "Drop for CudaSlice (memory pools)"),
    ("cuMemsetD8Async", "CudaStream::alloc_zeros"),
    ("cuMemcpyHtoD_v2", "result::memcpy_htod_sync"),
    ("cuMemcpyDtoH_v2", "result::memcpy_dtoh_sync"),
    ("cuMemcpyHtoDAsync_v2", "result::memcpy_htod_async"),
    ("cuMemcpyDtoHAsync_v2", "result::memcpy_dtoh_async"),
    ("cuMemHostAlloc", "result::malloc_host"),
    ("cuMemFreeHost", "result::free_host"),
    (
        "cuModuleLoadData",
        "CudaContext::load_module (cubins and PTX)",
    ),
    ("cuModuleUnload", "Drop for CudaModule"),
    ("cuModuleGetFunction", "CudaModule::load_function"),
    ("cuModuleGetGlobal_v2", "CudaModule::get_global"),
    (
        "cuFuncGetAttribute",
        "result::function::get_function_attribute",
    ),
    (
        "cuFuncSetAttribute",
        "result::function::set_function_attribute",
    ),
    ("cuLaunchKernel", "result::launch_kernel"),
    (
        "cuLaunchCooperativeKernel",
        "result::launch_cooperative_kernel",
    ),
    (
        "cuTensorMapEncodeTiled",
        "sys::cuTensorMapEncodeTiled (CudaDevice::encode_tensor_map)",
    ),
    ("cuStreamBeginCapture_v2", "result::stream::begin_capture"),
    ("cuStreamEndCapture", "result::stream::end_capture"),
    ("cuGraphInstantiateWithFlags", "result::graph::instantiate"),
    ("cuGraphLaunch", "result::graph::launch"),
    (
        "cuGraphExecUpdate_v2",
        "sys::cuGraphExecUpdate_v2 (CudaGraphExec::update)",
    ),
    ("cuGraphDestroy", "result::graph::destroy"),
    ("cuGraphExecDestroy", "result::graph::exec_destroy"),
    ("cuMemcpyDtoDAsync_v2", "result::memcpy_dtod_async"),
    (
        "cuOccupancyMaxActiveBlocksPerMultiprocessor",
        "result::occupancy::max_active_block_per_multiprocessor",
    ),
    (
        "cuOccupancyMaxPotentialBlockSize",
        "result::occupancy::max_potential_block_size",
    ),
    (
        "cuDeviceCanAccessPeer",
        "sys::cuDeviceCanAccessPeer (CudaDevice::can_access_peer)",
    ),
    (
        "cuCtxEnablePeerAccess",
        "sys::cuCtxEnablePeerAccess (CudaDevice::enable_peer_access)",
    ),
    ("cuMemcpyPeerAsync", "result::memcpy_peer_async"),
];

/// What [`check`] found wrong, kept for the process (the library never changes once loaded).
struct Incompatibility {
    library: String,
    driver_version: Option<(u32, u32)>,
    missing: Vec<&'static str>,
}

/// Checks the driver library before the first driver call: `Ok` when it exports every entry
/// point of [`DRIVER_ENTRY_POINTS`] and is CUDA 12.0 or newer, else
/// [`Error::DriverIncompatible`]. The library must be present (`is_culib_present`). Looks once
/// per process.
pub(crate) fn check() -> Result<()> {
    static FOUND: OnceLock<Option<Incompatibility>> = OnceLock::new();
    match FOUND.get_or_init(inspect) {
        None => Ok(()),
        Some(found) => Err(Error::DriverIncompatible {
            library: found.library.clone(),
            driver_version: found.driver_version,
            missing: found.missing.clone(),
        }),
    }
}

/// Loads the library and looks at it.
fn inspect() -> Option<Incompatibility> {
    // SAFETY: the caller saw `is_culib_present()`, so `culib` finds a library instead of
    // panicking; loading it runs only its initialisers, as any dlopen of the driver does.
    let library = unsafe { sys::culib() };
    let missing: Vec<&'static str> = DRIVER_ENTRY_POINTS
        .iter()
        .map(|(name, _)| *name)
        // SAFETY: only looks the symbol up (dlsym); the pointer is dropped unused, never called.
        .filter(|name| unsafe { library.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err())
        .collect();
    let driver_version = if missing.contains(&"cuDriverGetVersion") {
        None
    } else {
        driver_version()
    };
    let too_old = driver_version.is_some_and(|v| v < split_version(MINIMUM_DRIVER_VERSION));
    if missing.is_empty() && !too_old {
        return None;
    }
    Some(Incompatibility {
        library: library_path(),
        driver_version,
        missing,
    })
}

/// The driver's CUDA version as `(major, minor)`; `None` when the call fails.
fn driver_version() -> Option<(u32, u32)> {
    let mut version = 0;
    // SAFETY: the library exports `cuDriverGetVersion` (checked by the caller), which may be
    // called before `cuInit` and only writes one `int`.
    let status = unsafe { sys::cuDriverGetVersion(&mut version) };
    (status == sys::CUresult::CUDA_SUCCESS && version > 0).then(|| split_version(version as u32))
}

/// The path of the loaded driver library, read from the process's memory map; cudarc's first
/// candidate name (`libcuda.so`) where the map cannot be read.
fn library_path() -> String {
    let candidates = cudarc::get_lib_name_candidates("cuda");
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .find(|path| {
            let file = path.rsplit('/').next().unwrap_or(path);
            candidates.iter().any(|c| c == file)
        })
        .map(str::to_string)
        .unwrap_or_else(|| candidates.first().cloned().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::DRIVER_ENTRY_POINTS;

    /// The `result::` calls of one source text, e.g. `result::stream::create`.
    fn result_calls(source: &str) -> Vec<String> {
        let mut calls = Vec::new();
        for (at, _) in source.match_indices("result::") {
            let path: String = source[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let rest = &source[at + path.len()..];
            let is_call = rest.starts_with('(');
            let is_type = path
                .rsplit("::")
                .next()
                .is_some_and(|l| l.starts_with(char::is_uppercase));
            if is_call && !is_type {
                calls.push(path);
            }
        }
        calls
    }

    #[test]
    fn every_result_call_of_the_cuda_backend_is_in_the_table() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/backend/cuda");
        let listed: Vec<&str> = DRIVER_ENTRY_POINTS.iter().map(|(_, via)| *via).collect();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let source = std::fs::read_to_string(&path).unwrap();
            for call in result_calls(&source) {
                assert!(
                    listed.iter().any(|via| via
                        .split(", ")
                        .any(|v| v == call || v.starts_with(&format!("{call} ")))),
                    "{} calls `{call}`, which DRIVER_ENTRY_POINTS in driver_library.rs does not list: add the driver symbol it calls (cudarc's result.rs names it, for the cuda-12000 bindings)",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn the_table_is_for_the_bound_api_level() {
        let manifest =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../Cargo.toml")).unwrap();
        let cudarc = manifest
            .lines()
            .find(|l| l.starts_with("cudarc"))
            .expect("the root Cargo.toml names cudarc");
        assert!(
            cudarc.contains("\"cuda-12000\""),
            "the root Cargo.toml binds another CUDA API level than cuda-12000 ({cudarc}): DRIVER_ENTRY_POINTS lists the symbols of the cuda-12000 bindings (a newer level renames some, e.g. cuEventElapsedTime_v2 from cuda-12080) and the README states CUDA 12.0 as the minimum driver; update both"
        );
    }

    #[test]
    fn no_entry_point_is_newer_than_cuda_12_0() {
        for (name, _) in DRIVER_ENTRY_POINTS {
            assert!(
                !matches!(
                    *name,
                    "cuEventElapsedTime_v2" | "cuCtxSynchronize_v2" | "cuCtxCreate_v4"
                ),
                "{name} needs a driver newer than CUDA 12.0"
            );
        }
        let mut names: Vec<_> = DRIVER_ENTRY_POINTS.iter().map(|(n, _)| n).collect();
        names.sort();
        names.dedup();
        assert_eq!(
            names.len(),
            DRIVER_ENTRY_POINTS.len(),
            "a symbol is listed twice"
        );
    }
}
