//! CUDA graphs: [`Graph`] and [`GraphExec`], made by capturing a [`Stream`], and the
//! bookkeeping behind them: the captures in progress (which the launcher and the default-stream
//! operations consult), and the device memory each graph keeps alive. What a user needs to know
//! is documented on [`Graph`].

use crate::backend::graph::{CaptureRecording, GraphExecutable, GraphTemplate};
use crate::backend::{Allocation, PinnedAllocation, StreamHandle};
use crate::handles::device::Device;
use crate::handles::pending::DEFAULT_STREAM_KEY;
use crate::handles::stream::Stream;
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::params::ParamBuffer;
use crate::vocabulary::shape::LaunchShape;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

/// How many captures are in progress, in the whole process (the launch path's fast check).
static CAPTURES_IN_PROGRESS: AtomicUsize = AtomicUsize::new(0);
/// The captures in progress.
static CAPTURES: Mutex<Vec<Capture>> = Mutex::new(Vec::new());
/// How many [`GraphResources`] are alive (a dropped buffer's fast check).
static GRAPHS_ALIVE: AtomicUsize = AtomicUsize::new(0);
/// Every live [`GraphResources`].
static RESOURCES: Mutex<Vec<Weak<GraphResources>>> = Mutex::new(Vec::new());

thread_local! {
    /// The device addresses of the buffers bound to the launch being prepared on this thread,
    /// while a capture is in progress somewhere.
    static BOUND_ADDRESSES: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// A capture in progress on one stream.
struct Capture {
    /// The stream's device.
    device: Device,
    /// The stream's key (`Stream::key`).
    stream: u64,
    /// The stream's backend handle (kept so that an abandoned capture can be ended).
    handle: StreamHandle,
    /// Gone when every clone of the stream is dropped: the capture is then abandoned.
    alive: Weak<()>,
    /// The backend's recording.
    recording: CaptureRecording,
    /// What has been captured so far.
    work: CapturedWork,
    /// The buffers the capture keeps alive.
    resources: Arc<GraphResources>,
}

/// One captured operation, as far as an update must match it.
#[derive(Clone, Copy)]
enum CapturedOperation {
    /// A kernel launch.
    Launch(&'static KernelInfo),
    /// A device-to-device copy of this many bytes.
    Copy(usize),
    /// A copy of this many bytes from the host, snapshot at capture.
    Upload(usize),
}

impl CapturedOperation {
    /// Whether an update may replace `self` with `new`.
    fn matches(&self, new: &CapturedOperation) -> bool {
        match (self, new) {
            (CapturedOperation::Launch(a), CapturedOperation::Launch(b)) => std::ptr::eq(*a, *b),
            (CapturedOperation::Copy(a), CapturedOperation::Copy(b))
            | (CapturedOperation::Upload(a), CapturedOperation::Upload(b)) => a == b,
            _ => false,
        }
    }

    /// The operation in words.
    fn describe(&self) -> String {
        match self {
            CapturedOperation::Launch(info) => format!("a launch of kernel `{}`", info.name),
            CapturedOperation::Copy(bytes) => format!("a copy of {bytes} bytes"),
            CapturedOperation::Upload(bytes) => {
                format!("a copy of {bytes} bytes from the host")
            }
        }
    }
}

/// The operations of a capture, and what a replay registers for its panics.
#[derive(Default)]
struct CapturedWork {
    /// Every operation, in capture order.
    operations: Vec<CapturedOperation>,
    /// The launch token and kernel of each captured launch, in capture order.
    launches: Vec<(u64, &'static str)>,
}

/// The device memory a graph keeps alive, shared by a capture, its [`Graph`] and the
/// [`GraphExec`]s made from it.
struct GraphResources {
    /// The device.
    device: Device,
    /// The device addresses of the buffers the graph uses (each inside its buffer's memory).
    addresses: Mutex<Vec<u64>>,
    /// While the capture runs: every buffer of the device dropped meanwhile is kept.
    capturing: AtomicBool,
    /// Memory whose buffers were dropped while the graph used it, with its length in bytes.
    kept: Mutex<Vec<(Allocation, usize)>>,
    /// The page-locked copies of the host data the graph uploads (`Stream::copy_from_host`).
    snapshots: Mutex<Vec<PinnedAllocation>>,
}

/// The captures in progress, after ending those whose stream was dropped while it captured
/// (their graphs are dropped: a capture left running would refuse the device's default-stream
/// work for ever).
fn captures() -> MutexGuard<'static, Vec<Capture>> {
    let mut captures = lock(&CAPTURES);
    if captures.iter().any(|c| c.alive.strong_count() == 0) {
        let (abandoned, running): (Vec<Capture>, Vec<Capture>) = std::mem::take(&mut *captures)
            .into_iter()
            .partition(|c| c.alive.strong_count() == 0);
        *captures = running;
        for capture in abandoned {
            CAPTURES_IN_PROGRESS.fetch_sub(1, Ordering::AcqRel);
            capture.resources.capturing.store(false, Ordering::Release);
            let Capture {
                device,
                handle,
                recording,
                ..
            } = capture;
            drop(device.operate(|backend| backend.end_capture(&handle, recording)));
        }
    }
    captures
}

/// Locks a mutex of this module, whose data stays consistent even if a holder panicked.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl GraphResources {
    /// New resources of `device`, registered so that dropped buffers find them.
    fn new(device: &Device, capturing: bool) -> Arc<GraphResources> {
        let resources = Arc::new(GraphResources {
            device: device.clone(),
            addresses: Mutex::new(Vec::new()),
            capturing: AtomicBool::new(capturing),
            kept: Mutex::new(Vec::new()),
            snapshots: Mutex::new(Vec::new()),
        });
        lock(&RESOURCES).push(Arc::downgrade(&resources));
        GRAPHS_ALIVE.fetch_add(1, Ordering::AcqRel);
        resources
    }

    /// Whether the graph keeps memory `start..end` of its device alive.
    fn keeps(&self, start: u64, end: u64) -> bool {
        self.capturing.load(Ordering::Acquire)
            || lock(&self.addresses)
                .iter()
                .any(|&address| (start..end).contains(&address))
    }
}

impl Drop for GraphResources {
    fn drop(&mut self) {
        let this: *const GraphResources = self;
        lock(&RESOURCES).retain(|weak| !std::ptr::eq(weak.as_ptr(), this));
        GRAPHS_ALIVE.fetch_sub(1, Ordering::AcqRel);
        // Another graph (or a capture) may still need some of this memory.
        let kept = std::mem::take(&mut *lock(&self.kept));
        for (memory, bytes) in kept {
            release_allocation(&self.device, memory, bytes);
        }
    }
}

/// Frees `memory` (`bytes` long) of `device`, whose buffer was dropped, unless a live graph
/// captured it or a capture runs on the device: then the graph keeps it until it is dropped.
pub(crate) fn release_allocation(device: &Device, memory: Allocation, bytes: usize) {
    if GRAPHS_ALIVE.load(Ordering::Acquire) == 0 {
        return;
    }
    let start = memory.address();
    let end = start.saturating_add(bytes as u64);
    let holders: Vec<Arc<GraphResources>> = lock(&RESOURCES)
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|r| r.device.same_as(device))
        .collect();
    if let Some(holder) = holders.iter().find(|r| r.keeps(start, end)) {
        lock(&holder.kept).push((memory, bytes));
    }
    // `holders` is dropped here, outside the registry's lock: it may hold the last reference.
}

