//! `ldmatrix` on the simulator: each lane reads its own row, the simulator gathers the 32 rows
//! at a warp rendezvous (`WarpOp::Gather`), and each lane picks its elements as the PTX ISA's
//! fragment layout says (see the façade, `ldmatrix.rs`).

use crate::sim::{self, WarpOp};
use crate::warp::{FULL_MASK, WARP_SIZE};
use core::panic::Location;

/// The instruction's name in fault reports.
fn instruction(matrices: usize, transpose: bool) -> &'static str {
    match (matrices, transpose) {
        (1, false) => "ldmatrix.x1",
        (1, true) => "ldmatrix.x1.trans",
        (2, false) => "ldmatrix.x2",
        (2, true) => "ldmatrix.x2.trans",
        (_, false) => "ldmatrix.x4",
        (_, true) => "ldmatrix.x4.trans",
    }
}

/// Loads `M` matrices: this lane's row (when used) goes to the rendezvous, and the lane's
/// registers come from the gathered rows.
#[inline]
#[track_caller]
pub(crate) fn load<const M: usize>(row: *const u8, used: bool, transpose: bool) -> [u32; M] {
    let rank = crate::index::thread_rank();
    let block = crate::index::block_dim();
    let threads = block.x * block.y * block.z;
    if rank - rank % WARP_SIZE + WARP_SIZE > threads {
        partial_warp(threads);
    }
    let mut value = [0u64; 2];
    if used {
        crate::backend::shared::report_access(row, 16, false);
        // SAFETY: the façade checked that the 16 bytes at `row` lie in a shared array and are
        // 16-byte aligned.
        value = unsafe { row.cast::<[u64; 2]>().read() };
    }
    let mut gathered = [[0u64; 2]; WARP_SIZE as usize];
    let op = WarpOp::Gather {
        instruction: instruction(M, transpose),
        mask: FULL_MASK,
        value,
        gathered: &raw mut gathered,
    };
    sim::hooks().warp(op, Location::caller());
    fragment(&gathered, crate::warp::lane_id() as usize, transpose)
}

/// Lane `lane`'s registers of `M` matrices whose rows are `rows` (lane `8 * i + k` gave row `k`
/// of matrix `i`, as 16 bytes in two little-endian `u64`s).
fn fragment<const M: usize>(rows: &[[u64; 2]; 32], lane: usize, transpose: bool) -> [u32; M] {
    let element = |row: usize, col: usize| -> u32 {
        ((rows[row][col / 4] >> (16 * (col % 4))) & 0xffff) as u32
    };
    let (r, c) = (lane / 4, 2 * (lane % 4));
    core::array::from_fn(|i| {
        let base = 8 * i;
        let (low, high) = if transpose {
            (element(base + c, r), element(base + c + 1, r))
        } else {
            (element(base + r, c), element(base + r, c + 1))
        };
        low | (high << 16)
    })
}

/// The panic of `ldmatrix` in a partial warp.
#[cold]
#[inline(never)]
#[track_caller]
fn partial_warp(threads: u32) -> ! {
    panic!(
        "ldmatrix needs all 32 lanes of the warp, but this block of {threads} threads ends with a partial warp (make the block size a multiple of 32)"
    )
}

/// The panic of a row outside the array.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(row: usize, len: usize) -> ! {
    panic!(
        "ldmatrix: the row of 8 elements at index {row} leaves the shared array of {len} elements"
    )
}

/// The panic of a row address not aligned to 16 bytes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned(address: usize) -> ! {
    panic!(
        "ldmatrix: the row address {address:#x} is not 16-byte aligned (ldmatrix reads 16-byte rows)"
    )
}
