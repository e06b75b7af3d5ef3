//! Warp-collective loads of 8x8 matrices of 16-bit elements from shared memory (`ldmatrix`,
//! sm_80 and newer), in the register layout that `mma.sync` takes its fragments in.
//!
//! # Who supplies what
//! Every lane of the warp calls the same function (all 32 lanes, converged: it is a
//! `.sync.aligned` instruction) with the same shared array and its own `row`: the flat element
//! index where one row of 8 elements starts (16 bytes, which must be 16-byte aligned). Lanes
//! `8 * i` to `8 * i + 7` give the rows 0 to 7 of matrix `i`: lanes 0-7 for `_x1`, 0-15 for `_x2`,
//! 0-31 for `_x4`; the other lanes' `row` is not used (nor checked).
//!
//! # What each lane receives
//! One `u32` per matrix, holding two elements: the lower-indexed one in bits 0-15, the other in
//! bits 16-31. With `r = lane / 4` and `c = 2 * (lane % 4)` (the PTX ISA's "matrix fragments for
//! ldmatrix"), lane `lane` receives of matrix `i`:
//! - plain: elements `(r, c)` and `(r, c + 1)`: row `r`, columns `c` and `c + 1`;
//! - `_trans`: elements `(c, r)` and `(c + 1, r)`: the matrix is transposed on the way, so each
//!   register holds two elements of column `r` of the matrix as stored.
//!
//! Row `k` means the row whose address lane `8 * i + k` supplied. This is the layout of the
//! `A` and `B` fragments of `mma.sync.m16n8k16` (`_x4` for A, `_x2` for B).
//!
//! ```ignore
//! // A 16x16 tile of u16 in shared memory, row-major: lane l names row l % 16 of the left
//! // (l < 16) or right (l >= 16) 16x8 half.
//! let lane = lane_id() as usize;
//! let a: [u32; 4] = ldmatrix_x4(&tile, (lane % 16) * 16 + (lane / 16) * 8);
//! ```
//!
//! # Checks
//! On both backends each lane whose row is used panics at the caller's line when its row leaves
//! the array or is not 16-byte aligned. The simulator also reports a lane that does not take part
//! (one that exited, or one at another warp operation) as a divergent warp operation naming
//! `ldmatrix`, and panics when the block's last warp is partial (the instruction needs all 32
//! lanes).
//!
//! # Architecture
//! The instruction exists from sm_75 on; ferrocuda offers it from sm_80, the architecture of the
//! `cp.async` copies that fill the tiles and of the `mma.sync.m16n8k16` whose fragments it
//! loads. In a kernel crate built for an older GPU, calling these functions is a compile error
//! (see [`crate::architecture`]).

use crate::DeviceCopy;
use crate::architecture::{Sm80, Target};
use crate::backend::ldmatrix as imp;
use crate::shared::{Shape, Shared};

/// The 16-bit element types `ldmatrix` loads: `u16` and `i16` (and the half-precision types,
/// which are 16 bits too). Sealed.
pub trait Bits16: DeviceCopy + sealed::Sealed {}

mod sealed {
    /// Keeps [`super::Bits16`] to 16-bit types.
    pub trait Sealed {}
}

impl sealed::Sealed for u16 {}
impl Bits16 for u16 {}
impl sealed::Sealed for i16 {}
impl Bits16 for i16 {}

/// The number of elements of one matrix row (16 bytes).
pub const LDMATRIX_ROW_ELEMENTS: usize = 8;

/// Loads one 8x8 matrix (`ldmatrix.sync.aligned.m8n8.x1.shared.b16`); lanes 0-7 supply the rows.
#[inline(always)]
#[track_caller]
pub fn ldmatrix_x1<T: Bits16, S: Shape>(matrix: &Shared<T, S>, row: usize) -> u32
where
    Target<T>: Sm80,
{
    load::<1, T, S>(matrix, row, false)[0]
}

/// Loads two 8x8 matrices (`.x2`); lanes 0-15 supply the rows.
#[inline(always)]
#[track_caller]
pub fn ldmatrix_x2<T: Bits16, S: Shape>(matrix: &Shared<T, S>, row: usize) -> [u32; 2]
where
    Target<T>: Sm80,
{
    load::<2, T, S>(matrix, row, false)
}

/// Loads four 8x8 matrices (`.x4`); all 32 lanes supply rows.
#[inline(always)]
#[track_caller]
pub fn ldmatrix_x4<T: Bits16, S: Shape>(matrix: &Shared<T, S>, row: usize) -> [u32; 4]
where
    Target<T>: Sm80,
{
    load::<4, T, S>(matrix, row, false)
}

