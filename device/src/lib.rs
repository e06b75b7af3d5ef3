//! The kernel-side API of ferrocuda.
//!
//! Everything a `#[kernel]` function calls to talk to the GPU lives here: thread and block
//! indices ([`thread_idx`], [`grid!`]), barriers ([`syncthreads`], and [`grid_sync()`] in
//! cooperative launches), shared memory, atomics,
//! warp operations, warp and block collectives ([`warp_reduce`], [`block_exclusive_scan`], ...),
//! asynchronous copies to shared memory and `ldmatrix` (sm_80 and newer), warp
//! matrix multiply-accumulate on the tensor cores ([`mma_sync`]), math, half precision
//! ([`struct@f16`], [`bf16`] and their pairs) and device `printf`.
//!
//! The crate is `no_std` and compiles for two targets:
//! - `nvptx64-nvidia-cuda`: each function lowers to the PTX instruction it names;
//! - the host: each function talks to the CPU simulator of the `ferrocuda` runtime through the
//!   [`sim`] module, so the same kernel source runs and is tested without a GPU.
//!
//! Each concept has one file here, the documented public façade (`index.rs`, `sync.rs`,
//! `warp.rs`, `math.rs`, `atomic.rs`, `shared.rs`, `print.rs`, ...), whose functions are one call
//! into the private `backend` module of the target: `backend/gpu/` or `backend/simulator/`, one file
//! per concept in each. `backend.rs` is the one place that chooses between them.
//!
//! Users normally reach this crate through `ferrocuda::device` or `ferrocuda::prelude`.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(
        stdarch_nvptx,
        asm_experimental_arch,
        link_llvm_intrinsics,
        core_float_math,
        core_intrinsics,
        gpu_intrinsics,
        gpu_launch_sized_workgroup_mem
    )
)]
#![cfg_attr(
    target_arch = "nvptx64",
    expect(
        internal_features,
        reason = "`core_intrinsics` and `link_llvm_intrinsics` are how Rust reaches NVVM"
    )
)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod abi;
pub mod architecture;
pub mod async_copy;
pub mod atomic;
mod backend;
pub mod block_collectives;
pub mod block_io;
pub mod block_radix_rank;
mod bounds;
pub mod constant;
pub mod dims;
pub mod generated;
pub mod grid_reduce;
pub mod grid_sync;
pub mod half;
mod half_atomic;
pub mod half_pair;
mod half_rounding;
pub mod index;
pub mod ldmatrix;
pub mod look_back;
pub mod math;
pub mod matrix;
pub mod max_block;
pub mod mbarrier;
pub mod mma;
pub mod panic;
pub mod print;
pub mod random;
pub mod shared;
pub mod sync;
pub mod tma;
pub mod warp;
pub mod warp_collectives;
pub mod warpgroup;
pub mod wgmma;

#[cfg(not(target_arch = "nvptx64"))]
pub mod sim;

