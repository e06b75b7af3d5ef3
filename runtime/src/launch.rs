//! Launch configuration, validation against the device's limits, and the launch itself.

use crate::DeviceCopy;
use crate::Dim3;
use crate::buffer::DeviceBuffer;
use crate::cuda::LoadedFunction;
use crate::device_handle::{Device, DeviceLimits};
use crate::error::{LaunchError, Result, driver, shape};
use crate::kernel::KernelInfo;
use crate::params::ParamBuffer;
use crate::stream::Stream;
use cudarc::driver::result;
use cudarc::driver::sys::CUfunction_attribute;
use std::sync::atomic::Ordering;

/// How to launch a kernel: grid and block shape, dynamic shared memory, stream.
#[derive(Clone, Debug)]
pub struct LaunchConfig {
    /// Blocks in the grid along x, y, z.
    pub grid: Dim3,
    /// Threads per block along x, y, z.
    pub block: Dim3,
    /// Dynamic shared memory per block, in bytes.
    pub shared_mem_bytes: u32,
    /// The stream to launch on; `None` is the device's default stream.
    pub stream: Option<Stream>,
}

impl Default for LaunchConfig {
    /// An unset configuration: grid and block are 0 and must be set before launching.
    fn default() -> Self {
        LaunchConfig {
            grid: Dim3::new(0, 0, 0),
            block: Dim3::new(0, 0, 0),
            shared_mem_bytes: 0,
            stream: None,
        }
    }
}

impl LaunchConfig {
    /// A configuration with this grid and block, no dynamic shared memory, default stream.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        LaunchConfig {
            grid: grid.into(),
            block: block.into(),
            ..Default::default()
        }
    }

    /// One thread per element for `n` elements in blocks of `block` threads:
    /// grid = ceil(n / block).
    pub fn for_elements(n: usize, block: u32) -> Self {
        let blocks = n.div_ceil(block.max(1) as usize);
        LaunchConfig::new(u32::try_from(blocks).unwrap_or(u32::MAX), block)
    }

    /// Checks the shape against the device's limits.
    pub(crate) fn validate(
        &self,
        kernel: &'static str,
        device: &Device,
    ) -> Result<(), LaunchError> {
        let limits: &DeviceLimits = device.limits();
        for (what, d) in [("grid", self.grid), ("block", self.block)] {
            if d.x == 0 || d.y == 0 || d.z == 0 {
                return Err(LaunchError::new(
                    kernel,
                    format!(
                        "{what} is {}: every dimension must be at least 1 (set it with `.{what}(...)` or in `launch!(kernel[grid, block](...))`)",
                        shape(d)
                    ),
                ));
            }
        }
        let threads = self.block.product();
        if threads > limits.max_threads_per_block as u64 {
            return Err(LaunchError::new(
                kernel,
                format!(
                    "block of {} threads ({}) exceeds the limit of {} threads per block on {}",
                    threads,
                    shape(self.block),
                    limits.max_threads_per_block,
                    device.name()
                ),
            ));
        }
        for (axis, value, limit) in axes(self.block, limits.max_block_dim) {
            if value > limit {
                return Err(LaunchError::new(
                    kernel,
                    format!(
                        "block {axis} dimension {value} ({}) exceeds the limit of {limit} on {}",
                        shape(self.block),
                        device.name()
                    ),
                ));
            }
        }
        for (axis, value, limit) in axes(self.grid, limits.max_grid_dim) {
            if value > limit {
                return Err(LaunchError::new(
                    kernel,
                    format!(
                        "grid {axis} dimension {value} ({}) exceeds the limit of {limit} blocks on {}",
                        shape(self.grid),
                        device.name()
                    ),
                ));
            }
        }
        if self.shared_mem_bytes > limits.max_shared_memory_per_block_optin {
            return Err(LaunchError::new(
                kernel,
                format!(
                    "{} bytes of dynamic shared memory exceed the limit of {} bytes per block on {}",
                    self.shared_mem_bytes,
                    limits.max_shared_memory_per_block_optin,
                    device.name()
                ),
            ));
        }
        Ok(())
    }
}

