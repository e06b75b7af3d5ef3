//! Device-wide algorithms: host functions that run the crate's own kernels on a stream, as
//! cuRAND's host API or CUB's device-wide calls do.
//!
//! | module | host functions | kernels |
//! |---|---|---|
//! | [`radix_sort`] | `sort_keys`, `sort_pairs` (`u32`, `i32`, `f32`, `u64` keys; `u32`, `u64` values), `sort_keys_with`, `sort_pairs_with` (bit range, caller's `SortTemp`) | Onesweep: one histogram of every digit, then one kernel per 8-bit digit ranking tiles of 4096 keys with `block_radix_rank` and decoupled look-back |
//! | [`random`] | `fill_uniform`, `fill_normal` (`f32`, `f64`) | one Philox4x32-10 block per thread and step of a grid-stride loop |
//!
//! They live in a kernel crate of their own, not in the `ferrocuda` runtime: a kernel crate
//! depends on `ferrocuda` (for `#[kernel]` and `ptx_module!`), so the runtime cannot hold
//! kernels without depending on itself. A program that wants these functions depends on this
//! crate beside `ferrocuda`.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod radix_sort;
pub mod random;