pub use abi::{DeviceCopy, KernelParam};
pub use async_copy::{ASYNC_COPY_SIZES, async_copy, async_copy_unchecked, async_copy_zero_fill};
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
pub use async_copy::{async_copy_commit, async_copy_wait, async_copy_wait_all};
pub use atomic::{Atomic, AtomicBitwise, AtomicSlice};
pub use block_collectives::{
    BLOCK_SCRATCH_LEN, MAX_BLOCK_THREADS, block_broadcast, block_exclusive_scan,
    block_inclusive_scan, block_reduce, block_scratch_len,
};
pub use block_io::{
    VectorChunks, load_blocked, load_striped, load_warp_transposed, split_at_alignment,
    split_at_alignment_mut, store_blocked, store_striped, store_warp_transposed,
};
pub use block_radix_rank::{
    MAX_ITEMS, MAX_RADIX_BITS, block_radix_digit_start, block_radix_rank, for_each_item,
    radix_rank_counters_len, warp_striped_index,
};
pub use constant::Constant;
pub use dims::Dim3;
pub use grid_reduce::grid_stride_block_reduce;
pub use grid_sync::{grid_sync, is_cooperative_launch};
pub use half::{bf16, bf16x2, f16, f16x2};
pub use index::*;
pub use ldmatrix::{
    Bits16, LDMATRIX_ROW_ELEMENTS, ldmatrix_x1, ldmatrix_x1_trans, ldmatrix_x2, ldmatrix_x2_trans,
    ldmatrix_x4, ldmatrix_x4_trans, ldmatrix_x4_trans_unchecked, ldmatrix_x4_unchecked,
};
pub use math::{DeviceFloat, FAST_MATH_FUNCTIONS, MATH_FUNCTIONS};
pub use matrix::{Matrix, MatrixMut};
pub use mma::{
    Accumulator, Bf16, F16, FragmentA, FragmentB, MmaInput, TENSOR_CORES, TensorCoreInput, Tf32,
    TileLayout, TileSink, TileSource, mma_sync,
};
pub use shared::{
    DynamicShared, Shape, Shared, SharedArray, SharedArray2d, SharedSlice, dynamic_shared_array,
};
pub use sync::*;
pub use warp::{
    FULL_MASK, ShuffleValue, WARP_SIZE, active_mask, all_sync, any_sync, ballot_sync,
    is_shuffle_width, lane_id, shfl_down_sync, shfl_down_sync_width, shfl_sync, shfl_sync_width,
    shfl_up_sync, shfl_up_sync_width, shfl_xor_sync, shfl_xor_sync_width, warp_id,
};
pub use warp_collectives::{
    warp_broadcast, warp_exclusive_scan, warp_inclusive_scan, warp_lane_count, warp_member_mask,
    warp_reduce,
};

/// The items a kernel usually needs, for `use ferrocuda::prelude::*`: every name of the README's
/// device-API table (`tests/tests/prelude_readme.rs` checks that each one resolves through
/// `ferrocuda::prelude`).
pub mod prelude {
    pub use crate::async_copy::{async_copy, async_copy_zero_fill};
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    pub use crate::async_copy::{async_copy_commit, async_copy_wait, async_copy_wait_all};
    pub use crate::atomic::{Atomic, AtomicBitwise, AtomicSlice, Ordering};
    pub use crate::block_collectives::{
        BLOCK_SCRATCH_LEN, block_broadcast, block_exclusive_scan, block_inclusive_scan,
        block_reduce,
    };
    pub use crate::block_io::{
        load_blocked, load_striped, load_warp_transposed, store_blocked, store_striped,
        store_warp_transposed,
    };
    pub use crate::block_radix_rank::{
        block_radix_digit_start, block_radix_rank, radix_rank_counters_len, warp_striped_index,
    };
    pub use crate::dims::Dim3;
    pub use crate::grid_reduce::grid_stride_block_reduce;
    pub use crate::grid_sync::{grid_sync, is_cooperative_launch};
    pub use crate::half::{bf16, bf16x2, f16, f16x2};
    pub use crate::index::*;
    pub use crate::ldmatrix::{
        ldmatrix_x1, ldmatrix_x1_trans, ldmatrix_x2, ldmatrix_x2_trans, ldmatrix_x4,
        ldmatrix_x4_trans,
    };
    pub use crate::math::{
        DeviceFloat, fast_cos, fast_div, fast_exp, fast_exp2, fast_log2, fast_rsqrt, fast_sin,
        fast_sqrt, fast_tanh,
    };
    pub use crate::matrix::{Matrix, MatrixMut};
    pub use crate::mma::{
        Accumulator, Bf16, F16, FragmentA, FragmentB, MmaInput, Tf32, TileLayout, mma_sync,
    };
    pub use crate::shared::{
        DynamicShared, SharedArray, SharedArray2d, SharedSlice, dynamic_shared_array,
    };
    pub use crate::sync::*;
    pub use crate::warp::{
        FULL_MASK, ShuffleValue, WARP_SIZE, active_mask, all_sync, any_sync, ballot_sync, lane_id,
        shfl_down_sync, shfl_down_sync_width, shfl_sync, shfl_sync_width, shfl_up_sync,
        shfl_up_sync_width, shfl_xor_sync, shfl_xor_sync_width, warp_id,
    };
    pub use crate::warp_collectives::{
        warp_broadcast, warp_exclusive_scan, warp_inclusive_scan, warp_lane_count, warp_reduce,
    };
    pub use crate::{grid, gridsize, shared_array};
}
