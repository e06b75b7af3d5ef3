//! Fused attention for one head on the tensor cores, in the style of FlashAttention-2's forward
//! pass: `O = softmax(scale Q Kᵀ) V` with `Q` (`seq_q` x `d`), `K` and `V` (`seq_k` x `d`) bf16,
//! row-major, and `O` (`seq_q` x `d`) f32, row-major, without ever storing the `seq_q` x `seq_k`
//! score matrix. Several heads (or batch x heads) go in one launch: head `h` of each tensor
//! starts at `h` times its size (`[heads][seq][d]`, contiguous).
//!
//! # How it works
//! - **Grid**: one block per [`BLOCK_Q`] = 64 query rows of one head, `(ceil(seq_q / 64), heads)`
//!   blocks ([`attention_grid`]), [`THREADS`] = 128 threads (4 warps). Warp `w` owns the 16
//!   query rows `16 w .. 16 w + 15` of the block's tile. With the causal mask the blocks of the
//!   last query rows, which have the most keys to visit, start first.
//! - **Q** is copied once into shared memory (`cp.async`) and loaded into registers with
//!   `ldmatrix.x4`: `d / 16` `A` fragments per warp, kept for the whole loop.
//! - **K and V** are visited in tiles of [`BLOCK_KV`] = 64 keys, double-buffered in shared memory:
//!   the `cp.async` copies of tile `j + 1` are issued before tile `j` is multiplied.
//! - **S = Q Kᵀ** (16 x 64 per warp): `mma.sync.m16n8k16` bf16 -> f32, 8 accumulators of 16 x 8.
//!   `K` is stored keys x `d`, which is the `B` operand (`d` x keys) stored N x K: `ldmatrix.x4`
//!   (not transposed) gives the `B` fragments of two tiles of 8 keys.
//! - **Online softmax** (FlashAttention's): per query row a running maximum `m` and a running
//!   sum `l`. For each tile the scores are scaled by `scale log2(e)` (so that `exp` becomes
//!   `exp2`), masked, their row maximum `m'` taken (across the 4 lanes that share a row with two
//!   `shfl.xor`), and `p = 2^(x - m')` computed with [`fast_exp2`] (`ex2.approx.ftz.f32`, at most
//!   2 ulp); the previous `l` and the `O` accumulators are multiplied by `2^(m - m')`. Each lane
//!   keeps the part of `l` of its own columns: the 4 parts of a row are added once, at the end.
//! - **P V**: the probabilities are rounded to bf16 and multiplied by `V` (keys x `d`, the `B`
//!   operand stored K x N: `ldmatrix.x4.trans`), accumulating into `d / 8` accumulators of
//!   16 x 8 per warp. No shuffle and no shared memory are needed between the two products,
//!   because the accumulator layout of `m16n8k16` *is* the `A` operand layout (next section).
//! - **Epilogue**: `O = acc / l`, each lane writing its elements of the query rows below
//!   `seq_q`.
//!
//! # Why P goes straight from the accumulators into the A fragments
//! With `g = lane / 4` and `t = lane % 4` (see [`ferrocuda::device::mma`]), accumulator element
//! `i` of a 16 x 8 tile lies at row `g + 8 (i / 2)`, column `2t + i % 2`, and `A` fragment
//! element `i` of a 16 x 16 tile at row `g + 8 ((i / 2) % 2)`, column `2t + i % 2 + 8 (i / 4)`.
//! So the `A` fragment of keys `16 s .. 16 s + 15` is, register by register (two elements each,
//! the lower column in the low half): `(row g, keys 2t, 2t + 1)` = elements 0, 1 of score tile
//! `2 s`; `(row g + 8, same keys)` = its elements 2, 3; `(row g, keys 8 + 2t, 9 + 2t)` = elements
//! 0, 1 of tile `2 s + 1`; `(row g + 8, ...)` = its elements 2, 3. Each lane packs its own
//! values (`cvt.rn.bf16x2.f32`); nothing moves between lanes.
//!
//! # Shared-memory layout
//! [`shared_bytes`]`(d)` = 5 tiles of 64 rows of `d` bf16 (Q, two K stages, two V stages):
//! 40 KiB for `d` = 64, 80 KiB for `d` = 128 (the launch opts in above 48 KiB). Each row is
//! `d / 8` chunks of 16 bytes, XOR-swizzled: element `(r, c)` of a tile lives at
//! `r d + ((c / 8) ^ (r % 8)) 8 + c % 8`, so the eight rows one `ldmatrix` matrix reads (eight
//! consecutive rows at one chunk, plain or transposed) fall in eight different groups of four
//! banks. The `cp.async` copies write whole chunks at the same positions.
//!
//! # Sizes and masks
//! Any `seq_q` and `seq_k` from 1 on: the copies of rows beyond `seq_q` or `seq_k` fill zeros
//! (`cp.async` with a source size of 0), scores of keys beyond `seq_k` are set to -inf before
//! the maximum (so they weigh 0), and query rows beyond `seq_q` are computed on zeros and not
//! stored. The causal mask (`causal = true`) hides key `j` from query row `i` when `j > i`: the
//! top-left alignment of PyTorch's `scaled_dot_product_attention(is_causal=True)`; blocks then
//! visit only the key tiles up to their last row. Every row sees key 0 in its first tile, so its
//! maximum is finite from the first tile on. `d` is 64 or 128: one entry per size
//! ([`attention_d64`], [`attention_d128`]); [`attention_launch`] checks everything on the host
//! ([`AttentionError::Shape`]).
//!
//! # Architecture
//! `cp.async`, `ldmatrix` and `mma.sync` need sm_80; as for [`crate::gemm_bf16`], the kernels'
//! bodies exist in builds for sm_80 or newer and on the simulator, older builds get bodies that
//! panic saying so, and [`attention_launch`] refuses to launch those on a GPU
//! ([`AttentionError::Architecture`]).

