//! Device printing on the GPU: one `vprintf` call with the compile-time C format string.

use crate::print::{PrintArg, Spec};
use core::arch::nvptx::{free, malloc, vprintf};
use core::ffi::c_void;

/// Stack space for the copies of string arguments (which need a NUL terminator); longer
/// strings go to the device heap.
const STRING_SCRATCH: usize = 128;

/// `vprintf(format, slots)` with each argument in an 8-byte slot.
#[inline(always)]
pub(crate) fn print<const CAP: usize, const N: usize>(
    format: &'static [u8; CAP],
    pieces: &[&str],
    specs: &[Spec],
    args: &[PrintArg; N],
) {
    let _ = (pieces, specs);
    let format = format.as_ptr();
    let mut slots = [0u64; N];
    let mut scratch = [0u8; STRING_SCRATCH];
    let mut used = 0;
    let mut heap = [core::ptr::null_mut::<u8>(); N];
    for i in 0..N {
        slots[i] = match args[i] {
            PrintArg::I64(v) => v as u64,
            PrintArg::U64(v) => v,
            PrintArg::F64(v) => v.to_bits(),
            PrintArg::Bool(v) => {
                let text: &'static core::ffi::CStr = if v { c"true" } else { c"false" };
                text.as_ptr() as u64
            }
            PrintArg::Str(s) => c_string(s, &mut scratch, &mut used, &mut heap[i]) as u64,
        };
    }
    let slots_ptr = if N == 0 {
        core::ptr::null()
    } else {
        slots.as_ptr() as *const c_void
    };
    // SAFETY: `format` is a NUL-terminated C format whose conversions match the slots.
    unsafe {
        vprintf(format, slots_ptr);
    }
    for block in heap {
        if !block.is_null() {
            // SAFETY: allocated by `malloc` in `c_string`.
            unsafe { free(block.cast()) };
        }
    }
}

/// A NUL-terminated copy of `s`: in `scratch` when it fits, else on the device heap (noted
/// in `heap` to be freed), else truncated to what fits in `scratch`.
#[inline(never)]
fn c_string(
    s: &str,
    scratch: &mut [u8; STRING_SCRATCH],
    used: &mut usize,
    heap: &mut *mut u8,
) -> *const u8 {
    let bytes = s.as_bytes();
    let free_space = STRING_SCRATCH - *used;
    if bytes.len() < free_space {
        let start = *used;
        scratch[start..start + bytes.len()].copy_from_slice(bytes);
        scratch[start + bytes.len()] = 0;
        *used += bytes.len() + 1;
        return scratch[start..].as_ptr();
    }
    // SAFETY: device-heap allocation, checked for null.
    let block = unsafe { malloc(bytes.len() + 1) } as *mut u8;
    if !block.is_null() {
        // SAFETY: `block` holds `len + 1` bytes.
        unsafe {
            core::ptr::copy_nonoverlapping(bytes.as_ptr(), block, bytes.len());
            *block.add(bytes.len()) = 0;
        }
        *heap = block;
        return block;
    }
    // No heap left: print what fits.
    let start = *used;
    let keep = free_space.saturating_sub(1);
    if keep == 0 {
        return c"".as_ptr().cast();
    }
    scratch[start..start + keep].copy_from_slice(&bytes[..keep]);
    scratch[start + keep] = 0;
    *used = STRING_SCRATCH;
    scratch[start..].as_ptr()
}
