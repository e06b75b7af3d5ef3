//! 16-byte accesses on the simulator: the device memory is host memory, read and written as it
//! is (the GPU's single vector instruction is one access; here it is four words).

/// The 16 bytes at `ptr`, as four words.
///
/// # Safety
/// `ptr` is 16-byte aligned and valid for 16 bytes of reads.
#[inline(always)]
pub(crate) unsafe fn load16(ptr: *const u8) -> [u32; 4] {
    // SAFETY: the caller's promise; the alignment of `[u32; 4]` (4) divides 16.
    unsafe { ptr.cast::<[u32; 4]>().read() }
}

/// Writes four words to the 16 bytes at `ptr`.
///
/// # Safety
/// `ptr` is 16-byte aligned and valid for 16 bytes of writes.
#[inline(always)]
pub(crate) unsafe fn store16(ptr: *mut u8, words: [u32; 4]) {
    // SAFETY: the caller's promise.
    unsafe { ptr.cast::<[u32; 4]>().write(words) }
}