fn axes(d: Dim3, limit: Dim3) -> [(char, u32, u32); 3] {
    [
        ('x', d.x, limit.x),
        ('y', d.y, limit.y),
        ('z', d.z, limit.z),
    ]
}

/// Checks what depends on the compiled kernel: registers and static shared memory.
fn validate_function(
    config: &LaunchConfig,
    info: &'static KernelInfo,
    device: &Device,
    function: &LoadedFunction,
) -> Result<()> {
    let threads = config.block.product();
    if threads > function.max_threads_per_block as u64 {
        return Err(LaunchError::new(
            info.name,
            format!(
                "block of {threads} threads ({}) exceeds this kernel's limit of {} threads per block (it uses {} registers per thread)",
                shape(config.block),
                function.max_threads_per_block,
                function.registers
            ),
        )
        .into());
    }
    let optin = device.limits().max_shared_memory_per_block_optin;
    let total = function.static_shared_bytes as u64 + config.shared_mem_bytes as u64;
    if total > optin as u64 {
        return Err(LaunchError::new(
            info.name,
            format!(
                "{} bytes of dynamic shared memory plus {} bytes of static shared memory exceed the limit of {optin} bytes per block on {}",
                config.shared_mem_bytes,
                function.static_shared_bytes,
                device.name()
            ),
        )
        .into());
    }
    if config.shared_mem_bytes > function.dynamic_shared_allowed.load(Ordering::Relaxed) {
        // Above 48 KiB a kernel must opt in to more dynamic shared memory.
        // SAFETY: the function is loaded and alive.
        unsafe {
            result::function::set_function_attribute(
                function.function.cu_function(),
                CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                config.shared_mem_bytes as i32,
            )
        }
        .map_err(driver("cuFuncSetAttribute"))?;
        function
            .dynamic_shared_allowed
            .fetch_max(config.shared_mem_bytes, Ordering::Relaxed);
    }
    Ok(())
}

/// A `&mut` host slice uploaded for a launch, to copy back when the kernel has finished.
struct CopyBack<'a> {
    device_copy: DeviceBuffer<u8>,
    host: &'a mut [u8],
}

/// Collects a launch's arguments, then launches. Used by the code `#[kernel]` generates.
pub struct ArgBinder<'a> {
    config: LaunchConfig,
    info: &'static KernelInfo,
    device: Device,
    params: ParamBuffer,
    uploads: Vec<DeviceBuffer<u8>>,
    copy_backs: Vec<CopyBack<'a>>,
    waits_for_kernel: bool,
    /// Arguments bound so far.
    bound: usize,
}

