//! Panics of simulated threads: a process-wide panic hook that records the message and location
//! of a kernel thread's panic without printing it, and the unwinding payload the simulator uses to
//! end a thread that must not go on.
//!
//! The hook is installed once and wraps the hook that was there before: it records and stays
//! silent only while the current OS thread runs a simulated kernel thread; every other panic goes
//! to the previous hook as before. A panic that cannot unwind (core's "unsafe precondition(s)
//! violated" checks of a debug build, a panic in a destructor during unwinding) aborts the process
//! right after the hook, so for those the hook prints the kernel, block and thread and the message
//! first: nothing else would say where it happened.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::PanicHookInfo;
use std::sync::Once;

/// What the panic hook recorded about the panic of a simulated thread.
#[derive(Debug, Clone)]
pub(super) struct CapturedPanic {
    /// The panic message, fully formatted.
    pub message: String,
    /// Source file of the panic.
    pub file: String,
    /// Source line.
    pub line: u32,
    /// Source column.
    pub column: u32,
}

/// The unwinding payload that ends a simulated thread the simulator has given up on (its block
/// faulted, or it waits for a thread that panicked). It is not a panic: the hook never sees it.
pub(super) struct AbortThread;

std::thread_local! {
    /// Whether this OS thread is running a simulated kernel thread right now.
    static IN_KERNEL: Cell<bool> = const { Cell::new(false) };
    /// The kernel of the launch this OS thread runs.
    static KERNEL: Cell<&'static str> = const { Cell::new("") };
    /// The last panic the hook recorded on this OS thread.
    static CAPTURED: RefCell<Option<CapturedPanic>> = const { RefCell::new(None) };
}

/// Installs the simulator's panic hook (once per process).
pub(super) fn install() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
            if IN_KERNEL.with(Cell::get) {
                if cannot_unwind(info) {
                    print_before_abort(info);
                }
                record(info);
            } else {
                previous(info);
            }
        }));
    });
}

/// Notes the kernel of the launch this OS thread runs (for the report of a panic that aborts).
pub(super) fn begin_launch(kernel: &'static str) {
    KERNEL.with(|k| k.set(kernel));
}

/// The messages of core's panics that cannot unwind (`panic_nounwind`): the process aborts
/// right after the hook returns. (`PanicHookInfo::can_unwind` is unstable.)
const NON_UNWINDING: [&str; 5] = [
    "unsafe precondition(s) violated",
    "panic in a function that cannot unwind",
    "panic in a destructor during cleanup",
    "misaligned pointer dereference",
    "null pointer dereference",
];

/// Whether the panic will abort the process instead of unwinding.
fn cannot_unwind(info: &PanicHookInfo<'_>) -> bool {
    let message = info.payload_as_str().unwrap_or("");
    NON_UNWINDING.iter().any(|start| message.starts_with(start))
}

/// Prints where a kernel thread's non-unwinding panic happened, before the process aborts.
fn print_before_abort(info: &PanicHookInfo<'_>) {
    let kernel = KERNEL.with(Cell::get);
    let context = crate::device::sim::try_current();
    let (block, thread) = context.map_or((None, None), |c| (Some(c.block_idx), Some(c.thread_idx)));
    let place = match (block, thread) {
        (Some(b), Some(t)) => format!(
            ", block ({}, {}, {}), thread ({}, {}, {})",
            b.x, b.y, b.z, t.x, t.y, t.z
        ),
        _ => String::new(),
    };
    let location = info.location().map_or_else(String::new, |l| {
        format!(" at {}:{}:{}", l.file(), l.line(), l.column())
    });
    eprintln!(
        "ferrocuda simulator: kernel `{kernel}`{place} panicked{location} with a panic that cannot \
         unwind, so the process aborts: {}",
        info.payload_as_str().unwrap_or("Box<dyn Any>")
    );
}

/// Records a kernel thread's panic for [`take_captured`].
fn record(info: &PanicHookInfo<'_>) {
    let message = info
        .payload_as_str()
        .map_or_else(|| "Box<dyn Any>".to_string(), str::to_string);
    let (file, line, column) = info.location().map_or_else(
        || ("<unknown>".to_string(), 0, 0),
        |l| (l.file().to_string(), l.line(), l.column()),
    );
    CAPTURED.with(|captured| {
        if let Ok(mut captured) = captured.try_borrow_mut() {
            *captured = Some(CapturedPanic {
                message,
                file,
                line,
                column,
            });
        }
    });
}

/// Marks whether this OS thread is running a simulated kernel thread (set around every resume).
#[inline]
pub(super) fn set_in_kernel(in_kernel: bool) {
    IN_KERNEL.with(|flag| flag.set(in_kernel));
}

/// Takes the panic the hook last recorded on this OS thread.
pub(super) fn take_captured() -> Option<CapturedPanic> {
    CAPTURED.with(|captured| captured.try_borrow_mut().ok().and_then(|mut c| c.take()))
}

/// The message of a panic payload, for a panic the hook did not record (another hook replaced
/// the simulator's).
pub(super) fn payload_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&'static str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "Box<dyn Any>".to_string()
    }
}

/// Ends the calling simulated thread by unwinding its stack (destructors run; the panic hook is
/// not called). The scheduler sees the thread end as aborted, not panicked.
pub(super) fn abort_thread() -> ! {
    std::panic::resume_unwind(Box::new(AbortThread))
}
