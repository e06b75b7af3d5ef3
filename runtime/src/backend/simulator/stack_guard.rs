//! A simulated thread's stack overflow: the launch's error, not a bare `SIGSEGV`.
//!
//! Each coroutine stack has a guard page below it ([`corosensei::stack::DefaultStack`]); Rust's
//! stack probes touch every page of a large frame in order, so an overflow faults in that page.
//! For each launch, the scheduler notes in thread-locals where the stacks of its threads start,
//! the kernel and the stack size ([`begin_launch`], [`watch_stacks`]): nothing per resume, so the
//! guard costs the simulator no time. A `SIGSEGV`/`SIGBUS` handler, installed once on the signal
//! stack std gives every thread (one is made for a thread that has none), checks whether the
//! faulting address lies in the guard page of one of the launch's stacks (only the running
//! coroutine's stack is in use on this OS thread). If not, it hands the signal to the handler
//! that was there before (std's own stack-overflow report, or the default action).
//!
//! If so, on x86-64 Linux, the handler does not return to the faulting instruction: it rewrites
//! the interrupted context so that the thread resumes in [`escape`], on an escape stack of its
//! OS thread, as if the overflowing function had called it. `escape` suspends the coroutine for
//! good through its yielder (which lives at the top of the coroutine's stack, untouched by an
//! overflow at the bottom), and the scheduler, back on its own stack, leaks the coroutine with
//! its stack and ends the launch with `SimulatorFault::StackOverflow`. Nothing unwinds through
//! the abandoned frames (unwinding out of a signal handler is unsound, and a frame interrupted in
//! its prologue cannot be unwound); they are never run again and their memory is never reused.
//! Elsewhere the handler writes the message with `write(2)` (no allocation, no lock) and aborts.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::sync::Once;
use std::sync::atomic::{AtomicPtr, Ordering};

std::thread_local! {
    /// Where the stack mappings (and their guard pages) of the launch's threads start
    /// (corosensei's `Stack::limit`; 0: no stack yet): a pointer and a length (0: no launch).
    static LIMITS: Cell<(*const Cell<usize>, usize)> = const { Cell::new((std::ptr::null(), 0)) };
    /// The kernel the running simulated thread belongs to.
    static KERNEL: Cell<&'static str> = const { Cell::new("") };
    /// The stack size of the simulated threads of the launch, in bytes.
    static STACK_BYTES: Cell<usize> = const { Cell::new(0) };
    /// Whether this OS thread has a signal stack the handler can run on.
    static HAS_SIGNAL_STACK: Cell<bool> = const { Cell::new(false) };
}

/// The previous handlers of `SIGSEGV` and `SIGBUS`, written once by [`install`].
static PREVIOUS: [AtomicPtr<libc::sigaction>; 2] = [
    AtomicPtr::new(std::ptr::null_mut()),
    AtomicPtr::new(std::ptr::null_mut()),
];

/// The size of the signal stack made for a thread without one.
const SIGNAL_STACK_BYTES: usize = 64 * 1024;

/// The size of each OS thread's escape stack, on which an overflowed simulated thread suspends
/// for good: room for the hook call and the coroutine switch.
const ESCAPE_STACK_BYTES: usize = 64 * 1024;

std::thread_local! {
    /// The top (highest address) of this OS thread's escape stack; 0 until [`install`] made it.
    static ESCAPE_TOP: Cell<usize> = const { Cell::new(0) };
}

/// The stack size of the running launch's threads, in bytes.
pub(super) fn stack_bytes() -> usize {
    STACK_BYTES.with(Cell::get)
}

/// Where an overflowed simulated thread resumes (on the escape stack): hands it to the launch's
/// hook, which suspends it for good.
extern "C" fn escape() -> ! {
    crate::device::sim::hooks().stack_overflowed()
}

/// Makes the interrupted thread of `context` resume in [`escape`] on this OS thread's escape
/// stack; `false` where that cannot be done (another architecture, no escape stack).
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
fn redirect_to_escape(context: *mut libc::c_void) -> bool {
    let top = ESCAPE_TOP.with(Cell::get);
    if top == 0 || context.is_null() {
        return false;
    }
    // SAFETY: the kernel passes an `SA_SIGINFO` handler the interrupted thread's `ucontext_t`;
    // rewriting its stack and instruction pointers is how the handler chooses where the thread
    // resumes. The new stack pointer is 16-byte aligned less the 8 bytes of a return address, as
    // at the entry of a called function.
    unsafe {
        let context = &mut *context.cast::<libc::ucontext_t>();
        context.uc_mcontext.gregs[libc::REG_RSP as usize] = ((top & !15) - 8) as i64;
        context.uc_mcontext.gregs[libc::REG_RIP as usize] = escape as *const () as usize as i64;
    }
    true
}

/// Elsewhere the overflow ends the process with a message.
#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
fn redirect_to_escape(_context: *mut libc::c_void) -> bool {
    false
}

/// Installs the handler (once per process) and makes sure this OS thread has a signal stack and
/// an escape stack.
pub(super) fn install() {
    if ESCAPE_TOP.with(Cell::get) == 0 {
        let memory = Box::leak(vec![0u8; ESCAPE_STACK_BYTES].into_boxed_slice());
        ESCAPE_TOP.with(|top| top.set(memory.as_ptr() as usize + ESCAPE_STACK_BYTES));
    }
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        for (slot, signal) in PREVIOUS.iter().zip([libc::SIGSEGV, libc::SIGBUS]) {
            let previous = Box::into_raw(Box::new(MaybeUninit::<libc::sigaction>::zeroed()));
            // SAFETY: a zeroed `sigaction` is a valid value; the new action names a handler
            // with the `SA_SIGINFO` signature; `previous` is a valid place for the old action.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = handler as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, previous.cast());
            }
            slot.store(previous.cast(), Ordering::Release);
        }
    });
    ensure_signal_stack();
}

