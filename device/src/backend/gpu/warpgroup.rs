//! `setmaxnreg` (PTX ISA 9.7.17.1).

/// `setmaxnreg.inc.sync.aligned.u32 N`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn increase<const N: u32>() {
    // SAFETY: changes the warpgroup's register allocation; touches no memory.
    unsafe {
        core::arch::asm!("setmaxnreg.inc.sync.aligned.u32 {n};", n = const N, options(nostack))
    };
}

/// `setmaxnreg.dec.sync.aligned.u32 N`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn decrease<const N: u32>() {
    // SAFETY: as `increase`.
    unsafe {
        core::arch::asm!("setmaxnreg.dec.sync.aligned.u32 {n};", n = const N, options(nostack))
    };
}
