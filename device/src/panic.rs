//! Device panics: what a panicking GPU thread leaves for the host to report.
//!
//! On the GPU the panic handler records the first panic of a launch in a [`PanicRecord`] and ends
//! the thread with `exit`, which keeps the CUDA context usable (`trap` would poison it). Each PTX
//! module holds [`PANIC_SLOTS`] records (the global `FERROCUDA_PANIC_RECORD`) and a `u32` epoch
//! (`FERROCUDA_PANIC_EPOCH`) that the handler increments after completing a record. Every entry
//! takes a hidden last parameter, the launch's token (unique per device), and stores it first
//! thing (`__set_launch_token`, GPU only); a panic goes to slot `token % PANIC_SLOTS` and
//! carries the token, which tells the host which launch, stream and host thread it belongs to.
//! The runtime claims a record at the synchronization of that launch's stream by its host thread
//! and returns it as `Error::KernelPanic`. On the simulator a panic is an ordinary Rust panic
//! caught by the simulator. The handler itself is in `backend/gpu/panic.rs`.

/// The record state: no panic recorded.
pub const PANIC_STATE_EMPTY: u32 = 0;
/// The record state: a thread is writing the record.
pub const PANIC_STATE_WRITING: u32 = 1;
/// The record state: the record is complete.
pub const PANIC_STATE_COMPLETE: u32 = 2;

/// The name of the device global holding the [`PanicRecord`]s (`[PanicRecord; PANIC_SLOTS]`).
pub const PANIC_RECORD_SYMBOL: &str = "FERROCUDA_PANIC_RECORD";

/// The name of the device global `u32` incremented after each completed record.
pub const PANIC_EPOCH_SYMBOL: &str = "FERROCUDA_PANIC_EPOCH";

/// How many panic records a module holds: a launch's panic goes to slot `token % PANIC_SLOTS`.
/// The host forgets launches more than `PANIC_SLOTS` launches old that were never synchronized.
pub const PANIC_SLOTS: usize = 1024;

/// Bytes of static shared memory every `#[kernel]` entry holds on the GPU for ferrocuda: the
/// launch token its panic handler reads. They count against the GPU's static limit of 48 KiB
/// per block, so a kernel's own static shared arrays can take `49152 - 8` bytes (less where
/// ptxas pads an array's alignment), and static plus dynamic shared memory the opt-in limit less
/// 8; the simulator enforces the same figures.
pub const LAUNCH_TOKEN_SHARED_BYTES: usize = 8;

/// Set in the launch token of a cooperative launch (`#[kernel(cooperative)]`): the one thing
/// in a GPU launch that says reliably that the driver launched the kernel cooperatively, which
/// `grid_sync` checks (the driver's grid workspace address in `%envreg1:%envreg2` is not null
/// for ordinary launches on driver 580). Tokens count up from 1 and never reach this bit; the
/// panic records carry the token without it.
pub const COOPERATIVE_TOKEN_BIT: u64 = 1 << 63;

/// Set in the launch token when the runtime evaluated a versioned kernel's entry test on the
/// host and it held (the test nvptx-builder writes into the PTX as an `// ferrocuda entry test:`
/// note): the kernel then takes its fast copy, the one without bounds checks, without computing
/// the test in every thread. A kernel whose token lacks the bit computes the test itself.
/// Tokens count up from 1 and never reach this bit; the panic records carry the token without
/// it.
pub const ENTRY_TEST_TOKEN_BIT: u64 = 1 << 62;

/// Stores the launch token where the panic handler finds it. Called by the entries `#[kernel]`
/// generates, as their first statement; not for kernel code.
#[doc(hidden)]
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn __set_launch_token(token: u64) {
    // The one GPU-only façade without a simulator twin: the simulator's entries take no token
    // (the runtime attributes a simulated panic to its launch directly).
    crate::backend::panic::set_launch_token(token)
}

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
    /// The launch token of the launch that panicked (a hidden parameter of every entry), which
    /// tells the host which launch, stream and host thread the panic belongs to.
    pub token: u64,
    /// What the panic was, one of the `PANIC_KIND_*` constants: a static message, or a check
    /// whose integers are in `operands` (the device does not format text).
    pub kind: u32,
    /// Reserved (keeps `operands` 8-byte aligned; zero).
    pub reserved: u32,
    /// The integers of a failed check, by `kind` (e.g. the index and the length).
    pub operands: [u64; 3],
}

/// The record kind: the message is static text at `message_ptr` (or formatted at run time when
/// `message_ptr` is 0).
pub const PANIC_KIND_MESSAGE: u32 = 0;
/// The record kind: core's index check failed (`slice[index]`); operands `[index, len, 0]`.
/// The host prints Rust's text, "index out of bounds: the len is LEN but the index is INDEX".
pub const PANIC_KIND_INDEX: u32 = 1;
/// The record kind: core's range check failed (`&slice[start..end]`); operands
/// `[start, end, len]`. The host prints the text core would (start past the length, end past
/// the length, or start after end).
pub const PANIC_KIND_SLICE_RANGE: u32 = 2;
/// The record kind: an index into one of the device library's containers; operands
/// `[index, len, 0]`, the container (`PANIC_CONTAINER_*`) in bits 8.. of the kind.
pub const PANIC_KIND_CONTAINER_INDEX: u32 = 3;
/// The record kind: a row index into a two-dimensional container; operands
/// `[row, col, shape]` ([`pack_shape`]), the container in bits 8.. of the kind.
pub const PANIC_KIND_CONTAINER_ROW: u32 = 4;
/// The record kind: a column index into a two-dimensional container; operands
/// `[row, col, shape]` ([`pack_shape`]), the container in bits 8.. of the kind.
pub const PANIC_KIND_CONTAINER_COLUMN: u32 = 5;
/// Where the container of the `PANIC_KIND_CONTAINER_*` kinds sits in the kind.
pub const PANIC_CONTAINER_SHIFT: u32 = 8;
/// The container: a static or dynamic shared-memory array.
pub const PANIC_CONTAINER_SHARED_ARRAY: u32 = 0;
/// The container: a slice used through `AtomicSlice`.
pub const PANIC_CONTAINER_ATOMIC_SLICE: u32 = 1;
/// The container: a matrix view.
pub const PANIC_CONTAINER_MATRIX: u32 = 2;

/// `rows x cols` in one operand: `rows` in the high 32 bits, `cols` in the low ones, or
/// `u64::MAX` when either does not fit in 32 bits.
pub const fn pack_shape(rows: usize, cols: usize) -> u64 {
    if rows as u64 > u32::MAX as u64 || cols as u64 > u32::MAX as u64 {
        return u64::MAX;
    }
    ((rows as u64) << 32) | cols as u64
}

/// The `(rows, cols)` of [`pack_shape`], or `None` when they did not fit.
pub const fn unpack_shape(shape: u64) -> Option<(u64, u64)> {
    if shape == u64::MAX {
        return None;
    }
    Some((shape >> 32, shape & u32::MAX as u64))
}

/// The kind's base (`PANIC_KIND_*`) and container (`PANIC_CONTAINER_*`, meaningful for the
/// container kinds only).
pub const fn split_kind(kind: u32) -> (u32, u32) {
    (
        kind & ((1 << PANIC_CONTAINER_SHIFT) - 1),
        kind >> PANIC_CONTAINER_SHIFT,
    )
}