use ferrocuda::prelude::*;

/// Query rows per block (4 warps of 16 rows).
pub const BLOCK_Q: usize = 64;
/// Keys per tile of `K` and `V`.
pub const BLOCK_KV: usize = 64;
/// Threads per block: 4 warps.
pub const THREADS: u32 = 128;
/// The head dimensions there is a kernel for.
pub const HEAD_DIMS: [usize; 2] = [64, 128];

/// Dynamic shared memory of the kernel for head dimension `d`: Q, two stages of K and two of V,
/// each 64 rows of `d` bf16 (40 KiB for `d` = 64, 80 KiB for 128).
pub const fn shared_bytes(d: usize) -> u32 {
    (5 * BLOCK_Q * d * 2) as u32
}

/// `o = softmax(scale q kᵀ) v` for head dimension 64, `heads` heads of `seq_q` (queries) and
/// `seq_k` (keys) rows; see the module documentation. Launch with [`attention_launch`], which
/// checks the sizes and the architecture: grid [`attention_grid`], [`THREADS`] threads,
/// [`shared_bytes`]`(64)` of dynamic shared memory.
#[kernel]
pub fn attention_d64(
    q: &[bf16],
    k: &[bf16],
    v: &[bf16],
    o: &mut [f32],
    seq_q: u32,
    seq_k: u32,
    scale: f32,
    causal: bool,
) {
    body::attention::<64, 4>(q, k, v, o, seq_q as usize, seq_k as usize, scale, causal);
}

/// As [`attention_d64`] for head dimension 128 ([`shared_bytes`]`(128)` of dynamic shared
/// memory).
#[kernel]
pub fn attention_d128(
    q: &[bf16],
    k: &[bf16],
    v: &[bf16],
    o: &mut [f32],
    seq_q: u32,
    seq_k: u32,
    scale: f32,
    causal: bool,
) {
    body::attention::<128, 8>(q, k, v, o, seq_q as usize, seq_k as usize, scale, causal);
}

/// The kernels' body where `cp.async`, `ldmatrix` and `mma.sync` exist: the simulator, sm_80 and
/// newer.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
mod body {
    use super::*;

