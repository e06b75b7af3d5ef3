//! [`Device`]: a GPU, or the CPU simulator, that kernels run on.

use crate::backend::DeviceBackend;
use crate::handles::pending::{self, DEFAULT_STREAM_KEY, Scope};
use crate::vocabulary::context_loss::{ContextLoss, sticky_cause};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::kernel::{Kernel, ModuleFormat};
use crate::vocabulary::limits::{Backend, DeviceDescription, DeviceLimits};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// What a [`Device`] handle shares.
pub(crate) struct DeviceInner {
    /// A process-unique identity.
    id: u64,
    /// The GPU or the simulator.
    backend: DeviceBackend,
    /// The device's name.
    name: String,
    /// How messages name the device (`Display`).
    label: String,
    /// The CUDA ordinal (0 for the simulator).
    ordinal: usize,
    /// Compute capability.
    compute_capability: (u32, u32),
    /// Total memory in bytes.
    total_memory: usize,
    /// The limits launches are checked against.
    limits: DeviceLimits,
    /// The last launch token handed out (tokens start at 1; see [`pending`]).
    tokens: AtomicU64,
    /// Set by the first sticky driver error (or a reset): every later operation fails with it.
    lost: OnceLock<ContextLoss>,
}

/// A device kernels run on: a CUDA GPU or the CPU simulator. Cheap to clone (shared handle).
///
/// ```ignore
/// let gpu = Device::new(0)?;               // the first GPU
/// let sim = Device::simulator();           // the CPU simulator
/// let dev = Device::default_device()?;     // GPU 0 if there is one, else the simulator
/// println!("{} (sm_{}{})", dev.name(), dev.compute_capability().0, dev.compute_capability().1);
/// ```
#[derive(Clone)]
pub struct Device {
    /// The shared state.
    inner: Arc<DeviceInner>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static CUDA_DEVICES: Mutex<Vec<Device>> = Mutex::new(Vec::new());
static SIMULATOR: OnceLock<Device> = OnceLock::new();
/// The default device: the simulator (`None`) or a GPU ordinal, chosen once per process; the
/// handle is looked up each time, so that after `Device::reset` it is the fresh one.
static DEFAULT: OnceLock<Option<usize>> = OnceLock::new();

/// The environment variable that selects the simulator as the default device (`1`, `true`).
pub const SIMULATOR_ENV: &str = "FERROCUDA_SIMULATOR";
/// The environment variable that selects which GPU is the default device (an ordinal).
pub const DEVICE_ENV: &str = "FERROCUDA_DEVICE";

impl Device {
    /// The CUDA GPU with this ordinal (one shared handle per GPU per process).
    pub fn new(ordinal: usize) -> Result<Device> {
        crate::backend::cuda::driver::check_not_forked("Device::new")?;
        let mut devices = CUDA_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(device) = devices.iter().find(|d| d.inner.ordinal == ordinal) {
            return Ok(device.clone());
        }
        let (backend, description) = open_cuda(ordinal)?;
        let device = Device::from_backend(backend, description, ordinal);
        devices.push(device.clone());
        Ok(device)
    }

    /// The CPU simulator (one shared instance per process).
    pub fn simulator() -> Device {
        SIMULATOR
            .get_or_init(|| {
                let (backend, description) = DeviceBackend::simulator();
                Device::from_backend(backend, description, 0)
            })
            .clone()
    }

    /// A handle to a newly opened backend.
    pub(crate) fn from_backend(
        backend: DeviceBackend,
        description: DeviceDescription,
        ordinal: usize,
    ) -> Self {
        Device {
            inner: Arc::new(DeviceInner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                backend,
                name: description.name,
                label: description.label,
                ordinal,
                compute_capability: description.compute_capability,
                total_memory: description.total_memory,
                limits: description.limits,
                tokens: AtomicU64::new(0),
                lost: OnceLock::new(),
            }),
        }
    }

