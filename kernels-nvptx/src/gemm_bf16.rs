//! A bf16 GEMM on the tensor cores, in the style of CUTLASS's multistage `mma.sync` kernels:
//! `C = A B` with `A` (M x K) and `B` (K x N) bf16, both row-major, and `C` (M x N) f32,
//! row-major.
//!
//! # How it works
//! - **Block tile** [`BLOCK_M`] x [`BLOCK_N`] x [`BLOCK_K`] = 128 x 256 x 64, computed by
//!   [`THREADS`] = 256 threads (8 warps), one block per tile of `C`, on a one-dimensional grid
//!   of `(M / 128) (N / 256)` blocks ([`blocks`]); one block per SM (222 registers a
//!   thread).
//! - **Block order** grouped as in Triton's matmul tutorial: blocks `0, 1, 2, ...` walk down
//!   [`GROUP_M`] = 8 tile rows of one tile column, then the next column of the same 8 rows, and
//!   so on (the last group has the remaining rows). The blocks resident together then read a few
//!   rows of `A` and columns of `B`, which stay in L2, instead of all of `B`.
//! - **Warp tile** 64 x 64: the warps lie 2 (down M) x 4 (across N); warp `w` covers rows
//!   `64 (w / 4)` and columns `64 (w % 4)` of the block tile, as 4 x 8 tiles of 16 x 8, each one
//!   `mma.sync.m16n8k16` per 16 of K (a K-slice; four per K-step), accumulating in 128 `f32`
//!   registers per lane. Per K-slice a warp issues 32 `mma`s for 8 `ldmatrix.x4` (4 for `A`, 4
//!   for `B`): a 64 x 64 warp tile reads half the shared memory per `mma` that a 64 x 32 one
//!   does.
//! - **Pipeline** of [`STAGES`] = 3 stages in dynamic shared memory ([`SHARED_BYTES`] = 144 KiB,
//!   which the launch opts in to: sm_80, sm_87 and sm_90 have room for it; the 99 KiB of sm_86
//!   and sm_89 do not, and there the launch fails with the runtime's error naming the limit):
//!   the `A` and `B` tiles of K-step `t` are copied global -> shared with `cp.async` (16-byte
//!   copies, four of `A` and eight of `B` per thread) into stage `t % 3`, two steps ahead of the
//!   step being multiplied. A step's twelve copies are spread over its first three K-slices,
//!   four at each, so that the warps do not queue them on the load-store unit all at once.
//! - **Copies through L1**: the 16-byte copies are `cp.async.ca` (see
//!   [`async_copy_unchecked`](ferrocuda::device::async_copy_unchecked)). With `cp.async.cg`,
//!   which bypasses L1, the H100 delivered twice the sectors the tiles hold from L2 to the SMs,
//!   and this kernel ran at 0.69-0.71x its speed with `.ca` (the measured figures below).
//! - **Fragments** come from shared memory through `ldmatrix`: `.x4` gives one 16 x 16 `A`
//!   fragment, `.x4.trans` two 16 x 8 `B` fragments (`B` is stored K x N, so its 8 x 8 matrices
//!   are transposed on the way into the column layout `mma` takes). They are double-buffered:
//!   the fragments of the next K-slice are loaded before the current slice's 32 `mma`s are
//!   issued, across the stage boundary too, so `ldmatrix` latency hides behind the `mma`s.
//! - **One barrier per K-step**, at its third K-slice, after that slice has loaded the
//!   fragments of the last one: `async_copy_wait::<{STAGES - 2}>` (every group but the newest is
//!   done: step `t + 1` has arrived), then `syncthreads`, which makes every thread's copies
//!   visible and says that every warp has loaded all its fragments of stage `t % 3`, which the
//!   next step's copies refill. The last slice's 32 `mma`s then run between the barrier and the
//!   first `mma`s of the next stage, so the `ldmatrix` loads every warp issues at once after the
//!   barrier have time to arrive. This barrier and the spread copies together gained 3-4 %
//!   over the barrier at the last slice and all copies at the first.
//! - **Epilogue**: each lane writes its accumulator elements straight to `C`.
//!
//! # What the inner loop costs
//! Each thread computes its copy sources, copy destinations and `ldmatrix` rows once, as 32-bit
//! offsets (the swizzle below makes the per-tile, per-copy and per-K offsets additive), and the
//! loops over fragments and accumulators are unrolled (`unroll!`), so the fragments and the 128
//! accumulators stay in registers: 222 registers, no stack, 277 SASS instructions per K-step of
//! 128 `mma`s on sm_90 (32 `ldmatrix`, 12 `cp.async`, 1 barrier). The copies and `ldmatrix`
//! loads go through the `_unchecked` forms
//! ([`async_copy_unchecked`](ferrocuda::device::async_copy_unchecked),
//! [`ldmatrix_x4_unchecked`](ferrocuda::device::ldmatrix_x4_unchecked)), whose GPU paths add
//! the row's byte offset to the array's shared-state-space address in 32 bits, so `ptxas`
//! folds the constant offsets into the instructions. The shape check at entry bounds every
//! index, and on the simulator those forms still check, so the simulator tests would catch an
//! index that broke the contract. The checked forms, with index math redone in 64 bits each
//! step, took 538 instructions per 32 `mma`s and 255 registers: 87 TFLOP/s at 4096^3.
//!
//! # Measured (H100, CUDA events, `examples/gemm_bf16`)
//! On 2026-11-24 (`bench/results/h100-2026-11-24-gemm.md`): 404-405 TFLOP/s at 4096^3 and
//! 475-476 at 8192^3, 0.56-0.57x and 0.59x cuBLAS through PyTorch in the same command (714.9
//! and 799.4 TFLOP/s); the 128 x 256 x 32 tile of 4 stages with `.cg` copies this replaces ran
//! at 276-279 and 326-328 (0.37-0.38x and 0.42x). Nsight Compute at 4096^3 (SM clock
//! 1.76 GHz): the tensor pipe is active 64.7 % of the cycles (cuBLAS's wgmma kernel: 97 %), the
//! SMs receive from L2 exactly the sectors the tiles hold, and the warp stalls are mostly the
//! fixed latencies between `mma`s (26 %) and the busy tensor pipe (22 %), then the load-store
//! queue (`lg_throttle`, 11 %) and the wait for copies (10.6 %), with 2 warps per scheduler.
//! Variants measured and not kept are in that file.
//!
//! # Shared-memory layout: an XOR swizzle
//! No padding: the 16-byte chunks of each row are permuted so that the eight rows one
//! `ldmatrix` matrix reads fall in eight different groups of four banks. A stage's `A` tile is
//! 128 rows of 64 elements (128 bytes, 8 chunks): element `(r, k)` lives at
//! `r * 64 + ((k / 8) ^ (r % 8)) * 8 + k % 8`, so eight consecutive rows at the same `k` are at
//! byte offsets (mod 128) `16 ((k / 8) ^ (r % 8))`: eight different 16-byte bank groups. (With
//! `BLOCK_K` = 32, rows of 64 bytes, the term is `(r / 2) % 4`, and the offsets
//! `64 (r % 2) + 16 ((k / 8) ^ ((r / 2) % 4))`.) A stage's `B` tile is 64 rows of 256 elements
//! (512 bytes, 32 chunks): element `(k, n)` lives at `k * 256 + ((n / 8) ^ (k % 8)) * 8 + n % 8`,
//! which likewise spreads the eight rows of one matrix over the eight bank groups. The
//! `cp.async` copies write whole chunks, so they use the same formulas.
//!
//! # Sizes
//! M must be a multiple of 128, N of 256 and K of 64 (no tail handling). [`gemm_bf16_launch`]
//! checks that on the host and returns [`GemmError::Shape`] otherwise; the kernel itself stops
//! with a panic naming the rule.
//!
//! # Architecture
//! `cp.async`, `ldmatrix` and `mma.sync` need sm_80. This crate is built for sm_70 by default
//! (and for sm_90 by `scripts/gpu-bundle.sh`), so the kernel's body exists in builds for sm_80
//! or newer and on the simulator; in older builds the kernel is still an entry, whose body
//! panics saying so, and [`gemm_bf16_launch`] refuses to launch it on a GPU
//! ([`GemmError::Architecture`]).

