//! The GPU's panic handler: records the first panic of a launch in the launch's slot of
//! [`FERROCUDA_PANIC_RECORD`], bumps [`FERROCUDA_PANIC_EPOCH`], and ends the thread with `exit`,
//! which keeps the CUDA context usable.
//!
//! The handler cannot see the entry's parameters, so each entry first stores its launch token
//! (a hidden last parameter) in [`LAUNCH_TOKEN`], a static in shared memory: every thread of the
//! block writes the same value, and a panicking thread reads it back to find its slot
//! (`token % PANIC_SLOTS`).

use crate::panic::{
    COOPERATIVE_TOKEN_BIT, ENTRY_TEST_TOKEN_BIT, PANIC_KIND_MESSAGE, PANIC_SLOTS,
    PANIC_STATE_COMPLETE, PANIC_STATE_EMPTY, PANIC_STATE_WRITING, PanicRecord,
};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU32, Ordering};

/// An empty record.
const EMPTY: PanicRecord = PanicRecord {
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

/// The panic records of this module, one slot per launch token modulo `PANIC_SLOTS`, read and
/// cleared by the host.
#[unsafe(no_mangle)]
pub static mut FERROCUDA_PANIC_RECORD: [PanicRecord; PANIC_SLOTS] = [EMPTY; PANIC_SLOTS];

/// Incremented (wrapping) after each record is complete: a host thread that finds it unchanged
/// since it last looked knows no new record appeared.
#[unsafe(no_mangle)]
pub static mut FERROCUDA_PANIC_EPOCH: u32 = 0;

/// The running launch's token, written by the block's first thread at entry and read by any
/// thread's panic handler (shared memory: the builder moves statics of the `.shared` section
/// there; `#[used]` keeps LTO from treating it as ordinary memory before it does).
#[unsafe(link_section = ".shared")]
#[used]
static mut LAUNCH_TOKEN: MaybeUninit<u64> = MaybeUninit::uninit();

/// Stores the launch token for the panic handler (the first statement of every entry): the
/// block's first thread writes it, and a barrier orders the write before any thread's read, so
/// that no two threads touch it unordered (compute-sanitizer's racecheck reported the version
/// where every thread wrote the same value). Every thread of the block runs the entry, so the
/// barrier cannot diverge.
#[inline(always)]
pub(crate) fn set_launch_token(token: u64) {
    let thread = crate::thread_idx();
    if thread.x == 0 && thread.y == 0 && thread.z == 0 {
        // SAFETY: `LAUNCH_TOKEN` is this block's shared static, 8 bytes and aligned, written by
        // one thread only, before the barrier below. Volatile, so the store stays even in
        // kernels where no panic remains after optimisation.
        unsafe { (&raw mut LAUNCH_TOKEN).cast::<u64>().write_volatile(token) }
    }
    crate::syncthreads();
}

/// Whether the running launch is cooperative: its token has [`COOPERATIVE_TOKEN_BIT`] (read back
/// from the block's shared copy, written at entry before a barrier).
#[inline(always)]
pub(crate) fn launched_cooperatively() -> bool {
    // SAFETY: `LAUNCH_TOKEN` was written by the block's first thread at entry, before a barrier
    // every thread has passed; reading the 8 aligned bytes of the block's shared static is sound.
    let token = unsafe { (&raw const LAUNCH_TOKEN).cast::<u64>().read_volatile() };
    token & COOPERATIVE_TOKEN_BIT != 0
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    // A static message travels in the first two integers (see `record`).
    let (text, len) = info
        .message()
        .as_str()
        .map_or((0, 0), |m| (m.as_ptr() as u64, m.len() as u64));
    record(info.location(), PANIC_KIND_MESSAGE, text, len, 0)
}

/// Records a panic at `location` of kind `kind` (`PANIC_KIND_*`), then ends the thread: the
/// handler's body, also entered directly by the checks that record integers
/// ([`super::panic_operands`]). For `PANIC_KIND_MESSAGE`, `a` and `b` are the address and length
/// of a static message (address 0: none), which the host reads from the record's message fields
/// (it ignores the integers of this kind); for the other kinds `a`, `b`, `c` are the failed
/// check's integers.
///
/// Five scalars, not a struct or an array (which the Rust ABI passes through a stack copy, see
/// [`super::panic_operands::fill`]), and no more: ptxas allocates the registers of a kernel and
/// of the panic functions it calls together (see [`write_ids`]).
#[inline(never)]
pub(crate) fn record(
    location: Option<&core::panic::Location<'_>>,
    kind: u32,
    a: u64,
    b: u64,
    c: u64,
) -> ! {
    // SAFETY: the token was written at entry by this thread (and the same value by the others
    // of its block). The records are globals of this module and the slot index is reduced
    // modulo their count, so the raw pointers into them are valid and aligned;
    // `AtomicU32::from_ptr` is sound because every device access to `state`, `others` and the
    // epoch is atomic; only the thread that wins the compare-exchange writes the other fields,
    // and the host reads them only after `state` says complete. The fences and `exit` touch no
    // memory of Rust's.
    unsafe {
        // The token without the flag bits the runtime may set in it.
        let token = (&raw const LAUNCH_TOKEN).cast::<u64>().read_volatile()
            & !(COOPERATIVE_TOKEN_BIT | ENTRY_TEST_TOKEN_BIT);
        let slot = (token % PANIC_SLOTS as u64) as usize;
        let record = (&raw mut FERROCUDA_PANIC_RECORD)
            .cast::<PanicRecord>()
            .add(slot);
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
            super::panic_operands::fill(record, kind, a, b, c);
            if kind == PANIC_KIND_MESSAGE {
                (*record).message_ptr = a;
                (*record).message_len = b;
            }
            if let Some(location) = location {
                (*record).line = location.line();
                (*record).column = location.column();
                (*record).file_ptr = location.file().as_ptr() as u64;
                (*record).file_len = location.file().len() as u64;
            }
            write_ids(record, token);
            core::arch::asm!("membar.gl;");
            state.store(PANIC_STATE_COMPLETE, Ordering::Relaxed);
            core::arch::asm!("membar.gl;");
            AtomicU32::from_ptr(&raw mut FERROCUDA_PANIC_EPOCH).fetch_add(1, Ordering::Relaxed);
        } else {
            AtomicU32::from_ptr(&raw mut (*record).others).fetch_add(1, Ordering::Relaxed);
        }
        core::arch::asm!("exit;", options(noreturn));
    }
}

/// Writes the panicking thread's block and thread indices and the launch token into the
/// record being filled.
///
/// A function of its own, never inlined: ptxas allocates the registers of a kernel and of the
/// functions it calls together, so the register count of this cold path is a floor for every
/// kernel with a checked index. Inline, its six special-register reads were scheduled together
/// with the recorder's other loads and raised that floor to 28-30 registers (vecadd 28,
/// transpose_tiled32 30 on sm_90); apart, vecadd needs 22 and transpose_tiled32 24, for about
/// 8 more instructions on the cold path.
///
/// # Safety
/// `record` points to the record this thread won the right to write.
#[inline(never)]
unsafe fn write_ids(record: *mut PanicRecord, token: u64) {
    let (b, t) = (crate::block_idx(), crate::thread_idx());
    // SAFETY: the caller guarantees `record` is valid and written by this thread only.
    unsafe {
        (*record).block = [b.x, b.y, b.z];
        (*record).thread = [t.x, t.y, t.z];
        (*record).token = token;
    }
}
