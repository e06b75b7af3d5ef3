//! The host side of constant memory: what a `#[constant]` static is when the kernel crate is
//! compiled for the host.
//!
//! ```ignore
//! #[constant]
//! pub static FACTORS: [f32; 2] = [1.0, 1.0];
//!
//! FACTORS.write(&device, &[2.0, 0.5])?;    // before the launches that read it
//! assert_eq!(FACTORS.read(&device)?, [2.0, 0.5]);
//! ```
//!
//! On a GPU the value lives in the `.const` global of the kernel crate's PTX module (loaded on
//! first use); on the simulator in the simulator's copy of the symbol, which kernels read through
//! `FACTORS.get()` or `FACTORS[i]`.

use crate::device::DeviceCopy;
use crate::device_handle::{Device, DeviceKind};
use crate::error::{Error, Result, driver};
use crate::kernel::PtxModule;
use cudarc::driver::{DevicePtr, result};

/// A `#[constant]` static as the host sees it: the symbol's name, its initial value and the PTX
/// module holding it.
///
/// Inside a kernel running on the simulator, [`get`](Self::get) and `*`/indexing read the launch's
/// value, as `Constant<T>` does on the GPU. From host code, [`write`](Self::write) and
/// [`read`](Self::read) reach the copy on a given device.
pub struct ConstantSymbol<T: DeviceCopy> {
    name: &'static str,
    init: T,
    module: &'static PtxModule,
}

impl<T: DeviceCopy> ConstantSymbol<T> {
    /// Used by `#[constant]`.
    ///
    /// # Safety
    /// The value must be stored in a `static` (its address must live for the whole program).
    #[doc(hidden)]
    pub const unsafe fn __new(name: &'static str, init: T, module: &'static PtxModule) -> Self {
        ConstantSymbol { name, init, module }
    }

    /// The symbol's name in the PTX module (the static's name).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The initial value, as written in the source.
    pub fn initial_value(&self) -> &T {
        &self.init
    }

    /// The initial value's bytes.
    fn init_bytes(&self) -> &'static [u8] {
        // SAFETY: `__new` requires a static, so `self` lives for the whole program; `T` is
        // `DeviceCopy`, plain bytes.
        let this: &'static Self = unsafe { &*(self as *const Self) };
        unsafe { std::slice::from_raw_parts((&raw const this.init).cast::<u8>(), size_of::<T>()) }
    }

    /// The launch's copy of the value, inside a kernel running on the simulator.
    fn simulated(&self) -> *const T {
        let ptr = crate::device::sim::hooks()
            .constant(self.name, self.init_bytes())
            .cast::<T>();
        assert!(
            ptr.is_aligned(),
            "ferrocuda: the simulator's copy of constant `{}` is not aligned for its type",
            self.name
        );
        ptr
    }

    /// The current value, inside a kernel running on the simulator (what `Constant::get` is on
    /// the GPU).
    ///
    /// # Panics
    /// When called outside a kernel launch: host code uses [`read`](Self::read).
    #[track_caller]
    pub fn get(&self) -> T {
        // SAFETY: the simulator's storage holds a `T` and nothing writes it during a launch.
        unsafe { self.simulated().read() }
    }

    /// Writes `value` to the symbol on `device`, for the launches that follow.
    ///
    /// Ordered like CUDA's `cudaMemcpyToSymbol`: after the work queued on the device's default
    /// stream, before what is queued after it. Synchronize other streams first if kernels still
    /// running on them read the symbol.
    pub fn write(&'static self, device: &Device, value: &T) -> Result<()> {
        // SAFETY: `T` is `DeviceCopy`: its bytes can be copied as they are.
        let bytes =
            unsafe { std::slice::from_raw_parts((value as *const T).cast::<u8>(), size_of::<T>()) };
        match &device.inner.kind {
            DeviceKind::Cuda(cuda) => {
                let address = self.device_address(device)?;
                cuda.context
                    .bind_to_thread()
                    .map_err(driver("cuCtxSetCurrent"))?;
                // SAFETY: `address` is the symbol, `size_of::<T>()` bytes (checked).
                unsafe { result::memcpy_htod_sync(address, bytes) }.map_err(driver("cuMemcpyHtoD"))
            }
            DeviceKind::Simulator(sim) => {
                let storage = sim.constant_storage(self.name, self.init_bytes());
                // SAFETY: the storage holds `size_of::<T>()` bytes; launches on the simulator run
                // synchronously, so none is reading it now.
                unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), storage, bytes.len()) };
                Ok(())
            }
        }
    }

    /// Reads the symbol's current value on `device` (after the work queued on its default
    /// stream). Like other copies back, reports a kernel panic of the launches before it.
    pub fn read(&'static self, device: &Device) -> Result<T> {
        let mut value = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `value` has room for `size_of::<T>()` bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(value.as_mut_ptr().cast::<u8>(), size_of::<T>())
        };
        match &device.inner.kind {
            DeviceKind::Cuda(cuda) => {
                let address = self.device_address(device)?;
                cuda.context
                    .bind_to_thread()
                    .map_err(driver("cuCtxSetCurrent"))?;
                // SAFETY: as in `write`.
                unsafe { result::memcpy_dtoh_sync(bytes, address) }
                    .map_err(driver("cuMemcpyDtoH"))?;
            }
            DeviceKind::Simulator(sim) => {
                let storage = sim.constant_storage(self.name, self.init_bytes());
                // SAFETY: as in `write`.
                unsafe { std::ptr::copy_nonoverlapping(storage, bytes.as_mut_ptr(), bytes.len()) };
            }
        }
        device.check_pending()?;
        // SAFETY: every byte was written, and any bits are a valid `DeviceCopy` value.
        Ok(unsafe { value.assume_init() })
    }

    /// The symbol's device address on a GPU, loading the module on first use.
    fn device_address(&self, device: &Device) -> Result<u64> {
        let cuda = device.cuda().expect("called for GPUs only");
        let loaded = cuda.module(self.module)?;
        let view = loaded
            .module
            .get_global(self.name, &cuda.default_stream)
            .map_err(|e| Error::Module {
                module: self.module.crate_name,
                message: format!(
                    "constant `{}` is not in the module ({})",
                    self.name,
                    Error::driver("cuModuleGetGlobal", e)
                ),
            })?;
        if view.len() != size_of::<T>() {
            return Err(Error::Module {
                module: self.module.crate_name,
                message: format!(
                    "constant `{}` has {} bytes in the module but its Rust type `{}` has {}",
                    self.name,
                    view.len(),
                    std::any::type_name::<T>(),
                    size_of::<T>()
                ),
            });
        }
        Ok(view.device_ptr(&cuda.default_stream).0)
    }
}

impl<T: DeviceCopy> std::ops::Deref for ConstantSymbol<T> {
    type Target = T;
    /// The value in place, inside a kernel running on the simulator: `FACTORS[i]`.
    ///
    /// # Panics
    /// When used outside a kernel launch.
    fn deref(&self) -> &T {
        // SAFETY: the simulator keeps the storage for its whole life and nothing writes it
        // during a launch.
        unsafe { &*self.simulated() }
    }
}

impl<T: DeviceCopy> std::fmt::Debug for ConstantSymbol<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConstantSymbol")
            .field("name", &self.name)
            .field("module", &self.module.crate_name)
            .finish()
    }
}