/// Whether a capture is in progress anywhere in the process (one atomic load).
#[inline]
pub(crate) fn capture_in_progress() -> bool {
    CAPTURES_IN_PROGRESS.load(Ordering::Acquire) != 0
}

/// Notes the device address of a buffer bound to the launch being prepared on this thread,
/// while a capture is in progress (the launch may be captured, and then keeps it alive).
#[inline]
pub(crate) fn note_bound_address(address: u64) {
    if capture_in_progress() && address != 0 {
        BOUND_ADDRESSES.with_borrow_mut(|a| a.push(address));
    }
}

/// The refusal of an operation that a capture on `device` cannot record.
#[cold]
fn refused(operation: &'static str, device: &Device, what: &str) -> Error {
    Error::Graph {
        operation,
        problem: format!(
            "not allowed while a stream of {device} is capturing a graph: {what}; do it before `Stream::begin_capture` or after `Stream::end_capture`"
        ),
    }
}

/// Captures a launch when its stream is capturing: called by the launcher, after the token was
/// written, when [`capture_in_progress`]. Returns whether the launch was captured (and must not
/// be run or registered); refuses a launch on the default stream of a capturing device, and one
/// with host-slice arguments (`host_slices`) on a capturing stream.
pub(crate) fn capture_launch(
    device: &Device,
    stream: Option<&Stream>,
    info: &'static KernelInfo,
    shape: &LaunchShape,
    params: &mut ParamBuffer,
    token: u64,
    host_slices: bool,
) -> Result<bool> {
    let addresses = BOUND_ADDRESSES.with_borrow_mut(std::mem::take);
    let mut captures = captures();
    let key = stream.map_or(DEFAULT_STREAM_KEY, |s| s.key);
    if key == DEFAULT_STREAM_KEY {
        if captures.iter().any(|c| c.device.same_as(device)) {
            return Err(refused(
                "launch",
                device,
                &format!(
                    "kernel `{}` was launched on the default stream, which the capturing stream would wait for; launch it on the capturing stream (`launch!({}[grid, block, &stream](...))`)",
                    info.name, info.name
                ),
            ));
        }
        return Ok(false);
    }
    let Some(capture) = captures
        .iter_mut()
        .find(|c| c.stream == key && c.device.same_as(device))
    else {
        return Ok(false);
    };
    let Some(stream) = stream else {
        return Ok(false);
    };
    if info.cooperative {
        return Err(Error::Graph {
            operation: "launch",
            problem: format!(
                "kernel `{}` is #[kernel(cooperative)] and its stream is capturing a graph: a captured launch would replay as an ordinary one, without the co-residency its grid barrier needs; launch it outside the capture",
                info.name
            ),
        });
    }
    if host_slices {
        return Err(Error::Graph {
            operation: "launch",
            problem: format!(
                "kernel `{}` was given host slices while its stream is capturing a graph: such a launch copies them to the device and waits for the kernel, which a graph cannot replay; pass `DeviceBuffer`s",
                info.name
            ),
        });
    }
    device.operate(|backend| {
        backend.capture_launch(
            &mut capture.recording,
            info,
            shape,
            &stream.handle,
            params,
            device.limits(),
            device.name(),
        )
    })?;
    capture
        .work
        .operations
        .push(CapturedOperation::Launch(info));
    capture.work.launches.push((token, info.name));
    lock(&capture.resources.addresses).extend(addresses);
    Ok(true)
}

