//! [`KernelArg`]: what may be passed for each kernel parameter shape, checked at compile time.

use crate::DeviceCopy;
use crate::device::abi::{KernelParam, Slice, SliceMut, Value};
use crate::handles::buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut};
use crate::handles::device::Device;
use crate::launch::binder::ArgBinder;
use crate::vocabulary::error::Result;

/// A host value that can be passed for a kernel parameter of shape `P`.
///
/// | kernel parameter | accepted arguments |
/// |---|---|
/// | `&[T]` | `&DeviceBuffer<T>`, `&mut DeviceBuffer<T>`, `DeviceSlice<T>`, `&[T]`, `&Vec<T>`, `&[T; N]` |
/// | `&mut [T]` | `&mut DeviceBuffer<T>`, `DeviceSliceMut<T>`, `&mut [T]`, `&mut Vec<T>`, `&mut [T; N]` |
/// | `T` | `T`, `&T` |
///
/// Host slices are copied to the device for the launch (like Numba's automatic transfers), and
/// `&mut` host slices are copied back when the kernel has finished, so such a launch waits for
/// the kernel.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a kernel parameter of shape `{P}`",
    label = "wrong argument type for this kernel parameter",
    note = "a `&[T]` parameter takes `&DeviceBuffer<T>`, a `DeviceSlice<T>`, `&[T]` or `&Vec<T>`; a `&mut [T]` parameter takes `&mut DeviceBuffer<T>`, a `DeviceSliceMut<T>`, `&mut [T]` or `&mut Vec<T>`; a value parameter takes a value of exactly its type"
)]
pub trait KernelArg<'a, P: KernelParam> {
    /// The device the argument lives on, if it lives on one.
    fn device_hint(&self) -> Option<&Device> {
        None
    }
    /// Writes the argument into the launch.
    #[doc(hidden)]
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()>;
}

impl<'a, T: DeviceCopy> KernelArg<'a, Slice<T>> for &'a DeviceBuffer<T> {
    fn device_hint(&self) -> Option<&Device> {
        Some(self.device())
    }
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_device_slice(self.device(), self.device_ptr(), self.len())
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, Slice<T>> for &'a mut DeviceBuffer<T> {
    fn device_hint(&self) -> Option<&Device> {
        Some(self.device())
    }
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_device_slice(self.device(), self.device_ptr(), self.len())
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, SliceMut<T>> for &'a mut DeviceBuffer<T> {
    fn device_hint(&self) -> Option<&Device> {
        Some(self.device())
    }
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_device_slice(self.device(), self.device_ptr(), self.len())
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, Slice<T>> for DeviceSlice<'a, T> {
    fn device_hint(&self) -> Option<&Device> {
        Some(self.buffer.device())
    }
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_device_slice(
            self.buffer.device(),
            self.buffer.address_of(self.offset),
            self.len,
        )
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, SliceMut<T>> for DeviceSliceMut<'a, T> {
    fn device_hint(&self) -> Option<&Device> {
        Some(self.buffer.device())
    }
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_device_slice(
            self.buffer.device(),
            self.buffer.address_of(self.offset),
            self.len,
        )
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, Slice<T>> for &'a [T] {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_host_slice(self)
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, Slice<T>> for &'a Vec<T> {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_host_slice(self.as_slice())
    }
}

impl<'a, T: DeviceCopy, const N: usize> KernelArg<'a, Slice<T>> for &'a [T; N] {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_host_slice(self.as_slice())
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, SliceMut<T>> for &'a mut [T] {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_host_slice_mut(self)
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, SliceMut<T>> for &'a mut Vec<T> {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_host_slice_mut(self.as_mut_slice())
    }
}

impl<'a, T: DeviceCopy, const N: usize> KernelArg<'a, SliceMut<T>> for &'a mut [T; N] {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_host_slice_mut(self.as_mut_slice())
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, Value<T>> for T {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_value(self)
    }
}

impl<'a, T: DeviceCopy> KernelArg<'a, Value<T>> for &T {
    fn bind(self, binder: &mut ArgBinder<'a>) -> Result<()> {
        binder.push_value(*self)
    }
}
