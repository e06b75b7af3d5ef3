//! The watchdog: turns a launch that makes no progress into a report instead of a hang.
//!
//! *Progress* is a simulated thread finishing, a block barrier being released or a warp operation
//! completing; the scheduler counts each one in the launch's [`Watch`] (one relaxed store, no
//! clock read). A process-wide monitor thread, started by the first watched launch, samples every
//! watched launch's count each [`TICK`]. When a count has not moved for the timeout
//! (`FERROCUDA_SIMULATOR_WATCHDOG_SECS`, default [`DEFAULT_SECS`]; `0` disables the watchdog),
//! the monitor marks the launch *stalled*:
//! 1. The stalled flag is read at every point where a simulated thread gives control back to the
//!    scheduler: every [`ATOMICS_PER_YIELD`](crate::device::sim::ATOMICS_PER_YIELD)-th atomic, barriers,
//!    warp operations, prints. The thread that reads it ends the launch with
//!    [`SimulatorFault::NoProgress`](crate::vocabulary::fault::SimulatorFault::NoProgress): a
//!    spin-wait on an atomic flag becomes an ordinary error.
//! 2. A thread in a loop with none of those points (`loop {}`, a spin on a plain variable) can
//!    never be stopped: a coroutine cannot be preempted, and unwinding it from a signal is
//!    unsound. If the launch is still stalled [`GRACE`] after the mark, the monitor prints the
//!    kernel, the block and the thread running to stderr and aborts the process. That is the only
//!    sound alternative to hanging for ever.

use crate::Dim3;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once};
use std::time::{Duration, Instant};

/// The environment variable that sets the watchdog's time, in seconds.
pub(crate) const WATCHDOG_ENV: &str = "FERROCUDA_SIMULATOR_WATCHDOG_SECS";

/// The watchdog's default time, in seconds.
pub(crate) const DEFAULT_SECS: u64 = 60;

/// How often the monitor samples the watched launches.
const TICK: Duration = Duration::from_millis(100);

/// How long a stalled launch has to notice the mark before the monitor aborts the process.
const GRACE: Duration = Duration::from_secs(2);

/// The watchdog's time from the environment: `None` when disabled (`0`); the default when unset
/// or unreadable.
pub(super) fn timeout_from_env() -> Option<Duration> {
    let secs = std::env::var(WATCHDOG_ENV)
        .ok()
        .and_then(|secs| secs.trim().parse::<u64>().ok())
        .unwrap_or(DEFAULT_SECS);
    (secs > 0).then(|| Duration::from_secs(secs))
}

/// What the monitor knows of one launch.
pub(super) struct Watch {
    /// The kernel's entry name.
    kernel: &'static str,
    /// The watchdog's time.
    timeout: Duration,
    /// Progress events so far (written by the launch's OS thread only).
    progress: AtomicU64,
    /// Set by the monitor when `progress` has not moved for `timeout`.
    stalled: AtomicBool,
    /// `blockIdx` of the block being run (x, y, z).
    block: [AtomicU32; 3],
    /// Rank of the thread being run.
    thread: AtomicUsize,
    /// The monitor's view: the last count seen, since when, and when it marked the launch.
    seen: Mutex<(u64, Instant, Option<Instant>)>,
}

impl Watch {
    /// Counts a progress event.
    #[inline]
    pub(super) fn progressed(&self) {
        let count = self.progress.load(Ordering::Relaxed);
        self.progress
            .store(count.wrapping_add(1), Ordering::Relaxed);
    }

    /// Whether the monitor found the launch stalled.
    #[inline]
    pub(super) fn stalled(&self) -> bool {
        self.stalled.load(Ordering::Relaxed)
    }

    /// The watchdog's time in whole seconds (for the report).
    pub(super) fn seconds(&self) -> u64 {
        self.timeout.as_secs()
    }

    /// Notes the block being run.
    pub(super) fn set_block(&self, block: Dim3) {
        for (slot, value) in self.block.iter().zip([block.x, block.y, block.z]) {
            slot.store(value, Ordering::Relaxed);
        }
    }

    /// Notes the thread being run.
    #[inline]
    pub(super) fn set_thread(&self, rank: usize) {
        self.thread.store(rank, Ordering::Relaxed);
    }

    /// The monitor's check: marks the launch stalled after `timeout` without progress, and
    /// aborts the process [`GRACE`] after that.
    fn check(&self, now: Instant) {
        let count = self.progress.load(Ordering::Relaxed);
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if count != seen.0 {
            *seen = (count, now, None);
            self.stalled.store(false, Ordering::Relaxed);
            return;
        }
        match seen.2 {
            None if now.duration_since(seen.1) >= self.timeout => {
                seen.2 = Some(now);
                self.stalled.store(true, Ordering::Relaxed);
            }
            Some(marked) if now.duration_since(marked) >= GRACE => self.abort_process(),
            _ => {}
        }
    }

    /// Prints what is known of the stalled launch and aborts.
    fn abort_process(&self) -> ! {
        let [x, y, z] = &self.block;
        eprintln!(
            "ferrocuda simulator watchdog: kernel `{}` made no progress for {} s in block ({}, {}, {}); \
             thread of rank {} runs a loop that never reaches an atomic, a barrier, a warp \
             operation or a print, so it cannot be stopped: aborting the process \
             ({WATCHDOG_ENV} sets the time, 0 disables the watchdog)",
            self.kernel,
            self.timeout.as_secs() + GRACE.as_secs(),
            x.load(Ordering::Relaxed),
            y.load(Ordering::Relaxed),
            z.load(Ordering::Relaxed),
            self.thread.load(Ordering::Relaxed),
        );
        std::process::abort()
    }
}

/// The launches the monitor watches.
static WATCHED: Mutex<Vec<Arc<Watch>>> = Mutex::new(Vec::new());

/// A launch's registration with the monitor; unregisters when dropped. Holds nothing when the
/// watchdog is disabled.
pub(super) struct WatchGuard(Option<Arc<Watch>>);

impl WatchGuard {
    /// Registers a launch of `kernel` (no-op when `timeout` is `None`).
    pub(super) fn new(kernel: &'static str, timeout: Option<Duration>) -> Self {
        let Some(timeout) = timeout else {
            return WatchGuard(None);
        };
        let watch = Arc::new(Watch {
            kernel,
            timeout,
            progress: AtomicU64::new(0),
            stalled: AtomicBool::new(false),
            block: Default::default(),
            thread: AtomicUsize::new(0),
            seen: Mutex::new((0, Instant::now(), None)),
        });
        WATCHED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::clone(&watch));
        start_monitor();
        WatchGuard(Some(watch))
    }

    /// The launch's watch, when the watchdog is on.
    #[inline]
    pub(super) fn get(&self) -> Option<&Watch> {
        self.0.as_deref()
    }
}

impl Drop for WatchGuard {
    fn drop(&mut self) {
        if let Some(watch) = self.0.take() {
            let mut watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner());
            watched.retain(|w| !Arc::ptr_eq(w, &watch));
        }
    }
}

/// Starts the monitor thread (once per process).
fn start_monitor() {
    static START: Once = Once::new();
    START.call_once(|| {
        let spawned = std::thread::Builder::new()
            .name("ferrocuda-simulator-watchdog".into())
            .spawn(|| {
                loop {
                    std::thread::sleep(TICK);
                    let now = Instant::now();
                    let watched = WATCHED.lock().unwrap_or_else(|e| e.into_inner()).clone();
                    for watch in &watched {
                        watch.check(now);
                    }
                }
            });
        // Without a monitor the launches run unwatched, as before the watchdog existed.
        drop(spawned);
    });
}