    /// Flat index in a tile (64 rows of `D`) of element `(row, col)`, swizzled (see the module
    /// docs).
    #[inline(always)]
    fn index<const D: usize>(row: usize, col: usize) -> usize {
        row * D + (((col / 8) ^ (row % 8)) * 8) + col % 8
    }

    /// Starts the copies of the 64 rows `first_row..` of `source` (one head, rows of `D`) into the
    /// tile at `base`: `64 D / 8` chunks of 16 bytes, `D / 16` per thread. Rows at or beyond
    /// `rows` are filled with zeros.
    #[inline(always)]
    fn issue_tile<const D: usize>(
        shared: &mut SharedSlice<u16>,
        base: usize,
        source: &[u16],
        first_row: usize,
        rows: usize,
        tid: usize,
    ) {
        let chunks_per_row = D / 8;
        for i in 0..BLOCK_Q * chunks_per_row / THREADS as usize {
            let chunk = tid + i * THREADS as usize;
            let (row, col) = (chunk / chunks_per_row, (chunk % chunks_per_row) * 8);
            let destination = base + index::<D>(row, col);
            if first_row + row < rows {
                let at = (first_row + row) * D + col;
                async_copy(shared, destination, &source[at..at + 8]);
            } else {
                async_copy_zero_fill(shared, destination, &source[..0], 8);
            }
        }
    }

    /// The maximum of `value` over the 4 lanes of a quad (the lanes that hold one row of an
    /// accumulator).
    #[inline(always)]
    fn quad_max(value: f32) -> f32 {
        let value = value.max(shfl_xor_sync(FULL_MASK, value, 1));
        value.max(shfl_xor_sync(FULL_MASK, value, 2))
    }

    /// The sum of `value` over the 4 lanes of a quad.
    #[inline(always)]
    fn quad_sum(value: f32) -> f32 {
        let value = value + shfl_xor_sync(FULL_MASK, value, 1);
        value + shfl_xor_sync(FULL_MASK, value, 2)
    }

    /// Two f32 rounded to bf16 and packed, `low` in bits 0-15 (one `cvt.rn.bf16x2.f32`).
    #[inline(always)]
    fn pack(low: f32, high: f32) -> u32 {
        bf16x2::from_f32s(low, high).to_bits()
    }