    /// The device used when none is named: the simulator if `FERROCUDA_SIMULATOR=1`; else GPU
    /// `FERROCUDA_DEVICE` (default 0) if a CUDA driver and GPU are present; else the simulator,
    /// with a one-line notice on stderr naming why (no GPU, a driver library that lacks entry
    /// points or is older than CUDA 12.0, GPU 0 failing to open). An error only when
    /// `FERROCUDA_DEVICE` is not an ordinal or names a GPU that cannot be opened. Chosen once per
    /// process.
    pub fn default_device() -> Result<Device> {
        match DEFAULT.get() {
            Some(Some(ordinal)) => return Device::new(*ordinal),
            Some(None) => return Ok(Device::simulator()),
            None => {}
        }
        let wants_simulator = std::env::var(SIMULATOR_ENV)
            .map(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"))
            .unwrap_or(false);
        let device = if wants_simulator {
            Device::simulator()
        } else {
            let chosen = match std::env::var(DEVICE_ENV) {
                Ok(text) => Some(text.trim().parse::<usize>().map_err(|_| {
                    Error::NoDevice(format!(
                        "{DEVICE_ENV}={text:?} is not a device ordinal (0, 1, ...)"
                    ))
                })?),
                Err(_) => None,
            };
            match DeviceBackend::cuda_device_count() {
                // A GPU named by FERROCUDA_DEVICE must open; GPU 0, chosen by default, may fail
                // (a driver that cannot create a context) and leaves the simulator.
                Ok(n) if n > 0 => match Device::new(chosen.unwrap_or(0)) {
                    Ok(device) => device,
                    Err(e) if chosen.is_none() => {
                        eprintln!(
                            "ferrocuda: GPU 0 cannot be opened ({e}); running kernels on the CPU simulator"
                        );
                        Device::simulator()
                    }
                    Err(e) => return Err(e),
                },
                Ok(_) => {
                    eprintln!(
                        "ferrocuda: no CUDA GPU found; running kernels on the CPU simulator (set {SIMULATOR_ENV}=1 to choose it explicitly)"
                    );
                    Device::simulator()
                }
                Err(e) => {
                    eprintln!(
                        "ferrocuda: the CUDA driver is unusable ({e}); running kernels on the CPU simulator"
                    );
                    Device::simulator()
                }
            }
        };
        let choice = (!device.is_simulator()).then_some(device.ordinal());
        match DEFAULT.get_or_init(|| choice) {
            Some(ordinal) => Device::new(*ordinal),
            None => Ok(Device::simulator()),
        }
    }

    /// Gives GPU `ordinal` a fresh CUDA context, after [`Error::ContextLost`]: the way to go on
    /// in the same process after a kernel fault, where the driver allows it.
    ///
    /// A driver may keep a fault's error for the whole process: NVIDIA's driver 580 on an H100
    /// answers every new context after an illegal address with `CUDA_ERROR_ILLEGAL_ADDRESS`, even
    /// after the reset (checked with plain CUDA C too). Then this returns
    /// [`Error::ContextUnrecoverable`], and so does every later [`Device::new`] of the GPU: go on
    /// in this process on [`Device::simulator`], or restart the process (GPU work that may fault
    /// can run in a child process, as `tests/tests/context_loss.rs` does).
    ///
    /// Resets the GPU's primary context (`cuDevicePrimaryCtxReset`) and returns a new handle,
    /// which [`Device::new`] and [`Device::default_device`] return from then on. Every object of
    /// the old context is gone: old handles keep failing with their error (a handle whose
    /// context was not lost fails with a `ContextLost` naming the reset), and their buffers,
    /// streams and pinned memory are dropped without freeing anything (the reset freed them;
    /// a few host bytes each stay allocated). Modules are loaded again on the next launch.
    /// Another library using the same GPU's primary context in this process loses its objects
    /// too. (The simulator has no context to lose: a wild write there is a host memory error.)
    ///
    /// ```ignore
    /// match launch!(kernel[grid, block](&mut out)).and_then(|_| device.synchronize()) {
    ///     Err(Error::ContextLost { ordinal, .. }) => {
    ///         device = Device::reset(ordinal).unwrap_or_else(|_| Device::simulator())
    ///     }
    ///     other => other?,
    /// }
    /// ```
    pub fn reset(ordinal: usize) -> Result<Device> {
        let mut devices = CUDA_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(position) = devices.iter().position(|d| d.inner.ordinal == ordinal) {
            let old = devices.swap_remove(position);
            let _ = old.inner.lost.set(ContextLoss {
                cause: "a `Device::reset`",
                kernels: "(this handle belongs to the context before the reset)".to_string(),
                call: "Device::reset",
                name: "a newer handle exists".to_string(),
            });
            old.inner.backend.reset_context()?;
            // The old device's modules and default stream belong to the dead context: never
            // drop them (see `backend::cuda::context_loss`).
            std::mem::forget(old);
        }
        let (backend, description) = open_cuda(ordinal)?;
        let device = Device::from_backend(backend, description, ordinal);
        devices.push(device.clone());
        Ok(device)
    }

    /// Fails fast, with no driver call, once the device's context is lost.
    #[inline]
    pub(crate) fn check_alive(&self) -> Result<()> {
        match self.inner.lost.get() {
            None => Ok(()),
            Some(loss) => Err(loss.error(self.inner.ordinal)),
        }
    }

    /// Runs one operation of the backend: fails fast when the context is lost, and turns a
    /// sticky driver error into [`Error::ContextLost`], remembered for every later operation.
    #[inline]
    pub(crate) fn operate<T>(&self, op: impl FnOnce(&DeviceBackend) -> Result<T>) -> Result<T> {
        self.check_alive()?;
        op(&self.inner.backend).map_err(|error| self.classify(error))
    }

    /// `error`, or the context loss it reveals.
    #[cold]
    fn classify(&self, error: Error) -> Error {
        let Error::Driver { call, name, .. } = &error else {
            return error;
        };
        let kernels = pending::unsynchronized_kernels(self.inner.id);
        match ContextLoss::from_driver_error(call, name, &kernels) {
            Some(loss) => {
                let _ = self.inner.lost.set(loss);
                self.check_alive().err().unwrap_or(error)
            }
            None => error,
        }
    }

    /// GPU or simulator.
    #[inline]
    pub fn backend(&self) -> Backend {
        self.inner.backend.kind()
    }

    /// Whether this is the CPU simulator.
    pub fn is_simulator(&self) -> bool {
        self.backend() == Backend::Simulator
    }

    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// The CUDA ordinal of a GPU (0 for the simulator).
    pub fn ordinal(&self) -> usize {
        self.inner.ordinal
    }

    /// Compute capability `(major, minor)`, e.g. `(9, 0)` for Hopper.
    pub fn compute_capability(&self) -> (u32, u32) {
        self.inner.compute_capability
    }

    /// How the module of kernel `K` was loaded on this GPU: from a cubin the build made (no JIT
    /// at load), or from its PTX (compiled by the driver). `None` before the module's first use
    /// on this device, and on the simulator, which runs neither.
    pub fn module_format<K: Kernel>(&self) -> Option<ModuleFormat> {
        let module = K::info().module;
        self.inner.backend.as_cuda()?.module_format(module)
    }

    /// Total device memory in bytes.
    pub fn total_memory(&self) -> usize {
        self.inner.total_memory
    }

    /// Free and total device memory in bytes, now.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.operate(|backend| backend.memory_info(self.inner.total_memory))
    }