use ferrocuda::prelude::*;

/// Rows of `C` (and of `A`) per block.
pub const BLOCK_M: usize = 128;
/// Columns of `C` (and of `B`) per block.
pub const BLOCK_N: usize = 256;
/// Elements of K per pipeline stage.
pub const BLOCK_K: usize = 64;
/// Stages of the `cp.async` pipeline.
pub const STAGES: usize = 3;
/// Tile rows of `C` that consecutive blocks cover before moving to the next tile column.
pub const GROUP_M: usize = 8;
/// Threads per block: 8 warps.
pub const THREADS: u32 = 256;
/// Elements (bf16) of one stage: the `A` tile, then the `B` tile.
const STAGE_ELEMENTS: usize = BLOCK_M * BLOCK_K + BLOCK_K * BLOCK_N;
/// Dynamic shared memory the kernel needs: [`STAGES`] stages of an `A` and a `B` tile, 144 KiB.
pub const SHARED_BYTES: u32 = (STAGES * STAGE_ELEMENTS * 2) as u32;
/// `c = a b` for row-major bf16 `a` (`m` x `k`), `b` (`k` x `n`) and f32 `c` (`m` x `n`); see
/// the module documentation. Launch with [`gemm_bf16_launch`], which checks the sizes and the
/// architecture: grid [`blocks`]`(m, n)`, [`THREADS`] threads, [`SHARED_BYTES`] of dynamic
/// shared memory.
#[kernel]
pub fn gemm_bf16(a: &[bf16], b: &[bf16], c: &mut [f32], m: u32, n: u32, k: u32) {
    body::gemm(a, b, c, m as usize, n as usize, k as usize);
}

