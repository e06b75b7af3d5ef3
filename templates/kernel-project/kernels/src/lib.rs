//! The project's kernels. This crate is compiled twice: for the GPU by `build.rs` (the PTX
//! embedded by `ptx_module!`), and for the host, where each `#[kernel]` becomes a handle that
//! `launch!` runs on a GPU or on the CPU simulator.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod heat;
pub mod nbody;
