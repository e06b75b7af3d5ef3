//! The kernel-side API of ferrocuda.
//!
//! Everything a `#[kernel]` function calls to talk to the GPU lives here: thread and block
//! indices ([`thread_idx`], [`grid!`]), barriers ([`syncthreads`]), shared memory, atomics,
//! warp operations, math and device `printf`.
//!
//! The crate is `no_std` and compiles for two targets:
//! - `nvptx64-nvidia-cuda`: each function lowers to the PTX instruction it names;
//! - the host: each function talks to the CPU simulator of the `ferrocuda` runtime through the
//!   [`sim`] module, so the same kernel source runs and is tested without a GPU.
//!
//! Users normally reach this crate through `ferrocuda::device` or `ferrocuda::prelude`.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(stdarch_nvptx, asm_experimental_arch, link_llvm_intrinsics)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod abi;
pub mod dims;
pub mod index;
pub mod panic;
pub mod sync;

#[cfg(not(target_arch = "nvptx64"))]
pub mod sim;

pub use abi::{DeviceCopy, KernelParam};
pub use dims::Dim3;
pub use index::*;
pub use sync::*;

/// The items a kernel usually needs, for `use ferrocuda::prelude::*`.
pub mod prelude {
    pub use crate::dims::Dim3;
    pub use crate::index::*;
    pub use crate::sync::*;
    pub use crate::{grid, gridsize};
}
