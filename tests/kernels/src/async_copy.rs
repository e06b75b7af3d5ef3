//! Kernels for asynchronous copies to shared memory (`cp.async`) and `ldmatrix`, checked by
//! `tests/tests/async_copy_device.rs`: a three-stage pipeline summing tiles, copies of every size,
//! `ldmatrix` in its six forms, and the misuses the simulator must report.
//!
//! Both instructions need sm_80. This crate is built for sm_70 by `cargo test` (the default
//! architecture) and for sm_90 by `scripts/gpu-bundle.sh`, so each kernel's body lives in the
//! module `body`, which has two versions: the real one on the host (the simulator runs every
//! kernel) and in builds for sm_80 or newer, and one that panics ("built for an architecture
//! older than sm_80") in older builds, so that every kernel still has its PTX entry. The host
//! tests run the GPU variants only when the PTX targets sm_80 or newer.

use ferrocuda::prelude::*;

/// Threads of the pipeline kernel's blocks.
pub const PIPELINE_THREADS: usize = 64;
/// Elements of one tile: 16 bytes (4 `f32`) per thread.
pub const PIPELINE_TILE: usize = 4 * PIPELINE_THREADS;
/// Tiles in flight: the kernel needs `PIPELINE_STAGES * PIPELINE_TILE * 4` bytes of dynamic
/// shared memory.
pub const PIPELINE_STAGES: usize = 3;

/// Sums tiles through a three-stage `cp.async` pipeline. Block `b` reads the `tiles` tiles of
/// `PIPELINE_TILE` elements starting at tile `b * tiles` (zeros past the end of `input`), and
/// thread `t` writes `out[b * 64 + t] = sum over k of (k + 1) * tile_k[(4 t + 5 k + 1) % 256]`:
/// it reads elements other threads copied, from the right stage. Blocks of 64 threads.
#[kernel]
pub fn async_copy_pipeline(input: &[f32], tiles: u32, out: &mut [f32]) {
    body::pipeline(input, tiles, out);
}

/// Threads of the size kernel's block (one block).
pub const SIZES_THREADS: usize = 32;
/// Elements the size kernel stages: 32 by 4-byte copies, 64 by 8-byte copies, 128 by 16-byte
/// copies with zero fill. It needs `SIZES_ELEMENTS * 4` bytes of dynamic shared memory.
pub const SIZES_ELEMENTS: usize = 224;

/// Copies `input` into shared memory with copies of 4 bytes (elements 0-31), 8 bytes (32-95) and
/// 16 bytes with zero fill (96-223, zeros past `input.len()`), in three groups, then writes
/// `out[i] = staged[223 - i]`. `input` needs at least 96 elements; one block of 32 threads.
#[kernel]
pub fn async_copy_sizes(input: &[u32], out: &mut [u32]) {
    body::sizes(input, out);
}

/// A bad copy by one thread, to see the check that stops it: `mode` 0 a 16-byte copy to a
/// destination 4 bytes past an aligned one, 1 from such a source, 2 a 12-byte copy, 3 a
/// zero-fill copy with a source longer than the copy, 4 a destination range past the end of the
/// array, 5 a good copy (nothing to stop). Needs 64 bytes of dynamic shared memory.
#[kernel]
pub fn async_copy_bad(input: &[f32], mode: u32, out: &mut [f32]) {
    body::bad(input, mode, out);
}

/// Accesses to copies not yet waited for, for the simulator to report. Each of the 32 threads
/// copies `input[4 t..4 t + 4]` to `staged[4 t..]` (group A), and in mode 2 also
/// `input[128 + 4 t..]` to `staged[128 + 4 t..]` (group B). `mode` 0: reads its destination after
/// the commit, before any wait; 1: reads it before the commit; 2: waits with `wait::<1>` and reads
/// group A (complete) then group B (still pending); 3: waits for everything and reads the next
/// thread's destination without a barrier (a data race); 4: the correct order (wait, barrier,
/// read). `out[t]` (and `out[32 + t]`) get what was read. Needs 1 KiB of dynamic shared memory.
#[kernel]
pub fn async_copy_misuse(input: &[f32], mode: u32, out: &mut [f32]) {
    body::misuse(input, mode, out);
}

/// Elements of the shared array `ldmatrix` reads: 64 rows of 8 `u16`.
pub const LDMATRIX_ELEMENTS: usize = 512;