    /// The body for head dimension `D` = 16 `KSTEPS`.
    #[expect(
        clippy::too_many_arguments,
        reason = "the kernel's parameters, passed through"
    )]
    #[inline(always)]
    pub(super) fn attention<const D: usize, const KSTEPS: usize>(
        q: &[bf16],
        k: &[bf16],
        v: &[bf16],
        o: &mut [f32],
        seq_q: usize,
        seq_k: usize,
        scale: f32,
        causal: bool,
    ) {
        const { assert!(D == 16 * KSTEPS && D.is_multiple_of(64)) };
        assert!(
            block_dim().x == THREADS && block_dim().y == 1 && block_dim().z == 1,
            "attention needs blocks of 128 threads"
        );
        // SAFETY: `bf16` is `#[repr(transparent)]` over `u16`: the same size, alignment and bits,
        // so the slices' memory holds `len` valid `u16`s for as long as the borrows live.
        let (q, k, v) = unsafe {
            (
                core::slice::from_raw_parts(q.as_ptr().cast::<u16>(), q.len()),
                core::slice::from_raw_parts(k.as_ptr().cast::<u16>(), k.len()),
                core::slice::from_raw_parts(v.as_ptr().cast::<u16>(), v.len()),
            )
        };
        let tiles_q = seq_q.div_ceil(BLOCK_Q);
        let block = block_idx().x as usize;
        if block >= tiles_q {
            // A grid larger than the query tiles: the whole block leaves together.
            return;
        }
        // Causal: the last query tiles have the most keys; they start first.
        let q0 = if causal { tiles_q - 1 - block } else { block } * BLOCK_Q;
        let head = block_idx().y as usize;
        let (q, k, v) = (
            &q[head * seq_q * D..(head + 1) * seq_q * D],
            &k[head * seq_k * D..(head + 1) * seq_k * D],
            &v[head * seq_k * D..(head + 1) * seq_k * D],
        );
        let o = &mut o[head * seq_q * D..(head + 1) * seq_q * D];

        let mut shared = dynamic_shared_array::<u16>();
        let tid = thread_idx().x as usize;
        let lane = lane_id() as usize;
        let warp = warp_id() as usize;
        let (group, thread_in_group) = (lane / 4, lane % 4);
        let tile = BLOCK_Q * D;
        let (q_tile, k_tiles, v_tiles) = (0, tile, 3 * tile);

        // The keys this block visits: all, or with the causal mask those up to its last row.
        let last_row = (q0 + BLOCK_Q).min(seq_q) - 1;
        let keys = if causal {
            seq_k.min(last_row + 1)
        } else {
            seq_k
        };
        let tiles_kv = keys.div_ceil(BLOCK_KV);

        // Group 0: Q and the first K and V tiles.
        issue_tile::<D>(&mut shared, q_tile, q, q0, seq_q, tid);
        issue_tile::<D>(&mut shared, k_tiles, k, 0, seq_k, tid);
        issue_tile::<D>(&mut shared, v_tiles, v, 0, seq_k, tid);
        async_copy_commit();

        // The warp's rows of the block tile, and this lane's two rows of them (`g`, `g + 8`).
        let warp_row = warp * 16;
        let rows = [q0 + warp_row + group, q0 + warp_row + group + 8];
        let scale_log2 = scale * core::f32::consts::LOG2_E;
        let mut q_frag = [FragmentA::<Bf16>::zeroed(); KSTEPS];
        let mut acc = [[Accumulator::zeroed(); 2]; KSTEPS];
        let mut max = [f32::NEG_INFINITY; 2];
        let mut sum = [0.0f32; 2];

        for j in 0..tiles_kv {
            let stage = j % 2;
            if j + 1 < tiles_kv {
                // The other stage was last read in iteration j - 1, which ended with a barrier.
                let next = (j + 1) * BLOCK_KV;
                let other = 1 - stage;
                issue_tile::<D>(&mut shared, k_tiles + other * tile, k, next, seq_k, tid);
                issue_tile::<D>(&mut shared, v_tiles + other * tile, v, next, seq_k, tid);
                async_copy_commit();
                async_copy_wait::<1>();
            } else {
                async_copy_wait::<0>();
            }
            // Tile j (and, at j = 0, Q) is in: this thread's copies by the wait, everyone's by
            // the barrier.
            syncthreads();
            if j == 0 {
                unroll!(step < KSTEPS => {
                    // Lanes 0-15 give rows 0-15 at column 16 step, lanes 16-31 at 16 step + 8.
                    let row = warp_row + lane % 16;
                    let col = step * 16 + (lane / 16) * 8;
                    q_frag[step] = FragmentA::from_registers(ldmatrix_x4(
                        &shared,
                        q_tile + index::<D>(row, col),
                    ));
                });
            }

            // S = Q Kᵀ: 8 tiles of 16 x 8 (keys 8 n .. 8 n + 7 of the tile).
            let k_stage = k_tiles + stage * tile;
            let mut scores = [Accumulator::zeroed(); BLOCK_KV / 8];
            unroll!(step < KSTEPS => {
                unroll!(pair < BLOCK_KV / 16 => {
                    // Matrix `lane / 8`: keys 0-7 or 8-15 of this pair of tiles (bit 1), d
                    // columns 0-7 or 8-15 of this step (bit 0).
                    let matrix = lane / 8;
                    let key = pair * 16 + lane % 8 + 8 * (matrix / 2);
                    let col = step * 16 + 8 * (matrix % 2);
                    let r = ldmatrix_x4(&shared, k_stage + index::<D>(key, col));
                    let (even, odd) = (2 * pair, 2 * pair + 1);
                    let a = &q_frag[step];
                    scores[even] =
                        mma_sync(a, &FragmentB::from_registers([r[0], r[1]]), &scores[even]);
                    scores[odd] =
                        mma_sync(a, &FragmentB::from_registers([r[2], r[3]]), &scores[odd]);
                });
            });

            // Scale into the log2 domain and mask: keys beyond seq_k, and above the diagonal.
            let key0 = j * BLOCK_KV;
            let masked_tile = key0 + BLOCK_KV > seq_k || (causal && key0 + BLOCK_KV - 1 > q0);
            let mut x = [[0.0f32; 4]; BLOCK_KV / 8];
            unroll!(n < BLOCK_KV / 8 => {
                unroll!(i < 4 => {
                    x[n][i] = scores[n].element(i) * scale_log2;
                    if masked_tile {
                        let key = key0 + n * 8 + 2 * thread_in_group + i % 2;
                        if key >= seq_k || (causal && key > rows[i / 2]) {
                            x[n][i] = f32::NEG_INFINITY;
                        }
                    }
                });
            });

            // The new row maxima, the rescaling of what came before, and P = 2^(x - max).
            let mut correction = [0.0f32; 2];
            let mut base = [0.0f32; 2];
            unroll!(r < 2 => {
                let mut tile_max = f32::NEG_INFINITY;
                unroll!(n < BLOCK_KV / 8 => {
                    tile_max = tile_max.max(x[n][2 * r]).max(x[n][2 * r + 1]);
                });
                let new_max = max[r].max(quad_max(tile_max));
                // A row whose keys were all masked so far keeps -inf (0 weight for everything),
                // and subtracting 0 instead of -inf keeps NaN out. Every row sees key 0 in its
                // first tile, so this is a safety net that costs a select per row.
                base[r] = if new_max == f32::NEG_INFINITY {
                    0.0
                } else {
                    new_max
                };
                correction[r] = fast_exp2(max[r] - base[r]);
                max[r] = new_max;
            });
            let mut tile_sum = [0.0f32; 2];
            unroll!(n < BLOCK_KV / 8 => {
                unroll!(i < 4 => {
                    x[n][i] = fast_exp2(x[n][i] - base[i / 2]);
                    tile_sum[i / 2] += x[n][i];
                });
            });
            unroll!(r < 2 => {
                sum[r] = sum[r] * correction[r] + tile_sum[r];
            });
            unroll!(pair < KSTEPS => {
                unroll!(half < 2 => {
                    let r = acc[pair][half].registers();
                    acc[pair][half] = Accumulator::from_registers([
                        r[0] * correction[0],
                        r[1] * correction[0],
                        r[2] * correction[1],
                        r[3] * correction[1],
                    ]);
                });
            });

            // O += P V, 16 keys at a time; P's A fragments come from the score tiles 2 s and
            // 2 s + 1 as they are (see the module docs).
            let v_stage = v_tiles + stage * tile;
            unroll!(s < BLOCK_KV / 16 => {
                let (low, high) = (x[2 * s], x[2 * s + 1]);
                let p = FragmentA::<Bf16>::from_registers([
                    pack(low[0], low[1]),
                    pack(low[2], low[3]),
                    pack(high[0], high[1]),
                    pack(high[2], high[3]),
                ]);
                unroll!(pair < KSTEPS => {
                    // Matrix `lane / 8`: keys 0-7 or 8-15 of this step (bit 0), d columns 0-7
                    // or 8-15 of this pair of output tiles (bit 1).
                    let matrix = lane / 8;
                    let key = s * 16 + lane % 8 + 8 * (matrix % 2);
                    let col = pair * 16 + 8 * (matrix / 2);
                    let r = ldmatrix_x4_trans(&shared, v_stage + index::<D>(key, col));
                    acc[pair][0] =
                        mma_sync(&p, &FragmentB::from_registers([r[0], r[1]]), &acc[pair][0]);
                    acc[pair][1] =
                        mma_sync(&p, &FragmentB::from_registers([r[2], r[3]]), &acc[pair][1]);
                });
            });
            // Every warp is done with this stage before the next iteration's copies refill it.
            syncthreads();
        }

        // O = acc / l, for the rows below seq_q.
        let inverse = [1.0 / quad_sum(sum[0]), 1.0 / quad_sum(sum[1])];
        unroll!(pair < KSTEPS => {
            unroll!(half < 2 => {
                unroll!(i < 4 => {
                    let row = rows[i / 2];
                    if row < seq_q {
                        let col = pair * 16 + half * 8 + 2 * thread_in_group + i % 2;
                        o[row * D + col] = acc[pair][half].element(i) * inverse[i / 2];
                    }
                });
            });
        });
    }
}

