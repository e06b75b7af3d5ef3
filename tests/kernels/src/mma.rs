//! Warp matrix multiply-accumulate (`mma_sync`) kernels for `tests/tests/mma.rs`: one warp on one
//! tile through the load/store helpers, one warp on registers the host lays out itself (which
//! pins the fragment layout on the GPU), the registers a load produces, a small GEMM of many
//! warps with zero padding, and two misuses the simulator must report.
//!
//! # Older GPU targets
//! `mma.sync` needs sm_80, and this crate is built for sm_70 by `cargo test` (the PTX default)
//! and for sm_90 by `scripts/gpu-bundle.sh`. Every kernel here therefore exists in both builds:
//! its body is a helper compiled where
//! `cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))` holds (the simulator, GPU
//! targets from sm_80), and a stub elsewhere that leaves the `ran` flag at 0. The host tests read `ran[0]`:
//! 0 on the GPU means "the PTX predates sm_80", and the test says it skipped; the simulator
//! always runs the real body (a 0 there fails the test).

#[cfg(not(any(not(target_arch = "nvptx64"), target_feature = "sm_80")))]
use ferrocuda::device::mma::MmaInput;
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
use ferrocuda::device::mma::TensorCoreInput;
use ferrocuda::prelude::*;

/// Threads per block of [`mma_gemm_f16`] and friends: four warps, one 16 x 8 tile each.
pub const GEMM_BLOCK: u32 = 128;