/// Copies `matrix` (512 `u16`) into shared memory, then each lane `l` loads with its row at
/// element `8 * rows[l]`: `variant` 0 `ldmatrix_x1`, 1 `_x2`, 2 `_x4`, 3 `_x1_trans`,
/// 4 `_x2_trans`, 5 `_x4_trans`. `out[4 l + i]` is lane `l`'s register `i` (0xdead_beef for the
/// registers the variant does not have). One warp; 1 KiB of dynamic shared memory.
#[kernel]
pub fn ldmatrix_fragments(matrix: &[u16], rows: &[u32], variant: u32, out: &mut [u32]) {
    body::fragments(matrix, rows, variant, out);
}

/// `ldmatrix_x4` used wrongly, for the simulator: `mode` 0 lane 7 returns before it, 1 lane 3
/// gives a row 8 bytes off alignment, 2 lane 9 gives a row that leaves the array, 3 nothing
/// wrong (launched with a partial warp by the test). One block; 1 KiB of dynamic shared memory.
#[kernel]
pub fn ldmatrix_misuse(mode: u32, out: &mut [u32]) {
    body::ldmatrix_misuse(mode, out);
}

/// The kernels' bodies where `cp.async` and `ldmatrix` exist: the simulator, sm_80 and newer.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
mod body {
    use super::*;
    use ferrocuda::device::{async_copy_unchecked, ldmatrix_x4_unchecked};

    pub(super) fn pipeline(input: &[f32], tiles: u32, out: &mut [f32]) {
        let mut stages = dynamic_shared_array::<f32>();
        let t = thread_idx().x as usize;
        let tiles = tiles as usize;
        let first = block_idx().x as usize * tiles;
        let issue = |stages: &mut SharedSlice<f32>, k: usize| {
            let start = ((first + k) * PIPELINE_TILE + 4 * t).min(input.len());
            let end = (start + 4).min(input.len());
            let slot = (k % PIPELINE_STAGES) * PIPELINE_TILE + 4 * t;
            async_copy_zero_fill(stages, slot, &input[start..end], 4);
        };
        // Prologue: tiles 0 and 1 in groups 0 and 1 (empty groups when there are fewer tiles).
        for k in 0..PIPELINE_STAGES - 1 {
            if k < tiles {
                issue(&mut stages, k);
            }
            async_copy_commit();
        }
        let mut sum = 0.0f32;
        for k in 0..tiles {
            if k + PIPELINE_STAGES - 1 < tiles {
                issue(&mut stages, k + PIPELINE_STAGES - 1);
            }
            // Group k + 2; then all but the two newest groups (k + 1, k + 2) are done: tile k.
            async_copy_commit();
            async_copy_wait::<{ PIPELINE_STAGES as u32 - 1 }>();
            syncthreads();
            let index = (4 * t + 5 * k + 1) % PIPELINE_TILE;
            sum += (k + 1) as f32 * stages[(k % PIPELINE_STAGES) * PIPELINE_TILE + index];
            // Every thread is done with stage k % 3 before it is refilled.
            syncthreads();
        }
        let i = block_idx().x as usize * PIPELINE_THREADS + t;
        if i < out.len() {
            out[i] = sum;
        }
    }

    pub(super) fn sizes(input: &[u32], out: &mut [u32]) {
        let mut staged = dynamic_shared_array::<u32>();
        let t = thread_idx().x as usize;
        async_copy(&mut staged, t, &input[t..t + 1]);
        async_copy_commit();
        async_copy(&mut staged, 32 + 2 * t, &input[32 + 2 * t..34 + 2 * t]);
        async_copy_commit();
        let start = (96 + 4 * t).min(input.len());
        let end = (start + 4).min(input.len());
        async_copy_zero_fill(&mut staged, 96 + 4 * t, &input[start..end], 4);
        async_copy_wait_all();
        syncthreads();
        let mut i = t;
        while i < SIZES_ELEMENTS {
            out[i] = staged[SIZES_ELEMENTS - 1 - i];
            i += SIZES_THREADS;
        }
    }

    pub(super) fn bad(input: &[f32], mode: u32, out: &mut [f32]) {
        let mut staged = dynamic_shared_array::<f32>();
        match mode {
            0 => async_copy(&mut staged, 1, &input[0..4]),
            1 => async_copy(&mut staged, 0, &input[1..5]),
            2 => async_copy(&mut staged, 0, &input[0..3]),
            3 => async_copy_zero_fill(&mut staged, 0, &input[0..4], 2),
            4 => async_copy(&mut staged, 14, &input[0..4]),
            // SAFETY: none: mode 6 breaks `async_copy_unchecked`'s contract on purpose (the
            // range leaves the shared array); the tests launch it only on the simulator, where
            // the unchecked form still checks and stops with the checked form's panic.
            6 => unsafe { async_copy_unchecked(&mut staged, 14, input.as_ptr(), 4) },
            // SAFETY: elements 4..8 of `input` (which the tests make 8 long) to 4..8 of the
            // shared array (16 elements), both 16-byte aligned.
            7 => unsafe { async_copy_unchecked(&mut staged, 4, input.as_ptr().wrapping_add(4), 4) },
            _ => async_copy(&mut staged, 4, &input[4..8]),
        }
        async_copy_wait_all();
        out[0] = staged[4];
    }

