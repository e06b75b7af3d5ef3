//! The kernels of ferrocuda's examples and tests, one module per program.
//!
//! This crate is compiled twice: for `nvptx64-nvidia-cuda` by `build.rs` (through
//! `nvptx-builder`), which yields the PTX embedded below, and for the host, where every
//! `#[kernel]` becomes a typed handle launched on a GPU or on the simulator.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod busy;
pub mod device_api;
pub mod elementwise;
pub mod external_crates;
pub mod faults;
pub mod generic;
pub mod image;
pub mod local_array;
pub mod matmul_naive;
pub mod memory;
pub mod particles;
pub mod transpose_naive;
