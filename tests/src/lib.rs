//! Helpers shared by the workspace tests, so that each exists once:
//!
//! - [`gpu`](mod@gpu): the devices to run on, and [`device_tests!`], which writes each kernel test
//!   once and instantiates it for the simulator and the GPU;
//! - [`launch`]: grid sizes and
//!   [`expect_panic`];
//! - [`inputs`]: deterministic random inputs, seeded from the test's name;
//! - [`compare`]: tolerances in absolute, relative and ulp terms;
//! - [`ptx_text`]: entries and functions of a kernel crate's PTX, for tests that pin what the
//!   compiler made;
//! - [`reference`](mod@reference): the CPU references of the kernels, shared with the examples (they live in
//!   `ferrocuda-examples`, whose checks use them too).
//!
//! Everything is re-exported at the crate root: `use ferrocuda_tests::{blocks, rng, ...}`.

pub mod compare;
pub mod gpu;
pub mod inputs;
pub mod launch;
pub mod ptx_text;

pub use compare::{assert_close, assert_gemm_close, ulps, ulps32, ulps64};
pub use ferrocuda_examples::reference;
pub use gpu::{
    REQUIRE_GPU_ENV, SKIP_GPU_ENV, gpu, gpu_with, on_gpu, on_gpu_with, other_device, process_env,
};
pub use inputs::{random_bf16, random_f32, random_u8, random_u32, rng};
pub use launch::{blocks, expect_panic, grid_2d, line_of};