impl Device {
    /// Refuses `operation`, which runs on the default stream or waits for the device, while a
    /// stream of this device is capturing (see the module's documentation).
    #[inline]
    pub(crate) fn refuse_while_capturing(&self, operation: &'static str) -> Result<()> {
        if !capture_in_progress() {
            return Ok(());
        }
        self.refuse_while_capturing_slow(operation)
    }

    /// [`Device::refuse_while_capturing`] when some capture is in progress.
    #[cold]
    fn refuse_while_capturing_slow(&self, operation: &'static str) -> Result<()> {
        if captures().iter().any(|c| c.device.same_as(self)) {
            return Err(refused(
                operation,
                self,
                "it runs on the default stream or waits for the device, which would make the capturing stream wait",
            ));
        }
        Ok(())
    }
}

impl Stream {
    /// Whether this stream is capturing a graph (between [`Stream::begin_capture`] and
    /// [`Stream::end_capture`]).
    pub fn is_capturing(&self) -> bool {
        capture_in_progress() && self.capture_index(&captures()).is_some()
    }

    /// The position of this stream's capture in `captures`.
    fn capture_index(&self, captures: &[Capture]) -> Option<usize> {
        captures
            .iter()
            .position(|c| c.stream == self.key && c.device.same_as(&self.device))
    }

    /// Refuses `operation` on this stream while it captures (on the default stream: while any
    /// stream of the device captures).
    #[inline]
    pub(crate) fn refuse_if_capturing(&self, operation: &'static str) -> Result<()> {
        if !capture_in_progress() {
            return Ok(());
        }
        if self.key == DEFAULT_STREAM_KEY {
            return self.device.refuse_while_capturing(operation);
        }
        if self.is_capturing() {
            return Err(Error::Graph {
                operation,
                problem: "not allowed on a stream that is capturing a graph: its work is recorded, not run, and a graph records only launches and the copies of `Stream::copy_buffer` and `Stream::copy_from_host`; call `Stream::end_capture` first".to_string(),
            });
        }
        Ok(())
    }