/// Gives this OS thread a signal stack if it has none (std gives one to the threads it starts).
fn ensure_signal_stack() {
    if HAS_SIGNAL_STACK.with(Cell::get) {
        return;
    }
    // SAFETY: `sigaltstack` with a null new stack only reads the current one into `current`; a
    // new stack is a leaked allocation that stays valid for the rest of the process.
    unsafe {
        let mut current: libc::stack_t = std::mem::zeroed();
        libc::sigaltstack(std::ptr::null(), &mut current);
        if current.ss_flags & libc::SS_DISABLE != 0 {
            let memory = Box::leak(vec![0u8; SIGNAL_STACK_BYTES].into_boxed_slice());
            let stack = libc::stack_t {
                ss_sp: memory.as_mut_ptr().cast(),
                ss_flags: 0,
                ss_size: SIGNAL_STACK_BYTES,
            };
            libc::sigaltstack(&stack, std::ptr::null_mut());
        }
    }
    HAS_SIGNAL_STACK.with(|flag| flag.set(true));
}

/// Notes the launch this OS thread runs: its kernel and the stack size of its threads.
pub(super) fn begin_launch(kernel: &'static str, stack_bytes: usize) {
    KERNEL.with(|k| k.set(kernel));
    STACK_BYTES.with(|s| s.set(stack_bytes));
}

/// Watches the stacks whose mappings start at `limits` (0: none) until [`unwatch_stacks`].
///
/// # Safety
/// `limits` stays allocated, and keeps its length, until [`unwatch_stacks`] is called on this OS
/// thread.
pub(super) unsafe fn watch_stacks(limits: &[Cell<usize>]) {
    LIMITS.with(|l| l.set((limits.as_ptr(), limits.len())));
}

/// Stops watching the stacks given to [`watch_stacks`].
pub(super) fn unwatch_stacks() {
    LIMITS.with(|l| l.set((std::ptr::null(), 0)));
}

/// Whether `address` lies in the guard page of a watched stack.
fn in_guard_page(address: usize) -> bool {
    let (limits, len) = LIMITS.with(Cell::get);
    let page = page_size();
    (0..len).any(|i| {
        // SAFETY: `watch_stacks`' caller keeps `len` elements at `limits` allocated while they are
        // watched; they are cells, written through shared references only.
        let limit = unsafe { (*limits.add(i)).get() };
        limit != 0 && address >= limit && address < limit + page
    })
}

/// The signal handler: reports an overflow of the running coroutine's stack, else chains.
extern "C" fn handler(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an `SA_SIGINFO` handler.
    let address = unsafe { (*info).si_addr() } as usize;
    if in_guard_page(address) {
        if redirect_to_escape(context) {
            return;
        }
        report_overflow(KERNEL.with(Cell::get), STACK_BYTES.with(Cell::get));
    }
    chain(signal, info, context);
}

/// Writes the overflow message to stderr and aborts.
fn report_overflow(kernel: &str, stack_bytes: usize) -> ! {
    let kib = stack_bytes / 1024;
    let mut digits = [0u8; 20];
    let kib_text = decimal(kib, &mut digits);
    for part in [
        "\nferrocuda simulator: a thread of kernel `".as_bytes(),
        kernel.as_bytes(),
        b"` overflowed its ",
        kib_text,
        b" KiB stack (a large local array or deep calls); set FERROCUDA_SIMULATOR_STACK_KIB \
          to more KiB. Aborting the process.\n",
    ] {
        // SAFETY: writing a valid buffer to stderr; `write` is async-signal-safe.
        unsafe { libc::write(2, part.as_ptr().cast(), part.len()) };
    }
    // SAFETY: `abort` is async-signal-safe and ends the process.
    unsafe { libc::abort() }
}

/// `value` in decimal, written at the end of `buffer` (no allocation).
fn decimal(mut value: usize, buffer: &mut [u8; 20]) -> &[u8] {
    let mut start = buffer.len();
    loop {
        start -= 1;
        buffer[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &buffer[start..];
        }
    }
}

/// The system's page size.
fn page_size() -> usize {
    // SAFETY: `sysconf` has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

/// Hands the signal to the previous handler; with none (or the default action), restores the
/// default so that returning re-raises the fault with its usual effect.
fn chain(signal: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    let index = usize::from(signal != libc::SIGSEGV);
    let previous = PREVIOUS[index].load(Ordering::Acquire);
    // SAFETY: `install` stored a valid, leaked `sigaction` before setting this handler.
    let previous = unsafe { &*previous };
    let action = previous.sa_sigaction;
    if action == libc::SIG_DFL || action == libc::SIG_IGN {
        // SAFETY: restoring the default action of a signal is always valid.
        unsafe { libc::signal(signal, libc::SIG_DFL) };
    } else if previous.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed with `SA_SIGINFO`, so it takes these three
        // arguments.
        let previous: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(action) };
        previous(signal, info, context);
    } else {
        // SAFETY: a handler installed without `SA_SIGINFO` takes the signal number only.
        let previous: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(action) };
        previous(signal);
    }
}
