//! Device-wide algorithms: host functions that run the crate's own kernels on a stream, as
//! cuRAND's host API or CUB's device-wide calls do.
//!
//! | module | host functions | kernels |
//! |---|---|---|
//! | [`copy`] | `copy` (device to device, whole buffers or sub-slices) | a grid-stride loop of 16-byte loads and stores |
//! | [`fill`] | `fill`, `sequence` | a grid-stride loop of 16-byte stores |
//! | [`histogram`] | `histogram_even` (`u8`, `u32`, `f32` samples, `u32` counts) | a grid-stride loop counting in shared memory, then one global atomic per bin and block |
//! | [`radix_sort`] | `sort_keys`, `sort_pairs` (`u32`, `i32`, `f32`, `u64` keys; `u32`, `u64` values), `sort_keys_with`, `sort_pairs_with` (bit range, caller's `SortTemp`) | Onesweep: one histogram of every digit, then one kernel per 8-bit digit ranking tiles of 4096 keys with `block_radix_rank` and decoupled look-back |
//! | [`random`] | `fill_uniform`, `fill_normal` (`f32`, `f64`) | one Philox4x32-10 block per thread and step of a grid-stride loop |
//! | [`reduce`] | `reduce`, `reduce_into` (`Sum`, `Min`, `Max`, `BitAnd`, `BitOr`, `BitXor`) | a grid-stride pass of 16-byte loads and block reductions, then one block over the partials |
//! | [`scan`] | `inclusive_scan`, `exclusive_scan` (and `_with` caller storage; `Sum`, `Min`, `Max`) | one tile per block, single pass with decoupled look-back |
//! | [`select`] | `select_if`, `select_count` (`u32`, `i32`, `f32`, `u64`; non-zero, greater than, flagged), device-side `select_into` for a predicate of one's own | one pass: a block scan per tile and decoupled look-back between tiles |
//!
//! They live in a kernel crate of their own, not in the `ferrocuda` runtime: a kernel crate
//! depends on `ferrocuda` (for `#[kernel]` and `ptx_module!`), so the runtime cannot hold
//! kernels without depending on itself. A program that wants these functions depends on this
//! crate beside `ferrocuda`.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod copy;
pub mod fill;
pub mod histogram;
pub mod radix_sort;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod select;
#[cfg(not(target_arch = "nvptx64"))]
pub mod slices;