    /// Starts capturing a graph: the kernel launches and copies ([`Stream::copy_buffer`],
    /// [`Stream::copy_from_host`]) queued on this stream from now on are recorded instead of
    /// run, until [`Stream::end_capture`].
    ///
    /// # Errors
    /// [`Error::Graph`] on the device's default stream (CUDA's legacy stream cannot be
    /// captured: use a stream from [`Device::new_stream`]) and on a stream already capturing.
    pub fn begin_capture(&self) -> Result<()> {
        const OPERATION: &str = "Stream::begin_capture";
        if self.key == DEFAULT_STREAM_KEY {
            return Err(Error::Graph {
                operation: OPERATION,
                problem: "the default stream cannot be captured (it is CUDA's legacy stream, which every other stream waits for): capture a stream from `Device::new_stream`".to_string(),
            });
        }
        let mut captures = captures();
        if self.capture_index(&captures).is_some() {
            return Err(Error::Graph {
                operation: OPERATION,
                problem:
                    "this stream is already capturing a graph: call `Stream::end_capture` first"
                        .to_string(),
            });
        }
        let recording = self
            .device
            .operate(|backend| backend.begin_capture(&self.handle))?;
        captures.push(Capture {
            device: self.device.clone(),
            stream: self.key,
            handle: self.handle.clone(),
            alive: Arc::downgrade(&self.alive),
            recording,
            work: CapturedWork::default(),
            resources: GraphResources::new(&self.device, true),
        });
        CAPTURES_IN_PROGRESS.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }

    /// Ends the capture begun by [`Stream::begin_capture`] and returns the recorded graph.
    ///
    /// # Errors
    /// [`Error::Graph`] when this stream is not capturing; the driver's error when the capture
    /// failed on the GPU.
    pub fn end_capture(&self) -> Result<Graph> {
        let capture = {
            let mut captures = captures();
            let Some(index) = self.capture_index(&captures) else {
                return Err(Error::Graph {
                    operation: "Stream::end_capture",
                    problem:
                        "this stream is not capturing a graph: call `Stream::begin_capture` first"
                            .to_string(),
                });
            };
            CAPTURES_IN_PROGRESS.fetch_sub(1, Ordering::AcqRel);
            captures.remove(index)
        };
        let Capture {
            device,
            recording,
            work,
            resources,
            ..
        } = capture;
        resources.capturing.store(false, Ordering::Release);
        let template = device
            .operate(|backend| backend.end_capture(&self.handle, recording))
            .map_err(|error| match error {
                Error::Driver { name, .. } if name == "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED" => {
                    Error::Graph {
                        operation: "Stream::end_capture",
                        problem: "the driver invalidated the capture (CUDA_ERROR_STREAM_CAPTURE_INVALIDATED): an operation outside ferrocuda (through `Stream::cuda_stream` or cudarc) made the capturing stream depend on work it cannot record; capture again".to_string(),
                    }
                }
                other => other,
            })?;
        Ok(Graph {
            template,
            device,
            work: Arc::new(work),
            resources,
        })
    }

    /// Captures the work `record` queues on this stream as a graph: [`Stream::begin_capture`],
    /// `record(self)`, [`Stream::end_capture`]. When `record` fails, the capture is ended and
    /// its graph dropped, and the error returned.
    ///
    /// ```ignore
    /// let stream = device.new_stream()?;
    /// let graph = stream.capture(|s| {
    ///     launch!(scale[blocks, 256, s](&mut x, 2.0f32))?;
    ///     s.copy_buffer(&x, &mut y)
    /// })?;
    /// let exec = graph.instantiate()?;
    /// for _ in 0..100 {
    ///     exec.launch(&stream)?;
    /// }
    /// stream.synchronize()?;
    /// ```
    pub fn capture(&self, record: impl FnOnce(&Stream) -> Result<()>) -> Result<Graph> {
        self.begin_capture()?;
        match record(self) {
            Ok(()) => self.end_capture(),
            Err(error) => {
                drop(self.end_capture());
                Err(error)
            }
        }
    }

