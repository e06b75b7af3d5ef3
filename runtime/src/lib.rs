//! ferrocuda: GPU kernels written as ordinary Rust functions, launched like Numba's `@cuda.jit`.
//!
//! ```ignore
//! // In a kernel crate (compiled to PTX by `nvptx-builder` from its build.rs):
//! use ferrocuda::prelude::*;
//!
//! #[kernel]
//! pub fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
//!     let i = grid!(1);
//!     if i < c.len() {
//!         c[i] = a[i] + b[i];
//!     }
//! }
//!
//! // On the host:
//! let device = Device::default_device()?;
//! let a = DeviceBuffer::from_slice(&device, &a_host)?;
//! let b = DeviceBuffer::from_slice(&device, &b_host)?;
//! let mut c = DeviceBuffer::<f32>::zeros(&device, n)?;
//! launch!(vecadd[n.div_ceil(256), 256](&a, &b, &mut c))?;  // or: vecadd.forall(n).launch(...)
//! let c_host = c.to_vec()?;
//! ```
//!
//! The crate is the one dependency of both sides. Compiled for `nvptx64-nvidia-cuda` it is
//! `no_std` and only re-exports the device API ([`device`]) and the macros; compiled for the host
//! it adds the runtime: [`Device`], [`DeviceBuffer`], [`Stream`], [`Event`], typed launches, error
//! reporting, and the CPU simulator that runs kernels when no GPU is present.
//!
//! # How the crate is built
//!
//! The host runtime is four layers, each a folder of `src/`, and each imports only the layers
//! before it (`runtime/tests/layers.rs` checks this, and that the file graph has no cycle):
//!
//! 1. `vocabulary/`: errors ([`Error`], [`SimulatorFault`], [`KernelPanic`]), [`DeviceLimits`],
//!    kernel descriptors, the launch shape and its validation, the parameter buffer.
//! 2. `backend/`: one enum, `DeviceBackend`, with one method per device operation, over the
//!    CUDA backend (`backend/cuda/`, the only code that names cudarc) and the CPU simulator
//!    (`backend/simulator/`).
//! 3. `handles/`: [`Device`], [`DeviceBuffer`], [`PinnedBuffer`], [`Stream`], [`Event`],
//!    [`ConstantSymbol`], CUDA graphs ([`Graph`], [`GraphExec`]); they call the backend and never
//!    ask which one it is.
//! 4. `launch/`: [`LaunchConfig`], argument binding ([`KernelArg`]), the launch, kernel
//!    inspection and occupancy ([`InspectKernel`]), [`bench()`].
//!
//! To see what a launch does on a GPU, read `backend/cuda/launch.rs`.
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub use ferrocuda_device as device;
pub use ferrocuda_device::{DeviceCopy, Dim3, grid, gridsize};
pub use ferrocuda_macros::{DeviceCopy, elementwise, kernel, reduction};
pub use ferrocuda_macros::{constant, gpu_print, gpu_println};

#[cfg(not(target_arch = "nvptx64"))]
mod backend;
#[cfg(not(target_arch = "nvptx64"))]
mod handles;
#[cfg(not(target_arch = "nvptx64"))]
mod launch;
#[cfg(not(target_arch = "nvptx64"))]
mod vocabulary;

#[cfg(not(target_arch = "nvptx64"))]
pub use {
    handles::buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut},
    handles::collectives::Communicator,
    handles::constant::ConstantSymbol,
    handles::device::Device,
    handles::event::Event,
    handles::graph::{Graph, GraphExec},
    handles::multi_device::{
        DEFAULT_SIMULATED_DEVICES, MAX_SIMULATED_DEVICES, SIMULATED_DEVICES_ENV,
    },
    handles::pinned::PinnedBuffer,
    handles::stream::Stream,
    handles::tensor_map::TensorMap2d,
    launch::args::KernelArg,
    launch::bench::{BenchReport, BenchTarget, bench},
    launch::config::LaunchConfig,
    launch::generated::{ElementSlice, ElementSliceMut},
    launch::inspect::InspectKernel,
    vocabulary::allocation_failure::{InjectedAllocationFailure, fail_allocation_after},
    vocabulary::collective::{CollectiveElement, ElementType, ReduceOp},
    vocabulary::copy_route::CopyRoute,
    vocabulary::entry_test::entry_test_holds,
    vocabulary::error::{Error, LaunchError, Result},
    vocabulary::fast_math::FastMath,
    vocabulary::fault::{
        BlockGroup, SharedAccess, SharedMemoryKind, SimulatorFault, SourceSite, ThreadActivity,
        ThreadGroup,
    },
    vocabulary::kernel::{Kernel, ModuleFormat},
    vocabulary::kernel_attributes::KernelAttributes,
    vocabulary::limits::{Backend, DeviceLimits},
    vocabulary::occupancy::{MultiprocessorLimits, Occupancy, OccupancyLimit},
    vocabulary::panic_report::KernelPanic,
    vocabulary::ptxas_report::{PtxasEntry, parse_ptxas_report},
    vocabulary::shape::{IntoDim3, LaunchInt},
    vocabulary::tensor_map::{
        TENSOR_MAP_MAX_BOX, TensorElement, TensorElementType, TensorMapError, TiledTensor2d,
    },
};