    /// The limits launches are checked against.
    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.limits
    }

    /// Waits for all work on the device, then reports a kernel panic or simulator fault of
    /// this thread's launches on this device (any stream) not reported yet.
    ///
    /// A panic is reported exactly once, to the thread that launched the kernel, naming that
    /// kernel: at the first synchronization of its stream ([`Stream::synchronize`], a copy to
    /// the host for the default stream) or of the device. Panics of other threads' launches are
    /// left to them. When several of the covered launches failed, the earliest is returned and
    /// each of the others is returned by a later synchronization covering it.
    ///
    /// [`Stream::synchronize`]: crate::Stream::synchronize
    pub fn synchronize(&self) -> Result<()> {
        self.refuse_while_capturing("Device::synchronize")?;
        self.operate(DeviceBackend::synchronize)?;
        self.check_scope(None, u64::MAX)
    }

    /// What kernels printed (`gpu_println!`) on this thread's launches since the last call, on
    /// the simulator; the text is also written to stdout as it is printed. On a GPU, device
    /// output goes to the process's stdout at the next synchronization and this returns an
    /// empty string.
    pub fn take_simulator_output(&self) -> String {
        self.inner.backend.take_output()
    }

    /// The backend, for the operations of the handles and the launch.
    #[inline]
    pub(crate) fn backend_ops(&self) -> &DeviceBackend {
        &self.inner.backend
    }

    /// Whether `other` is the same device.
    #[inline]
    pub(crate) fn same_as(&self, other: &Device) -> bool {
        self.inner.id == other.inner.id
    }

    /// A new launch token (unique on this device, never 0).
    #[inline]
    pub(crate) fn next_token(&self) -> u64 {
        self.inner.tokens.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// The newest launch token handed out.
    pub(crate) fn newest_token(&self) -> u64 {
        self.inner.tokens.load(Ordering::Relaxed)
    }

    /// Notes a launch of the calling thread on stream `stream` (its key), so the
    /// synchronizations that cover it report its panic (`error`: a simulator launch that failed).
    #[inline]
    pub(crate) fn note_launch(
        &self,
        stream: u64,
        token: u64,
        kernel: &'static str,
        error: Option<Error>,
    ) {
        pending::note(self.inner.id, stream, token, kernel, error);
    }

    /// After a synchronization of the default stream (a copy to the host): a panic or fault of
    /// the calling thread's launches on it.
    pub(crate) fn check_pending(&self) -> Result<()> {
        self.check_scope(Some(DEFAULT_STREAM_KEY), u64::MAX)
    }

    /// After a synchronization of `stream` (`None`: every stream) up to launch token `up_to`:
    /// a panic or fault of the calling thread's launches it covers.
    pub(crate) fn check_scope(&self, stream: Option<u64>, up_to: u64) -> Result<()> {
        let scope = Scope {
            device: self.inner.id,
            stream,
            up_to,
        };
        let newest = self.newest_token();
        self.operate(|backend| pending::claim(backend, scope, newest))
    }

    /// Errors unless `other` is this device.
    #[inline]
    pub(crate) fn expect_same(&self, other: &Device, what: impl FnOnce() -> String) -> Result<()> {
        if self.same_as(other) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch {
                what: what(),
                expected: self.to_string(),
                found: other.to_string(),
            })
        }
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.inner.label)
    }
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.inner.name)
            .field("backend", &self.backend())
            .field("ordinal", &self.inner.ordinal)
            .finish()
    }
}

/// Opens GPU `ordinal`; a sticky error (a driver that keeps a fault's error for the whole
/// process) becomes [`Error::ContextUnrecoverable`].
fn open_cuda(ordinal: usize) -> Result<(DeviceBackend, DeviceDescription)> {
    DeviceBackend::open_cuda(ordinal).map_err(|error| match error {
        Error::Driver { call, name, .. } if sticky_cause(&name).is_some() => {
            Error::ContextUnrecoverable {
                ordinal,
                call,
                name,
            }
        }
        other => other,
    })
}
