//! `wgmma` on the simulator: refused with `SimulatorFault::UnsupportedInstruction`. Descriptors
//! are plain arithmetic and are built from the host address.

use crate::sim;
use core::panic::Location;

/// The low 32 bits of the host address of `pointer`, standing in for a shared-state-space
/// address (alignment checks see the same low bits).
#[inline]
pub(crate) fn shared_address<T>(pointer: *const T) -> u32 {
    pointer as usize as u32
}

/// Stops the kernel: the simulator cannot run `instruction` (the hook does not return; the
/// signature says `()` so that the façade's GPU-only code after the call is not flagged as
/// unreachable on the host).
#[inline]
#[track_caller]
pub(crate) fn unsupported_on_simulator(instruction: &'static str) {
    sim::hooks().unsupported(instruction, Location::caller())
}

/// Writes `values` to `pointer` (the GPU's one 8-byte store).
///
/// # Safety
/// `pointer` is valid for writing two `f32` and 8-byte aligned.
#[inline]
pub(crate) unsafe fn store_aligned_pair(pointer: *mut f32, values: [f32; 2]) {
    // SAFETY: the caller's contract.
    unsafe { pointer.cast::<[f32; 2]>().write(values) };
}

/// Refuses `wgmma.fence`.
#[inline]
#[track_caller]
pub(crate) fn fence() {
    unsupported_on_simulator("wgmma.fence")
}

/// Refuses `wgmma.commit_group`.
#[inline]
#[track_caller]
pub(crate) fn commit_group() {
    unsupported_on_simulator("wgmma.commit_group")
}

/// Refuses `wgmma.wait_group`.
#[inline]
#[track_caller]
pub(crate) fn wait_group<const N: u32>() {
    unsupported_on_simulator("wgmma.wait_group")
}

/// The panic of a descriptor start outside its tile.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn descriptor_out_of_bounds(start: usize, len: usize) -> ! {
    panic!(
        "SharedMatrixDescriptor: start {start} is out of bounds of a shared array of {len} elements"
    )
}

/// The panic of a leading or stride byte offset the descriptor cannot encode.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_descriptor_offset(offset: u32) -> ! {
    panic!(
        "SharedMatrixDescriptor: byte offset {offset} must be a multiple of 16 and at most 262128 (14 bits of 16-byte units)"
    )
}

/// The panic of a start address not aligned to 16 bytes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned_descriptor(address: u32) -> ! {
    panic!("SharedMatrixDescriptor: the matrix start {address:#x} is not 16-byte aligned")
}

/// The panic of a swizzled tile that does not start on a pattern boundary.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned_swizzled_tile(address: u32, pattern: usize) -> ! {
    panic!(
        "SharedMatrixDescriptor: the swizzled tile starts at {address:#x}, not on a multiple of its swizzle pattern of {pattern} bytes"
    )
}
