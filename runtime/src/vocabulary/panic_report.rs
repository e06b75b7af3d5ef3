//! Device panics as host errors.

use crate::Dim3;

/// A kernel thread panicked: an out-of-bounds index, a failed `assert!`, a `panic!`.
///
/// Returned (inside [`crate::Error::KernelPanic`]) once, to the host thread that launched the
/// kernel, by its first synchronization that covers the launch: `Stream::synchronize` of the
/// launch's stream, `Device::synchronize`, `Event::synchronize` of an event recorded after it on
/// its stream, a copy back to the host (for a launch on the default stream), or the launch itself
/// when it copies host slices back (after copying them). The device stays usable: the panicking
/// thread ended, the other threads of the launch ran to completion, and the next launch works.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "kernel `{kernel}` panicked at {file}:{line}:{column}, block {block}, thread {thread}: {message}{}",
    if *other_panics > 0 { format!(" ({other_panics} other thread(s) panicked too)") } else { String::new() }
)]
pub struct KernelPanic {
    /// The entry name of the kernel that panicked.
    pub kernel: String,
    /// The panic message, or the kind of panic when the message was formatted at run time
    /// (device code does not carry a formatter).
    pub message: String,
    /// Source file of the panic.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// Source column.
    pub column: u32,
    /// `blockIdx` of the (first) panicking thread.
    pub block: Dim3,
    /// `threadIdx` of the (first) panicking thread.
    pub thread: Dim3,
    /// How many other threads panicked in the same launch.
    pub other_panics: u32,
}

/// The message for a GPU panic whose text was built with `format_args!` at run time (bounds
/// checks, `panic!("{}", x)`): the device records location but not the formatted text.
pub(crate) const FORMATTED_MESSAGE: &str = "panic with a run-time formatted message (an index out of bounds, an arithmetic overflow, or a formatted panic!/assert!); the simulator shows the full text";

/// What a synchronizing host thread does with a device panic record, decided by its token.
pub(crate) enum Claim {
    /// One of the thread's launches that this synchronization covers: report it (it panicked in
    /// this kernel) and clear the record.
    Take(&'static str),
    /// One of the thread's launches that this synchronization does not cover: leave it for a
    /// later one of the same thread.
    Keep,
    /// A launch nobody will claim any more (older than the host remembers): clear the record.
    Clear,
    /// Another thread's launch: leave it.
    Ignore,
}

/// The panic epoch of each loaded module (by module key) as one host thread last read it, with
/// nothing of its own left in that module's records at that epoch.
#[derive(Default)]
pub(crate) struct SeenEpochs(Vec<(usize, u32)>);

impl SeenEpochs {
    /// The epoch last read for module `key`.
    pub(crate) fn get(&self, key: usize) -> Option<u32> {
        self.0.iter().find(|(k, _)| *k == key).map(|(_, e)| *e)
    }

    /// Remembers `epoch` for module `key`.
    pub(crate) fn set(&mut self, key: usize, epoch: u32) {
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = epoch,
            None => self.0.push((key, epoch)),
        }
    }
}
