//! How kernel parameters cross from the host to the device.
//!
//! The `#[kernel]` macro lowers every parameter to one of two shapes, and the host runtime writes
//! exactly these values into the launch's parameter buffer:
//! - `&[T]` and `&mut [T]` become two entry parameters, the element pointer (`.u64 .ptr`, which
//!   the NVPTX backend knows to be global memory) and the length (`.u64`); the entry rebuilds the
//!   slice through [`SliceAbi<T>`];
//! - a value of a [`DeviceCopy`] type is passed as its own bytes (C layout).
//!
//! [`KernelParam`] owns that layout: the host binder writes a parameter with
//! [`KernelParam::write`] into a [`ParamSink`], the simulator entry reads it back with
//! [`KernelParam::read`] from a [`ParamSource`], and the device entry declares
//! [`KernelParam::ENTRY_PARAMS`] parameters per shape.

use core::marker::PhantomData;

/// Types whose values can be copied between host and device bit for bit.
///
/// Implemented for the primitive numeric types, `bool`, the half-precision types ([`crate::half`])
/// and arrays of `DeviceCopy` types. Derive it for your own `#[repr(C)]` structs with
/// `#[derive(DeviceCopy)]`, which checks the requirements.
///
/// # Safety
/// The type must have a C-compatible layout that is the same on the host and on nvptx64
/// (primitive, or `#[repr(C)]` with only `DeviceCopy` fields), contain no pointers or references,
/// and the all-zero bit pattern must be a valid value (device buffers can be zero-initialised).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to or stored on the GPU",
    label = "not a device-copyable type",
    note = "kernel parameters and buffer elements must be primitive numbers, `bool`, `f16`/`bf16` (and their pairs), arrays of them, or `#[repr(C)]` structs with `#[derive(DeviceCopy)]`"
)]
pub unsafe trait DeviceCopy: Copy + 'static {}

macro_rules! device_copy {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive number or `bool`: the same size, alignment and bits on the host
        // and on nvptx64, no pointers, and all-zero bits are a valid value (0, 0.0, false).
        unsafe impl DeviceCopy for $t {}
    )* };
}
device_copy!(
    u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64, bool
);
// SAFETY: an array has the layout of `N` consecutive `T`s on every target, and each `T` meets the
// contract (same layout, no pointers, all-zero bits valid), so the array does too.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}

/// Marker naming the kernel parameter shape `&[T]`.
pub struct Slice<T>(PhantomData<T>);
/// Marker naming the kernel parameter shape `&mut [T]`.
pub struct SliceMut<T>(PhantomData<T>);
/// Marker naming a by-value kernel parameter of type `T`.
pub struct Value<T>(PhantomData<T>);

/// Where the host writes a launch's entry parameters, one after the other (the runtime's
/// parameter buffer implements it).
pub trait ParamSink {
    /// Appends one entry parameter.
    fn push<T>(&mut self, value: T);
}

/// Where the simulator entry reads a launch's entry parameters back, in the order they were
/// written (the runtime's parameter reader implements it).
pub trait ParamSource {
    /// Takes the next entry parameter.
    ///
    /// # Safety
    /// `T` must be the type written for that entry parameter.
    unsafe fn take<T>(&mut self) -> T;
}

/// One kernel parameter shape and its layout: the single description of how a parameter crosses
/// from host to device, used by the host binder ([`KernelParam::write`]), the simulator entry
/// ([`KernelParam::read`]) and the device entry (which declares [`KernelParam::ENTRY_PARAMS`]
/// parameters and rebuilds the value with [`KernelParam::into_target`]).
///
/// The impls have no `DeviceCopy` bound: that requirement is checked once, at the parameter's
/// type, by the code `#[kernel]` generates, and by every `KernelArg` impl that writes a value.
pub trait KernelParam {
    /// The value the entry parameters carry together.
    type Abi;
    /// What the kernel body receives, e.g. `&'a mut [T]`.
    type Target<'a>
    where
        Self: 'a;
    /// How many entry parameters (PTX `.param`s) the shape takes.
    const ENTRY_PARAMS: usize;
    /// Writes the entry parameters of `abi`.
    fn write<S: ParamSink>(abi: Self::Abi, sink: &mut S);
    /// Reads back the entry parameters [`KernelParam::write`] wrote.
    ///
    /// # Safety
    /// The next entry parameters of `source` must have been written for this shape.
    unsafe fn read<S: ParamSource>(source: &mut S) -> Self::Abi;
    /// Turns the entry parameters into what the kernel body receives.
    ///
    /// # Safety
    /// As [`SliceAbi::as_slice`] for slices: the value must describe live memory of the launch.
    unsafe fn into_target<'a>(abi: Self::Abi) -> Self::Target<'a>
    where
        Self: 'a;
}

impl<T> KernelParam for Slice<T> {
    type Abi = SliceAbi<T>;
    type Target<'a>
        = &'a [T]
    where
        Self: 'a;
    const ENTRY_PARAMS: usize = SliceAbi::<T>::ENTRY_PARAMS;
    #[inline(always)]
    fn write<S: ParamSink>(abi: SliceAbi<T>, sink: &mut S) {
        abi.write(sink);
    }
    #[inline(always)]
    unsafe fn read<S: ParamSource>(source: &mut S) -> SliceAbi<T> {
        // SAFETY: the caller guarantees a slice was written here.
        unsafe { SliceAbi::read(source) }
    }
    #[inline(always)]
    unsafe fn into_target<'a>(abi: SliceAbi<T>) -> &'a [T]
    where
        Self: 'a,
    {
        // SAFETY: the caller guarantees the slice is live.
        unsafe { abi.as_slice() }
    }
}

