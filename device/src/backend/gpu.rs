//! The GPU backend: each function lowers to the PTX instruction its façade names.

pub(crate) mod async_copy;
pub(crate) mod atomic;
pub(crate) mod bounds;
pub(crate) mod grid_sync;
pub(crate) mod half;
pub(crate) mod index;
pub(crate) mod ldmatrix;
pub(crate) mod math;
pub(crate) mod matrix;
pub(crate) mod mbarrier;
pub(crate) mod mma;
pub(crate) mod panic;
pub(crate) mod panic_operands;
pub(crate) mod print;
pub(crate) mod shared;
pub(crate) mod sync;
pub(crate) mod tma;
pub(crate) mod vector;
pub(crate) mod warp;
pub(crate) mod warpgroup;
pub(crate) mod wgmma;