/// The kernel's body where `cp.async`, `ldmatrix` and `mma.sync` exist: the simulator, sm_80 and
/// newer.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
mod body {
    use super::*;
    use ferrocuda::device::{
        async_copy_unchecked, ldmatrix_x4_trans_unchecked, ldmatrix_x4_unchecked,
    };

    /// Warps per block along M and along N.
    const WARPS: (usize, usize) = (2, 4);
    /// Rows and columns of `C` per warp.
    const WARP_TILE: (usize, usize) = (BLOCK_M / WARPS.0, BLOCK_N / WARPS.1);
    /// `mma.sync` tiles (16 x 8) per warp along M and along N.
    const MMA_TILES: (usize, usize) = (WARP_TILE.0 / 16, WARP_TILE.1 / 8);
    /// `mma.sync` K-slices (16 of K) per K-step.
    const K_SLICES: usize = BLOCK_K / 16;
    /// 16-byte chunks per row of a stage's `A` tile and of its `B` tile.
    const CHUNKS: (usize, usize) = (BLOCK_K / 8, BLOCK_N / 8);
    /// 16-byte copies of `A` per thread in each K-step; copy `j` is `j * A_ROWS_PER_COPY` rows
    /// below copy 0.
    const A_COPIES: usize = BLOCK_M * BLOCK_K / 8 / THREADS as usize;
    const A_ROWS_PER_COPY: usize = THREADS as usize / CHUNKS.0;
    /// 16-byte copies of `B` per thread in each K-step, `B_ROWS_PER_COPY` rows apart.
    const B_COPIES: usize = BLOCK_K * BLOCK_N / 8 / THREADS as usize;
    const B_ROWS_PER_COPY: usize = THREADS as usize / CHUNKS.1;
    /// K-slices over which a step's copies are spread: all but the last, since they must be
    /// committed before the wait at slice `K_SLICES - 2` (see the main loop).
    const COPY_SLICES: usize = K_SLICES - 1;
    /// 16-byte copies per thread issued at each of the first [`COPY_SLICES`] K-slices.
    const COPIES_PER_SLICE: usize = (A_COPIES + B_COPIES) / COPY_SLICES;
    const _: () = assert!(K_SLICES >= 2 && (A_COPIES + B_COPIES).is_multiple_of(COPY_SLICES));
    const _: () = assert!(WARPS.0 * WARPS.1 * 32 == THREADS as usize);
    // The swizzles below: `A`'s XOR term `(row / (8 / CHUNKS.0)) % CHUNKS.0` is unchanged by a
    // multiple of `A_ROWS_PER_COPY` or of 16 rows, `B`'s `row % 8` by a multiple of `B_ROWS_PER_COPY` or of
    // 16 rows, and a warp's first `B` column is a multiple of 64 (whole groups of 8 chunks).
    const _: () = assert!(CHUNKS.0 == 4 || CHUNKS.0 == 8);
    const _: () = assert!(A_ROWS_PER_COPY.is_multiple_of(8) && B_ROWS_PER_COPY.is_multiple_of(8));
    const _: () = assert!(WARP_TILE.1.is_multiple_of(64) && MMA_TILES.1.is_multiple_of(2));
    const _: () = assert!(A_COPIES * A_ROWS_PER_COPY == BLOCK_M);
    const _: () = assert!(B_COPIES * B_ROWS_PER_COPY == BLOCK_K);

