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

use crate::panic::{PANIC_KIND_INDEX, PANIC_KIND_MESSAGE, PANIC_KIND_SLICE_RANGE, PanicRecord};
use core::panic::Location;

/// A record's kind and its integers.
#[derive(Clone, Copy)]
pub(crate) struct Operands {
    /// One of the `PANIC_KIND_*` constants.
    pub(crate) kind: u32,
    /// The integers, by kind.
    pub(crate) values: [u64; 3],
}

/// A panic with a message and no integers.
pub(crate) const MESSAGE: Operands = Operands {
    kind: PANIC_KIND_MESSAGE,
    values: [0; 3],
};

/// Writes the kind and the integers into the record being filled.
///
/// # Safety
/// `record` points to the record this thread won the right to write.
#[inline(always)]
pub(crate) unsafe fn fill(record: *mut PanicRecord, operands: Operands) {
    // SAFETY: the caller guarantees `record` is valid and written by this thread only.
    unsafe {
        (*record).kind = operands.kind;
        (*record).operands = operands.values;
    }
}

/// Panics at the caller's location with `kind` and `values` recorded.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn panic_with_operands(kind: u32, values: [u64; 3]) -> ! {
    super::panic::record(Some(Location::caller()), None, Operands { kind, values })
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
    let values = [index as u64, len as u64, 0];
    super::panic::record(
        Some(location),
        None,
        Operands {
            kind: PANIC_KIND_INDEX,
            values,
        },
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
    let values = [start as u64, end as u64, len as u64];
    super::panic::record(
        Some(location),
        None,
        Operands {
            kind: PANIC_KIND_SLICE_RANGE,
            values,
        },
    )
}
