//! The two implementations of the device API, chosen here and nowhere else.
//!
//! Every concept file of this crate (`index.rs`, `sync.rs`, `warp.rs`, `math.rs`, `atomic.rs`,
//! `shared.rs`, `print.rs`, `bounds.rs`, `matrix.rs`, `async_copy.rs`, `ldmatrix.rs`, `mma.rs`) is the
//! documented public façade; its
//! functions call the module of the same name in one of two private backends with the same
//! signatures:
//! - [`gpu`] when the crate is compiled for `nvptx64-nvidia-cuda`: PTX instructions, NVVM
//!   intrinsics and `core::arch::nvptx`;
//! - [`simulator`] on the host: the CPU simulator of the `ferrocuda` runtime, reached through
//!   [`crate::sim`].
//!
//! So the only `target_arch` switch of the crate is the pair of declarations below (plus the
//! crate attributes of `lib.rs` and the simulator's public interface, [`crate::sim`]). A function
//! missing from one backend is a compile error on that target only: the host build checks the
//! simulator, the kernel crates' `build.rs` checks the GPU backend.

#[cfg(target_arch = "nvptx64")]
mod gpu;
#[cfg(target_arch = "nvptx64")]
pub(crate) use gpu::*;

#[cfg(not(target_arch = "nvptx64"))]
mod simulator;
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use simulator::*;
