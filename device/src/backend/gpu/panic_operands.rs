//! The integers of a failed check, recorded for the host to format.
//!
//! The device formats no text (a formatter costs 84 KB of code and 28 registers per kernel), so a
//! failed check records its kind (`PANIC_KIND_*`) and its integers in the panic record and the
//! host prints the text Rust would. Two ways in, both ending in the panic handler's body
//! ([`super::panic::record`]):
//!
//! * the device library's own checks ([`crate::bounds`]) call [`panic_with_operands`];
//! * core's checks (`slice[i]`, `&slice[a..b]`) call core's `panic_bounds_check` and
//!   `slice_index_fail`, which format; the builder rewrites their bodies at link time into calls
//!   of the `#[no_mangle]` entries below (`ferrocuda_panic_*`, names shared with the builder's
//!   `panic_rewrite`).

use crate::panic::{PANIC_KIND_INDEX, PANIC_KIND_SLICE_RANGE, PanicRecord};
use core::panic::Location;

/// Writes the kind (`PANIC_KIND_*`) and the integers of a failed check into the record being
/// filled.
///
/// The panic functions pass a record's kind and integers as separate scalars, never as a struct
/// or an array: the Rust ABI passes an aggregate of more than 16 bytes through a pointer to a
/// copy on the caller's stack, and that copy gave every kernel with a checked index a 32- to
/// 56-byte stack frame (`ptxas -v`), set up at entry even when nothing panics.
///
/// # Safety
/// `record` points to the record this thread won the right to write.
#[inline(always)]
pub(crate) unsafe fn fill(record: *mut PanicRecord, kind: u32, a: u64, b: u64, c: u64) {
    // SAFETY: the caller guarantees `record` is valid and written by this thread only.
    unsafe {
        (*record).kind = kind;
        (*record).operands = [a, b, c];
    }
}

/// Panics at the caller's location with `kind` and the integers `a`, `b`, `c` recorded (scalars,
/// not an array: see [`Operands`]).
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn panic_with_operands(kind: u32, a: u64, b: u64, c: u64) -> ! {
    super::panic::record(Some(Location::caller()), kind, a, b, c)
}

/// What core's `panic_bounds_check(index, len, location)` becomes: "index out of bounds: the len
/// is LEN but the index is INDEX", recorded as integers.
#[unsafe(no_mangle)]
#[cold]
#[inline(never)]
pub extern "C" fn ferrocuda_panic_bounds(
    index: usize,
    len: usize,
    location: &'static Location<'static>,
) -> ! {
    super::panic::record(
        Some(location),
        PANIC_KIND_INDEX,
        index as u64,
        len as u64,
        0,
    )
}

/// What core's `slice_index_fail(start, end, len, location)` becomes: a failed range check,
/// recorded as integers (the host picks core's text).
#[unsafe(no_mangle)]
#[cold]
#[inline(never)]
pub extern "C" fn ferrocuda_panic_slice_range(
    start: usize,
    end: usize,
    len: usize,
    location: &'static Location<'static>,
) -> ! {
    super::panic::record(
        Some(location),
        PANIC_KIND_SLICE_RANGE,
        start as u64,
        end as u64,
        len as u64,
    )
}