/// Re-export of `cudarc`, for users who need the driver API directly.
#[cfg(not(target_arch = "nvptx64"))]
pub use cudarc;

/// Everything a kernel crate or a host program usually needs: `use ferrocuda::prelude::*`.
pub mod prelude {
    pub use crate::device::prelude::*;
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::{BenchReport, PinnedBuffer, bench};
    #[cfg(not(target_arch = "nvptx64"))]
    pub use crate::{
        Device, DeviceBuffer, Error, Event, InspectKernel, Kernel, LaunchConfig, Stream, launch,
    };
    pub use crate::{DeviceCopy, elementwise, kernel, reduction};
    pub use crate::{constant, gpu_print, gpu_println};
}

/// Support for the code the macros generate. Not a stable API.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub mod __private {
    pub use crate::launch::binder::ArgBinder;
    pub use crate::launch::generated::*;
    pub use crate::launch::request::LaunchRequest;
    pub use crate::vocabulary::kernel::{
        KernelInfo, PtxModule, declared_module, missing_ptx_module,
    };
    pub use crate::vocabulary::params::ParamReader;
}

/// Declares the PTX module of a kernel crate. Put `ferrocuda::ptx_module!();` once at the root of
/// a crate whose `build.rs` calls `nvptx_builder::build()`; every `#[kernel]` of the crate is
/// launched from that module, which is loaded once per device on first use.
#[macro_export]
macro_rules! ptx_module {
    () => {
        #[cfg(not(target_arch = "nvptx64"))]
        #[doc(hidden)]
        pub static __FERROCUDA_MODULE: $crate::__private::PtxModule =
            $crate::__private::PtxModule::with_binaries(
                env!("CARGO_PKG_NAME"),
                include_str!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.ptx")),
                include!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.binaries.rs")),
                include_str!(concat!(env!("OUT_DIR"), "/ferrocuda-kernels.ptxas.txt")),
            );
    };
}

/// Launches a kernel, Numba-style: `launch!(kernel[grid, block](args...))`, with optional
/// stream and dynamic shared memory: `launch!(kernel[grid, block, &stream, shared_bytes](...))`.
///
/// `grid` and `block` are one integer or a tuple of two or three, of any integer type
/// (`u32`, `usize`, ...; see [`IntoDim3`]): `launch!(vecadd[n.div_ceil(256), 256](...))`. A
/// value that does not fit in `u32` (or is negative) is a launch error naming it. The arguments are
/// type-checked against the kernel's parameters; a `&mut [T]` parameter accepts a
/// `&mut DeviceBuffer<T>` or a host `&mut [T]`/`&mut Vec<T>` (copied in, then back). Returns
/// `ferrocuda::Result<()>`.
#[cfg(not(target_arch = "nvptx64"))]
#[macro_export]
macro_rules! launch {
    ($kernel:path [$grid:expr, $block:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel as $crate::Kernel>::launcher()
            .grid($grid)
            .block($block)
            .launch($($arg),*)
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel as $crate::Kernel>::launcher()
            .grid($grid)
            .block($block)
            .stream($stream)
            .launch($($arg),*)
    };
    ($kernel:path [$grid:expr, $block:expr, $stream:expr, $shared:expr $(,)?] ($($arg:expr),* $(,)?)) => {
        <$kernel as $crate::Kernel>::launcher()
            .grid($grid)
            .block($block)
            .stream($stream)
            .shared_mem($shared)
            .launch($($arg),*)
    };
}
