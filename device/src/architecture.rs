//! Gates for instructions that need a newer GPU than the default PTX target (sm_70).
//!
//! `cp.async` ([`crate::async_copy`](mod@crate::async_copy)) exists from sm_80 (Ampere) on, and ferrocuda offers
//! `ldmatrix` ([`crate::ldmatrix`], sm_75 in PTX) from the same architecture, with the
//! tensor-core instructions it feeds. A kernel crate is compiled for the architecture `FERROCUDA_ARCH` names (sm_70 by
//! default); rustc then sets `target_feature = "sm_80"` when that architecture is sm_80 or newer.
//! The functions needing sm_80 carry the bound `Target<T>: Sm80` on one of their type
//! parameters: the bound holds on the host (the simulator runs everything) and in a build for
//! sm_80 or newer, and fails otherwise, so calling one of them from a kernel built for sm_70 is
//! a compile error that says which architecture to build for, instead of a `ptxas` failure on an
//! instruction the target lacks.
//!
//! A kernel crate that must also build for sm_70 (as `tests/kernels` does) puts such kernels'
//! bodies behind `#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]`.

use core::marker::PhantomData;

/// The architecture the device crate is compiled for, seen through a type parameter `T` of the
/// caller (a bound on a type without parameters would be checked where the function is defined,
/// not where it is called).
pub struct Target<T: ?Sized>(PhantomData<T>);

/// Holds when the code is compiled for sm_80 or newer, or for the simulator.
#[diagnostic::on_unimplemented(
    message = "this instruction (`cp.async`, `ldmatrix`) needs a GPU of sm_80 or newer, but the kernel crate is built for an older one",
    label = "needs sm_80",
    note = "build the kernel crate for sm_80 or newer: `FERROCUDA_ARCH=sm_80` (or `sm_90`), or `Builder::arch` in its build.rs; kernels that must also build for older GPUs go behind `#[cfg(any(not(target_arch = \"nvptx64\"), target_feature = \"sm_80\"))]`"
)]
pub trait Sm80 {}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
impl<T: ?Sized> Sm80 for Target<T> {}

/// Holds when the code is compiled for sm_90a (Hopper with its architecture-specific
/// instructions: `wgmma`, `setmaxnreg`), or for the simulator (which refuses those instructions
/// at run time with `SimulatorFault::UnsupportedInstruction`). The tensor memory accelerator and
/// the transaction-counting `mbarrier` forms are sm_90 instructions, gated here with the rest of
/// the Hopper API that uses them.
#[diagnostic::on_unimplemented(
    message = "this instruction (`wgmma`, `cp.async.bulk.tensor`, `mbarrier` with transaction counts, `setmaxnreg`) needs sm_90a, but the kernel crate is built for another architecture",
    label = "needs sm_90a",
    note = "build the kernel crate for sm_90a: `FERROCUDA_ARCH=sm_90a`, or `Builder::arch(\"sm_90a\")` in its build.rs (as kernels-hopper does); kernels that must also build for other GPUs go behind `#[cfg(any(not(target_arch = \"nvptx64\"), target_feature = \"sm_90a\"))]`"
)]
pub trait Sm90a {}

#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
impl<T: ?Sized> Sm90a for Target<T> {}