impl<'a> ArgBinder<'a> {
    /// Chooses the device: the stream's, else the first device argument's, else the default.
    #[inline]
    pub fn new(
        config: LaunchConfig,
        info: &'static KernelInfo,
        hints: &[Option<&Device>],
    ) -> Result<Self> {
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
        Ok(ArgBinder {
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

    /// Binds the next argument.
    pub fn bind<P: crate::device::abi::KernelParam, A: crate::KernelArg<'a, P>>(
        &mut self,
        arg: A,
    ) -> Result<()> {
        let written = self.params.count();
        arg.bind(self)?;
        // The `KernelArg` impl wrote through the shape's layout (`KernelParam::write`).
        debug_assert_eq!(self.params.count() - written, P::ENTRY_PARAMS);
        self.bound += 1;
        Ok(())
    }

    /// Writes a slice through its layout, `SliceAbi::write` (address, then length).
    fn push_slice(&mut self, address: u64, len: usize) {
        crate::device::abi::SliceAbi::new(address as usize as *mut u8, len).write(&mut self.params);
    }

    pub(crate) fn push_value<T: DeviceCopy>(&mut self, value: T) {
        <crate::device::abi::Value<T> as crate::device::abi::KernelParam>::write(
            value,
            &mut self.params,
        );
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
        self.push_slice(address, len);
        Ok(())
    }

    pub(crate) fn push_host_slice<T: DeviceCopy>(&mut self, data: &'a [T]) -> Result<()> {
        // Automatic transfers make the launch synchronous, as in Numba: the upload is freed
        // only once the kernel has finished with it.
        self.waits_for_kernel = true;
        if self.device.is_simulator() {
            // The simulator runs on the host: the kernel reads the caller's memory directly.
            self.push_slice(data.as_ptr() as u64, data.len());
            return Ok(());
        }
        let upload = DeviceBuffer::<u8>::from_slice(&self.device, as_bytes(data))?;
        self.push_slice(upload.device_ptr(), data.len());
        self.uploads.push(upload);
        Ok(())
    }

    pub(crate) fn push_host_slice_mut<T: DeviceCopy>(&mut self, data: &'a mut [T]) -> Result<()> {
        self.waits_for_kernel = true;
        if self.device.is_simulator() {
            self.push_slice(data.as_mut_ptr() as u64, data.len());
            return Ok(());
        }
        let len = data.len();
        // SAFETY: `T: DeviceCopy` is plain data; the bytes are copied back as they came.
        let host = unsafe {
            std::slice::from_raw_parts_mut(
                data.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(data),
            )
        };
        let device_copy = DeviceBuffer::<u8>::from_slice(&self.device, host)?;
        self.push_slice(device_copy.device_ptr(), len);
        self.copy_backs.push(CopyBack { device_copy, host });
        Ok(())
    }

    /// Validates the configuration, launches, and copies `&mut` host slices back.
    pub fn launch(mut self) -> Result<()> {
        let name = self.info.name;
        self.config.validate(name, &self.device)?;
        if let Some(simulator) = self.device.simulator_backend() {
            self.device.note_launch(name);
            if let Err(error) = simulator.launch(self.info, &self.config, &self.params.reader()) {
                self.device.set_pending_error(error);
            }
            return if self.waits_for_kernel {
                self.device.check_pending()
            } else {
                Ok(())
            };
        }
        let cuda = self
            .device
            .cuda()
            .expect("a device is either a GPU or the simulator");
        let function = cuda.function(self.device.id(), self.info)?;
        validate_function(&self.config, self.info, &self.device, &function)?;
        cuda.context
            .bind_to_thread()
            .map_err(driver("cuCtxSetCurrent"))?;
        let mut pointers = self.params.pointers();
        let (g, b) = (self.config.grid, self.config.block);
        // SAFETY: the parameters match the kernel's entry (both generated from one model), and
        // every slice points into a live allocation of this device that outlives the launch:
        // buffers are borrowed for the call, uploads are freed stream-ordered after the kernel.
        unsafe {
            result::launch_kernel(
                function.function.cu_function(),
                (g.x, g.y, g.z),
                (b.x, b.y, b.z),
                self.config.shared_mem_bytes,
                match &self.config.stream {
                    Some(stream) => stream.raw(),
                    None => cuda.default_stream.cu_stream(),
                },
                &mut pointers,
            )
        }
        .map_err(driver("cuLaunchKernel"))?;
        self.device.note_launch(name);
        if !self.waits_for_kernel {
            return Ok(());
        }
        match &self.config.stream {
            Some(stream) => stream.synchronize()?,
            None => self.device.default_stream().synchronize()?,
        }
        for copy in self.copy_backs.drain(..) {
            let CopyBack { device_copy, host } = copy;
            // SAFETY: same length as uploaded.
            unsafe { device_copy.copy_to_raw(0, host.len(), host.as_mut_ptr())? };
        }
        Ok(())
    }
}

fn as_bytes<T: DeviceCopy>(data: &[T]) -> &[u8] {
    // SAFETY: `T: DeviceCopy` is plain data without pointers.
    unsafe { std::slice::from_raw_parts(data.as_ptr().cast::<u8>(), std::mem::size_of_val(data)) }
}
