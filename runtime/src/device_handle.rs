//! [`Device`]: a GPU, or the CPU simulator, that kernels run on.

use crate::Dim3;
use crate::cuda::CudaDevice;
use crate::error::{Error, Result, driver};
use crate::simulator::Simulator;
use crate::stream::Stream;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// The limits a launch is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceLimits {
    /// Most threads in one block (1024 on every current GPU).
    pub max_threads_per_block: u32,
    /// Largest block along x, y, z.
    pub max_block_dim: Dim3,
    /// Largest grid along x, y, z.
    pub max_grid_dim: Dim3,
    /// Shared memory a block may use without opting in, in bytes (48 KiB).
    pub max_shared_memory_per_block: u32,
    /// Shared memory a block may use after opting in, in bytes (227 KiB on an H100); ferrocuda
    /// opts in automatically when a launch asks for more than the default.
    pub max_shared_memory_per_block_optin: u32,
    /// Threads per warp (32).
    pub warp_size: u32,
    /// Number of multiprocessors.
    pub multiprocessor_count: u32,
}

/// Which kind of device a [`Device`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA GPU, through the driver API.
    Cuda,
    /// The CPU simulator.
    Simulator,
}

pub(crate) enum DeviceKind {
    Cuda(CudaDevice),
    Simulator(Simulator),
}

pub(crate) struct DeviceInner {
    pub id: u64,
    pub kind: DeviceKind,
    pub name: String,
    pub ordinal: usize,
    pub compute_capability: (u32, u32),
    pub total_memory: usize,
    pub limits: DeviceLimits,
    /// Kernels launched since the last synchronization checked for panics, and an error the
    /// simulator found that the next synchronization must return.
    pub pending: Mutex<Pending>,
}

#[derive(Default)]
pub(crate) struct Pending {
    pub launched: Vec<&'static str>,
    /// Simulator faults, by the thread that launched: a simulated launch runs on its caller's
    /// thread, so its error belongs to that thread's next synchronization, even when other
    /// threads share the device.
    pub errors: Vec<(std::thread::ThreadId, Error)>,
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
    pub(crate) inner: Arc<DeviceInner>,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);
static CUDA_DEVICES: Mutex<Vec<Device>> = Mutex::new(Vec::new());
static SIMULATOR: OnceLock<Device> = OnceLock::new();
static DEFAULT: OnceLock<Device> = OnceLock::new();

/// The environment variable that selects the simulator as the default device (`1`, `true`).
pub const SIMULATOR_ENV: &str = "FERROCUDA_SIMULATOR";
/// The environment variable that selects which GPU is the default device (an ordinal).
pub const DEVICE_ENV: &str = "FERROCUDA_DEVICE";

impl Device {
    /// The CUDA GPU with this ordinal (one shared handle per GPU per process).
    pub fn new(ordinal: usize) -> Result<Device> {
        let mut devices = CUDA_DEVICES.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(device) = devices.iter().find(|d| d.inner.ordinal == ordinal) {
            return Ok(device.clone());
        }
        let (cuda, info) = CudaDevice::open(ordinal)?;
        let device = Device {
            inner: Arc::new(DeviceInner {
                id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                kind: DeviceKind::Cuda(cuda),
                name: info.name,
                ordinal,
                compute_capability: info.compute_capability,
                total_memory: info.total_memory,
                limits: info.limits,
                pending: Mutex::new(Pending::default()),
            }),
        };
        devices.push(device.clone());
        Ok(device)
    }

    /// The CPU simulator (one shared instance per process).
    pub fn simulator() -> Device {
        SIMULATOR
            .get_or_init(|| {
                let simulator = Simulator::new();
                Device {
                    inner: Arc::new(DeviceInner {
                        id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
                        name: "ferrocuda CPU simulator".to_string(),
                        ordinal: 0,
                        compute_capability: Simulator::COMPUTE_CAPABILITY,
                        total_memory: Simulator::total_memory(),
                        limits: Simulator::LIMITS,
                        kind: DeviceKind::Simulator(simulator),
                        pending: Mutex::new(Pending::default()),
                    }),
                }
            })
            .clone()
    }

    /// The device used when none is named: the simulator if `FERROCUDA_SIMULATOR=1`; else GPU
    /// `FERROCUDA_DEVICE` (default 0) if a CUDA driver and GPU are present; else the simulator,
    /// with a one-line notice on stderr. Chosen once per process.
    pub fn default_device() -> Result<Device> {
        if let Some(device) = DEFAULT.get() {
            return Ok(device.clone());
        }
        let wants_simulator = std::env::var(SIMULATOR_ENV)
            .map(|v| matches!(v.trim(), "1" | "true" | "yes" | "on"))
            .unwrap_or(false);
        let device = if wants_simulator {
            Device::simulator()
        } else {
            let ordinal = match std::env::var(DEVICE_ENV) {
                Ok(text) => text.trim().parse::<usize>().map_err(|_| {
                    Error::NoDevice(format!(
                        "{DEVICE_ENV}={text:?} is not a device ordinal (0, 1, ...)"
                    ))
                })?,
                Err(_) => 0,
            };
            match CudaDevice::count() {
                Ok(n) if n > 0 => Device::new(ordinal)?,
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
        Ok(DEFAULT.get_or_init(|| device).clone())
    }

    /// GPU or simulator.
    pub fn backend(&self) -> Backend {
        match self.inner.kind {
            DeviceKind::Cuda(_) => Backend::Cuda,
            DeviceKind::Simulator(_) => Backend::Simulator,
        }
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

    /// Total device memory in bytes.
    pub fn total_memory(&self) -> usize {
        self.inner.total_memory
    }

    /// Free and total device memory in bytes, now.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        match &self.inner.kind {
            DeviceKind::Cuda(cuda) => cuda.context.mem_get_info().map_err(driver("cuMemGetInfo")),
            DeviceKind::Simulator(_) => Ok((self.inner.total_memory, self.inner.total_memory)),
        }
    }

    /// The limits launches are checked against.
    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.limits
    }