/// The body in builds for GPUs older than sm_80, which lack the instructions: it stops at once
/// ([`attention_launch`] does not launch it).
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
mod body {
    #[expect(
        clippy::too_many_arguments,
        reason = "the kernel's parameters, passed through"
    )]
    pub(super) fn attention<const D: usize, const KSTEPS: usize>(
        _: &[super::bf16],
        _: &[super::bf16],
        _: &[super::bf16],
        _: &mut [f32],
        _: usize,
        _: usize,
        _: f32,
        _: bool,
    ) {
        panic!(
            "attention was built for an architecture older than sm_80: cp.async, ldmatrix and mma.sync need sm_80"
        )
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

/// The host side: the checked launch.
#[cfg(not(target_arch = "nvptx64"))]
mod host {
    use super::*;
    use crate::gemm_bf16::ptx_architecture;
    use std::fmt;

    /// The sizes of one attention launch: `heads` heads, each with `seq_q` query rows, `seq_k`
    /// key (and value) rows, and `head_dim` columns.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct AttentionShape {
        /// Heads (batch x heads), each a contiguous block of every tensor.
        pub heads: usize,
        /// Query rows per head (rows of `Q` and `O`).
        pub seq_q: usize,
        /// Key rows per head (rows of `K` and `V`).
        pub seq_k: usize,
        /// Columns of `Q`, `K`, `V` and `O`: 64 or 128 ([`HEAD_DIMS`]).
        pub head_dim: usize,
    }

    impl AttentionShape {
        /// Floating-point operations of the two products, `4 heads seq_q seq_k d`, halved with
        /// the causal mask (the convention of FlashAttention's and PyTorch's benchmarks).
        pub fn flops(&self, causal: bool) -> f64 {
            let full = 4.0 * (self.heads * self.seq_q * self.seq_k * self.head_dim) as f64;
            if causal { full / 2.0 } else { full }
        }
    }

    /// Why [`attention_launch`] did not launch.
    #[derive(Debug)]
    pub enum AttentionError {
        /// A size breaks the kernel's rules (head dimension 64 or 128, every length at least 1,
        /// at most 65535 heads, lengths within `u32`, a finite scale), or a buffer's length is not
        /// that of its tensor.
        Shape(String),
        /// The kernels' PTX targets an architecture older than sm_80 and the device is a GPU.
        Architecture {
            /// The PTX's architecture number (70 for sm_70).
            ptx: u32,
        },
        /// The launch itself failed.
        Launch(ferrocuda::Error),
    }

    impl fmt::Display for AttentionError {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self {
                AttentionError::Shape(why) => write!(f, "attention: {why}"),
                AttentionError::Architecture { ptx } => write!(
                    f,
                    "attention: the kernels were built for sm_{ptx}, and the kernel needs sm_80 or newer (build with FERROCUDA_ARCH=sm_80 or newer, as scripts/gpu-bundle.sh does with sm_90)"
                ),
                AttentionError::Launch(error) => write!(f, "attention: {error}"),
            }
        }
    }

    impl std::error::Error for AttentionError {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            match self {
                AttentionError::Launch(error) => Some(error),
                _ => None,
            }
        }
    }

    impl From<ferrocuda::Error> for AttentionError {
        fn from(error: ferrocuda::Error) -> Self {
            AttentionError::Launch(error)
        }
    }

    /// The grid for `shape` (checked by [`check_shape`]): `(ceil(seq_q / 64), heads)`.
    pub fn attention_grid(shape: &AttentionShape) -> (u32, u32) {
        (shape.seq_q.div_ceil(BLOCK_Q) as u32, shape.heads as u32)
    }

    /// The largest number of heads: the grid's y dimension.
    pub const MAX_HEADS: usize = 65535;

    /// Checks `shape`, `scale` and the lengths of `q`, `k`, `v` and `o` against the kernels'
    /// rules; the error names the rule broken.
    pub fn check_shape(
        shape: &AttentionShape,
        scale: f32,
        [q_len, k_len, v_len, o_len]: [usize; 4],
    ) -> Result<(), AttentionError> {
        let AttentionShape {
            heads,
            seq_q,
            seq_k,
            head_dim,
        } = *shape;
        if !HEAD_DIMS.contains(&head_dim) {
            return Err(AttentionError::Shape(format!(
                "head dimension {head_dim} is not supported: it must be 64 or 128"
            )));
        }
        for (name, value) in [("heads", heads), ("seq_q", seq_q), ("seq_k", seq_k)] {
            if value == 0 {
                return Err(AttentionError::Shape(format!(
                    "{name} is 0: it must be at least 1"
                )));
            }
        }
        if heads > MAX_HEADS {
            return Err(AttentionError::Shape(format!(
                "{heads} heads: at most {MAX_HEADS} (the grid's y dimension)"
            )));
        }
        for (name, value) in [("seq_q", seq_q), ("seq_k", seq_k)] {
            if value > u32::MAX as usize {
                return Err(AttentionError::Shape(format!(
                    "{name} is {value}: at most {} (a u32 kernel parameter)",
                    u32::MAX
                )));
            }
        }
        if !scale.is_finite() {
            return Err(AttentionError::Shape(format!(
                "scale is {scale}: it must be finite"
            )));
        }
        for (name, len, rows) in [
            ("q", q_len, seq_q),
            ("k", k_len, seq_k),
            ("v", v_len, seq_k),
            ("o", o_len, seq_q),
        ] {
            let elements = heads
                .checked_mul(rows)
                .and_then(|e| e.checked_mul(head_dim));
            if elements != Some(len) {
                let expected =
                    elements.map_or_else(|| "more than usize holds".to_string(), |e| e.to_string());
                return Err(AttentionError::Shape(format!(
                    "{name} holds {len} elements, and {heads} heads x {rows} rows x {head_dim} columns are {expected}"
                )));
            }
        }
        Ok(())
    }

    /// Queues `o = softmax(scale q kᵀ) v` on `stream` (see the module documentation), with the
    /// causal mask when `causal`, after checking the sizes ([`check_shape`]) and, on a GPU, that
    /// the PTX targets sm_80 or newer. Tensors are `[heads][rows][head_dim]`, contiguous.
    pub fn attention_launch(
        stream: &Stream,
        (q, k, v): (
            &DeviceBuffer<bf16>,
            &DeviceBuffer<bf16>,
            &DeviceBuffer<bf16>,
        ),
        o: &mut DeviceBuffer<f32>,
        shape: &AttentionShape,
        scale: f32,
        causal: bool,
    ) -> Result<(), AttentionError> {
        check_shape(shape, scale, [q.len(), k.len(), v.len(), o.len()])?;
        if !stream.device().is_simulator() && ptx_architecture() < 80 {
            return Err(AttentionError::Architecture {
                ptx: ptx_architecture(),
            });
        }
        let grid = attention_grid(shape);
        let (seq_q, seq_k) = (shape.seq_q as u32, shape.seq_k as u32);
        let shared = shared_bytes(shape.head_dim);
        if shape.head_dim == 64 {
            launch!(attention_d64[grid, THREADS, stream, shared](
                q, k, v, o, seq_q, seq_k, scale, causal
            ))?;
        } else {
            launch!(attention_d128[grid, THREADS, stream, shared](
                q, k, v, o, seq_q, seq_k, scale, causal
            ))?;
        }
        Ok(())
    }
}
