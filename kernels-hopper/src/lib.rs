//! ferrocuda's Hopper kernels: programs on the sm_90a instructions (`wgmma`, the tensor memory
//! accelerator, `mbarrier` with transaction counts).
//!
//! Compiled for sm_90a whatever `FERROCUDA_ARCH` says (see `build.rs`), so that the default
//! sm_70 build of the other kernel crates is unchanged. The PTX runs only on an sm_90 GPU
//! (H100, H200); on the simulator the kernels stop at their first Hopper instruction with
//! `SimulatorFault::UnsupportedInstruction`.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod gemm_bf16_wgmma;