    /// The device's default stream (CUDA's legacy default stream, ordered with all others).
    pub fn default_stream(&self) -> Stream {
        Stream::default_for(self)
    }

    /// A new stream, for work that may overlap with other new streams. It is a blocking stream:
    /// ordered with the default stream both ways, so buffers made, read or freed by synchronous
    /// operations are safe to use on it (see [`Stream`]).
    pub fn new_stream(&self) -> Result<Stream> {
        Stream::new(self)
    }

    /// Waits for all work on the device, then reports the first kernel panic or simulator fault
    /// since the last synchronization.
    ///
    /// On a GPU the panic record is per device, like CUDA's errors: a panic is reported to the
    /// first synchronization after it, from whichever host thread. On the simulator a fault is
    /// reported to the thread that launched the kernel.
    pub fn synchronize(&self) -> Result<()> {
        if let DeviceKind::Cuda(cuda) = &self.inner.kind {
            cuda.context
                .synchronize()
                .map_err(driver("cuCtxSynchronize"))?;
        }
        self.check_pending()
    }

    /// What kernels printed (`gpu_println!`) on this thread's launches since the last call, on
    /// the simulator; the text is also written to stdout as it is printed. On a GPU, device
    /// output goes to the process's stdout at the next synchronization and this returns an
    /// empty string.
    pub fn take_simulator_output(&self) -> String {
        match &self.inner.kind {
            DeviceKind::Simulator(sim) => sim.take_output(),
            DeviceKind::Cuda(_) => String::new(),
        }
    }

    /// The underlying cudarc context (None for the simulator).
    pub fn cuda_context(&self) -> Option<&Arc<cudarc::driver::CudaContext>> {
        match &self.inner.kind {
            DeviceKind::Cuda(cuda) => Some(&cuda.context),
            DeviceKind::Simulator(_) => None,
        }
    }

    pub(crate) fn cuda(&self) -> Option<&CudaDevice> {
        match &self.inner.kind {
            DeviceKind::Cuda(cuda) => Some(cuda),
            DeviceKind::Simulator(_) => None,
        }
    }

    pub(crate) fn simulator_backend(&self) -> Option<&Simulator> {
        match &self.inner.kind {
            DeviceKind::Simulator(sim) => Some(sim),
            DeviceKind::Cuda(_) => None,
        }
    }

    pub(crate) fn id(&self) -> u64 {
        self.inner.id
    }

    #[inline]
    pub(crate) fn same_as(&self, other: &Device) -> bool {
        self.inner.id == other.inner.id
    }

    /// Notes a launch, so the next synchronization knows which kernels may have panicked.
    pub(crate) fn note_launch(&self, kernel: &'static str) {
        let mut pending = self.inner.pending.lock().unwrap_or_else(|e| e.into_inner());
        if pending.launched.last() != Some(&kernel) && pending.launched.len() < 64 {
            pending.launched.push(kernel);
        }
    }

    /// Keeps an error of an asynchronous operation (simulator fault) for the next synchronization.
    pub(crate) fn set_pending_error(&self, error: Error) {
        let me = std::thread::current().id();
        let mut pending = self.inner.pending.lock().unwrap_or_else(|e| e.into_inner());
        if !pending.errors.iter().any(|(thread, _)| *thread == me) {
            pending.errors.push((me, error));
        }
    }

    /// After a synchronization: the first kernel panic or fault since the previous one.
    pub(crate) fn check_pending(&self) -> Result<()> {
        let (launched, error) = {
            let me = std::thread::current().id();
            let mut pending = self.inner.pending.lock().unwrap_or_else(|e| e.into_inner());
            if pending.launched.is_empty() && pending.errors.is_empty() {
                return Ok(());
            }
            let error = pending
                .errors
                .iter()
                .position(|(thread, _)| *thread == me)
                .map(|i| pending.errors.swap_remove(i).1);
            (std::mem::take(&mut pending.launched), error)
        };
        if let Some(error) = error {
            return Err(error);
        }
        if let DeviceKind::Cuda(cuda) = &self.inner.kind {
            let mut names: Vec<&str> = Vec::new();
            for name in launched {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            let kernels = if names.len() == 1 {
                names[0].to_string()
            } else {
                format!("one of {}", names.join(", "))
            };
            if let Some(panic) = cuda.take_panic(&kernels)? {
                return Err(Error::KernelPanic(panic));
            }
        }
        Ok(())
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
        match self.backend() {
            Backend::Cuda => write!(f, "{} (GPU {})", self.inner.name, self.inner.ordinal),
            Backend::Simulator => write!(f, "{}", self.inner.name),
        }
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
