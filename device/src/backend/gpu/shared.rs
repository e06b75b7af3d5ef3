//! Shared memory on the GPU: statics in the `.shared` state space (moved there by the builder's
//! link step), the `.extern .shared` dynamic region, and no access reports.

/// Nothing: the race detector is the simulator's.
#[inline(always)]
pub(crate) fn report_access(address: *const u8, bytes: usize, write: bool) {
    let _ = (address, bytes, write);
}

/// Asking `gpu_launch_sized_workgroup_mem` for this type aligns the dynamic region to 16 bytes.
#[repr(C, align(16))]
struct Align16([u8; 16]);

/// The block's dynamic shared memory: base address and size in bytes (the launch's
/// `shared_mem` argument, `%dynamic_smem_size`).
#[inline(always)]
pub(crate) fn dynamic_region() -> (*mut u8, usize) {
    let base = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Align16>();
    let size: u32;
    // SAFETY: reads a special register into a register; no memory is touched.
    unsafe {
        core::arch::asm!("mov.u32 {size}, %dynamic_smem_size;", size = out(reg32) size,
            options(pure, nomem, nostack));
    }
    (base.cast(), size as usize)
}

/// The panic of `DynamicShared::take` (a static message: the GPU's panic record keeps no
/// formatted text).
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn too_small(size: usize, offset: usize, len: usize, elem: usize) -> ! {
    let _ = (size, offset, len, elem);
    panic!(
        "dynamic shared memory too small for DynamicShared::take (set it with `.shared_mem(bytes)`; run on the simulator to see the sizes)"
    )
}

/// Nothing is needed by the GPU's `shared_array!` expansion.
pub mod macro_support {}

/// The GPU side of `shared_array!`: a static in the link section `.shared`, which the builder's
/// link step moves to the `.shared` state space, and its handle.
#[doc(hidden)]
#[macro_export]
macro_rules! __shared_static {
    ($handle:ty, $array:ty) => {{
        // `#[used]` keeps LTO from optimising the static as ordinary memory before the builder's
        // link step moves every global of section ".shared" to shared memory (`.shared`).
        #[unsafe(link_section = ".shared")]
        #[used]
        static mut __FERROCUDA_SHARED: ::core::mem::MaybeUninit<$array> =
            ::core::mem::MaybeUninit::uninit();
        // SAFETY: the static is block-shared memory of exactly the handle's size and element
        // type, valid for the launch, and only this expansion names it.
        unsafe { <$handle>::__from_static((&raw mut __FERROCUDA_SHARED).cast()) }
    }};
}
