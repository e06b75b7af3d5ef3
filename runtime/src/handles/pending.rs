//! Which launches each host thread has not synchronized yet, and which synchronization reports
//! their panics and faults.
//!
//! # The rule
//! A launch's panic (GPU) or fault (simulator) is reported exactly once, by the launching
//! thread, at the first synchronization that covers the launch: `Stream::synchronize` of its
//! stream, `Device::synchronize`, `Event::synchronize` of an event recorded on its stream after
//! it, or a copy to the host (which synchronizes the default stream) for a launch on the default
//! stream. Never another thread's, never another stream's. One synchronization gives one
//! report, as a CUDA C error is one per synchronization: when it covers several failed launches
//! it returns the earliest's error, counting the others in it (a kernel panic's
//! `other_failed_launches`), and settles them all, so a later synchronization or copy reports
//! only launches made after it.
//!
//! # How
//! Every launch takes a token from its device's counter and passes it to the kernel as a hidden
//! last parameter; a panicking GPU thread records the token with the panic (slot `token %
//! PANIC_SLOTS` of its module's records). The launching thread remembers `(device, stream,
//! token, kernel)` in a thread-local list: a push, no lock, no allocation once the list has
//! grown. A synchronization scans the thread's list for launches it covers; when there are
//! some, it asks the backend for the records whose token is one of them. The backend reads each
//! module's 4-byte panic epoch and looks at the records only when it changed since this thread
//! last looked ([`SeenEpochs`]). A simulator launch's error is known at once and kept in its
//! entry.
//!
//! The list forgets launches more than `PANIC_SLOTS` tokens older than the newest one of their
//! device (their slot may have been reused), when it grows past its pruning threshold; entries
//! holding an error are kept.

use crate::backend::DeviceBackend;
use crate::device::panic::PANIC_SLOTS;
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::panic_report::{Claim, SeenEpochs};
use std::cell::RefCell;

/// The stream key of a device's default stream (`Stream::key`; new streams count up from 1).
pub(crate) const DEFAULT_STREAM_KEY: u64 = 0;

/// Which of the thread's launches a synchronization covers.
#[derive(Clone, Copy)]
pub(crate) struct Scope {
    /// The device's identity.
    pub(crate) device: u64,
    /// The stream's key, or `None` for all streams of the device.
    pub(crate) stream: Option<u64>,
    /// The newest token covered (an event covers the launches before it was recorded).
    pub(crate) up_to: u64,
}

impl Scope {
    /// Whether the launch is covered.
    fn covers(&self, launch: &Launch) -> bool {
        launch.device == self.device
            && self.stream.is_none_or(|s| s == launch.stream)
            && launch.token <= self.up_to
    }
}

/// One launch not synchronized yet.
struct Launch {
    /// The device's identity.
    device: u64,
    /// The stream's key.
    stream: u64,
    /// The launch token.
    token: u64,
    /// The kernel's entry name.
    kernel: &'static str,
    /// Its error, once known (at once on the simulator; when another synchronization of the
    /// thread found several).
    error: Option<Box<Error>>,
}

/// One thread's launches not synchronized yet, and what it knows of each device's records.
struct ThreadLaunches {
    /// In launch order.
    launches: Vec<Launch>,
    /// Prune when `launches` reaches this length.
    prune_at: usize,
    /// The epochs this thread last read, by device.
    seen: Vec<(u64, SeenEpochs)>,
}

thread_local! {
    static LAUNCHES: RefCell<ThreadLaunches> = const {
        RefCell::new(ThreadLaunches { launches: Vec::new(), prune_at: 2 * PANIC_SLOTS, seen: Vec::new() })
    };
}

/// Remembers a launch of the calling thread (`error`: a simulator launch that failed).
#[inline]
pub(crate) fn note(
    device: u64,
    stream: u64,
    token: u64,
    kernel: &'static str,
    error: Option<Error>,
) {
    LAUNCHES.with_borrow_mut(|thread| {
        if thread.launches.len() >= thread.prune_at {
            thread.prune(device, token);
        }
        thread.launches.push(Launch {
            device,
            stream,
            token,
            kernel,
            error: error.map(Box::new),
        });
    });
}

impl ThreadLaunches {
    /// Forgets launches of `device` whose slot a launch up to `newest` may have reused.
    #[cold]
    fn prune(&mut self, device: u64, newest: u64) {
        self.launches.retain(|l| {
            l.error.is_some() || l.device != device || l.token + PANIC_SLOTS as u64 > newest
        });
        self.prune_at = (2 * self.launches.len()).max(2 * PANIC_SLOTS);
    }

    /// What to do with a device record of `token`, for a synchronization of `scope`.
    fn claim(&self, scope: &Scope, newest: u64, token: u64) -> Claim {
        let mine = self
            .launches
            .iter()
            .find(|l| l.device == scope.device && l.token == token);
        match mine {
            Some(launch) if scope.covers(launch) && launch.error.is_none() => {
                Claim::Take(launch.kernel)
            }
            Some(_) => Claim::Keep,
            None if token + PANIC_SLOTS as u64 <= newest => Claim::Clear,
            None => Claim::Ignore,
        }
    }
}

/// After a synchronization of `scope` by the calling thread: its first covered launch that
/// failed, as an error that counts the other failed ones. Every covered launch is forgotten, so
/// a later synchronization reports only later launches. `newest` is the device's newest token.
pub(crate) fn claim(backend: &DeviceBackend, scope: Scope, newest: u64) -> Result<()> {
    LAUNCHES.with_borrow_mut(|thread| {
        if !thread.launches.iter().any(|l| scope.covers(l)) {
            return Ok(());
        }
        let mut seen = thread.take_seen(scope.device);
        let taken =
            backend.take_panics(&mut seen, &mut |token| thread.claim(&scope, newest, token));
        thread.seen.push((scope.device, seen));
        for (token, panic) in taken? {
            if let Some(launch) = thread
                .launches
                .iter_mut()
                .find(|l| l.device == scope.device && l.token == token)
            {
                launch.error = Some(Box::new(Error::KernelPanic(panic)));
            }
        }
        thread.report(&scope)
    })
}

