//! A bf16 GEMM on Hopper's warpgroup MMA and tensor memory accelerator, in the style of
//! CUTLASS's sm90 warp-specialised kernels: `C = A B` with `A` (M x K) and `B` (K x N) bf16,
//! both row-major, and `C` (M x N) f32, row-major.
//!
//! # How it works
//! - **Block tile** [`BLOCK_M`] x [`BLOCK_N`] x [`BLOCK_K`] = 128 x 256 x 64, one block per
//!   tile of `C` on a one-dimensional grid of `(M / 128) (N / 256)` blocks ([`blocks`]), in
//!   the grouped order of `kernels_nvptx::gemm_bf16` ([`GROUP_M`] tile rows per group) so that
//!   the blocks resident together share rows of `A` and columns of `B` in L2.
//! - **Warp specialisation**: [`THREADS`] = 384 threads, three warpgroups. Warpgroup 0 is the
//!   *producer*: one of its threads issues the TMA copies. Warpgroups 1 and 2 are the
//!   *consumers*: consumer `c` computes rows `64 c` to `64 c + 63` of the block tile, all 256
//!   columns, with `wgmma.mma_async.m64n256k16`, four per K-step, into 128 `f32` registers per
//!   thread. The entry carries `.maxntid 384` (`#[kernel(max_block(THREADS))]`), so ptxas compiles it for
//!   at most 168 registers per thread (65536 / 384), which the consumers' 128 accumulators fit
//!   in. No `setmaxnreg` rebalancing: ptxas 12.9 crashes (segmentation fault) on this kernel
//!   with `setmaxnreg.inc`, and with one m64n256 accumulator per consumer it is not needed.
//! - **Pipeline**: [`STAGES`] = 4 stages of shared memory, each an `A` tile (128 x 64, 16 KiB)
//!   and a `B` tile (64 x 256, 32 KiB), 192 KiB in all ([`SHARED_BYTES`] with the barriers and
//!   1 KiB of alignment slack). Each stage has a *full* barrier (1 arrival: the producer's
//!   `arrive.expect_tx` of the stage's 48 KiB, completed by the TMA copies) and an *empty*
//!   barrier (2 arrivals: one thread of each consumer once its `wgmma`s on the stage are done).
//!   K-step `t` uses stage `t % 4` in phase `t / 4` of its barriers: the consumers wait for
//!   parity `(t / 4) % 2` of the full barrier; the producer, before refilling the stage for step
//!   `t >= 4`, waits for parity `(t / 4 - 1) % 2` of the empty one.
//! - **Overlap**: a consumer commits step `t`'s four `wgmma`s as a group and waits until at
//!   most one group is pending (`wgmma.wait_group 1`): step `t - 1`'s group is then done and
//!   its stage is released, while step `t` still runs.
//! - **Epilogue**: each consumer thread writes its 128 accumulator elements to `C`, two
//!   neighbours per 8-byte store
//!   ([`WarpgroupAccumulator::store_pairs`](ferrocuda::device::wgmma::WarpgroupAccumulator)).
//!
//! # Shared-memory layouts (128-byte swizzle)
//! The TMA copies write with `CU_TENSOR_MAP_SWIZZLE_128B` and the descriptors read with the
//! same swizzle, into 1024-byte-aligned tiles:
//! - `A` (K-major): one box of 128 rows x 64 columns (128 bytes per row): row `r` at byte
//!   `128 r`. Consumer `c`'s descriptor starts at row `64 c`, moved 32 bytes per 16 of K; the
//!   stride byte offset (between 8-row groups) is 1024; the leading offset is unused for a
//!   swizzled K-major operand (16 by convention).
//! - `B` (MN-major: N contiguous, `wgmma`'s `imm-trans-b = 1`): four boxes of 64 rows of K x 64
//!   columns of N, box `j` (columns `64 j..`) at byte `8192 j`. The leading byte offset is the
//!   distance between those 64-column blocks, 8192; the stride byte offset between groups of 8
//!   rows of K, 1024; a K-step of 16 moves the start `16 x 128` bytes. These are the offsets of
//!   CUTLASS's `make_gmma_desc<Major::MN>` for `Layout_MN_SW128_Atom` (PTX ISA 9.7.15.5.1).
//!
//! # Sizes
//! M a multiple of 128, N of 256 and K of 64 (no tail handling). [`gemm_bf16_wgmma_launch`]
//! checks that on the host ([`GemmWgmmaError::Shape`]); the kernel stops with a panic naming
//! the rule. The tensor maps hold `A` and `B`'s addresses; [`gemm_bf16_wgmma_launch`] builds
//! them.
//!
//! # Simulator
//! The simulator cannot run `wgmma`, TMA or mbarriers: a launch there stops at the first one
//! with `SimulatorFault::UnsupportedInstruction`, which the launch returns as an error.

