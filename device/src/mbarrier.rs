//! Shared-memory barriers with transaction counts (`mbarrier`, sm_90 forms): how a thread waits
//! for the tensor memory accelerator ([`crate::tma`]) and how warps hand buffers to each other
//! without stopping the whole block.
//!
//! An mbarrier is a 64-bit object in shared memory that counts *arrivals* and, on Hopper,
//! *transactions* (bytes an asynchronous copy has yet to write). Each time the expected
//! arrivals have arrived and the transaction count is back to zero, the current *phase*
//! completes and the next begins; a waiter names the phase by its parity (0 for the first, 1 for
//! the second, 0 again for the third...). PTX ISA 8.x, section 9.7.13.15 ("Parallel
//! Synchronization and Communication Instructions: mbarrier"): `mbarrier.init` (9.7.13.15.9),
//! `mbarrier.arrive` and its `.expect_tx` form (9.7.13.15.11/12), `mbarrier.try_wait.parity`
//! (9.7.13.15.16), and `fence.mbarrier_init` / `fence.proxy.async` (9.7.13.4, "membar/fence").
//!
//! ```ignore
//! let mut carve = DynamicShared::new();
//! let full = Mbarriers::new(carve.take::<u64>(STAGES), 1);   // block-collective
//! // producer:  full.arrive_expect_tx(s, BYTES); unsafe { tma_load_2d(..., &full, s) };
//! // consumer:  full.wait(s, phase);  ... read stage s ...
//! ```
//!
//! # Safety of the API
//! [`Mbarriers::new`] takes the shared array by value (so no other handle of the thread reaches
//! it) and initialises every barrier before any thread can use one (one thread initialises,
//! `fence.mbarrier_init`, then a block barrier), so no operation here can meet an uninitialised
//! barrier, which the ISA leaves undefined. What remains is the protocol: a wait for a phase that
//! never completes hangs, as a spin on a flag would.
//!
//! # Architecture and simulator
//! The `.expect_tx` and `try_wait` forms need sm_90; ferrocuda gates them with the rest of its
//! Hopper API on sm_90a ([`crate::architecture::Sm90a`]). The simulator does not run mbarriers
//! (they exist to wait for TMA copies and `wgmma`, which it cannot run either): it accepts
//! [`Mbarriers::new`] (as a block barrier), and every other operation stops the kernel with
//! `SimulatorFault::UnsupportedInstruction` naming the instruction.

use crate::architecture::{Sm90a, Target};
use crate::backend::mbarrier as imp;
use crate::shared::{Shape, Shared};

/// A block's array of mbarriers in shared memory, initialised by [`Mbarriers::new`].
pub struct Mbarriers {
    /// The first barrier (a generic address of shared memory on the GPU).
    base: *mut u64,
    /// The number of barriers.
    len: usize,
}

impl Mbarriers {
    /// Initialises every barrier of `storage` to expect `arrivals` arrivals per phase, and
    /// returns their handle. Block-collective, like [`syncthreads`](crate::syncthreads): every
    /// thread of the block calls it with the same arguments (thread 0 initialises, then
    /// `fence.mbarrier_init.release.cluster` and a block barrier make the barriers visible to
    /// every thread and to the asynchronous proxy).
    ///
    /// # Panics
    /// When `arrivals` is 0 or above 2^20 - 1 (the ISA's limit for the count).
    #[inline(always)]
    #[track_caller]
    pub fn new<S: Shape>(storage: Shared<u64, S>, arrivals: u32) -> Mbarriers
    where
        Target<S>: Sm90a,
    {
        if arrivals == 0 || arrivals >= 1 << 20 {
            imp::bad_arrivals(arrivals);
        }
        let barriers = Mbarriers {
            base: storage.as_ptr(),
            len: storage.len(),
        };
        imp::init_block(barriers.base, barriers.len, arrivals);
        barriers
    }

    /// The number of barriers.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The address of barrier `index`, checked.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn slot(&self, index: usize) -> *mut u64 {
        if index >= self.len {
            imp::out_of_bounds(index, self.len);
        }
        self.base.wrapping_add(index)
    }

    /// Arrives at barrier `index` (`mbarrier.arrive.release.cta.shared::cta.b64`): this
    /// thread's writes before it are visible to the threads that then see the phase complete.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub fn arrive(&self, index: usize) {
        imp::arrive(self.slot(index));
    }

    /// Arrives at barrier `index` and adds `bytes` to the transactions its current phase waits
    /// for (`mbarrier.arrive.expect_tx.release.cta.shared::cta.b64`): the phase completes once
    /// the asynchronous copies signalling this barrier have written `bytes` bytes. Call it
    /// before or after issuing those copies, in the same phase.
    ///
    /// # Panics
    /// When `index` is out of bounds or `bytes` is 2^20 or more (the ISA's limit).
    #[inline(always)]
    #[track_caller]
    pub fn arrive_expect_tx(&self, index: usize, bytes: u32) {
        if bytes >= 1 << 20 {
            imp::bad_transaction_bytes(bytes);
        }
        imp::arrive_expect_tx(self.slot(index), bytes);
    }

    /// Waits until the phase of barrier `index` with parity `parity` (0 or 1; only its lowest
    /// bit counts) has completed (`mbarrier.try_wait.parity.acquire.cta.shared::cta.b64` in a
    /// loop). Memory written before the arrivals (and by the copies counted) is then visible.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub fn wait(&self, index: usize, parity: u32) {
        imp::wait(self.slot(index), parity & 1);
    }
}

/// Orders this thread's earlier shared-memory accesses through ordinary loads and stores (the
/// generic proxy) before its later ones through the asynchronous proxy (TMA, `wgmma`):
/// `fence.proxy.async.shared::cta`. Needed when a thread writes a shared tile with stores and
/// then hands it to `wgmma` or a bulk copy.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90a"))]
#[inline(always)]
#[track_caller]
pub fn fence_proxy_async() {
    imp::fence_proxy_async();
}