/// The kernels of the calling thread's launches on `device` not synchronized yet, each named
/// once, in launch order: the suspects when the device's context is lost.
pub(crate) fn unsynchronized_kernels(device: u64) -> Vec<String> {
    LAUNCHES.with_borrow(|thread| {
        let mut names: Vec<String> = Vec::new();
        for launch in thread.launches.iter().filter(|l| l.device == device) {
            if !names.iter().any(|n| n == launch.kernel) {
                names.push(launch.kernel.to_string());
            }
        }
        names
    })
}

impl ThreadLaunches {
    /// This thread's epochs for `device` (removed; put back by the caller).
    fn take_seen(&mut self, device: u64) -> SeenEpochs {
        match self.seen.iter().position(|(d, _)| *d == device) {
            Some(i) => self.seen.swap_remove(i).1,
            None => SeenEpochs::default(),
        }
    }

    /// Forgets the launches `scope` covers; returns the first failure among them, counting the
    /// others in it (a kernel panic's `other_failed_launches`).
    fn report(&mut self, scope: &Scope) -> Result<()> {
        let mut first = None;
        let mut others = 0u32;
        self.launches.retain_mut(|l| {
            if !scope.covers(l) {
                return true;
            }
            match (first.is_none(), l.error.take()) {
                (true, Some(error)) => first = Some(error),
                (false, Some(_)) => others = others.saturating_add(1),
                (_, None) => {}
            }
            false
        });
        match first.map(|error| *error) {
            Some(Error::KernelPanic(mut panic)) => {
                panic.other_failed_launches = others;
                Err(Error::KernelPanic(panic))
            }
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(stream: u64, token: u64) -> Launch {
        Launch {
            device: 1,
            stream,
            token,
            kernel: "k",
            error: None,
        }
    }

    fn thread(launches: Vec<Launch>) -> ThreadLaunches {
        ThreadLaunches {
            launches,
            prune_at: 2 * PANIC_SLOTS,
            seen: Vec::new(),
        }
    }

    #[test]
    fn a_record_is_taken_only_by_a_synchronization_of_its_stream() {
        let thread = thread(vec![launch(1, 5), launch(2, 6)]);
        let stream_one = Scope {
            device: 1,
            stream: Some(1),
            up_to: u64::MAX,
        };
        assert!(matches!(thread.claim(&stream_one, 6, 5), Claim::Take("k")));
        assert!(matches!(thread.claim(&stream_one, 6, 6), Claim::Keep));
        // Another thread's record: recent ones are left, abandoned ones cleared.
        assert!(matches!(thread.claim(&stream_one, 6, 4), Claim::Ignore));
        let newest = 7 + PANIC_SLOTS as u64;
        assert!(matches!(thread.claim(&stream_one, newest, 7), Claim::Clear));
        // An event covers only the launches before it.
        let event = Scope {
            up_to: 4,
            ..stream_one
        };
        assert!(matches!(thread.claim(&event, 6, 5), Claim::Keep));
    }

    fn panicked(stream: u64, token: u64) -> Launch {
        let panic = crate::vocabulary::panic_report::KernelPanic {
            kernel: format!("k{token}"),
            message: String::from("m"),
            file: String::from("f.rs"),
            line: 1,
            column: 1,
            block: crate::Dim3::new(0, 0, 0),
            thread: crate::Dim3::new(0, 0, 0),
            other_panics: 0,
            other_failed_launches: 0,
        };
        Launch {
            error: Some(Box::new(Error::KernelPanic(panic))),
            ..launch(stream, token)
        }
    }

    #[test]
    fn a_synchronization_reports_the_first_failure_and_counts_the_others() {
        let failed = |stream, token| Launch {
            error: Some(Box::new(Error::EventNotRecorded { operation: "test" })),
            ..launch(stream, token)
        };
        let mut thread = thread(vec![
            launch(1, 1),
            panicked(1, 2),
            failed(1, 3),
            panicked(1, 4),
            panicked(2, 5),
        ]);
        let scope = Scope {
            device: 1,
            stream: Some(1),
            up_to: u64::MAX,
        };
        match thread.report(&scope) {
            Err(Error::KernelPanic(panic)) => {
                assert_eq!(
                    (panic.kernel.as_str(), panic.other_failed_launches),
                    ("k2", 2)
                )
            }
            other => panic!("expected the panic of token 2, got {other:?}"),
        }
        // Settled: the next synchronization of stream 1 sees nothing; stream 2's is kept.
        assert!(thread.report(&scope).is_ok());
        assert_eq!(thread.launches.len(), 1);
        assert_eq!(thread.launches[0].token, 5);
        // An error of another kind comes back as it is, the others settled with it.
        let mut thread = self::thread(vec![failed(1, 6), panicked(1, 7)]);
        assert!(matches!(
            thread.report(&scope),
            Err(Error::EventNotRecorded { .. })
        ));
        assert!(thread.launches.is_empty());
    }

    #[test]
    fn pruning_forgets_only_launches_whose_slot_may_be_reused() {
        let mut thread = thread((1..=3000).map(|t| launch(1, t)).collect());
        thread.prune(1, 3000);
        assert_eq!(thread.launches.len(), PANIC_SLOTS);
        assert_eq!(thread.launches[0].token, 3001 - PANIC_SLOTS as u64);
        assert_eq!(thread.prune_at, 2 * PANIC_SLOTS);
    }
}