/// Loads one 8x8 matrix transposed (`.x1.trans`); lanes 0-7 supply the rows.
#[inline(always)]
#[track_caller]
pub fn ldmatrix_x1_trans<T: Bits16, S: Shape>(matrix: &Shared<T, S>, row: usize) -> u32
where
    Target<T>: Sm80,
{
    load::<1, T, S>(matrix, row, true)[0]
}

/// Loads two 8x8 matrices transposed (`.x2.trans`); lanes 0-15 supply the rows.
#[inline(always)]
#[track_caller]
pub fn ldmatrix_x2_trans<T: Bits16, S: Shape>(matrix: &Shared<T, S>, row: usize) -> [u32; 2]
where
    Target<T>: Sm80,
{
    load::<2, T, S>(matrix, row, true)
}

/// Loads four 8x8 matrices transposed (`.x4.trans`); all 32 lanes supply rows.
#[inline(always)]
#[track_caller]
pub fn ldmatrix_x4_trans<T: Bits16, S: Shape>(matrix: &Shared<T, S>, row: usize) -> [u32; 4]
where
    Target<T>: Sm80,
{
    load::<4, T, S>(matrix, row, true)
}

/// [`ldmatrix_x4`] without its checks in GPU builds: for inner loops whose index arithmetic
/// already guarantees the contract (a branch and a 64-bit compare per load cost a tensor-core
/// loop more than the load). On the simulator the checks of [`ldmatrix_x4`] still run, so a
/// kernel's simulator tests catch a broken contract as a panic naming it.
///
/// # Safety
/// Every lane's `row` is a flat index with `row + 8 <= matrix.len()`, and the address of element
/// `row` is 16-byte aligned; all 32 lanes of the warp execute the call together.
#[inline(always)]
#[track_caller]
pub unsafe fn ldmatrix_x4_unchecked<T: Bits16, S: Shape>(
    matrix: &Shared<T, S>,
    row: usize,
) -> [u32; 4]
where
    Target<T>: Sm80,
{
    unchecked::<4, T, S>(matrix, row, false)
}

/// [`ldmatrix_x4_trans`] without its checks in GPU builds; see [`ldmatrix_x4_unchecked`].
///
/// # Safety
/// As [`ldmatrix_x4_unchecked`].
#[inline(always)]
#[track_caller]
pub unsafe fn ldmatrix_x4_trans_unchecked<T: Bits16, S: Shape>(
    matrix: &Shared<T, S>,
    row: usize,
) -> [u32; 4]
where
    Target<T>: Sm80,
{
    unchecked::<4, T, S>(matrix, row, true)
}

/// Loads `M` matrices without checks on the GPU, with them on the simulator (the callers'
/// contract is that the checks would pass).
#[inline(always)]
#[track_caller]
fn unchecked<const M: usize, T, S: Shape>(
    matrix: &Shared<T, S>,
    row: usize,
    transpose: bool,
) -> [u32; M] {
    #[cfg(target_arch = "nvptx64")]
    {
        // The array's shared-state-space address (a pure conversion, which the compiler hoists
        // out of loops) plus the row's byte offset, in 32 bits: a shared window is smaller
        // than 4 GiB.
        let base = crate::backend::mbarrier::shared_address(matrix.as_ptr());
        let address = base.wrapping_add((row * core::mem::size_of::<T>()) as u32);
        imp::load_shared::<M>(address, transpose)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        load::<M, T, S>(matrix, row, transpose)
    }
}

/// Checks this lane's row (when its row is used) and loads `M` matrices.
#[inline(always)]
#[track_caller]
fn load<const M: usize, T, S: Shape>(
    matrix: &Shared<T, S>,
    row: usize,
    transpose: bool,
) -> [u32; M] {
    let used = (crate::warp::lane_id() as usize) < LDMATRIX_ROW_ELEMENTS * M;
    let address = matrix.as_ptr().wrapping_add(row).cast::<u8>().cast_const();
    if used {
        if row > matrix.len() || matrix.len() - row < LDMATRIX_ROW_ELEMENTS {
            imp::out_of_bounds(row, matrix.len());
        }
        if !(address as usize).is_multiple_of(16) {
            imp::misaligned(address as usize);
        }
    }
    imp::load::<M>(address, used, transpose)
}
