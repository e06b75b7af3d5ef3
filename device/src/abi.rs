//! How kernel parameters cross from the host to the device.
//!
//! The `#[kernel]` macro lowers every parameter to one of two shapes, and the host runtime writes
//! exactly these values into the launch's parameter buffer:
//! - `&[T]` and `&mut [T]` become two entry parameters, the element pointer (`.u64 .ptr`, which
//!   the NVPTX backend knows to be global memory) and the length (`.u64`); the entry rebuilds the
//!   slice through [`SliceAbi<T>`];
//! - a value of a [`DeviceCopy`] type is passed as its own bytes (C layout).

use core::marker::PhantomData;

/// Types whose values can be copied between host and device bit for bit.
///
/// Implemented for the primitive numeric types, `bool` and arrays of `DeviceCopy` types. Derive it
/// for your own `#[repr(C)]` structs with `#[derive(DeviceCopy)]`, which checks the requirements.
///
/// # Safety
/// The type must have a C-compatible layout that is the same on the host and on nvptx64
/// (primitive, or `#[repr(C)]` with only `DeviceCopy` fields), contain no pointers or references,
/// and the all-zero bit pattern must be a valid value (device buffers can be zero-initialised).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to or stored on the GPU",
    label = "not a device-copyable type",
    note = "kernel parameters and buffer elements must be primitive numbers, `bool`, arrays of them, or `#[repr(C)]` structs with `#[derive(DeviceCopy)]`"
)]
pub unsafe trait DeviceCopy: Copy + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => { $(unsafe impl DeviceCopy for $t {})* };
}
device_copy!(
    u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64, bool
);
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

/// Marker naming the kernel parameter shape `&[T]`.
pub struct Slice<T>(PhantomData<T>);
/// Marker naming the kernel parameter shape `&mut [T]`.
pub struct SliceMut<T>(PhantomData<T>);
/// Marker naming a by-value kernel parameter of type `T`.
pub struct Value<T>(PhantomData<T>);

/// Describes one kernel parameter shape: what the host must write for it.
pub trait KernelParam {
    /// The bytes the device entry receives for this parameter.
    type Abi: Copy;
    /// Human-readable form of the parameter type, e.g. `&mut [f32]`, for error messages.
    const DESCRIPTION: &'static str;
}

impl<T: DeviceCopy> KernelParam for Slice<T> {
    type Abi = SliceAbi<T>;
    const DESCRIPTION: &'static str = "&[T]";
}
impl<T: DeviceCopy> KernelParam for SliceMut<T> {
    type Abi = SliceAbi<T>;
    const DESCRIPTION: &'static str = "&mut [T]";
}
impl<T: DeviceCopy> KernelParam for Value<T> {
    type Abi = T;
    const DESCRIPTION: &'static str = "T";
}

/// A slice as it is passed to a kernel: a device pointer and a length in elements.
#[repr(C)]
#[derive(Debug)]
pub struct SliceAbi<T> {
    /// Device address of the first element (may be null when `len` is 0).
    pub ptr: *mut T,
    /// Number of elements.
    pub len: usize,
}

impl<T> Clone for SliceAbi<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SliceAbi<T> {}

impl<T> SliceAbi<T> {
    /// A slice descriptor from a pointer and a length.
    pub const fn new(ptr: *mut T, len: usize) -> Self {
        SliceAbi { ptr, len }
    }

    /// The slice a kernel sees.
    ///
    /// # Safety
    /// `ptr` must point to `len` initialised elements that stay valid for `'a` (the runtime
    /// guarantees this for the arguments of a launch).
    #[inline(always)]
    pub unsafe fn as_slice<'a>(self) -> &'a [T] {
        if self.len == 0 {
            &[]
        } else {
            unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
        }
    }

    /// The mutable slice a kernel sees.
    ///
    /// # Safety
    /// As [`SliceAbi::as_slice`]; other threads of the launch may see the same memory, which is
    /// why concurrent writes to one element are the kernel author's duty to avoid.
    #[inline(always)]
    pub unsafe fn as_mut_slice<'a>(self) -> &'a mut [T] {
        if self.len == 0 {
            &mut []
        } else {
            unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
        }
    }
}