use ferrocuda::device::mbarrier::Mbarriers;
use ferrocuda::device::tma::TensorMap;
use ferrocuda::prelude::*;

/// Rows of `C` (and of `A`) per block.
pub const BLOCK_M: usize = 128;
/// Columns of `C` (and of `B`) per block.
pub const BLOCK_N: usize = 256;
/// Elements of K per pipeline stage.
pub const BLOCK_K: usize = 64;
/// Stages of the TMA pipeline.
pub const STAGES: usize = 4;
/// Tile rows of `C` that consecutive blocks cover before moving to the next tile column.
pub const GROUP_M: usize = 8;
/// Threads per block: a producer and two consumer warpgroups.
pub const THREADS: u32 = 384;
/// Columns of one `B` box: 64 bf16 = 128 bytes, the span of the 128-byte swizzle.
pub const B_BOX_COLS: usize = 64;
/// Elements of a stage's `A` tile.
const A_ELEMENTS: usize = BLOCK_M * BLOCK_K;
/// Elements of a stage's `B` tile.
const B_ELEMENTS: usize = BLOCK_K * BLOCK_N;
/// Bytes the TMA copies of one stage write (what its full barrier expects).
pub const STAGE_BYTES: u32 = ((A_ELEMENTS + B_ELEMENTS) * 2) as u32;
/// Dynamic shared memory the kernel needs: the stages, 1 KiB to align them to 1024 bytes, and
/// the barriers.
pub const SHARED_BYTES: u32 = STAGES as u32 * STAGE_BYTES + 1024 + 2 * STAGES as u32 * 8;

/// `c = a b` for row-major bf16 `a` (`m` x `k`), `b` (`k` x `n`) and f32 `c` (`m` x `n`),
/// reading `a` and `b` through the tensor maps `a_map` (boxes of 128 x 64) and `b_map` (boxes
/// of 64 x 64), both with the 128-byte swizzle; see the module documentation. Launch with
/// [`gemm_bf16_wgmma_launch`].
#[kernel(max_block(THREADS))]
pub fn gemm_bf16_wgmma(
    a_map: &[TensorMap],
    b_map: &[TensorMap],
    c: &mut [f32],
    m: u32,
    n: u32,
    k: u32,
) {
    body::gemm(&a_map[0], &b_map[0], c, m as usize, n as usize, k as usize);
}

/// The kernel's body where the Hopper instructions exist: sm_90a and the simulator (which
/// refuses them).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
mod body {
    use super::*;
    use ferrocuda::device::tma::{shared_address, tma_load_2d};
    use ferrocuda::device::warpgroup::warpgroup_id;
    use ferrocuda::device::wgmma::{
        MatrixMajor, SharedMatrixDescriptor, Swizzle, WarpgroupAccumulatorN256, wgmma_commit_group,
        wgmma_fence, wgmma_wait_group,
    };

