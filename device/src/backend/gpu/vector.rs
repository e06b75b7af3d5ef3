//! 16-byte global-memory accesses: one `ld.global.v4.b32` or `st.global.v4.b32` (the generic
//! address converted to a global one inside the `asm!` block).

/// The 16 bytes at `ptr`, as four words.
///
/// # Safety
/// `ptr` is a 16-byte-aligned address of global memory, valid for 16 bytes of reads.
#[inline(always)]
pub(crate) unsafe fn load16(ptr: *const u8) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: the caller's promise: an aligned global address with 16 readable bytes.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p};",
            "ld.global.v4.b32 {{{a}, {b}, {c}, {d}}}, [g]; }}",
            p = in(reg64) ptr,
            a = out(reg32) a, b = out(reg32) b, c = out(reg32) c, d = out(reg32) d,
            options(pure, readonly, nostack, preserves_flags)
        );
    }
    [a, b, c, d]
}

/// Writes four words to the 16 bytes at `ptr`.
///
/// # Safety
/// `ptr` is a 16-byte-aligned address of global memory, valid for 16 bytes of writes that no
/// other thread accesses concurrently.
#[inline(always)]
pub(crate) unsafe fn store16(ptr: *mut u8, words: [u32; 4]) {
    let [a, b, c, d] = words;
    // SAFETY: the caller's promise: an aligned global address with 16 writable bytes.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {p};",
            "st.global.v4.b32 [g], {{{a}, {b}, {c}, {d}}}; }}",
            p = in(reg64) ptr,
            a = in(reg32) a, b = in(reg32) b, c = in(reg32) c, d = in(reg32) d,
            options(nostack, preserves_flags)
        );
    }
}
