//! The kernels of ferrocuda's examples and tests, one module per program.
//!
//! This crate is compiled twice: for `nvptx64-nvidia-cuda` by `build.rs` (through
//! `nvptx-builder`), which yields the PTX embedded below, and for the host, where every
//! `#[kernel]` becomes a typed handle launched on a GPU or on the simulator.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

// Used by the tensor-core kernels, whose bodies exist from sm_80 on and on the simulator.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[macro_use]
mod unroll;

pub mod attention;
pub mod constant_memory;
pub mod dynamic_shared;
pub mod elementwise;
pub mod external_crates;
pub mod gemm_bf16;
pub mod generated;
pub mod generic;
pub mod graphs;
pub mod grid_sync_sum;
pub mod half_precision;
pub mod histogram;
pub mod image;
pub mod least_squares;
pub mod local_array;
pub mod matmul_naive;
pub mod matmul_tiled;
pub mod memory;
pub mod monte_carlo;
pub mod particles;
pub mod printing;
pub mod reduce;
pub mod scan;
pub mod transpose;
pub mod transpose_naive;
