//! mbarrier instructions (PTX ISA 9.7.13.15), on 32-bit shared-state-space addresses converted
//! from the generic pointers the façade holds.

/// The shared-state-space address of the generic shared-memory pointer `pointer`
/// (`cvta.to.shared.u64`, which fits 32 bits: shared windows are smaller than 4 GiB).
#[inline(always)]
pub(crate) fn shared_address<T>(pointer: *const T) -> u32 {
    let address: u64;
    // SAFETY: an address conversion; reads and writes no memory.
    unsafe {
        core::arch::asm!(
            "cvta.to.shared.u64 {a}, {p};",
            a = out(reg64) address, p = in(reg64) pointer,
            options(pure, nomem, nostack)
        )
    };
    address as u32
}

/// Thread 0 initialises the `len` barriers at `base` with `arrivals`; then the fence and a block
/// barrier publish them.
#[inline(always)]
pub(crate) fn init_block(base: *mut u64, len: usize, arrivals: u32) {
    if crate::thread_idx().x == 0 && crate::thread_idx().y == 0 && crate::thread_idx().z == 0 {
        for index in 0..len {
            let address = shared_address(base.wrapping_add(index));
            // SAFETY: `address` is a u64 of the shared array the façade took by value; thread 0
            // alone initialises it, before the block barrier below lets anyone else use it.
            unsafe {
                core::arch::asm!(
                    "mbarrier.init.shared::cta.b64 [{a}], {n};",
                    a = in(reg32) address, n = in(reg32) arrivals,
                    options(nostack)
                )
            };
        }
        // SAFETY: a fence (9.7.13.4): makes the initialisations visible to the asynchronous
        // proxy and to the other threads that pass the barrier below.
        unsafe { core::arch::asm!("fence.mbarrier_init.release.cluster;", options(nostack)) };
    }
    crate::syncthreads();
}

/// `mbarrier.arrive`.
#[inline(always)]
pub(crate) fn arrive(slot: *mut u64) {
    let address = shared_address(slot);
    // SAFETY: `slot` is an initialised barrier of the façade's array (bounds checked there).
    unsafe {
        core::arch::asm!(
            "mbarrier.arrive.release.cta.shared::cta.b64 _, [{a}];",
            a = in(reg32) address,
            options(nostack)
        )
    };
}

/// `mbarrier.arrive.expect_tx`.
#[inline(always)]
pub(crate) fn arrive_expect_tx(slot: *mut u64, bytes: u32) {
    let address = shared_address(slot);
    // SAFETY: as `arrive`.
    unsafe {
        core::arch::asm!(
            "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [{a}], {n};",
            a = in(reg32) address, n = in(reg32) bytes,
            options(nostack)
        )
    };
}

/// `mbarrier.try_wait.parity` until it reports the phase complete. The loop is Rust's (labels in
/// inline assembly would clash when the function is inlined twice).
#[inline(always)]
pub(crate) fn wait(slot: *mut u64, parity: u32) {
    let address = shared_address(slot);
    loop {
        let done: u32;
        // SAFETY: as `arrive`; `try_wait` only reads the barrier, and acquires what the
        // arrivals released when it succeeds (the default memory clobber keeps later loads
        // after it).
        unsafe {
            core::arch::asm!(
                "{{ .reg .pred p;",
                "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [{a}], {parity};",
                "selp.u32 {done}, 1, 0, p; }}",
                a = in(reg32) address, parity = in(reg32) parity, done = out(reg32) done,
                options(nostack)
            )
        };
        if done != 0 {
            break;
        }
    }
}

/// `fence.proxy.async.shared::cta`.
#[cfg(target_feature = "sm_90a")]
#[inline(always)]
pub(crate) fn fence_proxy_async() {
    // SAFETY: a fence; touches no memory itself (not `nomem`, so that the compiler keeps memory
    // accesses on their side of it).
    unsafe { core::arch::asm!("fence.proxy.async.shared::cta;", options(nostack)) };
}

/// The panic of an arrival count out of range.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_arrivals(arrivals: u32) -> ! {
    let _ = arrivals;
    panic!("Mbarriers::new: the arrival count must be 1 to 2^20 - 1")
}

/// The panic of a transaction count out of range.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn bad_transaction_bytes(bytes: u32) -> ! {
    let _ = bytes;
    panic!("Mbarriers::arrive_expect_tx: at most 2^20 - 1 bytes per arrival")
}

/// The panic of a barrier index out of bounds.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(index: usize, len: usize) -> ! {
    let _ = (index, len);
    panic!("Mbarriers: barrier index out of bounds")
}
