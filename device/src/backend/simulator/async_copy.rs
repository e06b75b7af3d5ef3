//! Asynchronous copies on the simulator: the source is read when the copy starts, and the
//! simulator keeps the bytes pending per thread until a wait covers their group (see the
//! runtime's `async_copy.rs`), reporting any access to a pending destination.

use crate::sim;
use core::panic::Location;

/// Checks the alignment of both addresses, reads the source and hands the copy to the
/// simulator.
#[inline]
#[track_caller]
pub(crate) fn copy(destination: *mut u8, source: *const u8, bytes: usize, source_bytes: usize) {
    if !(destination as usize).is_multiple_of(bytes) {
        misaligned("shared destination", destination as usize, bytes);
    }
    if source_bytes > 0 && !(source as usize).is_multiple_of(bytes) {
        misaligned("global source", source as usize, bytes);
    }
    let mut data = [0u8; 16];
    // SAFETY: `source` is the start of a slice of `source_bytes <= bytes <= 16` bytes (the
    // façade's checks).
    unsafe { core::ptr::copy_nonoverlapping(source, data.as_mut_ptr(), source_bytes) };
    sim::hooks().async_copy(destination, &data[..bytes], Location::caller());
}

/// Closes the thread's pending copies into a group.
#[inline]
pub(crate) fn commit() {
    sim::hooks().async_copy_commit();
}

/// Completes all of the thread's groups but the `N` most recent.
#[inline]
#[track_caller]
pub(crate) fn wait<const N: u32>() {
    sim::hooks().async_copy_wait(N, Location::caller());
}

/// Commits, then completes every group of the thread.
#[inline]
#[track_caller]
pub(crate) fn wait_all() {
    sim::hooks().async_copy_commit();
    sim::hooks().async_copy_wait(0, Location::caller());
}

/// The panic of a copy that is not 4, 8 or 16 bytes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_size(bytes: usize) -> ! {
    panic!("async_copy of {bytes} bytes: a cp.async copies 4, 8 or 16 bytes")
}

/// The panic of a destination range outside the shared array.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(start: usize, len: usize, array_len: usize) -> ! {
    panic!(
        "async_copy of {len} elements to index {start} is out of bounds of a shared array of {array_len} elements"
    )
}

/// The panic of `async_copy_zero_fill` with a source longer than the copy.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn source_too_long(source_len: usize, len: usize) -> ! {
    panic!(
        "async_copy_zero_fill: the source is longer than the copy ({source_len} elements, the copy {len})"
    )
}

/// The panic of a misaligned address.
#[cold]
#[inline(never)]
#[track_caller]
fn misaligned(what: &str, address: usize, bytes: usize) -> ! {
    panic!(
        "async_copy: the {what} address {address:#x} is not aligned to the copy's {bytes} bytes (cp.async needs both addresses aligned to the size)"
    )
}