    /// Queues a device-to-device copy on this stream, or records it while the stream captures
    /// (checked by the caller: same device, same length, `bytes > 0`). `destination` and
    /// `source` are addresses of two different live buffers of the stream's device.
    pub(crate) fn queue_device_copy(
        &self,
        destination: u64,
        source: u64,
        bytes: usize,
    ) -> Result<()> {
        if !capture_in_progress() {
            // SAFETY: the caller guarantees two live, distinct buffers of this device; the
            // default stream frees them only after the copy (every stream is ordered with it).
            return self.device.operate(|backend| unsafe {
                backend.copy_device_to_device(&self.handle, None, destination, source, bytes)
            });
        }
        let mut captures = captures();
        let index = self.capture_index(&captures);
        if self.key == DEFAULT_STREAM_KEY && captures.iter().any(|c| c.device.same_as(&self.device))
        {
            return Err(refused(
                "Stream::copy_buffer",
                &self.device,
                "the copy is on the default stream, which the capturing stream would wait for; queue it on the capturing stream",
            ));
        }
        let recording = index.map(|i| &mut captures[i].recording);
        // SAFETY: as above; a recorded copy's buffers are kept alive by the graph (below).
        self.device.operate(|backend| unsafe {
            backend.copy_device_to_device(&self.handle, recording, destination, source, bytes)
        })?;
        if let Some(index) = index {
            let capture = &mut captures[index];
            capture.work.operations.push(CapturedOperation::Copy(bytes));
            lock(&capture.resources.addresses).extend([destination, source]);
        }
        Ok(())
    }
}

impl Stream {
    /// Queues a copy of `data` to device address `destination` on this stream, or, while the
    /// stream captures, records a copy from a page-locked snapshot of `data` that the graph
    /// keeps (checked by the caller: same device, same length, `data` not empty). `destination`
    /// lies in a live buffer of the stream's device.
    pub(crate) fn queue_host_copy(&self, destination: u64, data: &[u8]) -> Result<()> {
        let capturing = capture_in_progress() && self.is_capturing();
        if !capturing {
            self.refuse_if_capturing("Stream::copy_from_host")?;
            // SAFETY: outside a capture the driver stages pageable memory before returning;
            // the default stream frees the buffer only after the copy.
            return self.device.operate(|backend| unsafe {
                backend.copy_host_to_device(
                    &self.handle,
                    None,
                    destination,
                    data.as_ptr(),
                    data.len(),
                )
            });
        }
        let snapshot = self
            .device
            .operate(|backend| backend.allocate_pinned(data.len(), 16))?;
        // SAFETY: `snapshot` is `data.len()` bytes of fresh page-locked memory, not `data`.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), snapshot.as_ptr(), data.len()) };
        let mut captures = captures();
        let Some(index) = self.capture_index(&captures) else {
            return Err(Error::Graph {
                operation: "Stream::copy_from_host",
                problem: "the stream's capture ended while the copy was being recorded".to_string(),
            });
        };
        let capture = &mut captures[index];
        // SAFETY: the snapshot is page-locked memory the graph keeps, unwritten, as long as it
        // lives (below); `destination` is kept alive by the graph too.
        self.device.operate(|backend| unsafe {
            backend.copy_host_to_device(
                &self.handle,
                Some(&mut capture.recording),
                destination,
                snapshot.as_ptr(),
                data.len(),
            )
        })?;
        capture
            .work
            .operations
            .push(CapturedOperation::Upload(data.len()));
        lock(&capture.resources.addresses).push(destination);
        lock(&capture.resources.snapshots).push(snapshot);
        Ok(())
    }
}

