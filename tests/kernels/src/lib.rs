//! Kernels that exist only for ferrocuda's own tests, kept apart from the tutorial kernels of
//! `kernels-nvptx`: broken kernels the simulator must catch and panicking kernels (`faults`),
//! kernels that keep a GPU busy for the stream-ordering tests (`busy`), and one kernel per
//! device-API function checked against a CPU reference (`device_api`), and the cooperative
//! launches with their grid barrier (`cooperative`).
//!
//! Compiled twice, like every kernel crate: for `nvptx64-nvidia-cuda` by `build.rs`, and for the
//! host, where every `#[kernel]` becomes a launchable handle.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod async_copy;
pub mod block_io;
pub mod block_radix_rank;
pub mod busy;
pub mod check_faults;
pub mod check_order;
pub mod check_versioning;
pub mod collectives;
pub mod context_faults;
pub mod cooperative;
pub mod device_api;
pub mod fast_math;
pub mod faults;
pub mod generated;
pub mod graphs;
pub mod half;
pub mod hopper;
pub mod index_narrowing;
pub mod look_back;
pub mod max_block;
pub mod mma;
pub mod offset_checks;
pub mod random;
// Written by scripts/random-kernels.py, compared with its output by tests/tests/random_kernels.rs.
#[rustfmt::skip]
pub mod random_kernels;
pub mod simulator_promises;
pub mod soundness;
