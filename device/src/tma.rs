//! The tensor memory accelerator (TMA, sm_90): one thread copies a whole 2-D box of a global
//! matrix into shared memory with `cp.async.bulk.tensor`, described by a *tensor map* the host
//! built (`ferrocuda::TensorMap2d`, through the driver's `cuTensorMapEncodeTiled`), and the copy
//! signals an [`Mbarriers`] barrier with the bytes it wrote.
//!
//! PTX ISA 8.x, section 9.7.9.25.5.1 (`cp.async.bulk.tensor`): the form used is
//! `cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//! [dst], [tensorMap, {col, row}], [mbar]`. The tensor map operand is "the generic address of
//! the opaque tensor-map object", which may reside in the parameter, constant or global state
//! space (section 5.5.8, "Tensor-map"): ferrocuda keeps it in global memory, a one-element
//! device buffer the kernel receives as `&[TensorMap]` (see [`TensorMap`] for why not a
//! by-value parameter). The box lands in shared memory row after row (`box_rows` rows of
//! `box_cols` elements), with the 16-byte chunks of each 128-byte row permuted when the map uses
//! a swizzle (section 5.5.9, "Tensor copy swizzling modes"): under the 128-byte swizzle, chunk
//! `c` of row `r` goes to chunk `c ^ (r % 8)`, computed from the address bits, so the destination
//! must be 1024-byte aligned for the pattern to start at row 0.
//!
//! # Architecture and simulator
//! Gated on sm_90a with the rest of ferrocuda's Hopper API ([`crate::architecture::Sm90a`]). The
//! simulator refuses the copy with `SimulatorFault::UnsupportedInstruction` naming
//! `cp.async.bulk.tensor`.

use crate::DeviceCopy;
use crate::architecture::{Sm90a, Target};
use crate::backend::tma as imp;
use crate::mbarrier::Mbarriers;
use crate::shared::{Shape, Shared};

/// A tensor map: the driver's opaque 128-byte description of a global tensor and of the box a
/// TMA copy moves (CUDA's `CUtensorMap`, 64-byte aligned).
///
/// The host builds it (`ferrocuda::TensorMap2d::new`, which checks the driver's rules first) and
/// uploads it into a one-element device buffer; a kernel takes `&[TensorMap]` and passes
/// `&maps[0]` to [`tma_load_2d`]. A by-value kernel parameter (CUDA C's
/// `const __grid_constant__ CUtensorMap`) would need the address of the parameter itself: Rust
/// has no `__grid_constant__`, and LLVM copies a by-value aggregate whose address is taken into
/// local memory, where TMA cannot read it. Global memory is one of the three spaces the ISA
/// allows; the map must not change while copies use it (the host writes it once, before the
/// launch).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    /// The encoded words, as `cuTensorMapEncodeTiled` wrote them.
    words: [u64; 16],
}

// SAFETY: plain bits (`[u64; 16]`), no pointers into host memory, `'static`.
unsafe impl DeviceCopy for TensorMap {}

impl TensorMap {
    /// The map with the words `cuTensorMapEncodeTiled` wrote.
    ///
    /// # Safety
    /// `words` must be what the driver encoded for a global tensor that stays allocated (and is
    /// not freed) while any copy through the map runs: a forged map makes TMA read arbitrary
    /// device memory.
    pub const unsafe fn from_encoded(words: [u64; 16]) -> TensorMap {
        TensorMap { words }
    }

    /// The encoded words.
    pub const fn words(&self) -> &[u64; 16] {
        &self.words
    }
}

/// The shared-state-space address of the first element of `array`: the address the alignment
/// rules of TMA destinations and `wgmma` descriptors refer to (`cvta.to.shared`; a generic
/// pointer to shared memory need not share its alignment). On the simulator, the low 32 bits of
/// the host address.
#[inline(always)]
pub fn shared_address<T, S: Shape>(array: &Shared<T, S>) -> u32 {
    imp::shared_address(array.as_ptr())
}

/// The alignment TMA needs of a shared destination without swizzle (128 bytes); a swizzled one
/// needs its swizzle pattern's repeat (1024 bytes for the 128-byte swizzle) for the pattern to
/// match the one `wgmma` expects.
pub const TMA_SHARED_ALIGNMENT: usize = 128;

/// Starts copying the box at (`row`, `col`) (element coordinates of its top-left corner in the
/// global matrix) of the tensor `map` describes into `dst` from element `start` on, and has the
/// copy complete its bytes on barrier `barrier` of `barriers`
/// (`cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes`). Elements
/// of the box outside the matrix are written as zeros. One thread issues it; the barrier's phase
/// must expect the box's bytes ([`Mbarriers::arrive_expect_tx`]).
///
/// # Safety
/// - `map` must describe a tensor of `T` elements whose box (`box_rows * box_cols` elements, as
///   encoded on the host) fits in `dst` from `start`: the device cannot read the box's size out
///   of the opaque map, so this is not checked.
/// - The copy writes `dst` asynchronously: no thread may read or write those elements (or start
///   another copy or `wgmma` over them) until it has waited for the barrier phase the copy
///   completes ([`Mbarriers::wait`]), and no `wgmma` or copy may still be reading them when it
///   starts.
/// - The global tensor must stay allocated until that phase completes.
///
/// # Panics
/// When `start` is outside `dst`, or the destination's shared address is not aligned to
/// [`TMA_SHARED_ALIGNMENT`].
#[inline(always)]
#[track_caller]
pub unsafe fn tma_load_2d<T: DeviceCopy, S: Shape>(
    dst: &Shared<T, S>,
    start: usize,
    map: &TensorMap,
    (row, col): (i32, i32),
    barriers: &Mbarriers,
    barrier: usize,
) where
    Target<T>: Sm90a,
{
    if start >= dst.len() {
        imp::out_of_bounds(start, dst.len());
    }
    let destination = dst.as_ptr().wrapping_add(start).cast::<u8>();
    let address = imp::shared_address(destination);
    if !address.is_multiple_of(TMA_SHARED_ALIGNMENT as u32) {
        imp::misaligned(address as usize);
    }
    let slot = barriers.slot(barrier);
    // SAFETY: the caller's contract (box fits, no access until the phase completes, tensor
    // alive); `destination` lies in `dst` and is aligned (checked above); `slot` is an
    // initialised barrier (checked index).
    unsafe { imp::load_2d(destination, map, col, row, slot) };
}