/// A CUDA graph: the launches and copies queued on a [`Stream`], recorded once by a capture,
/// made executable by [`Graph::instantiate`] and replayed with one call ([`GraphExec::launch`]),
/// which costs the host far less per kernel than launching each one.
///
/// # Capture
/// [`Stream::begin_capture`] starts recording a stream from [`Device::new_stream`]: from then on,
/// kernel launches on that stream (`launch!(k[grid, block, &stream](...))` or the builder's
/// `.stream(&stream)`) and copies on it ([`Stream::copy_buffer`] between buffers,
/// [`Stream::copy_from_host`] from the host) are recorded, not run. [`Stream::end_capture`] returns the graph; [`Stream::capture`] does both around a
/// closure. On a GPU this is CUDA's stream capture (relaxed mode); on the simulator the stream's
/// operations are recorded with their parameter bytes and replayed in order.
///
/// # What a capture refuses
/// While a stream of a device captures, the operations that run on the device's default stream
/// or wait for the device would make the capturing stream wait for them (CUDA's legacy stream
/// is ordered with every blocking stream), which a capture cannot record. They return
/// [`Error::Graph`] naming the operation, on both backends, and the capture goes on:
/// allocating or filling a buffer (`zeros`, `from_slice`, `copy_from`), reading one back
/// (`to_vec`, `copy_to`), launching on the default stream, `Device::synchronize`, constant
/// memory, and `Stream::synchronize` and `Event::synchronize` of any stream of the device
/// (their panic report reads the device through the default stream); on the capturing stream
/// itself, events and the pinned copies (`copy_from_async`, `copy_to_async`, which track their
/// completion with events). A launch with host-slice arguments on the capturing stream is
/// refused too (it would copy and wait). Launches and copies on other streams are queued and
/// run as usual.
///
/// # Lifetimes: a graph keeps its buffers alive
/// A graph holds the device addresses it captured. So that a replay never touches freed memory,
/// the memory of a [`DeviceBuffer`](crate::DeviceBuffer) that a live graph (or executable graph)
/// captured is not freed when the buffer is dropped: it is freed when the last graph using it
/// is dropped. Likewise, a buffer dropped while a capture runs on its device is freed when the
/// capture's graph is dropped (freeing runs on the default stream, which a capture cannot
/// record). The borrow checker is not involved: a graph may outlive the `DeviceBuffer` handles
/// it was captured with, and replaying it writes the memory they had.
///
/// # Panics in replays
/// Every captured launch keeps the launch token it was given at capture; each replay registers
/// those launches with the replaying thread and stream, so the next synchronization that covers
/// the replay ([`Stream::synchronize`], [`Device::synchronize`], an event recorded after it)
/// reports a kernel panic with its kernel, file, line, block and thread, as for a direct launch.
/// Every replay of one graph uses the same tokens (the parameters are the captured ones), so a
/// replay's panic occupies the panic slot of its capture-time token: as for a direct launch,
/// synchronize before 1024 later launches of the device could reuse that slot.
///
/// # Parameter updates
/// [`GraphExec::update`] gives an executable graph the arguments of a new capture of the same
/// launches and copies (same kernels and copy sizes, in the same order): a different scalar, or
/// different buffers. The arguments are type-checked like any launch, because they are one.
/// On a GPU this is `cuGraphExecUpdate`.
///
/// `Graph` and [`GraphExec`] are `Send`, not `Sync` (CUDA graph objects are not thread-safe).
pub struct Graph {
    /// The backend's graph. Declared first: destroyed before the memory it uses is freed.
    template: GraphTemplate,
    /// The device.
    device: Device,
    /// The captured operations.
    work: Arc<CapturedWork>,
    /// The memory it keeps alive.
    resources: Arc<GraphResources>,
}

impl Graph {
    /// An executable graph of this graph, to replay with [`GraphExec::launch`]. The graph may
    /// be dropped afterwards.
    pub fn instantiate(&self) -> Result<GraphExec> {
        let executable = self
            .device
            .operate(|backend| backend.instantiate(&self.template))?;
        Ok(GraphExec {
            executable,
            device: self.device.clone(),
            work: self.work.clone(),
            resources: self.resources.clone(),
        })
    }

    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// How many operations (kernel launches and copies) the graph holds.
    pub fn len(&self) -> usize {
        self.work.operations.len()
    }

    /// Whether the capture recorded nothing.
    pub fn is_empty(&self) -> bool {
        self.work.operations.is_empty()
    }

    /// How many kernel launches the graph holds.
    pub fn kernel_launches(&self) -> usize {
        self.work.launches.len()
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("device", &self.device)
            .field("operations", &self.len())
            .finish_non_exhaustive()
    }
}

