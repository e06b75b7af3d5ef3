//! What the device-wide algorithms accept as their device inputs and outputs: a whole buffer
//! or a sub-slice of one, through one conversion each.
//!
//! | argument | input (`impl DeviceInput<T>`) | output (`impl DeviceOutput<T>`) |
//! |---|---|---|
//! | whole buffer | `&DeviceBuffer<T>` | `&mut DeviceBuffer<T>` |
//! | part of one | `buffer.slice(a..b)` | `buffer.slice_mut(a..b)` |
//!
//! Rust's borrows keep an output from overlapping an input of the same buffer: a
//! `slice_mut` of a buffer cannot coexist with any other view of it, so an in-place operation
//! or a copy between overlapping parts of one buffer does not compile.

use ferrocuda::{DeviceBuffer, DeviceCopy, DeviceSlice, DeviceSliceMut};

/// A device input of an algorithm: `&DeviceBuffer<T>` or a [`DeviceSlice`].
pub trait DeviceInput<'a, T: DeviceCopy> {
    /// The elements, as a view.
    fn device_slice(self) -> DeviceSlice<'a, T>;
}

impl<'a, T: DeviceCopy> DeviceInput<'a, T> for &'a DeviceBuffer<T> {
    fn device_slice(self) -> DeviceSlice<'a, T> {
        self.slice(..)
    }
}

impl<'a, T: DeviceCopy> DeviceInput<'a, T> for DeviceSlice<'a, T> {
    fn device_slice(self) -> DeviceSlice<'a, T> {
        self
    }
}

/// A device output of an algorithm: `&mut DeviceBuffer<T>` or a [`DeviceSliceMut`].
pub trait DeviceOutput<'a, T: DeviceCopy> {
    /// The elements, as a mutable view.
    fn device_slice_mut(self) -> DeviceSliceMut<'a, T>;
}

impl<'a, T: DeviceCopy> DeviceOutput<'a, T> for &'a mut DeviceBuffer<T> {
    fn device_slice_mut(self) -> DeviceSliceMut<'a, T> {
        self.slice_mut(..)
    }
}

impl<'a, T: DeviceCopy> DeviceOutput<'a, T> for DeviceSliceMut<'a, T> {
    fn device_slice_mut(self) -> DeviceSliceMut<'a, T> {
        self
    }
}
