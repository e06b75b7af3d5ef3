//! Asynchronous copies through `cp.async` (sm_80 and newer): the shared destination and the
//! global source are converted to their state spaces' addresses inside the `asm!` block.
//!
//! The panics carry static messages (the GPU's panic record keeps no formatted text); the
//! simulator's name the sizes and addresses.

/// Checks the alignment of both addresses and starts the copy of `bytes` bytes (4, 8 or 16, as
/// the façade checked), of which the first `source_bytes` come from `source` and the rest are
/// zero.
#[inline(always)]
#[track_caller]
pub(crate) fn copy(destination: *mut u8, source: *const u8, bytes: usize, source_bytes: usize) {
    if !(destination as usize).is_multiple_of(bytes) {
        misaligned_destination();
    }
    if source_bytes != 0 && !(source as usize).is_multiple_of(bytes) {
        misaligned_source();
    }
    if source_bytes < bytes {
        // A tail: `cp.async` with a `src-size` below the copy's size reads only that many bytes
        // by the ISA, but it names the whole window, which may reach past the source's buffer
        // (compute-sanitizer reports it as an invalid read of 16 bytes, and nothing promises
        // that the hardware never touches those bytes). So the tail is copied here, with plain
        // loads of the bytes that exist and one store of the window: done when this returns,
        // which also satisfies a later wait for the group.
        // SAFETY: the façade checked that `destination..+bytes` lies in a shared array, aligned
        // to `bytes` (checked above), and `source..+source_bytes` is a global slice.
        unsafe { copy_tail(destination, source, bytes, source_bytes) };
        return;
    }
    // SAFETY: the façade checked that `destination..+bytes` lies in a shared array and `source`
    // is a global slice of `bytes` bytes (`source_bytes == bytes` here); both are aligned to
    // `bytes` (checked above).
    unsafe { copy_unchecked(destination, source, bytes) }
}

/// Writes the `source_bytes` bytes at `source`, then zeros, to the `bytes` bytes (4, 8 or 16)
/// at the shared address `destination`, with one store.
///
/// # Safety
/// `destination..+bytes` lies in a shared array, aligned to `bytes`; `source..+source_bytes`
/// is readable global memory; `source_bytes < bytes`.
#[inline(always)]
unsafe fn copy_tail(destination: *mut u8, source: *const u8, bytes: usize, source_bytes: usize) {
    let mut window: u128 = 0;
    for i in 0..source_bytes {
        // SAFETY: `i < source_bytes`, inside the source range.
        let byte = unsafe { source.add(i).read() };
        window |= u128::from(byte) << (8 * i);
    }
    // SAFETY: the caller's contract; the store is as wide as the alignment allows (little
    // endian, as the copy would have placed the bytes).
    unsafe {
        match bytes {
            4 => destination.cast::<u32>().write(window as u32),
            8 => destination.cast::<u64>().write(window as u64),
            _ => destination
                .cast::<[u64; 2]>()
                .write([window as u64, (window >> 64) as u64]),
        }
    }
}

/// Starts the copy of `bytes` bytes (4, 8 or 16) from `source` to `destination`, without checking
/// anything: the whole-window body of [`copy`] (tails take [`copy_tail`]), and of the façade's
/// `async_copy_unchecked`.
///
/// # Safety
/// `destination..+bytes` lies in a shared array and `source..+bytes` in global memory, both
/// aligned to `bytes`; `bytes` is 4, 8 or 16.
#[inline(always)]
pub(crate) unsafe fn copy_unchecked(destination: *mut u8, source: *const u8, bytes: usize) {
    // SAFETY: the caller's contract: `destination..+bytes` lies in a shared array and
    // `source..+bytes` in global memory, both aligned to `bytes`. The copy writes shared memory
    // asynchronously: the façade's contract makes reading it before the wait a race, which is
    // the kernel author's duty as for any shared-memory race.
    unsafe {
        match bytes {
            4 => core::arch::asm!(
                "{{ .reg .u64 s, g; .reg .u32 s32;",
                "cvta.to.shared.u64 s, {d}; cvt.u32.u64 s32, s; cvta.to.global.u64 g, {s};",
                "cp.async.ca.shared.global [s32], [g], 4; }}",
                d = in(reg64) destination, s = in(reg64) source,
                options(nostack)
            ),
            8 => core::arch::asm!(
                "{{ .reg .u64 s, g; .reg .u32 s32;",
                "cvta.to.shared.u64 s, {d}; cvt.u32.u64 s32, s; cvta.to.global.u64 g, {s};",
                "cp.async.ca.shared.global [s32], [g], 8; }}",
                d = in(reg64) destination, s = in(reg64) source,
                options(nostack)
            ),
            _ => core::arch::asm!(
                "{{ .reg .u64 s, g; .reg .u32 s32;",
                "cvta.to.shared.u64 s, {d}; cvt.u32.u64 s32, s; cvta.to.global.u64 g, {s};",
                "cp.async.cg.shared.global [s32], [g], 16; }}",
                d = in(reg64) destination, s = in(reg64) source,
                options(nostack)
            ),
        }
    }
}

