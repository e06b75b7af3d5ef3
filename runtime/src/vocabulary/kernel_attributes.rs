//! [`KernelAttributes`]: what a compiled kernel uses on one device (registers, local, shared
//! and constant memory, spills, the largest block it can run with), like CuPy's
//! `RawKernel.attributes` and Numba's `get_regs_per_thread`.

use crate::vocabulary::limits::Backend;
use crate::vocabulary::ptxas_report::PtxasEntry;

/// What a compiled kernel uses, on one device.
///
/// On a GPU the driver reports the resources of the code it loaded (`cuFuncGetAttribute`), so
/// every field but the spills is `Some`. On the simulator, which runs the Rust source, they come
/// from the `ptxas -v` report the kernel crate's build kept, and are `None` when the build had no
/// `ptxas`. Spills come from that report on both backends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelAttributes {
    /// The kernel's PTX entry name.
    pub name: &'static str,
    /// The backend the numbers are for.
    pub backend: Backend,
    /// Registers per thread.
    pub registers: Option<u32>,
    /// Local memory per thread (the stack frame), in bytes.
    pub local_bytes: Option<u32>,
    /// Static shared memory per block, in bytes.
    pub static_shared_bytes: Option<u32>,
    /// User constant memory the kernel uses, in bytes (the driver's count; `None` on the
    /// simulator).
    pub constant_bytes: Option<u32>,
    /// The most threads per block the kernel can be launched with on this device (limited by
    /// its registers on a GPU; the simulator's limit there).
    pub max_threads_per_block: u32,
    /// The driver's `CU_FUNC_ATTRIBUTE_PTX_VERSION` of the function: the PTX virtual
    /// architecture it was compiled for, as `major * 10 + minor` (driver only).
    pub ptx_version: Option<u32>,
    /// The binary architecture of the loaded code, as `major * 10 + minor`, e.g. 90 for sm_90
    /// (driver only).
    pub binary_version: Option<u32>,
    /// Bytes stored by register spills per thread, from the build's `ptxas -v` report.
    pub spill_store_bytes: Option<u32>,
    /// Bytes loaded by register spills per thread, from the build's `ptxas -v` report.
    pub spill_load_bytes: Option<u32>,
    /// The architecture the build's `ptxas -v` report was made for, e.g. `sm_90`, which the
    /// spill counts (and on the simulator every count) describe.
    pub report_arch: Option<String>,
}

impl KernelAttributes {
    /// Attributes known only from the build's report (the simulator's), with
    /// `max_threads_per_block` as the device's limit.
    pub(crate) fn from_report(
        name: &'static str,
        backend: Backend,
        entry: Option<&PtxasEntry>,
        max_threads_per_block: u32,
    ) -> KernelAttributes {
        KernelAttributes {
            name,
            backend,
            registers: entry.and_then(|e| e.registers),
            local_bytes: entry.and_then(|e| e.stack_frame_bytes),
            static_shared_bytes: entry.and_then(|e| e.shared_bytes),
            constant_bytes: None,
            max_threads_per_block,
            ptx_version: None,
            binary_version: None,
            spill_store_bytes: entry.and_then(|e| e.spill_store_bytes),
            spill_load_bytes: entry.and_then(|e| e.spill_load_bytes),
            report_arch: entry.map(|e| e.arch.clone()),
        }
    }
}

impl std::fmt::Display for KernelAttributes {
    /// `vecadd: 26 registers, 32 B local, 16 B static shared, 0 B constant, 0/0 B spill
    /// stores/loads, at most 1024 threads per block`, with `?` for what is unknown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let show = |v: Option<u32>| v.map_or_else(|| "?".to_string(), |v| v.to_string());
        write!(
            f,
            "{}: {} registers, {} B local, {} B static shared, {} B constant, {}/{} B spill stores/loads, at most {} threads per block",
            self.name,
            show(self.registers),
            show(self.local_bytes),
            show(self.static_shared_bytes),
            show(self.constant_bytes),
            show(self.spill_store_bytes),
            show(self.spill_load_bytes),
            self.max_threads_per_block
        )
    }
}