/// Declares each helper twice: the real body where the build has tensor cores, and a stub that
/// ignores its arguments (leaving `ran` at 0) on GPU targets before sm_80.
macro_rules! tensor_core_helpers {
    ($( $(#[$meta:meta])* fn $name:ident<$t:ident>($($arg:ident: $ty:ty),* $(,)?) $body:block )*) => {$(
        $(#[$meta])*
        #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
        fn $name<$t: TensorCoreInput>($($arg: $ty),*) $body

        $(#[$meta])*
        #[cfg(not(any(not(target_arch = "nvptx64"), target_feature = "sm_80")))]
        fn $name<$t: MmaInput>($($arg: $ty),*) {
            let _ = ($($arg,)*);
        }
    )*};
}

/// Records that the real body ran (thread 0 of block 0 writes 1).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
fn mark_ran(ran: &mut [u32]) {
    if thread_rank() == 0 && block_idx().x == 0 {
        ran[0] = 1;
    }
}

/// The tile layout of bit `bit` of `layouts`: 0 row-major, 1 column-major.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
fn layout_bit(layouts: u32, bit: u32) -> TileLayout {
    if layouts >> bit & 1 == 0 {
        TileLayout::RowMajor
    } else {
        TileLayout::ColumnMajor
    }
}

tensor_core_helpers! {
    /// `d = a * b + c` on one tile, by one warp: `a` is 16 x K (row-major, or stored K x 16
    /// when bit 0 of `layouts` is set), `b` K x 8 (or stored 8 x K with bit 1), `c` and `d`
    /// 16 x 8 row-major.
    fn tile<T>(
        a: &[T::Element],
        b: &[T::Element],
        c: &[f32],
        d: &mut [f32],
        layouts: u32,
        ran: &mut [u32],
    ) {
        let k = T::K;
        let a_layout = layout_bit(layouts, 0);
        let b_layout = layout_bit(layouts, 1);
        let a = match a_layout {
            TileLayout::RowMajor => Matrix::new(a, 16, k),
            TileLayout::ColumnMajor => Matrix::new(a, k, 16),
        };
        let b = match b_layout {
            TileLayout::RowMajor => Matrix::new(b, k, 8),
            TileLayout::ColumnMajor => Matrix::new(b, 8, k),
        };
        let a = FragmentA::<T>::load(&a, (0, 0), a_layout);
        let b = FragmentB::<T>::load(&b, (0, 0), b_layout);
        let c = Accumulator::load(&Matrix::new(c, 16, 8), (0, 0), TileLayout::RowMajor);
        let result = mma_sync(&a, &b, &c);
        result.store(&mut MatrixMut::new(d, 16, 8), (0, 0), TileLayout::RowMajor);
        mark_ran(ran);
    }

    /// `mma_sync` on registers the host laid out: lane `l` takes `a[4l..4l + 4]`,
    /// `b[2l..2l + 2]`, `c[4l..4l + 4]` and writes its registers of `D` to `d[4l..4l + 4]`.
    fn registers<T>(a: &[u32], b: &[u32], c: &[f32], d: &mut [f32], ran: &mut [u32]) {
        let lane = lane_id() as usize;
        let a = FragmentA::<T>::from_registers([a[4 * lane], a[4 * lane + 1], a[4 * lane + 2], a[4 * lane + 3]]);
        let b = FragmentB::<T>::from_registers([b[2 * lane], b[2 * lane + 1]]);
        let c = Accumulator::from_registers([c[4 * lane], c[4 * lane + 1], c[4 * lane + 2], c[4 * lane + 3]]);
        let result = mma_sync(&a, &b, &c).registers();
        d[4 * lane..4 * lane + 4].copy_from_slice(&result);
        mark_ran(ran);
    }

    /// The registers a load produces: each lane loads the tiles `a` (16 x K), `b` (K x 8) and
    /// `c` (16 x 8), all row-major, and writes its registers to `out[10l..10l + 10]` (4 of A,
    /// 2 of B, 4 of C as `f32` bits), then the positions its fragment functions give to
    /// `positions[...]` (see `tests/tests/mma.rs`).
    fn loaded_registers<T>(
        a: &[T::Element],
        b: &[T::Element],
        c: &[f32],
        out: &mut [u32],
        positions: &mut [u32],
        ran: &mut [u32],
    ) {
        let k = T::K;
        let lane = lane_id() as usize;
        let a = FragmentA::<T>::load(&Matrix::new(a, 16, k), (0, 0), TileLayout::RowMajor);
        let b = FragmentB::<T>::load(&Matrix::new(b, k, 8), (0, 0), TileLayout::RowMajor);
        let c = Accumulator::load(&Matrix::new(c, 16, 8), (0, 0), TileLayout::RowMajor);
        let registers = &mut out[10 * lane..10 * lane + 10];
        registers[..4].copy_from_slice(&a.registers());
        registers[4..6].copy_from_slice(&b.registers());
        for (slot, value) in registers[6..].iter_mut().zip(c.registers()) {
            *slot = value.to_bits();
        }
        // 8 + 4 + 4 positions per lane (A, B, C), each as row * 16 + col; unused slots stay.
        let positions = &mut positions[16 * lane..16 * lane + 16];
        let flat = |(row, col): (usize, usize)| (row * 16 + col) as u32;
        for (i, slot) in positions[..FragmentA::<T>::ELEMENTS].iter_mut().enumerate() {
            *slot = flat(FragmentA::<T>::position(i));
        }
        for (i, slot) in positions[8..8 + FragmentB::<T>::ELEMENTS].iter_mut().enumerate() {
            *slot = flat(FragmentB::<T>::position(i));
        }
        for (i, slot) in positions[12..16].iter_mut().enumerate() {
            *slot = flat(Accumulator::position(i));
        }
        mark_ran(ran);
    }

    /// `c = a * b` for row-major `a` (m x k), `b` (k x n), `c` (m x n) of any size: each warp
    /// computes one 16 x 8 tile of `c`, loading the fragments straight from global memory with
    /// zeros outside the matrices, and stores the elements inside `c`.
    fn gemm<T>(
        a: &[T::Element],
        b: &[T::Element],
        c: &mut [f32],
        m: u32,
        n: u32,
        k: u32,
        ran: &mut [u32],
    ) {
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let (a, b) = (Matrix::new(a, m, k), Matrix::new(b, k, n));
        let mut c = MatrixMut::new(c, m, n);
        let tiles_across = n.div_ceil(8);
        let warp = (block_idx().x * (block_dim().x / WARP_SIZE) + warp_id()) as usize;
        // Whole warps leave together, so the warps that stay are converged.
        if warp < m.div_ceil(16) * tiles_across {
            let (row, col) = (warp / tiles_across * 16, warp % tiles_across * 8);
            let a_padded = |r: usize, c: usize| if r < m && c < k { a[(r, c)] } else { T::ZERO };
            let b_padded = |r: usize, c: usize| if r < k && c < n { b[(r, c)] } else { T::ZERO };
            let mut sum = Accumulator::zeroed();
            for step in (0..k).step_by(T::K) {
                let a_tile = FragmentA::<T>::load(&a_padded, (row, step), TileLayout::RowMajor);
                let b_tile = FragmentB::<T>::load(&b_padded, (step, col), TileLayout::RowMajor);
                sum = mma_sync(&a_tile, &b_tile, &sum);
            }
            let mut inside = |r: usize, col: usize, value: f32| {
                if r < m && col < n {
                    c[(r, col)] = value;
                }
            };
            sum.store(&mut inside, (row, col), TileLayout::RowMajor);
        }
        mark_ran(ran);
    }

    /// A misuse: only the lower 16 lanes of the warp reach `mma_sync` (the simulator must
    /// report a divergent warp operation; never launched on a GPU).
    fn half_warp<T>(out: &mut [f32], ran: &mut [u32]) {
        if lane_id() < 16 {
            let d = mma_sync(&FragmentA::<T>::zeroed(), &FragmentB::<T>::zeroed(), &Accumulator::zeroed());
            out[lane_id() as usize] = d.element(0);
        }
        mark_ran(ran);
    }

    /// A misuse: the lower half of the warp multiplies `T`, the upper half bf16, so for `T` other
    /// than bf16 the lanes reach different instructions (the simulator must report a divergent
    /// warp operation; never launched on a GPU).
    fn mixed_inputs<T>(out: &mut [f32], ran: &mut [u32]) {
        let c = Accumulator::zeroed();
        let d = if lane_id() < 16 {
            mma_sync(&FragmentA::<T>::zeroed(), &FragmentB::<T>::zeroed(), &c)
        } else {
            mma_sync(&FragmentA::<Bf16>::zeroed(), &FragmentB::<Bf16>::zeroed(), &c)
        };
        out[lane_id() as usize] = d.element(0);
        mark_ran(ran);
    }
}

/// [`tile`] for f16 inputs .
#[kernel]
pub fn mma_tile_f16(a: &[f16], b: &[f16], c: &[f32], d: &mut [f32], layouts: u32, ran: &mut [u32]) {
    tile::<F16>(a, b, c, d, layouts, ran);
}

/// [`tile`] for bf16 inputs .
#[kernel]
pub fn mma_tile_bf16(
    a: &[bf16],
    b: &[bf16],
    c: &[f32],
    d: &mut [f32],
    layouts: u32,
    ran: &mut [u32],
) {
    tile::<Bf16>(a, b, c, d, layouts, ran);
}

/// [`tile`] for tf32 inputs (`f32`, rounded to tf32 by the load).
#[kernel]
pub fn mma_tile_tf32(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    d: &mut [f32],
    layouts: u32,
    ran: &mut [u32],
) {
    tile::<Tf32>(a, b, c, d, layouts, ran);
}

/// [`registers`] for f16.
#[kernel]
pub fn mma_registers_f16(a: &[u32], b: &[u32], c: &[f32], d: &mut [f32], ran: &mut [u32]) {
    registers::<F16>(a, b, c, d, ran);
}

/// [`registers`] for bf16.
#[kernel]
pub fn mma_registers_bf16(a: &[u32], b: &[u32], c: &[f32], d: &mut [f32], ran: &mut [u32]) {
    registers::<Bf16>(a, b, c, d, ran);
}

/// [`registers`] for tf32.
#[kernel]
pub fn mma_registers_tf32(a: &[u32], b: &[u32], c: &[f32], d: &mut [f32], ran: &mut [u32]) {
    registers::<Tf32>(a, b, c, d, ran);
}

/// [`loaded_registers`] for f16.
#[kernel]
pub fn mma_loaded_registers_f16(
    a: &[f16],
    b: &[f16],
    c: &[f32],
    out: &mut [u32],
    positions: &mut [u32],
    ran: &mut [u32],
) {
    loaded_registers::<F16>(a, b, c, out, positions, ran);
}

/// [`loaded_registers`] for tf32.
#[kernel]
pub fn mma_loaded_registers_tf32(
    a: &[f32],
    b: &[f32],
    c: &[f32],
    out: &mut [u32],
    positions: &mut [u32],
    ran: &mut [u32],
) {
    loaded_registers::<Tf32>(a, b, c, out, positions, ran);
}

/// [`gemm`] for f16.
#[kernel]
pub fn mma_gemm_f16(a: &[f16], b: &[f16], c: &mut [f32], m: u32, n: u32, k: u32, ran: &mut [u32]) {
    gemm::<F16>(a, b, c, m, n, k, ran);
}

/// [`gemm`] for bf16.
#[kernel]
pub fn mma_gemm_bf16(
    a: &[bf16],
    b: &[bf16],
    c: &mut [f32],
    m: u32,
    n: u32,
    k: u32,
    ran: &mut [u32],
) {
    gemm::<Bf16>(a, b, c, m, n, k, ran);
}

/// [`gemm`] for tf32.
#[kernel]
pub fn mma_gemm_tf32(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, k: u32, ran: &mut [u32]) {
    gemm::<Tf32>(a, b, c, m, n, k, ran);
}

/// [`mixed_inputs`] with f16 in the lower half (simulator only).
#[kernel]
pub fn mma_mixed_inputs(out: &mut [f32], ran: &mut [u32]) {
    mixed_inputs::<F16>(out, ran);
}

/// [`half_warp`] for f16 (simulator only).
#[kernel]
pub fn mma_half_warp(out: &mut [f32], ran: &mut [u32]) {
    half_warp::<F16>(out, ran);
}

/// `output[i] = round_to_tf32(input[i])`: `cvt.rna.tf32.f32` from sm_80 on the GPU, the same bit
/// arithmetic before it and on the simulator (no sm_80 gate needed).
#[kernel]
pub fn mma_round_to_tf32(input: &[f32], output: &mut [f32]) {
    let i = grid!(1);
    if i < input.len() {
        output[i] = ferrocuda::device::mma::round_to_tf32(input[i]);
    }
}