    pub(super) fn gemm(
        a_map: &TensorMap,
        b_map: &TensorMap,
        c: &mut [f32],
        m: usize,
        n: usize,
        k: usize,
    ) {
        assert!(
            m.is_multiple_of(BLOCK_M) && n.is_multiple_of(BLOCK_N) && k.is_multiple_of(BLOCK_K),
            "gemm_bf16_wgmma: m must be a multiple of 128, n of 256 and k of 64"
        );
        assert!(
            block_dim().x == THREADS && block_dim().y == 1 && block_dim().z == 1,
            "gemm_bf16_wgmma needs blocks of 384 threads"
        );
        let (tiles_m, tiles_n) = (m / BLOCK_M, n / BLOCK_N);
        let block = block_idx().x as usize;
        if block >= tiles_m * tiles_n {
            return; // A grid larger than the tiles: the whole block leaves together.
        }
        let group = block / (GROUP_M * tiles_n);
        let first_m = group * GROUP_M;
        let group_rows = (tiles_m - first_m).min(GROUP_M);
        let in_group = block % (GROUP_M * tiles_n);
        let (block_row, block_col) = (
            (first_m + in_group % group_rows) * BLOCK_M,
            (in_group / group_rows) * BLOCK_N,
        );

        // The stages, 1024-byte aligned (the 128-byte swizzle's pattern), then the barriers.
        let mut carve = DynamicShared::new();
        let start = shared_address(&carve.take::<u8>(0));
        let _ = carve.take::<u8>(start.wrapping_neg() as usize % 1024);
        let a_tiles = carve.take::<bf16>(STAGES * A_ELEMENTS);
        let b_tiles = carve.take::<bf16>(STAGES * B_ELEMENTS);
        let full = Mbarriers::new(carve.take::<u64>(STAGES), 1);
        let empty = Mbarriers::new(carve.take::<u64>(STAGES), 2);

        let steps = k / BLOCK_K;
        let warpgroup = warpgroup_id() as usize;
        let thread = thread_idx().x as usize % 128;
        if warpgroup == 0 {
            if thread == 0 {
                for step in 0..steps {
                    let stage = step % STAGES;
                    if step >= STAGES {
                        empty.wait(stage, (step / STAGES - 1) as u32);
                    }
                    full.arrive_expect_tx(stage, STAGE_BYTES);
                    let k0 = (step * BLOCK_K) as i32;
                    // SAFETY: each box fits its part of the stage (A: 128 x 64 at the stage's
                    // start; B: 64 x 64 at 4096 elements per box), as the maps were built by
                    // `gemm_bf16_wgmma_launch`; the consumers touch the stage only after the full
                    // barrier's phase completes, and the producer refills it only after both
                    // consumers released it on the empty barrier; `a` and `b` outlive the launch.
                    unsafe {
                        tma_load_2d(
                            &a_tiles,
                            stage * A_ELEMENTS,
                            a_map,
                            (block_row as i32, k0),
                            &full,
                            stage,
                        );
                        for j in 0..BLOCK_N / B_BOX_COLS {
                            tma_load_2d(
                                &b_tiles,
                                stage * B_ELEMENTS + j * BLOCK_K * B_BOX_COLS,
                                b_map,
                                (k0, (block_col + j * B_BOX_COLS) as i32),
                                &full,
                                stage,
                            );
                        }
                    }
                }
            }
            return;
        }

        let consumer = warpgroup - 1;
        // The descriptors of stage 0's first K-step (checked); the loop moves them along with
        // `advanced`, which has no panic paths.
        let a_first = SharedMatrixDescriptor::new(
            &a_tiles,
            consumer * 64 * BLOCK_K,
            Swizzle::Bytes128,
            16,
            1024,
        );
        let b_first = SharedMatrixDescriptor::new(
            &b_tiles,
            0,
            Swizzle::Bytes128,
            (BLOCK_K * B_BOX_COLS * 2) as u32,
            1024,
        );
        let mut acc = WarpgroupAccumulatorN256::zeroed();
        for step in 0..steps {
            let stage = step % STAGES;
            full.wait(stage, (step / STAGES) as u32);
            wgmma_fence();
            for kk in 0..BLOCK_K / 16 {
                // A: 32 bytes per 16 of K; B: 16 rows of 128 bytes per 16 of K.
                let a = a_first.advanced((stage * A_ELEMENTS * 2 + kk * 32) as u32);
                let b =
                    b_first.advanced((stage * B_ELEMENTS * 2 + kk * 16 * B_BOX_COLS * 2) as u32);
                // SAFETY: the fence above; the descriptors describe the stage's tiles (inside
                // `a_tiles` and `b_tiles`: stage < STAGES, kk < 4), which the full barrier says
                // are written, and which the producer refills only after this consumer's
                // arrival on the empty barrier, made once `wait_group` has retired these
                // operations; the accumulator is read only after the final `wait_group::<0>`;
                // the warpgroup runs this converged.
                unsafe { acc.mma_async(a, MatrixMajor::K, b, MatrixMajor::Mn) };
            }
            wgmma_commit_group();
            // Step `step - 1`'s group is done: its stage can be refilled.
            wgmma_wait_group::<1>();
            if step > 0 && thread == 0 {
                empty.arrive((step - 1) % STAGES);
            }
        }
        wgmma_wait_group::<0>();

        let mut c = MatrixMut::new(c, m, n);
        acc.store_pairs(&mut c, (block_row + consumer * 64, block_col));
    }
}

