//! Device panics: what a panicking GPU thread leaves for the host to report.
//!
//! On the GPU the panic handler records the first panic of a launch in [`PanicRecord`] (a global
//! of the PTX module named `FERROCUDA_PANIC_RECORD`) and ends the thread with `exit`, which keeps
//! the CUDA context usable (`trap` would poison it). The runtime reads and clears the record at
//! the next synchronization and returns it as `Error::KernelPanic`. On the simulator a panic is an
//! ordinary Rust panic caught by the simulator.

/// The record state: no panic recorded.
pub const PANIC_STATE_EMPTY: u32 = 0;
/// The record state: a thread is writing the record.
pub const PANIC_STATE_WRITING: u32 = 1;
/// The record state: the record is complete.
pub const PANIC_STATE_COMPLETE: u32 = 2;

/// The name of the device global holding the [`PanicRecord`].
pub const PANIC_RECORD_SYMBOL: &str = "FERROCUDA_PANIC_RECORD";

/// The first panic of a launch, as recorded on the device.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PanicRecord {
    /// One of the `PANIC_STATE_*` constants.
    pub state: u32,
    /// Source line of the panic.
    pub line: u32,
    /// Source column of the panic.
    pub column: u32,
    /// Number of panics after the first (saturating).
    pub others: u32,
    /// `blockIdx` of the panicking thread.
    pub block: [u32; 3],
    /// `threadIdx` of the panicking thread.
    pub thread: [u32; 3],
    /// Device address of the source file name (UTF-8, not NUL-terminated).
    pub file_ptr: u64,
    /// Length of the file name in bytes.
    pub file_len: u64,
    /// Device address of the panic message, or 0 when the message was formatted at run time.
    pub message_ptr: u64,
    /// Length of the message in bytes.
    pub message_len: u64,
}

#[cfg(target_arch = "nvptx64")]
mod device_handler {
    use super::*;
    use core::sync::atomic::{AtomicU32, Ordering};

    /// The panic record of this module, read and cleared by the host.
    #[unsafe(no_mangle)]
    pub static mut FERROCUDA_PANIC_RECORD: PanicRecord = PanicRecord {
        state: 0,
        line: 0,
        column: 0,
        others: 0,
        block: [0; 3],
        thread: [0; 3],
        file_ptr: 0,
        file_len: 0,
        message_ptr: 0,
        message_len: 0,
    };

    #[panic_handler]
    fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
        // SAFETY: only the thread that wins the compare-exchange writes the record.
        unsafe {
            let record = &raw mut FERROCUDA_PANIC_RECORD;
            let state = AtomicU32::from_ptr(&raw mut (*record).state);
            if state
                .compare_exchange(
                    PANIC_STATE_EMPTY,
                    PANIC_STATE_WRITING,
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
            {
                if let Some(location) = info.location() {
                    (*record).line = location.line();
                    (*record).column = location.column();
                    (*record).file_ptr = location.file().as_ptr() as u64;
                    (*record).file_len = location.file().len() as u64;
                }
                if let Some(message) = info.message().as_str() {
                    (*record).message_ptr = message.as_ptr() as u64;
                    (*record).message_len = message.len() as u64;
                }
                let (b, t) = (crate::block_idx(), crate::thread_idx());
                (*record).block = [b.x, b.y, b.z];
                (*record).thread = [t.x, t.y, t.z];
                core::arch::asm!("membar.gl;");
                state.store(PANIC_STATE_COMPLETE, Ordering::Relaxed);
                core::arch::asm!("membar.gl;");
            } else {
                AtomicU32::from_ptr(&raw mut (*record).others).fetch_add(1, Ordering::Relaxed);
            }
            core::arch::asm!("exit;", options(noreturn));
        }
    }
}
