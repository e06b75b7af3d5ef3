//! The idiomatic benchmark suite: six kernels written the way a new ferrocuda user writes them
//! from the README and the tutorial, with `usize`/`isize` indices, checked indexing of slices and
//! shared arrays, `grid!` and the thread indices, and no hand tuning (no narrowing to `i32`, no
//! reordering of loads, no unchecked access).
//!
//! Each has a CUDA C twin in `bench/idiomatic.cu`, the same algorithm with the same tiles and
//! launch shapes written as a CUDA C programmer would (`int` indices).
//! `examples/examples/bench_idiomatic.rs` times the two side by side on a GPU,
//! `bench/sass_report.sh` compares their machine code without one, and
//! `tests/tests/idiomatic.rs` checks every kernel against a CPU reference on both backends.
//!
//! | module | kernel | after |
//! |---|---|---|
//! | [`hotspot`] | 2-D thermal stencil, 16x16 shared tiles with ghost zones | Rodinia's hotspot |
//! | [`pathfinder`] | dynamic-programming row sweep, 256-wide shared tiles | Rodinia's pathfinder |
//! | [`stencil3d`] | 3-D 7-point stencil, one point per thread | |
//! | [`convolution`] | 2-D 7x7 convolution, filter in constant memory | |
//! | [`nbody`] | all-pairs n-body step through shared tiles of positions | GPU Gems 3, ch. 31 |
//! | [`spmv`] | CSR sparse matrix-vector product, one thread per row | |
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

pub mod convolution;
pub mod hotspot;
pub mod nbody;
pub mod pathfinder;
pub mod spmv;
pub mod stencil3d;