/// [`copy_unchecked`] of 16 bytes to the 32-bit shared-state-space address `destination`: the
/// form of the façade's unchecked copies, whose destination arithmetic then stays in 32 bits.
///
/// It goes through L1 (`cp.async.ca`, like the 4- and 8-byte copies) rather than around it
/// (`.cg`): on the H100 the SMs of `kernels-nvptx`'s bf16 GEMM, whose warps copy whole 32-byte
/// sectors as two 16-byte halves, received twice the sectors they asked for with `.cg` (100.7 M
/// for 50.3 M at 4096^3, Nsight Compute's `l1tex__m_xbar2l1tex_read_sectors`) and exactly
/// those with `.ca`, which ran the GEMM 1.4x as fast (`bench/results/h100-2026-11-24-gemm.md`).
///
/// # Safety
/// As [`copy_unchecked`] with `bytes = source_bytes = 16`.
#[inline(always)]
pub(crate) unsafe fn copy16_unchecked_shared(destination: u32, source: *const u8) {
    // SAFETY: the caller's contract: 16 bytes at `destination` in a shared array and 16
    // readable bytes at `source` in global memory, both 16-byte aligned.
    unsafe {
        core::arch::asm!(
            "{{ .reg .u64 g; cvta.to.global.u64 g, {s};",
            "cp.async.ca.shared.global [{d}], [g], 16; }}",
            d = in(reg32) destination, s = in(reg64) source,
            options(nostack)
        )
    }
}

/// `cp.async.commit_group`.
#[cfg(target_feature = "sm_80")]
#[inline(always)]
pub(crate) fn commit() {
    // SAFETY: closes this thread's pending copies into a group; touches no memory itself (not
    // `nomem`, so that the compiler keeps it ordered with the copies).
    unsafe { core::arch::asm!("cp.async.commit_group;", options(nostack)) }
}

/// `cp.async.wait_group N`.
#[cfg(target_feature = "sm_80")]
#[inline(always)]
pub(crate) fn wait<const N: u32>() {
    // SAFETY: waits for this thread's copies; the compiler must not move shared-memory reads
    // above it, which the default (memory-clobbering) `asm!` ensures.
    unsafe { core::arch::asm!("cp.async.wait_group {n};", n = const N, options(nostack)) }
}

/// `cp.async.wait_all`.
#[cfg(target_feature = "sm_80")]
#[inline(always)]
pub(crate) fn wait_all() {
    // SAFETY: as `wait`.
    unsafe { core::arch::asm!("cp.async.wait_all;", options(nostack)) }
}

/// The panic of a copy that is not 4, 8 or 16 bytes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_size(bytes: usize) -> ! {
    let _ = bytes;
    panic!("async_copy: a cp.async copies 4, 8 or 16 bytes (run on the simulator to see the size)")
}

/// The panic of a destination range outside the shared array.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(start: usize, len: usize, array_len: usize) -> ! {
    let _ = (start, len, array_len);
    panic!(
        "async_copy: destination range out of bounds of the shared array (run on the simulator to see the indices)"
    )
}

/// The panic of `async_copy_zero_fill` with a source longer than the copy.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn source_too_long(source_len: usize, len: usize) -> ! {
    let _ = (source_len, len);
    panic!("async_copy_zero_fill: the source is longer than the copy")
}

#[cold]
#[inline(never)]
#[track_caller]
fn misaligned_destination() -> ! {
    panic!("async_copy: the shared destination is not aligned to the copy's size")
}

#[cold]
#[inline(never)]
#[track_caller]
fn misaligned_source() -> ! {
    panic!("async_copy: the global source is not aligned to the copy's size")
}
