//! Constant memory on the GPU: the storage behind `#[constant]` statics.
//!
//! ```ignore
//! // In a kernel crate:
//! #[constant]
//! pub static FACTORS: [f32; 2] = [1.0, 1.0];
//!
//! #[kernel]
//! pub fn scale(a: &mut [f32]) {
//!     let i = grid!(1);
//!     if i < a.len() {
//!         a[i] *= FACTORS[block_idx().x as usize];   // or FACTORS.get()[..]
//!     }
//! }
//!
//! // On the host, before launching:
//! FACTORS.write(&device, &[2.0, 3.0])?;
//! ```
//!
//! Compiled for the GPU, `#[constant]` makes the static a [`Constant<T>`] in the link section
//! `.ferrocuda.constant` under its own (unmangled) name; `nvptx-builder` moves it to the `.const`
//! state space, where every thread of a warp reading the same address is served by one broadcast
//! from the constant cache (64 KiB per module). Compiled for the host, the same static is a
//! `ferrocuda::ConstantSymbol<T>`, which reads the simulator's copy inside kernels and writes or
//! reads the device's copy from host code.

use crate::DeviceCopy;
use core::cell::UnsafeCell;

/// A value in the GPU's constant memory, read by kernels and written by the host between
/// launches. Made by `#[constant]`.
///
/// It holds its value in an `UnsafeCell`, so the compiler never folds the initial value into the
/// code: kernels see what the host wrote last.
#[repr(transparent)]
pub struct Constant<T> {
    value: UnsafeCell<T>,
}

// SAFETY: kernels only read the value; the host writes it between launches, through the driver.
unsafe impl<T: DeviceCopy> Sync for Constant<T> {}

impl<T: DeviceCopy> Constant<T> {
    /// A constant with this initial value (what kernels see until the host writes another).
    pub const fn new(value: T) -> Self {
        Constant {
            value: UnsafeCell::new(value),
        }
    }

    /// The current value (`ld.const`).
    #[inline(always)]
    pub fn get(&self) -> T {
        // SAFETY: nothing writes the value while a kernel runs.
        unsafe { *self.value.get() }
    }
}

impl<T: DeviceCopy> core::ops::Deref for Constant<T> {
    type Target = T;
    /// The value in place: `FACTORS[i]` loads one element instead of copying the array.
    #[inline(always)]
    fn deref(&self) -> &T {
        // SAFETY: as in `get`.
        unsafe { &*self.value.get() }
    }
}

impl<T: DeviceCopy + core::fmt::Debug> core::fmt::Debug for Constant<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Constant").field(&self.get()).finish()
    }
}
