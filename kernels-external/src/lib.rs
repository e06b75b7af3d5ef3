//! The external suite: kernels written from their algorithms' descriptions by authors who had
//! read only the README (not the compiler's passes, not `docs/writing-fast-kernels.md`), the
//! way a new user writes them: `usize`/`isize` indices, checked indexing of slices and shared
//! arrays, no hand tuning. The compiler was not fitted to them; `kernels-idiomatic` is the
//! suite it was measured on while it was written.
//!
//! Each has a CUDA C twin in `bench/external/` (the same algorithm, tiles and launch shapes,
//! `int` indices), timed side by side by `examples/examples/bench_external_*.rs`, and a CPU
//! reference in `tests/tests/external_*.rs` that every kernel is checked against on both
//! backends.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

ferrocuda::ptx_module!();

// Rodinia (tests/tests/external_rodinia.rs, bench/external/rodinia.cu).
pub mod gaussian;
pub mod lavamd;
pub mod particle_filter;
pub mod streamcluster;

// Rodinia's CFD solver and PolyBench-GPU (tests/tests/external_polybench.rs,
// bench/external/polybench.cu).
pub mod correlation;
pub mod euler3d;
pub mod fdtd2d;
pub mod gemver;