    /// Flat index in a stage's `A` tile of element `(row, col)` (swizzled; see the module docs).
    #[inline(always)]
    fn a_index(row: usize, col: usize) -> usize {
        row * BLOCK_K + (((col / 8) ^ ((row / (8 / CHUNKS.0)) % CHUNKS.0)) * 8) + col % 8
    }

    /// Flat index in a stage's `B` tile of element `(row, col)` (swizzled; see the module docs).
    #[inline(always)]
    fn b_index(row: usize, col: usize) -> usize {
        row * BLOCK_N + (((col / 8) ^ (row % 8)) * 8) + col % 8
    }

    /// One K-slice's operands of a warp: its `A` fragments (one per 16 rows) and `B` fragments
    /// (one per 8 columns).
    type Fragments = (
        [FragmentA<Bf16>; MMA_TILES.0],
        [FragmentB<Bf16>; MMA_TILES.1],
    );

    pub(super) fn gemm(a: &[bf16], b: &[bf16], c: &mut [f32], m: usize, n: usize, k: usize) {
        assert!(
            m.is_multiple_of(BLOCK_M) && n.is_multiple_of(BLOCK_N) && k.is_multiple_of(BLOCK_K),
            "gemm_bf16: m must be a multiple of 128, n of 256 and k of 64"
        );
        assert!(
            block_dim().x == THREADS && block_dim().y == 1 && block_dim().z == 1,
            "gemm_bf16 needs blocks of 256 threads"
        );
        // SAFETY: `bf16` is `#[repr(transparent)]` over `u16`: the same size, alignment and bits,
        // so the slices' memory holds `len` valid `u16`s for as long as the borrows live.
        let (a, b) = unsafe {
            (
                core::slice::from_raw_parts(a.as_ptr().cast::<u16>(), a.len()),
                core::slice::from_raw_parts(b.as_ptr().cast::<u16>(), b.len()),
            )
        };
        let mut shared = dynamic_shared_array::<u16>();
        let tid = thread_idx().x as usize;
        let lane = lane_id() as usize;
        let warp = warp_id() as usize;
        let (tiles_m, tiles_n) = (m / BLOCK_M, n / BLOCK_N);
        let block = block_idx().x as usize;
        if block >= tiles_m * tiles_n {
            // A grid larger than the tiles: the whole block leaves together.
            return;
        }
        // Grouped order: consecutive blocks walk down GROUP_M tile rows before moving right, so
        // the blocks resident at one time share rows of A and columns of B in L2.
        let group = block / (GROUP_M * tiles_n);
        let first_m = group * GROUP_M;
        let group_rows = (tiles_m - first_m).min(GROUP_M);
        let in_group = block % (GROUP_M * tiles_n);
        let (block_row, block_col) = (
            (first_m + in_group % group_rows) * BLOCK_M,
            (in_group / group_rows) * BLOCK_N,
        );
        let (warp_row, warp_col) = (
            (warp / WARPS.1) * WARP_TILE.0,
            (warp % WARPS.1) * WARP_TILE.1,
        );

        // Per-thread offsets, computed once: the inner loop adds only a stage offset and
        // constants, in 32 bits, and the copies advance one pointer per operand. (Index math
        // redone every step in 64 bits, with a bounds and an alignment check per `cp.async` and
        // `ldmatrix`, took 538 instructions per step and 255 registers: 0.12x cuBLAS.)
        //
        // Copies: chunk `q = tid + THREADS j` of each operand's tile: `A` row `q / CHUNKS.0`,
        // `B` row `q / CHUNKS.1`. Copy `j` lies `j * A_ROWS_PER_COPY` (`B_ROWS_PER_COPY`) rows
        // below copy 0, in global memory and in the tile (the swizzle keeps the row offset
        // additive; see the assertions above).
        let (a_row, a_chunk) = (tid / CHUNKS.0, tid % CHUNKS.0);
        let mut a_src = a
            .as_ptr()
            .wrapping_add((block_row + a_row) * k + a_chunk * 8);
        let a_dst = a_index(a_row, a_chunk * 8) as u32;
        let (b_row, b_chunk) = (tid / CHUNKS.1, tid % CHUNKS.1);
        let mut b_src = b.as_ptr().wrapping_add(b_row * n + block_col + b_chunk * 8);
        let b_dst = (BLOCK_M * BLOCK_K + b_index(b_row, b_chunk * 8)) as u32;
        let (a_copy_stride, b_copy_stride) = (A_ROWS_PER_COPY * k, B_ROWS_PER_COPY * n);
        let b_step = BLOCK_K * n;
        // Fragments: `A`'s row (lanes 0-15 rows 0-15 at column 16 s, lanes 16-31 at 16 s + 8)
        // for K-slice `s`; the 16-row tiles add 16 * BLOCK_K elements each (the swizzle's
        // `(row / 2) % CHUNKS.0` does not change with 16 rows). `B`'s for each pair of n tiles
        // at K-slice 0 (matrix `lane / 8`: k rows 0-7 or 8-15, columns 0-7 or 8-15 of the
        // pair); K-slice `s` adds 16 s rows, which keeps `row % 8` and so the swizzle.
        let a_frag_offset = core::array::from_fn::<u32, K_SLICES, _>(|slice| {
            a_index(warp_row + lane % 16, slice * 16 + (lane / 16) * 8) as u32
        });
        let b_frag_offset = core::array::from_fn::<u32, { MMA_TILES.1 / 2 }, _>(|pair| {
            let matrix = lane / 8;
            let row = lane % 8 + 8 * (matrix % 2);
            let col = warp_col + pair * 16 + 8 * (matrix / 2);
            (BLOCK_M * BLOCK_K + b_index(row, col)) as u32
        });

        // Starts part `part` (0 to COPY_SLICES - 1) of the copies of the next K-step into the
        // stage at `stage` (an element offset): the step's copies, `A`'s then `B`'s, numbered
        // `0..A_COPIES + B_COPIES`, are issued COPIES_PER_SLICE at a time, one part per K-slice,
        // so that they do not all wait for the load-store unit at once. The last part moves the
        // sources on by one step.
        let issue = |shared: &mut SharedSlice<u16>,
                     stage: u32,
                     part: usize,
                     a_src: &mut *const u16,
                     b_src: &mut *const u16| {
            // SAFETY (all copies): the shape assertions above make every source chunk lie
            // inside `a` and `b` (rows below m and k, columns below k and n, 8 elements inside
            // one row) for every step below `steps`, which is the only time `issue` is called;
            // device buffers are 256-byte aligned and every offset is a multiple of 8 elements
            // (16 bytes). The destinations are below `STAGES * STAGE_ELEMENTS`, the length of the
            // dynamic shared memory the launch gives (checked by the host launcher), and 16-byte
            // aligned (multiples of 8 elements from a 16-byte aligned start).
            unroll!(q < COPIES_PER_SLICE => {
                let copy = part * COPIES_PER_SLICE + q;
                if copy < A_COPIES {
                    let dst = stage + a_dst + (copy * A_ROWS_PER_COPY * BLOCK_K) as u32;
                    let src = a_src.wrapping_add(copy * a_copy_stride);
                    // SAFETY: see above.
                    unsafe { async_copy_unchecked(shared, dst as usize, src, 8) };
                } else {
                    let j = copy - A_COPIES;
                    let dst = stage + b_dst + (j * B_ROWS_PER_COPY * BLOCK_N) as u32;
                    let src = b_src.wrapping_add(j * b_copy_stride);
                    // SAFETY: see above.
                    unsafe { async_copy_unchecked(shared, dst as usize, src, 8) };
                }
            });
            if part == COPY_SLICES - 1 {
                *a_src = a_src.wrapping_add(BLOCK_K);
                *b_src = b_src.wrapping_add(b_step);
            }
        };
        // Loads K-slice `slice` of the stage at `stage` into fragments.
        let load = |shared: &SharedSlice<u16>, stage: u32, slice: usize| -> Fragments {
            let mut a_frag = [FragmentA::<Bf16>::zeroed(); MMA_TILES.0];
            unroll!(i < MMA_TILES.0 => {
                let row = stage + a_frag_offset[slice] + (i * 16 * BLOCK_K) as u32;
                // SAFETY: `row` + 8 lies in the stage's `A` tile (row below BLOCK_M, column
                // chunk below CHUNKS.0), inside the dynamic shared memory, 16-byte aligned; all
                // 32 lanes execute this (no divergence in the kernel up to here).
                let r = unsafe { ldmatrix_x4_unchecked(shared, row as usize) };
                a_frag[i] = FragmentA::from_registers(r);
            });
            let mut b_frag = [FragmentB::<Bf16>::zeroed(); MMA_TILES.1];
            unroll!(pair < MMA_TILES.1 / 2 => {
                let row = stage + b_frag_offset[pair] + (slice * 16 * BLOCK_N) as u32;
                // SAFETY: as for `A`: inside the stage's `B` tile (k row below BLOCK_K, chunk
                // below CHUNKS.1), 16-byte aligned, all lanes together.
                let r = unsafe { ldmatrix_x4_trans_unchecked(shared, row as usize) };
                b_frag[2 * pair] = FragmentB::from_registers([r[0], r[1]]);
                b_frag[2 * pair + 1] = FragmentB::from_registers([r[2], r[3]]);
            });
            (a_frag, b_frag)
        };

        let steps = k / BLOCK_K;
        const STAGE: u32 = STAGE_ELEMENTS as u32;
        const LAST_STAGE: u32 = (STAGES as u32 - 1) * STAGE;
        let advance = |stage: u32| {
            if stage == LAST_STAGE {
                0
            } else {
                stage + STAGE
            }
        };
        let mut write_stage = 0u32;
        for step in 0..STAGES - 1 {
            if step < steps {
                unroll!(part < COPY_SLICES => {
                    issue(&mut shared, write_stage, part, &mut a_src, &mut b_src);
                });
            }
            async_copy_commit();
            write_stage = advance(write_stage);
        }
        // Step 0 has arrived (only the STAGES - 2 newest groups may be pending) and is visible
        // to every thread after the barrier.
        async_copy_wait::<{ STAGES as u32 - 2 }>();
        syncthreads();
        let mut read_stage = 0u32;
        let mut acc = [[Accumulator::zeroed(); MMA_TILES.1]; MMA_TILES.0];
        // The fragments are double-buffered: those of the next K-slice are loaded before the
        // `mma`s of the current one are issued, so the loads' latency hides behind them.
        let mut current = load(&shared, read_stage, 0);
        for step in 0..steps {
            unroll!(slice < K_SLICES => {
                let next = if slice + 1 < K_SLICES {
                    load(&shared, read_stage, slice + 1)
                } else {
                    // After the last step this loads a stage no copy writes any more: in
                    // bounds, unused, and cheaper than a branch around it.
                    read_stage = advance(read_stage);
                    load(&shared, read_stage, 0)
                };
                if slice < COPY_SLICES {
                    // Refill the stage read in the previous step (every warp is past the
                    // barrier that followed its last fragment loads of it), a part per slice;
                    // the group closes before the wait below.
                    if step + STAGES - 1 < steps {
                        issue(&mut shared, write_stage, slice, &mut a_src, &mut b_src);
                    }
                    if slice == COPY_SLICES - 1 {
                        async_copy_commit();
                        write_stage = advance(write_stage);
                    }
                }
                if slice == K_SLICES - 2 {
                    // Every fragment load of this stage has been issued (the last slice's just
                    // above): wait for step + 1's copies (groups up to step + 1 are complete
                    // when only the STAGES - 2 newest may be pending); after the barrier they
                    // are visible to every thread, and every warp has loaded its last fragments
                    // of this stage, which the next step's copies refill. The last slice's
                    // `mma`s then run before the first loads of the next stage, so the loads
                    // that every warp issues at once after the barrier are not waited for at
                    // once.
                    async_copy_wait::<{ STAGES as u32 - 2 }>();
                    syncthreads();
                }
                let (a_frag, b_frag) = &current;
                unroll!(i < MMA_TILES.0 => {
                    unroll!(j < MMA_TILES.1 => {
                        // Serpentine order over j: consecutive `mma`s share an operand.
                        let j = if i.is_multiple_of(2) { j } else { MMA_TILES.1 - 1 - j };
                        acc[i][j] = mma_sync(&a_frag[i], &b_frag[j], &acc[i][j]);
                    });
                });
                current = next;
            });
        }
        // Nothing is pending (the last groups were empty), but leave no copy behind.
        async_copy_wait::<0>();

        let mut c = MatrixMut::new(c, m, n);
        unroll!(i < MMA_TILES.0 => {
            unroll!(j < MMA_TILES.1 => {
                let origin = (block_row + warp_row + i * 16, block_col + warp_col + j * 8);
                acc[i][j].store(&mut c, origin, TileLayout::RowMajor);
            });
        });
    }
}