impl<T> KernelParam for SliceMut<T> {
    type Abi = SliceAbi<T>;
    type Target<'a>
        = &'a mut [T]
    where
        Self: 'a;
    const ENTRY_PARAMS: usize = SliceAbi::<T>::ENTRY_PARAMS;
    #[inline(always)]
    fn write<S: ParamSink>(abi: SliceAbi<T>, sink: &mut S) {
        abi.write(sink);
    }
    #[inline(always)]
    unsafe fn read<S: ParamSource>(source: &mut S) -> SliceAbi<T> {
        // SAFETY: the caller guarantees a slice was written here.
        unsafe { SliceAbi::read(source) }
    }
    #[inline(always)]
    unsafe fn into_target<'a>(abi: SliceAbi<T>) -> &'a mut [T]
    where
        Self: 'a,
    {
        // SAFETY: the caller guarantees the slice is live.
        unsafe { abi.as_mut_slice() }
    }
}

impl<T> KernelParam for Value<T> {
    type Abi = T;
    type Target<'a>
        = T
    where
        Self: 'a;
    /// A value is one entry parameter, its own bytes in C layout, unless it is zero-sized:
    /// rustc gives such a value no entry parameter, and the runtime writes none.
    const ENTRY_PARAMS: usize = if core::mem::size_of::<T>() == 0 { 0 } else { 1 };
    #[inline(always)]
    fn write<S: ParamSink>(abi: T, sink: &mut S) {
        sink.push(abi);
    }
    #[inline(always)]
    unsafe fn read<S: ParamSource>(source: &mut S) -> T {
        // SAFETY: the caller guarantees a `T` was written here.
        unsafe { source.take::<T>() }
    }
    #[inline(always)]
    unsafe fn into_target<'a>(abi: T) -> T
    where
        Self: 'a,
    {
        abi
    }
}

/// The address [`SliceAbi::write`] passes for an empty slice, whatever the buffer's own address
/// (an empty buffer may have none). It is never dereferenced; it is non-null and aligned for
/// any element type whose alignment is at most 4096 bytes, so the entry can make a slice of it
/// without testing the length first. Kernels see no difference: an empty slice's address means
/// nothing.
pub const EMPTY_SLICE_ADDRESS: u64 = 4096;

/// A slice as it is passed to a kernel: a device pointer and a length in elements.
#[repr(C)]
#[derive(Debug)]
pub struct SliceAbi<T> {
    /// Device address of the first element: non-null and aligned for `T`, also when `len` is 0
    /// ([`SliceAbi::write`] passes [`EMPTY_SLICE_ADDRESS`] then).
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
    /// A slice is two entry parameters: the element pointer (`.u64 .ptr`: the NVPTX backend then
    /// knows it points to global memory and emits `ld.global`/`st.global`), then the length
    /// (`.u64`).
    pub const ENTRY_PARAMS: usize = 2;

    /// A slice descriptor from a pointer and a length.
    pub const fn new(ptr: *mut T, len: usize) -> Self {
        SliceAbi { ptr, len }
    }

    /// Writes the two entry parameters: the address ([`EMPTY_SLICE_ADDRESS`] for an empty
    /// slice), then the length.
    #[inline(always)]
    pub fn write<S: ParamSink>(self, sink: &mut S) {
        let address = if self.len == 0 {
            EMPTY_SLICE_ADDRESS
        } else {
            self.ptr as u64
        };
        sink.push(address);
        sink.push(self.len as u64);
    }

    /// Reads back the two entry parameters [`SliceAbi::write`] wrote.
    ///
    /// # Safety
    /// The next two entry parameters of `source` must be a slice's address and length, as
    /// [`SliceAbi::write`] writes them.
    #[inline(always)]
    pub unsafe fn read<S: ParamSource>(source: &mut S) -> Self {
        // SAFETY: the caller guarantees the two words are an address and a length.
        let (ptr, len) = unsafe { (source.take::<u64>(), source.take::<u64>()) };
        SliceAbi::new(ptr as usize as *mut T, len as usize)
    }

    /// Whether `ptr` may not be usable for an empty slice: only an element type aligned to
    /// more than [`EMPTY_SLICE_ADDRESS`] needs the length tested (a constant per type).
    #[inline(always)]
    fn empty_needs_dangling(self) -> bool {
        core::mem::align_of::<T>() as u64 > EMPTY_SLICE_ADDRESS && self.len == 0
    }

    /// The slice a kernel sees.
    ///
    /// # Safety
    /// `ptr` must be non-null and aligned for `T` and point to `len` initialised elements that
    /// stay valid for `'a` (the runtime guarantees this for the arguments of a launch, writing
    /// [`EMPTY_SLICE_ADDRESS`] for an empty one).
    #[inline(always)]
    pub unsafe fn as_slice<'a>(self) -> &'a [T] {
        if self.empty_needs_dangling() {
            &[]
        } else {
            // SAFETY: the caller guarantees a non-null, aligned `ptr` and `len` live,
            // initialised elements at it; for an empty slice with an alignment above
            // `EMPTY_SLICE_ADDRESS` the branch above is taken instead.
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
        if self.empty_needs_dangling() {
            &mut []
        } else {
            // SAFETY: as in `as_slice`: a non-null, aligned `ptr` and `len` live, initialised
            // elements at it.
            unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
        }
    }
}
