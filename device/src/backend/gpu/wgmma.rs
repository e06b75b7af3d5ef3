//! `wgmma` synchronisation instructions (PTX ISA 9.7.15.6); the `mma_async` itself is an `asm!`
//! generated in the façade (`wgmma.rs`), one per shape and transpose.

pub(crate) use crate::backend::mbarrier::shared_address;

/// Nothing to refuse on a GPU.
#[inline(always)]
pub(crate) fn unsupported_on_simulator(_instruction: &'static str) {}

/// Writes `values` to `pointer` with one `st.v2.f32`.
///
/// # Safety
/// `pointer` is valid for writing two `f32` and 8-byte aligned.
#[inline(always)]
pub(crate) unsafe fn store_aligned_pair(pointer: *mut f32, values: [f32; 2]) {
    // SAFETY: the caller's contract; a generic-address store.
    unsafe {
        core::arch::asm!(
            "st.v2.f32 [{p}], {{{a}, {b}}};",
            p = in(reg64) pointer, a = in(reg32) values[0], b = in(reg32) values[1],
            options(nostack)
        )
    };
}

/// `wgmma.fence.sync.aligned`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn fence() {
    // SAFETY: a fence over the warpgroup's registers and shared memory; not `nomem`, so that the
    // compiler keeps accesses on their side.
    unsafe { core::arch::asm!("wgmma.fence.sync.aligned;", options(nostack)) };
}

/// `wgmma.commit_group.sync.aligned`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn commit_group() {
    // SAFETY: groups the issued operations; touches no memory itself.
    unsafe { core::arch::asm!("wgmma.commit_group.sync.aligned;", options(nostack)) };
}

/// `wgmma.wait_group.sync.aligned N`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn wait_group<const N: u32>() {
    // SAFETY: waits for the warpgroup's operations; the memory clobber keeps later reads of the
    // operands after it. The accumulators are `asm!` outputs of the `mma_async`s, so the
    // compiler already orders their uses after those; this wait orders them in the hardware.
    unsafe {
        core::arch::asm!("wgmma.wait_group.sync.aligned {n};", n = const N, options(nostack))
    };
}

/// The panic of a descriptor start outside its tile.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn descriptor_out_of_bounds(start: usize, len: usize) -> ! {
    let _ = (start, len);
    panic!("SharedMatrixDescriptor: the start is out of bounds of the shared array")
}

/// The panic of a leading or stride byte offset the descriptor cannot encode.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_descriptor_offset(offset: u32) -> ! {
    let _ = offset;
    panic!("SharedMatrixDescriptor: byte offsets must be multiples of 16, at most 262128")
}

/// The panic of a start address not aligned to 16 bytes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned_descriptor(address: u32) -> ! {
    let _ = address;
    panic!("SharedMatrixDescriptor: the matrix start is not 16-byte aligned")
}

/// The panic of a swizzled tile that does not start on a pattern boundary.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned_swizzled_tile(address: u32, pattern: usize) -> ! {
    let _ = (address, pattern);
    panic!(
        "SharedMatrixDescriptor: a swizzled tile must start on a multiple of its swizzle pattern (1024 bytes for the 128-byte swizzle)"
    )
}
