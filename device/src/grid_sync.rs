//! The grid-wide barrier of cooperative launches: CUDA's `this_grid().sync()` (cooperative
//! groups), Numba's `cuda.cg.this_grid().sync()`.
//!
//! A grid barrier needs every block of the grid to be resident on the GPU at once: a block that
//! waits for one not yet started would wait forever. So only kernels marked
//! `#[kernel(cooperative)]` may call [`grid_sync`]: their launches check first that the grid fits
//! on the device at once (an error naming both numbers otherwise) and go through
//! `cuLaunchCooperativeKernel`, and the simulator runs all their blocks interleaved.
//!
//! On the GPU the barrier counts arrivals in the grid workspace that the driver gives every
//! cooperative launch (the ABI of CUDA's cooperative groups: its address in
//! `%envreg1:%envreg2`; the launch token's [`COOPERATIVE_TOKEN_BIT`] says whether the launch is
//! cooperative), with a release add and an acquire spin by one thread per block
//! between two `bar.sync`s, and the top bit of the count flipping once per barrier, so that it
//! needs no reset and may be called any number of times. Each function is one call into the
//! backend (`backend/gpu/grid_sync.rs`, `backend/simulator/grid_sync.rs`).

use crate::backend::grid_sync as imp;
#[cfg(doc)]
use crate::panic::COOPERATIVE_TOKEN_BIT;

/// The message of the panic of [`grid_sync`] in a kernel that was not launched cooperatively.
pub const NOT_COOPERATIVE: &str = "grid_sync was called in a kernel that was not launched cooperatively: mark the kernel #[kernel(cooperative)]";

/// Waits until every thread of the grid has reached this point, and makes the writes to global
/// memory of every thread before it visible to every thread after it (`this_grid().sync()`).
///
/// Every thread of the grid must reach it, as every thread of a block must reach
/// [`syncthreads`](crate::syncthreads): the simulator reports a grid barrier that some threads
/// skip as a fault, a GPU would hang. The kernel must be `#[kernel(cooperative)]`; called in a
/// kernel launched otherwise, it panics with [`NOT_COOPERATIVE`] on both backends (every thread
/// does, so none waits for ever).
///
/// Like `syncthreads`, it is a barrier for the compiler too: no load or store moves across it,
/// so a thread reads back what another block wrote before the barrier, even into a `&mut [T]`
/// it wrote itself earlier (`tests/tests/ptx_barrier_reload.rs` pins it in the PTX).
#[inline(always)]
#[track_caller]
pub fn grid_sync() {
    if !imp::grid_sync() {
        not_cooperative();
    }
}

/// Whether the running kernel was launched cooperatively, so that [`grid_sync`] may be called.
#[inline(always)]
pub fn is_cooperative_launch() -> bool {
    imp::is_cooperative_launch()
}

/// The panic of a grid barrier in a kernel that was not launched cooperatively.
#[cold]
#[inline(never)]
#[track_caller]
fn not_cooperative() -> ! {
    // A literal, not `NOT_COOPERATIVE`: the GPU's panic handler records a static message only.
    panic!(
        "grid_sync was called in a kernel that was not launched cooperatively: mark the kernel #[kernel(cooperative)]"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panic_says_not_cooperative() {
        let payload = std::panic::catch_unwind(|| not_cooperative()).unwrap_err();
        let message = payload.downcast_ref::<&str>().copied();
        assert_eq!(message, Some(NOT_COOPERATIVE));
    }
}
