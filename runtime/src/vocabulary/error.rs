//! The error type of every fallible runtime call.

use crate::Dim3;
use crate::vocabulary::fault::SimulatorFault;
use crate::vocabulary::panic_report::KernelPanic;

/// Result with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong on the host side of ferrocuda.
///
/// After any of these errors but [`Error::ContextLost`] the device and every buffer stay usable:
/// the next correct launch works.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A CUDA driver call failed.
    #[error("CUDA driver call {call} failed: {name}: {description}")]
    Driver {
        /// The driver entry point, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The driver's error name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The driver's description of the error.
        description: String,
    },
    /// A kernel fault (an illegal address, a misaligned access, a trap...) left the GPU's CUDA
    /// context unusable: every later operation on the device fails with this error, without a
    /// driver call, and the device's buffers, streams and events are gone. `Device::reset(ordinal)`
    /// makes a fresh context (and handle) for the device; the old handles' objects are then
    /// abandoned (their memory was freed by the reset).
    #[error(
        "the CUDA context of GPU {ordinal} is lost after {cause} {kernels} ({call}: {name}); every later call on this device fails with this error: find the fault (the simulator, `compute-sanitizer`, or the kernel's unchecked indexing), then call `Device::reset({ordinal})` to try a fresh context in this process (drivers that keep the error for the whole process refuse it: then restart, or go on on the simulator)"
    )]
    ContextLost {
        /// The CUDA ordinal of the GPU.
        ordinal: usize,
        /// What happened, in words, e.g. `an illegal address`.
        cause: &'static str,
        /// The kernels that may have faulted, as words: ``in kernel `k` ``.
        kernels: String,
        /// The driver entry point that reported it, e.g. `cuCtxSynchronize`.
        call: &'static str,
        /// The driver's error name, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        name: String,
    },
    /// The driver refuses a new CUDA context for the GPU after a fault lost the old one: the
    /// error is sticky for the whole process (NVIDIA's driver 580 on an H100 answers every
    /// `cuDevicePrimaryCtxRetain` and `cuCtxCreate` after an illegal address with it, even after
    /// `cuDevicePrimaryCtxReset`). Work goes on in this process on the simulator, or on the GPU in
    /// a new process.
    #[error(
        "GPU {ordinal} cannot get a new CUDA context in this process after the fault ({call}: {name}): the driver keeps this error until the process exits; restart the process (or run GPU work that may fault in a child process), or go on in this process on the CPU simulator (`Device::simulator()`)"
    )]
    ContextUnrecoverable {
        /// The CUDA ordinal of the GPU.
        ordinal: usize,
        /// The driver entry point that refused, e.g. `cuDevicePrimaryCtxRetain`.
        call: &'static str,
        /// The driver's error name, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        name: String,
    },
    /// A CUDA driver call succeeded but returned something the runtime cannot use.
    #[error("CUDA driver call {call} returned an unusable result: {problem}")]
    DriverContract {
        /// The driver entry point, e.g. `cuMemHostAlloc`.
        call: &'static str,
        /// What was wrong with the result.
        problem: String,
    },
    /// An allocation failed for lack of memory (on the simulator: host memory).
    #[error(
        "cannot allocate {requested} bytes on {device}: out of memory ({available} bytes free)"
    )]
    OutOfMemory {
        /// The device (or the simulator) the memory was for.
        device: String,
        /// The bytes requested.
        requested: usize,
        /// The bytes the device had free, as far as known.
        available: usize,
    },
    /// An allocation's size in bytes does not fit the address space.
    #[error(
        "{operation}: {elements} elements of {element_bytes} bytes exceed the largest possible allocation ({limit} bytes)"
    )]
    AllocationTooLarge {
        /// The operation, e.g. `DeviceBuffer allocation`.
        operation: &'static str,
        /// The number of elements requested.
        elements: usize,
        /// The size of one element in bytes.
        element_bytes: usize,
        /// The largest allocation in bytes.
        limit: usize,
    },
    /// A synchronization with a time limit gave up: the work was still running when the limit
    /// passed (a kernel that makes no progress, or a limit too short for the work). The work
    /// goes on; a later synchronization waits for it.
    #[error(
        "{operation}: the work queued before it had not finished after {waited_ms} ms (the limit was {limit_ms} ms); it is still running: synchronize again to wait for it, or look for a kernel that makes no progress"
    )]
    Timeout {
        /// The operation, e.g. `Stream::synchronize_timeout`.
        operation: &'static str,
        /// The limit, in milliseconds.
        limit_ms: u128,
        /// How long it waited, in milliseconds.
        waited_ms: u128,
    },
    /// The time between two events was asked for before both were recorded.
    #[error("{operation}: both events must be recorded before measuring the time between them")]
    EventNotRecorded {
        /// The operation, e.g. `Event::elapsed_ms`.
        operation: &'static str,
    },
    /// A launch configuration was rejected before reaching the device.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// A kernel thread panicked (out-of-bounds index, `assert!`, `panic!`...).
    #[error(transparent)]
    KernelPanic(#[from] KernelPanic),
    /// The simulator detected a bug that would hang or corrupt memory on a GPU. Boxed, so that
    /// every `Result` of the runtime stays small.
    #[error(transparent)]
    SimulatorFault(#[from] Box<SimulatorFault>),
    /// No usable CUDA device.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// This process was forked (`fork()` without `exec`) from a process that had initialised the
    /// CUDA driver: CUDA does not survive a fork, so every GPU call of the child fails with this
    /// error instead of a driver call that would hang or misbehave.
    #[error(
        "{operation}: this process was forked from process {parent} after that process initialised CUDA, and CUDA cannot be used after a fork; start child processes with `std::process::Command` (fork and exec), initialise CUDA only in the child, or use `Device::simulator()` in the child"
    )]
    ForkedAfterCudaInit {
        /// What was refused: `Device::new`, or the driver call of an existing handle.
        operation: &'static str,
        /// The process id of the process that initialised CUDA.
        parent: u32,
    },
    /// The CUDA driver library loads but cannot serve ferrocuda: it lacks entry points the
    /// runtime calls, or it is older than CUDA 12.0 (R525).
    #[error("{}", crate::vocabulary::driver_requirement::describe(.library, *.driver_version, .missing))]
    DriverIncompatible {
        /// The library that was loaded (its path when the process's memory map names it).
        library: String,
        /// The driver's CUDA version `(major, minor)`, when `cuDriverGetVersion` answered.
        driver_version: Option<(u32, u32)>,
        /// The driver entry points ferrocuda calls that the library does not export.
        missing: Vec<&'static str>,
    },
    /// Buffers or streams of two different devices were used together.
    #[error("{what} belongs to device {found}, but this operation runs on device {expected}")]
    DeviceMismatch {
        /// What was on the wrong device.
        what: String,
        /// The device of the operation.
        expected: String,
        /// The device the object belongs to.
        found: String,
    },
    /// Two lengths that must agree do not.
    #[error("length mismatch in {operation}: expected {expected} elements, got {actual}")]
    LengthMismatch {
        /// The operation, e.g. `DeviceBuffer::copy_from`.
        operation: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// A tensor map breaks one of the driver's rules (checked before `cuTensorMapEncodeTiled`).
    #[error(transparent)]
    TensorMap(#[from] crate::vocabulary::tensor_map::TensorMapError),
    /// A CUDA graph was misused (ending a capture never begun, replaying a graph on another
    /// device's stream, updating a graph with a different sequence of operations), or an
    /// operation that a stream capture cannot record was called while one runs.
    #[error("{operation}: {problem}")]
    Graph {
        /// The operation refused, e.g. `DeviceBuffer::to_vec` or `GraphExec::update`.
        operation: &'static str,
        /// What is wrong, and what to do instead.
        problem: String,
    },
    /// A PTX module could not be loaded, or a kernel is missing from it.
    #[error("PTX module `{module}`: {message}")]
    Module {
        /// The kernel crate the module comes from.
        module: &'static str,
        /// What went wrong.
        message: String,
    },
    /// Two devices cannot reach each other's memory directly (`cuDeviceCanAccessPeer` says no,
    /// or they are of different backends).
    #[error("peer access from {from} to {to} is impossible: {reason}")]
    PeerAccessUnsupported {
        /// The device that would access the other's memory.
        from: String,
        /// The device whose memory would be accessed.
        to: String,
        /// Why not, and what works instead.
        reason: String,
    },
    /// NCCL, the library the collectives of a GPU communicator run on, is missing or unusable.
    #[error("collectives on GPUs need NCCL: {problem}")]
    CollectiveLibrary {
        /// What is wrong with the library, and what to set to fix it.
        problem: String,
    },
    /// An NCCL call failed.
    #[error("NCCL call {call} failed: {name}: {description}")]
    Nccl {
        /// The NCCL entry point, e.g. `ncclAllReduce`.
        call: &'static str,
        /// NCCL's error name, e.g. `ncclInvalidUsage`.
        name: String,
        /// NCCL's description of the error (its last error message where it kept one).
        description: String,
    },
    /// The arguments of a collective do not fit its communicator (a buffer count other than
    /// one per rank, a root out of range, a device listed twice...).
    #[error("{operation}: {problem}")]
    Collective {
        /// The operation, e.g. `Communicator::all_reduce`.
        operation: &'static str,
        /// What is wrong, with the numbers involved.
        problem: String,
    },
}

impl From<SimulatorFault> for Error {
    fn from(fault: SimulatorFault) -> Self {
        Error::SimulatorFault(Box::new(fault))
    }
}

/// A launch rejected by validation against the device's limits, before reaching the device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot launch kernel `{kernel}`: {problem}")]
pub struct LaunchError {
    /// The kernel's PTX entry name.
    pub kernel: &'static str,
    /// What is wrong and what the limit is.
    pub problem: String,
}

impl LaunchError {
    /// A launch of `kernel` rejected for `problem`.
    pub(crate) fn new(kernel: &'static str, problem: impl Into<String>) -> Self {
        LaunchError {
            kernel,
            problem: problem.into(),
        }
    }
}

/// Formats a shape as `2048 x 1 x 1`.
pub(crate) fn shape(d: Dim3) -> String {
    format!("{} x {} x {}", d.x, d.y, d.z)
}

/// The size in bytes of `len` elements of `T`, or [`Error::AllocationTooLarge`] when it does not
/// fit an allocation (more than `isize::MAX` bytes).
pub(crate) fn bytes_of<T>(operation: &'static str, len: usize) -> Result<usize> {
    len.checked_mul(size_of::<T>())
        .filter(|&bytes| bytes <= isize::MAX as usize)
        .ok_or(Error::AllocationTooLarge {
            operation,
            elements: len,
            element_bytes: size_of::<T>(),
            limit: isize::MAX as usize,
        })
}