    pub(super) fn misuse(input: &[f32], mode: u32, out: &mut [f32]) {
        let mut staged = dynamic_shared_array::<f32>();
        let t = thread_idx().x as usize;
        async_copy(&mut staged, 4 * t, &input[4 * t..4 * t + 4]);
        match mode {
            0 => {
                async_copy_commit();
                out[t] = staged[4 * t];
            }
            1 => out[t] = staged[4 * t],
            2 => {
                async_copy_commit();
                async_copy(&mut staged, 128 + 4 * t, &input[128 + 4 * t..132 + 4 * t]);
                async_copy_commit();
                async_copy_wait::<1>();
                out[t] = staged[4 * t];
                out[32 + t] = staged[128 + 4 * t];
            }
            3 => {
                async_copy_wait_all();
                out[t] = staged[(4 * t + 4) % 128];
            }
            _ => {
                async_copy_wait_all();
                syncthreads();
                out[t] = staged[(4 * t + 4) % 128];
            }
        }
    }

    pub(super) fn fragments(matrix: &[u16], rows: &[u32], variant: u32, out: &mut [u32]) {
        let mut tile = dynamic_shared_array::<u16>();
        let lane = thread_idx().x as usize;
        for chunk in [lane, lane + 32] {
            async_copy(&mut tile, 8 * chunk, &matrix[8 * chunk..8 * chunk + 8]);
        }
        async_copy_wait_all();
        syncthreads();
        let row = 8 * rows[lane] as usize;
        let mut registers = [0xdead_beef_u32; 4];
        match variant {
            0 => registers[0] = ldmatrix_x1(&tile, row),
            1 => registers[..2].copy_from_slice(&ldmatrix_x2(&tile, row)),
            2 => registers = ldmatrix_x4(&tile, row),
            3 => registers[0] = ldmatrix_x1_trans(&tile, row),
            4 => registers[..2].copy_from_slice(&ldmatrix_x2_trans(&tile, row)),
            _ => registers = ldmatrix_x4_trans(&tile, row),
        }
        for (i, register) in registers.into_iter().enumerate() {
            out[4 * lane + i] = register;
        }
    }

    pub(super) fn ldmatrix_misuse(mode: u32, out: &mut [u32]) {
        let mut tile = dynamic_shared_array::<u16>();
        let t = thread_idx().x as usize;
        for k in 0..8 {
            tile[8 * (t % 64) + k] = (8 * t + k) as u16;
        }
        syncthreads();
        let lane = lane_id() as usize;
        if mode == 0 && lane == 7 {
            return;
        }
        let row = match (mode, lane) {
            (1, 3) => 8 * lane + 4,
            (2 | 4, 9) => LDMATRIX_ELEMENTS - 4,
            _ => 8 * lane,
        };
        let registers = if mode >= 4 {
            // SAFETY: in mode 5 every lane's row is `8 * lane`, inside the 512-element tile
            // and 16-byte aligned. Mode 4 breaks the contract on purpose (lane 9's row leaves
            // the tile); the tests launch it only on the simulator, which still checks.
            unsafe { ldmatrix_x4_unchecked(&tile, row) }
        } else {
            ldmatrix_x4(&tile, row)
        };
        out[t] = registers[0];
    }
}

/// The bodies in builds for GPUs older than sm_80, which lack `cp.async` and `ldmatrix`: they
/// stop at once (the host tests do not launch these kernels on such builds).
#[cfg(all(target_arch = "nvptx64", not(target_feature = "sm_80")))]
mod body {
    const OLD: &str =
        "built for an architecture older than sm_80: cp.async and ldmatrix need sm_80";

    pub(super) fn pipeline(_: &[f32], _: u32, _: &mut [f32]) {
        panic!("{OLD}")
    }
    pub(super) fn sizes(_: &[u32], _: &mut [u32]) {
        panic!("{OLD}")
    }
    pub(super) fn bad(_: &[f32], _: u32, _: &mut [f32]) {
        panic!("{OLD}")
    }
    pub(super) fn misuse(_: &[f32], _: u32, _: &mut [f32]) {
        panic!("{OLD}")
    }
    pub(super) fn fragments(_: &[u16], _: &[u32], _: u32, _: &mut [u32]) {
        panic!("{OLD}")
    }
    pub(super) fn ldmatrix_misuse(_: u32, _: &mut [u32]) {
        panic!("{OLD}")
    }
}
