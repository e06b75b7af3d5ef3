//! Failing an allocation on purpose: [`fail_allocation_after`] makes the calling thread's
//! `n`-th next device or pinned allocation fail with [`Error::OutOfMemory`], on either backend,
//! without asking the driver. For tests of what a program (or a library call that allocates
//! temporary storage) does when memory runs out: it must return the error, keep the user's
//! buffers, and free what it had allocated.

use crate::vocabulary::error::Error;
use std::cell::Cell;

std::thread_local! {
    /// Allocations of this thread to let through before the one that fails (`None`: none fails).
    static REMAINING: Cell<Option<usize>> = const { Cell::new(None) };
}

/// While it lives, the calling thread's allocation number `n` from now (0: the next one) fails
/// with [`Error::OutOfMemory`]; the later ones succeed again. Dropping it before then cancels the
/// failure. Other threads' allocations are not affected.
#[must_use = "the failure is cancelled when the guard is dropped"]
#[derive(Debug)]
pub struct InjectedAllocationFailure {
    /// What the thread had armed before, restored on drop.
    previous: Option<usize>,
}

/// Makes the calling thread's allocation number `n` from now (0: the next one) of device or
/// pinned memory fail with [`Error::OutOfMemory`] (`available` 0, the device named as an
/// injected failure), on the GPU as on the simulator, as long as the returned guard lives.
///
/// ```no_run
/// use ferrocuda::{DeviceBuffer, Device, Error, fail_allocation_after};
/// let device = Device::simulator();
/// let _failure = fail_allocation_after(1);
/// let first = DeviceBuffer::<f32>::zeros(&device, 16);      // succeeds
/// let second = DeviceBuffer::<f32>::zeros(&device, 16);     // fails
/// assert!(first.is_ok() && matches!(second, Err(Error::OutOfMemory { .. })));
/// ```
pub fn fail_allocation_after(n: usize) -> InjectedAllocationFailure {
    InjectedAllocationFailure {
        previous: REMAINING.with(|r| r.replace(Some(n))),
    }
}

impl Drop for InjectedAllocationFailure {
    fn drop(&mut self) {
        REMAINING.with(|r| r.set(self.previous));
    }
}

/// Called by every allocation before it reaches the backend: the injected failure when this is
/// the allocation armed by [`fail_allocation_after`].
#[inline]
pub(crate) fn check(requested: usize) -> Result<(), Error> {
    let Some(remaining) = REMAINING.with(Cell::get) else {
        return Ok(());
    };
    if remaining > 0 {
        REMAINING.with(|r| r.set(Some(remaining - 1)));
        return Ok(());
    }
    REMAINING.with(|r| r.set(None));
    Err(Error::OutOfMemory {
        device: "a device (an injected failure: fail_allocation_after)".to_string(),
        requested,
        available: 0,
    })
}
