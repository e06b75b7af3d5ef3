//! The GPU's panic handler: records the first panic of a launch in [`PanicRecord`] and ends the
//! thread with `exit`, which keeps the CUDA context usable.

use crate::panic::{PANIC_STATE_COMPLETE, PANIC_STATE_EMPTY, PANIC_STATE_WRITING, PanicRecord};
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
    token: 0,
    kind: 0,
    reserved: 0,
    operands: [0; 3],
};

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    record(
        info.location(),
        info.message().as_str(),
        super::panic_operands::MESSAGE,
    )
}

/// Records a panic at `location` with a static `message` (or none) and the integers of a failed
/// check (`operands`), then ends the thread: the handler's body, also entered directly by the
/// checks that record integers ([`super::panic_operands`]).
pub(crate) fn record(
    location: Option<&core::panic::Location<'_>>,
    message: Option<&'static str>,
    operands: super::panic_operands::Operands,
) -> ! {
    // SAFETY: the record is a global of this module, so the raw pointers into it are valid and
    // aligned; `AtomicU32::from_ptr` is sound because every access to `state` and `others` is
    // atomic; only the thread that wins the compare-exchange writes the other fields, and the
    // host reads them only after `state` says complete. The fences and `exit` touch no memory
    // of Rust's.
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
            if let Some(location) = location {
                (*record).line = location.line();
                (*record).column = location.column();
                (*record).file_ptr = location.file().as_ptr() as u64;
                (*record).file_len = location.file().len() as u64;
            }
            super::panic_operands::fill(record, operands);
            if let Some(message) = message {
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