/// An executable graph ([`Graph::instantiate`]): replay it on a stream of its device with
/// [`GraphExec::launch`], as often as needed; change its launches' arguments with
/// [`GraphExec::update`].
///
/// It keeps the device memory of the buffers it uses alive (see [`Graph`]). `Send`, not `Sync`.
pub struct GraphExec {
    /// The backend's executable graph. Declared first: destroyed before the memory it uses.
    executable: GraphExecutable,
    /// The device.
    device: Device,
    /// The captured operations (of the last update).
    work: Arc<CapturedWork>,
    /// The memory it keeps alive.
    resources: Arc<GraphResources>,
}

impl GraphExec {
    /// Queues one replay of the graph on `stream` (on the simulator: runs it), in the stream's
    /// order like any launch. A kernel panic or simulator fault of a replayed launch is
    /// reported by the next synchronization of the calling thread that covers it.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] when `stream` belongs to another device; [`Error::Graph`]
    /// when `stream` is capturing (graphs are not nested into captures), or is the default
    /// stream while a stream of the device captures.
    pub fn launch(&self, stream: &Stream) -> Result<()> {
        const OPERATION: &str = "GraphExec::launch";
        self.device
            .expect_same(stream.device(), || "the stream".to_string())?;
        if capture_in_progress() {
            if stream.is_capturing() {
                return Err(Error::Graph {
                    operation: OPERATION,
                    problem: "the stream is capturing a graph; replaying a graph into a capture is not supported: replay it after `Stream::end_capture`".to_string(),
                });
            }
            stream.refuse_if_capturing(OPERATION)?;
        }
        let launches = &self.work.launches;
        let mut next = launches.iter();
        let device = &self.device;
        device.operate(|backend| {
            // SAFETY: the memory the graph uses is kept alive by `self.resources`.
            unsafe {
                backend.launch_graph(
                    &self.executable,
                    &stream.handle,
                    launches.len(),
                    &mut |failed| {
                        if let Some(&(token, kernel)) = next.next() {
                            device.note_launch(stream.key, token, kernel, failed);
                        }
                    },
                )
            }
        })
    }

    /// Gives this executable graph the arguments of `graph`, a new capture of the same
    /// operations (the same kernels and copy sizes in the same order) with other scalars or
    /// other buffers, so that the next replays run with them. Replays already queued keep the
    /// old arguments.
    ///
    /// ```ignore
    /// let again = stream.capture(|s| launch!(scale[blocks, 256, s](&mut other, 3.0f32)))?;
    /// exec.update(&again)?;
    /// exec.launch(&stream)?;
    /// ```
    ///
    /// # Errors
    /// [`Error::Graph`] naming the first operation that differs, or when the counts differ;
    /// [`Error::DeviceMismatch`] when `graph` belongs to another device.
    pub fn update(&mut self, graph: &Graph) -> Result<()> {
        const OPERATION: &str = "GraphExec::update";
        self.device
            .expect_same(&graph.device, || "the new graph".to_string())?;
        let (old, new) = (&self.work.operations, &graph.work.operations);
        if let Some(index) = (0..old.len().min(new.len())).find(|&i| !old[i].matches(&new[i])) {
            return Err(Error::Graph {
                operation: OPERATION,
                problem: format!(
                    "operation {index} of the executable graph is {}, but of the new graph {}: capture the same launches and copies in the same order, changing only their arguments",
                    old[index].describe(),
                    new[index].describe()
                ),
            });
        }
        if old.len() != new.len() {
            return Err(Error::Graph {
                operation: OPERATION,
                problem: format!(
                    "the executable graph has {} operations, the new graph {}: capture the same launches and copies in the same order, changing only their arguments",
                    old.len(),
                    new.len()
                ),
            });
        }
        self.device
            .operate(|backend| backend.update_graph(&mut self.executable, &graph.template))?;
        self.work = graph.work.clone();
        self.resources = graph.resources.clone();
        Ok(())
    }

    /// The device the graph runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// How many operations (kernel launches and copies) one replay runs.
    pub fn len(&self) -> usize {
        self.work.operations.len()
    }

    /// Whether a replay runs nothing.
    pub fn is_empty(&self) -> bool {
        self.work.operations.is_empty()
    }
}

impl std::fmt::Debug for GraphExec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GraphExec")
            .field("device", &self.device)
            .field("operations", &self.len())
            .finish_non_exhaustive()
    }
}
