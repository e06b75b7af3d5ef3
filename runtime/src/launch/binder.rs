//! [`ArgBinder`]: collects a launch's arguments, validates the shape against the device's
//! limits, launches through the device's backend, and copies `&mut` host slices back.

use crate::DeviceCopy;
use crate::Dim3;
use crate::device::panic::COOPERATIVE_TOKEN_BIT;
use crate::handles::buffer::DeviceBuffer;
use crate::handles::device::Device;
use crate::handles::pending::DEFAULT_STREAM_KEY;
use crate::launch::config::LaunchConfig;
use crate::launch::cooperative::check_co_resident;
use crate::launch::max_block::check_max_block;
use crate::launch::request::LaunchRequest;
use crate::vocabulary::error::{Error, LaunchError, Result};
use crate::vocabulary::index_range::{check_grid_extent, check_slice_len, check_usize_value};
use crate::vocabulary::kernel::KernelInfo;
use crate::vocabulary::params::ParamBuffer;

/// A `&mut` host slice uploaded for a launch, to copy back when the kernel has finished.
struct CopyBack<'a> {
    /// The device copy the kernel writes.
    device_copy: DeviceBuffer<u8>,
    /// Where its bytes go back to.
    host: &'a mut [u8],
}

/// Collects a launch's arguments, then launches. Used by the code `#[kernel]` generates.
pub struct ArgBinder<'a> {
    /// The launch's shape and stream.
    config: LaunchConfig,
    /// The kernel.
    info: &'static KernelInfo,
    /// The device it runs on.
    device: Device,
    /// The parameter bytes.
    pub(crate) params: ParamBuffer,
    /// Host slices uploaded for the launch, freed after it.
    uploads: Vec<DeviceBuffer<u8>>,
    /// `&mut` host slices to copy back after the kernel.
    copy_backs: Vec<CopyBack<'a>>,
    /// Whether the launch waits for the kernel (it copies host slices).
    waits_for_kernel: bool,
    /// Arguments bound so far.
    pub(crate) bound: usize,
    /// A `.forall(0)`: nothing to launch.
    launches_nothing: bool,
}

impl<'a> ArgBinder<'a> {
    /// Chooses the device: the stream's, else the first device argument's, else the default;
    /// then reports a grid, block or byte count that did not convert, and for `.forall(n)`
    /// chooses block and grid on that device.
    #[inline]
    pub fn new(
        request: LaunchRequest,
        info: &'static KernelInfo,
        hints: &[Option<&Device>],
    ) -> Result<Self> {
        if let Some(problem) = request.problem {
            return Err(LaunchError::new(info.name, problem).into());
        }
        let mut config = request.config;
        let device = match (&config.stream, hints.iter().flatten().next()) {
            (Some(stream), _) => stream.device().clone(),
            (None, Some(device)) => (*device).clone(),
            (None, None) => Device::default_device()?,
        };
        for (i, hint) in hints.iter().enumerate() {
            if let Some(other) = hint {
                device.expect_same(other, || {
                    format!(
                        "argument {} (`{}`) of kernel `{}`",
                        i + 1,
                        info.params.get(i).copied().unwrap_or("?"),
                        info.name
                    )
                })?;
            }
        }
        let mut launches_nothing = false;
        if let Some(elements) = request.elements {
            if request.grid_given {
                return Err(LaunchError::new(
                    info.name,
                    "`.grid(..)` cannot be combined with `.forall(n)`, which chooses the grid",
                )
                .into());
            }
            launches_nothing = elements == 0;
            config.grid = forall_grid(&device, info, &mut config, elements)?;
        }
        Ok(ArgBinder {
            launches_nothing,
            params: ParamBuffer::default(),
            config,
            info,
            device,
            uploads: Vec::new(),
            copy_backs: Vec::new(),
            waits_for_kernel: false,
            bound: 0,
        })
    }

    /// Whether the launch has nothing to run (`.forall(0)`): the generated `.launch` then
    /// returns `Ok(())` without binding the arguments.
    #[inline]
    pub fn launches_nothing(&self) -> bool {
        self.launches_nothing
    }