/// The body in builds for GPUs older than sm_80, which lack the instructions: it stops at once
/// ([`gemm_bf16_launch`] does not launch it).
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
mod body {
    pub(super) fn gemm(
        _: &[super::bf16],
        _: &[super::bf16],
        _: &mut [f32],
        _: usize,
        _: usize,
        _: usize,
    ) {
        panic!(
            "gemm_bf16 was built for an architecture older than sm_80: cp.async, ldmatrix and mma.sync need sm_80"
        )
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the checked launch.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use std::fmt;

    /// Why [`gemm_bf16_launch`] did not launch.
    #[derive(Debug)]
    pub enum GemmError {
        /// A size breaks the kernel's rule (M a multiple of 128, N of 256, K of 64, none zero), or a
        /// buffer is shorter than its matrix.
        Shape(String),
        /// The kernels' PTX targets an architecture older than sm_80 and the device is a GPU.
        Architecture {
            /// The PTX's architecture number (70 for sm_70).
            ptx: u32,
        },
        /// The launch itself failed.
        Launch(ferrocuda::Error),
    }

    impl fmt::Display for GemmError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                GemmError::Shape(why) => write!(f, "gemm_bf16: {why}"),
                GemmError::Architecture { ptx } => write!(
                    f,
                    "gemm_bf16: the kernels were built for sm_{ptx}, and the kernel needs sm_80 or newer (build with FERROCUDA_ARCH=sm_80 or newer, as scripts/gpu-bundle.sh does with sm_90)"
                ),
                GemmError::Launch(error) => write!(f, "gemm_bf16: {error}"),
            }
        }
    }

    impl std::error::Error for GemmError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            match self {
                GemmError::Launch(error) => Some(error),
                _ => None,
            }
        }
    }

    impl From<ferrocuda::Error> for GemmError {
        fn from(error: ferrocuda::Error) -> Self {
            GemmError::Launch(error)
        }
    }

    /// The grid of [`gemm_bf16`] for an `m` x `n` `C` (sizes checked by [`check_shape`]): one
    /// block per 128 x 256 tile.
    pub fn blocks(m: usize, n: usize) -> u32 {
        ((m / BLOCK_M) * (n / BLOCK_N)) as u32
    }

    /// The architecture number of this crate's PTX (`.target sm_90` gives 90).
    pub fn ptx_architecture() -> u32 {
        crate::__FERROCUDA_MODULE
            .ptx
            .lines()
            .find_map(|l| l.trim().strip_prefix(".target sm_"))
            .map(|rest| {
                rest.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|digits| digits.parse().ok())
            .unwrap_or(0)
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
    ) -> Result<(), GemmError> {
        if m == 0
            || n == 0
            || k == 0
            || !m.is_multiple_of(BLOCK_M)
            || !n.is_multiple_of(BLOCK_N)
            || !k.is_multiple_of(BLOCK_K)
        {
            return Err(GemmError::Shape(format!(
                "m = {m}, n = {n}, k = {k}: the kernel needs m a nonzero multiple of {BLOCK_M}, n of {BLOCK_N} and k of {BLOCK_K}"
            )));
        }
        for (name, len, rows, cols) in [("a", a_len, m, k), ("b", b_len, k, n), ("c", c_len, m, n)]
        {
            // The kernel indexes with `usize` from `u32` sizes: every matrix stays below 2^32
            // elements (which also keeps the products here from overflowing).
            let elements = rows.checked_mul(cols).filter(|&e| e <= u32::MAX as usize);
            let Some(elements) = elements else {
                return Err(GemmError::Shape(format!(
                    "{name} is {rows} x {cols}: at most {} elements per matrix",
                    u32::MAX
                )));
            };
            if len < elements {
                return Err(GemmError::Shape(format!(
                    "{name} holds {len} elements, fewer than its {rows} x {cols} = {elements}"
                )));
            }
        }
        Ok(())
    }

    /// Queues `c = a b` on `stream` (see [`gemm_bf16`]) after checking the sizes (M a nonzero
    /// multiple of 128, N of 256, K of 64, buffers long enough) and, on a GPU, that the PTX
    /// targets sm_80 or newer.
    pub fn gemm_bf16_launch(
        stream: &Stream,
        a: &DeviceBuffer<bf16>,
        b: &DeviceBuffer<bf16>,
        c: &mut DeviceBuffer<f32>,
        (m, n, k): (usize, usize, usize),
    ) -> Result<(), GemmError> {
        check_shape(a.len(), b.len(), c.len(), m, n, k)?;
        if !stream.device().is_simulator() && ptx_architecture() < 80 {
            return Err(GemmError::Architecture {
                ptx: ptx_architecture(),
            });
        }
        let grid = blocks(m, n);
        let (m, n, k) = (m as u32, n as u32, k as u32);
        launch!(gemm_bf16[grid, THREADS, stream, SHARED_BYTES](a, b, c, m, n, k))?;
        Ok(())
    }
}