/// The body in builds for other architectures, which lack the instructions (this crate's
/// `build.rs` always builds for sm_90a; this keeps a build with another architecture
/// compiling).
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_90a")))]
mod body {
    pub(super) fn gemm(
        _: &super::TensorMap,
        _: &super::TensorMap,
        _: &mut [f32],
        _: usize,
        _: usize,
        _: usize,
    ) {
        panic!("gemm_bf16_wgmma was built for an architecture other than sm_90a")
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the tensor maps and the checked launch.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use ferrocuda::TensorMap2d;
    use ferrocuda::device::wgmma::Swizzle;
    use std::fmt;

    /// Why [`gemm_bf16_wgmma_launch`] did not launch.
    #[derive(Debug)]
    pub enum GemmWgmmaError {
        /// A size breaks the kernel's rule (M a nonzero multiple of 128, N of 256, K of 64), or
        /// a buffer is shorter than its matrix.
        Shape(String),
        /// The device is a GPU older than Hopper (compute capability 9.0 is needed).
        Architecture {
            /// The device's compute capability, `(major, minor)`.
            capability: (u32, u32),
        },
        /// Building a tensor map or the launch failed.
        Launch(ferrocuda::Error),
    }

    impl fmt::Display for GemmWgmmaError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                GemmWgmmaError::Shape(why) => write!(f, "gemm_bf16_wgmma: {why}"),
                GemmWgmmaError::Architecture { capability } => write!(
                    f,
                    "gemm_bf16_wgmma: the kernel is built for sm_90a (wgmma, TMA) and runs only on compute capability 9.0; this GPU is {}.{}",
                    capability.0, capability.1
                ),
                GemmWgmmaError::Launch(error) => write!(f, "gemm_bf16_wgmma: {error}"),
            }
        }
    }

    impl std::error::Error for GemmWgmmaError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            match self {
                GemmWgmmaError::Launch(error) => Some(error),
                _ => None,
            }
        }
    }

    impl From<ferrocuda::Error> for GemmWgmmaError {
        fn from(error: ferrocuda::Error) -> Self {
            GemmWgmmaError::Launch(error)
        }
    }

    /// The grid of [`gemm_bf16_wgmma`] for an `m` x `n` `C` (sizes checked by
    /// [`check_shape`]): one block per 128 x 256 tile.
    pub fn blocks(m: usize, n: usize) -> u32 {
        ((m / BLOCK_M) * (n / BLOCK_N)) as u32
    }

    /// Checks that `m`, `n`, `k` follow the kernel's rule and that the buffers hold their
    /// matrices.
    pub fn check_shape(
        a_len: usize,
        b_len: usize,
        c_len: usize,
        m: usize,
        n: usize,
        k: usize,
    ) -> Result<(), GemmWgmmaError> {
        if m == 0
            || n == 0
            || k == 0
            || !m.is_multiple_of(BLOCK_M)
            || !n.is_multiple_of(BLOCK_N)
            || !k.is_multiple_of(BLOCK_K)
        {
            return Err(GemmWgmmaError::Shape(format!(
                "m = {m}, n = {n}, k = {k}: m must be a nonzero multiple of {BLOCK_M}, n of {BLOCK_N} and k of {BLOCK_K}"
            )));
        }
        for (name, len, rows, cols) in [("a", a_len, m, k), ("b", b_len, k, n), ("c", c_len, m, n)]
        {
            // The kernel indexes `C` with `usize` from `u32` sizes, and TMA coordinates are
            // `i32`: every matrix stays below 2^31 elements per side and 2^32 in all.
            let elements = rows.checked_mul(cols).filter(|&e| e <= u32::MAX as usize);
            let Some(elements) = elements.filter(|_| rows <= i32::MAX as usize) else {
                return Err(GemmWgmmaError::Shape(format!(
                    "{name} is {rows} x {cols}: at most {} elements per matrix",
                    u32::MAX
                )));
            };
            if len < elements {
                return Err(GemmWgmmaError::Shape(format!(
                    "{name} holds {len} elements, fewer than its {rows} x {cols} = {elements}"
                )));
            }
        }
        Ok(())
    }

    /// Queues `c = a b` on `stream` (see [`gemm_bf16_wgmma`]) after checking the sizes and, on
    /// a GPU, that it is a Hopper (compute capability 9.0). Builds the two tensor maps (boxes of
    /// 128 x 64 of `a` and 64 x 64 of `b`, 128-byte swizzle), which live until the launch
    /// returns: the kernel reads them while it runs, so the call synchronizes `stream` before
    /// dropping them.
    pub fn gemm_bf16_wgmma_launch(
        stream: &Stream,
        a: &DeviceBuffer<bf16>,
        b: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<f32>,
        (m, n, k): (usize, usize, usize),
    ) -> Result<(), GemmWgmmaError> {
        check_shape(a.len(), b.len(), c.len(), m, n, k)?;
        let maps = GemmWgmmaMaps::new(a, b, (m, n, k))?;
        maps.launch(stream, c)?;
        stream.synchronize()?;
        Ok(())
    }

    /// The tensor maps of one GEMM's `A` and `B`, built once and launched many times (the
    /// benchmark's loop): [`GemmWgmmaMaps::launch`] queues without synchronizing.
    pub struct GemmWgmmaMaps<'a> {
        a: TensorMap2d<'a>,
        b: TensorMap2d<'a>,
        shape: (usize, usize, usize),
    }

    impl<'a> GemmWgmmaMaps<'a> {
        /// Checks the sizes and builds the maps of `a` (`m` x `k`) and `b` (`k` x `n`).
        pub fn new(
            a: &'a DeviceBuffer<bf16>,
            b: &'a DeviceBuffer<bf16>,
            (m, n, k): (usize, usize, usize),
        ) -> Result<GemmWgmmaMaps<'a>, GemmWgmmaError> {
            check_shape(a.len(), b.len(), usize::MAX, m, n, k)?;
            let device = a.device();
            if !device.is_simulator() && device.compute_capability().0 != 9 {
                return Err(GemmWgmmaError::Architecture {
                    capability: device.compute_capability(),
                });
            }
            Ok(GemmWgmmaMaps {
                a: TensorMap2d::new(
                    a,
                    (m, k),
                    (BLOCK_M as u32, BLOCK_K as u32),
                    Swizzle::Bytes128,
                )?,
                b: TensorMap2d::new(
                    b,
                    (k, n),
                    (BLOCK_K as u32, B_BOX_COLS as u32),
                    Swizzle::Bytes128,
                )?,
                shape: (m, n, k),
            })
        }

        /// Queues the GEMM into `c` on `stream`. The maps (`self`) must live until it has run.
        ///
        /// # Errors
        /// [`ferrocuda::Error::LengthMismatch`] when `c` does not hold `m * n` elements; launch
        /// errors.
        pub fn launch(&self, stream: &Stream, c: &mut DeviceBuffer<f32>) -> ferrocuda::Result<()> {
            let (m, n, k) = self.shape;
            if c.len() < m * n {
                return Err(ferrocuda::Error::LengthMismatch {
                    operation: "gemm_bf16_wgmma (c)",
                    expected: m * n,
                    actual: c.len(),
                });
            }
            let grid = blocks(m, n);
            let (m, n, k) = (m as u32, n as u32, k as u32);
            launch!(gemm_bf16_wgmma[grid, THREADS, stream, SHARED_BYTES](
                self.a.buffer(),
                self.b.buffer(),
                c,
                m,
                n,
                k
            ))
        }
    }
}