    /// The parameter being bound, as `name: type`, for messages.
    fn param(&self) -> &'static str {
        self.info.params.get(self.bound).copied().unwrap_or("?")
    }

    /// Writes a slice through its layout, `SliceAbi::write` (address, then length), after
    /// checking that its length keeps the kernel's 32-bit index arithmetic exact (unless the
    /// kernel is `#[kernel(large_buffers)]`; see `vocabulary/index_range.rs`).
    fn push_slice(&mut self, address: u64, len: usize) -> Result<()> {
        check_slice_len(self.info.name, self.param(), len, self.info.large_buffers)?;
        crate::device::abi::SliceAbi::new(address as usize as *mut u8, len).write(&mut self.params);
        Ok(())
    }

    /// Writes a value; a `usize` is checked like a slice length (the entry narrows it too).
    pub(crate) fn push_value<T: DeviceCopy>(&mut self, value: T) -> Result<()> {
        if let Some(&size) = (&value as &dyn std::any::Any).downcast_ref::<usize>() {
            check_usize_value(self.info.name, self.param(), size, self.info.large_buffers)?;
        }
        <crate::device::abi::Value<T> as crate::device::abi::KernelParam>::write(
            value,
            &mut self.params,
        );
        Ok(())
    }

    #[inline]
    pub(crate) fn push_device_slice(
        &mut self,
        device: &Device,
        address: u64,
        len: usize,
    ) -> Result<()> {
        let index = self.bound;
        let info = self.info;
        self.device.expect_same(device, || {
            format!(
                "argument {} (`{}`) of kernel `{}`",
                index + 1,
                info.params.get(index).copied().unwrap_or("?"),
                info.name
            )
        })?;
        crate::handles::graph::note_bound_address(address);
        self.push_slice(address, len)
    }

    pub(crate) fn push_host_slice<T: DeviceCopy>(&mut self, data: &'a [T]) -> Result<()> {
        // Automatic transfers make the launch synchronous, as in Numba: the upload is freed
        // only once the kernel has finished with it.
        self.waits_for_kernel = true;
        if self.device.is_simulator() {
            // The simulator runs on the host: the kernel reads the caller's memory directly.
            return self.push_slice(data.as_ptr() as u64, data.len());
        }
        check_slice_len(
            self.info.name,
            self.param(),
            data.len(),
            self.info.large_buffers,
        )?;
        let upload = DeviceBuffer::<u8>::from_slice(&self.device, as_bytes(data))?;
        self.push_slice(upload.device_ptr(), data.len())?;
        self.uploads.push(upload);
        Ok(())
    }

    pub(crate) fn push_host_slice_mut<T: DeviceCopy>(&mut self, data: &'a mut [T]) -> Result<()> {
        self.waits_for_kernel = true;
        if self.device.is_simulator() {
            return self.push_slice(data.as_mut_ptr() as u64, data.len());
        }
        let len = data.len();
        check_slice_len(self.info.name, self.param(), len, self.info.large_buffers)?;
        // SAFETY: `T: DeviceCopy` is plain data; the bytes are copied back as they came.
        let host = unsafe {
            std::slice::from_raw_parts_mut(
                data.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(data),
            )
        };
        let device_copy = DeviceBuffer::<u8>::from_slice(&self.device, host)?;
        self.push_slice(device_copy.device_ptr(), len)?;
        self.copy_backs.push(CopyBack { device_copy, host });
        Ok(())
    }

    /// Validates the configuration, launches, and copies `&mut` host slices back.
    pub fn launch(mut self) -> Result<()> {
        let name = self.info.name;
        let shape = self.config.shape();
        let limits = self.device.limits();
        shape.validate(name, limits, self.device.name())?;
        check_grid_extent(name, shape.grid, shape.block)?;
        check_max_block(self.info, shape.block)?;
        if self.info.cooperative {
            check_co_resident(&self.device, self.info, &shape)?;
        }
        let token = self.device.next_token();
        // A cooperative launch says so in the token it passes (see `COOPERATIVE_TOKEN_BIT`);
        // the host keeps the plain token, which the panic records carry.
        let cooperative = if self.info.cooperative {
            COOPERATIVE_TOKEN_BIT
        } else {
            0
        };
        self.params.push(token | cooperative);
        // While a stream captures a graph, a launch on it is recorded, not run (handles/graph.rs).
        if crate::handles::graph::capture_in_progress()
            && crate::handles::graph::capture_launch(
                &self.device,
                self.config.stream.as_ref(),
                self.info,
                &shape,
                &mut self.params,
                token,
                self.waits_for_kernel,
            )?
        {
            return Ok(());
        }
        let stream = self.config.stream.as_ref().map(|stream| &stream.handle);
        let failed = self.device.operate(|backend| {
            backend.launch(
                self.info,
                &shape,
                stream,
                &mut self.params,
                limits,
                self.device.name(),
            )
        })?;
        let stream_key = self
            .config
            .stream
            .as_ref()
            .map_or(DEFAULT_STREAM_KEY, |s| s.key);
        self.device.note_launch(stream_key, token, name, failed);
        if !self.waits_for_kernel {
            return Ok(());
        }
        self.finish()
    }

    /// Waits for the kernel, then copies `&mut` host slices back (a launch with host slices).
    /// A kernel that panicked still ran its other threads: what they wrote is copied back
    /// before the panic is returned.
    fn finish(mut self) -> Result<()> {
        let synchronized = match &self.config.stream {
            Some(stream) => stream.synchronize(),
            None => self.device.default_stream().synchronize(),
        };
        if let Err(error) = &synchronized
            && !matches!(error, Error::KernelPanic(_))
        {
            return synchronized;
        }
        for copy in self.copy_backs.drain(..) {
            let CopyBack { device_copy, host } = copy;
            // SAFETY: `host` has room for `host.len()` bytes, the length uploaded.
            unsafe { device_copy.copy_to_raw(0, host.len(), host.as_mut_ptr())? };
        }
        synchronized
    }
}

/// The grid of a `.forall(elements)` launch: the block is the one given, else the device's
/// suggested block size for the kernel (set in `config`); the grid covers every element with
/// one thread each (one block for no elements, which is not launched).
#[cold]
fn forall_grid(
    device: &Device,
    info: &'static KernelInfo,
    config: &mut LaunchConfig,
    elements: usize,
) -> Result<Dim3> {
    let limits = device.limits();
    if config.block.x == 0 {
        let shared = config.shared_mem_bytes;
        let block = device
            .operate(|backend| backend.suggested_block_size(info, shared, limits, device.name()))?;
        config.block = Dim3::new(block, 1, 1);
    }
    let threads = config.block.product().max(1) as usize;
    let blocks = elements.div_ceil(threads).max(1);
    let limit = limits.max_grid_dim.x;
    match u32::try_from(blocks) {
        Ok(grid) if grid <= limit => Ok(Dim3::new(grid, 1, 1)),
        _ => Err(LaunchError::new(
            info.name,
            format!(
                "forall over {elements} elements needs {blocks} blocks of {threads} threads, more than the limit of {limit} blocks (grid x) on {}",
                device.name()
            ),
        )
        .into()),
    }
}

fn as_bytes<T: DeviceCopy>(data: &[T]) -> &[u8] {
    // SAFETY: `T: DeviceCopy` is plain data without pointers.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}
