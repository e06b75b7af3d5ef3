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
use crate::handles::device::Device;
use crate::vocabulary::error::Result;
use crate::vocabulary::kernel::PtxModule;

/// A `#[constant]` static as the host sees it: the symbol's name, its initial value and the PTX
/// module holding it.
///
/// Inside a kernel running on the simulator, [`get`](Self::get) and `*`/indexing read the launch's
/// value, as `Constant<T>` does on the GPU. From host code, [`write`](Self::write) and
/// [`read`](Self::read) reach the copy on a given device.
pub struct ConstantSymbol<T> {
    /// The symbol's name in the PTX module.
    name: &'static str,
    /// The initial value.
    init: T,
    /// The PTX module holding the symbol.
    module: &'static PtxModule,
}

// No `DeviceCopy` bound on the struct and `__new`: `#[constant]` checks the type itself, so a
// wrong type gives one error at the type instead of one more per use here.
impl<T> ConstantSymbol<T> {
    /// Used by `#[constant]`.
    ///
    /// # Safety
    /// The value must be stored in a `static` (its address must live for the whole program).
    #[doc(hidden)]
    pub const unsafe fn __new(name: &'static str, init: T, module: &'static PtxModule) -> Self {
        ConstantSymbol { name, init, module }
    }
}

impl<T: DeviceCopy> ConstantSymbol<T> {
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
        // SAFETY: `__new` is unsafe and requires a static, so `self` lives for the whole
        // program and extending the borrow to 'static is sound.
        let this: &'static Self = unsafe { &*(self as *const Self) };
        // SAFETY: `init` is a live `T` of `size_of::<T>()` bytes, and `T: DeviceCopy` is plain
        // data without padding reads that matter (its bytes are copied as they are).
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
        device.refuse_while_capturing("ConstantSymbol::write")?;
        device.operate(|backend| {
            backend.write_constant(
                self.module,
                self.name,
                self.init_bytes(),
                bytes,
                std::any::type_name::<T>(),
            )
        })
    }

    /// Reads the symbol's current value on `device` (after the work queued on its default
    /// stream). Like other copies back, reports a kernel panic of the launches before it.
    pub fn read(&'static self, device: &Device) -> Result<T> {
        let mut value = std::mem::MaybeUninit::<T>::uninit();
        // SAFETY: `value` has room for `size_of::<T>()` bytes.
        let bytes = unsafe {
            std::slice::from_raw_parts_mut(value.as_mut_ptr().cast::<u8>(), size_of::<T>())
        };
        device.refuse_while_capturing("ConstantSymbol::read")?;
        device.operate(|backend| {
            backend.read_constant(
                self.module,
                self.name,
                self.init_bytes(),
                bytes,
                std::any::type_name::<T>(),
            )
        })?;
        device.check_pending()?;
        // SAFETY: every byte was written by the read, and any bits are a valid `DeviceCopy`
        // value.
        Ok(unsafe { value.assume_init() })
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
