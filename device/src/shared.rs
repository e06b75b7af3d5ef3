//! Shared memory: arrays that every thread of a block sees, static
//! ([`shared_array!`](crate::shared_array)) or sized at launch ([`dynamic_shared_array`],
//! [`DynamicShared`]).
//!
//! ```ignore
//! use ferrocuda::prelude::*;
//!
//! #[kernel]
//! pub fn block_sum(input: &[f32], partial: &mut [f32]) {
//!     let mut cache = shared_array!(f32; 256);         // 256 floats per block
//!     let t = thread_idx().x as usize;
//!     let i = grid!(1);
//!     cache[t] = if i < input.len() { input[i] } else { 0.0 };
//!     syncthreads();
//!     // ... tree reduction over `cache` ...
//! }
//! ```
//!
//! The handles ([`SharedArray`], [`SharedArray2d`], [`SharedSlice`]) are `Copy` pointers to the
//! block's memory: copy them into helper functions freely. Writing through `tile[i] = x` needs a
//! `let mut` binding (Rust's `IndexMut` takes `&mut self`); [`SharedArray::set`] and
//! [`SharedArray::get`] work through a shared binding. Every index is bounds-checked (a panic
//! naming the index and the length); the `unsafe` `get_unchecked`/`set_unchecked` skip the check
//! for hot loops.
//!
//! On the simulator every plain access (`[i]`, `get`, `set`, and the unchecked forms) is reported
//! to its race detector, which flags two threads touching the same bytes between two barriers
//! when one of them writes. Atomic operations on shared memory ([`SharedArray::atomic_add`] and
//! friends) are not reported: they never race.
//!
//! Like CUDA's `__shared__` variables, a static shared array cannot depend on a generic parameter
//! of the function declaring it (Rust does not allow generic statics): in generic kernels, take the
//! memory from [`DynamicShared`] instead.

use crate::bounds::{self, Container};
#[cfg(not(target_arch = "nvptx64"))]
use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

/// Reports a plain access of `bytes` bytes at `address` to the simulator's race detector.
#[inline(always)]
#[track_caller]
fn report_access(address: *const u8, bytes: usize, write: bool) {
    #[cfg(not(target_arch = "nvptx64"))]
    crate::sim::hooks().shared_access(address, bytes, write, core::panic::Location::caller());
    #[cfg(target_arch = "nvptx64")]
    let _ = (address, bytes, write);
}

/// A block-wide array of `N` elements of `T` in static shared memory, made by
/// [`shared_array!`](crate::shared_array).
///
/// A `Copy` handle: every copy refers to the same memory. Shared memory starts uninitialised
/// (garbage on the GPU): write each element before reading it, with a barrier in between when
/// another thread wrote it.
pub struct SharedArray<T, const N: usize> {
    ptr: *mut T,
}

impl<T, const N: usize> Clone for SharedArray<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for SharedArray<T, N> {}

impl<T, const N: usize> core::fmt::Debug for SharedArray<T, N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedArray")
            .field("ptr", &self.ptr)
            .field("len", &N)
            .finish()
    }
}

impl<T, const N: usize> SharedArray<T, N> {
    /// The handle of the static at `ptr` (used by `shared_array!` on the GPU).
    ///
    /// # Safety
    /// `ptr` must point to `N` elements of block-shared memory, valid for the whole launch.
    #[doc(hidden)]
    #[inline(always)]
    pub const unsafe fn __from_static(ptr: *mut T) -> Self {
        SharedArray { ptr }
    }

    /// The block's copy of the array declared at `site` (used by `shared_array!` on the
    /// simulator).
    #[doc(hidden)]
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline]
    #[track_caller]
    pub fn __from_site(key: usize) -> Self {
        let ptr = crate::sim::hooks().shared_static(crate::sim::SharedSite {
            key,
            bytes: core::mem::size_of::<[T; N]>(),
            align: core::mem::align_of::<T>(),
        });
        SharedArray { ptr: ptr.cast() }
    }

    /// The number of elements, `N`.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether the array has no elements (`N == 0`).
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// A pointer to the first element (a generic address of shared memory on the GPU).
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// The element at `index`, copied out.
    ///
    /// # Panics
    /// When `index >= N`.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: usize) -> T
    where
        T: Copy,
    {
        bounds::check(Container::SharedArray, index, N);
        // SAFETY: checked above; the memory is valid for the launch.
        unsafe { self.get_unchecked(index) }
    }

    /// Writes `value` at `index`.
    ///
    /// # Panics
    /// When `index >= N`.
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, index: usize, value: T) {
        bounds::check(Container::SharedArray, index, N);
        // SAFETY: checked above.
        unsafe { self.set_unchecked(index, value) }
    }

    /// The element at `index`, without a bounds check.
    ///
    /// # Safety
    /// `index < N`, and the element must have been written.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn get_unchecked(&self, index: usize) -> T
    where
        T: Copy,
    {
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), false);
        unsafe { p.read() }
    }

    /// Writes `value` at `index`, without a bounds check.
    ///
    /// # Safety
    /// `index < N`.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn set_unchecked(&self, index: usize, value: T) {
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), true);
        // `write`, not `*p = value`: the old contents may be uninitialised and must not be dropped.
        unsafe { p.write(value) }
    }

    /// Checked pointer to the element at `index` for atomics (not reported as a plain access).
    #[inline(always)]
    #[track_caller]
    fn atomic_slot(&self, index: usize) -> *mut T {
        bounds::check(Container::SharedArray, index, N);
        unsafe { self.ptr.add(index) }
    }
}

impl<T, const N: usize> Index<usize> for SharedArray<T, N> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, index: usize) -> &T {
        bounds::check(Container::SharedArray, index, N);
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), false);
        // SAFETY: in bounds; block-shared memory stays valid for the launch.
        unsafe { &*p }
    }
}

impl<T, const N: usize> IndexMut<usize> for SharedArray<T, N> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: usize) -> &mut T {
        bounds::check(Container::SharedArray, index, N);
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), true);
        // SAFETY: as in `index`.
        unsafe { &mut *p }
    }
}

/// A block-wide `R` x `C` row-major array in static shared memory, made by
/// `shared_array!(T; R, C)` and indexed `tile[(row, col)]`.
///
/// Pad the row length to dodge bank conflicts as in CUDA: `shared_array!(f32; 16, 17)` for a
/// 16x16 tile read by columns.
pub struct SharedArray2d<T, const R: usize, const C: usize> {
    ptr: *mut T,
}

impl<T, const R: usize, const C: usize> Clone for SharedArray2d<T, R, C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const R: usize, const C: usize> Copy for SharedArray2d<T, R, C> {}

impl<T, const R: usize, const C: usize> core::fmt::Debug for SharedArray2d<T, R, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedArray2d")
            .field("ptr", &self.ptr)
            .field("rows", &R)
            .field("cols", &C)
            .finish()
    }
}

impl<T, const R: usize, const C: usize> SharedArray2d<T, R, C> {
    /// The handle of the static at `ptr` (used by `shared_array!` on the GPU).
    ///
    /// # Safety
    /// `ptr` must point to `R * C` elements of block-shared memory, valid for the whole launch.
    #[doc(hidden)]
    #[inline(always)]
    pub const unsafe fn __from_static(ptr: *mut T) -> Self {
        SharedArray2d { ptr }
    }

    /// The block's copy of the array declared at `site` (used by `shared_array!` on the
    /// simulator).
    #[doc(hidden)]
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline]
    #[track_caller]
    pub fn __from_site(key: usize) -> Self {
        let ptr = crate::sim::hooks().shared_static(crate::sim::SharedSite {
            key,
            bytes: core::mem::size_of::<[[T; C]; R]>(),
            align: core::mem::align_of::<T>(),
        });
        SharedArray2d { ptr: ptr.cast() }
    }

    /// The number of rows, `R`.
    #[inline(always)]
    pub const fn rows(&self) -> usize {
        R
    }

    /// The number of columns, `C`.
    #[inline(always)]
    pub const fn cols(&self) -> usize {
        C
    }

    /// The number of elements, `R * C`.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        R * C
    }

    /// Whether the array has no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        R * C == 0
    }

    /// A pointer to element (0, 0); element (r, c) is at offset `r * C + c`.
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// The whole array as a one-dimensional handle over its `R * C` elements in row-major order.
    #[inline(always)]
    pub fn flat(&self) -> SharedSlice<T> {
        SharedSlice {
            ptr: self.ptr,
            len: R * C,
        }
    }

    /// The element at `(row, col)`, copied out.
    ///
    /// # Panics
    /// When `row >= R` or `col >= C`.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, (row, col): (usize, usize)) -> T
    where
        T: Copy,
    {
        bounds::check_2d(Container::SharedArray, (row, col), (R, C));
        unsafe { self.get_unchecked((row, col)) }
    }

    /// Writes `value` at `(row, col)`.
    ///
    /// # Panics
    /// When `row >= R` or `col >= C`.
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, (row, col): (usize, usize), value: T) {
        bounds::check_2d(Container::SharedArray, (row, col), (R, C));
        unsafe { self.set_unchecked((row, col), value) }
    }

    /// The element at `(row, col)`, without bounds checks.
    ///
    /// # Safety
    /// `row < R`, `col < C`, and the element must have been written.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn get_unchecked(&self, (row, col): (usize, usize)) -> T
    where
        T: Copy,
    {
        let p = unsafe { self.ptr.add(row * C + col) };
        report_access(p.cast(), core::mem::size_of::<T>(), false);
        unsafe { p.read() }
    }

    /// Writes `value` at `(row, col)`, without bounds checks.
    ///
    /// # Safety
    /// `row < R` and `col < C`.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn set_unchecked(&self, (row, col): (usize, usize), value: T) {
        let p = unsafe { self.ptr.add(row * C + col) };
        report_access(p.cast(), core::mem::size_of::<T>(), true);
        unsafe { p.write(value) }
    }

    /// Checked pointer to element `(row, col)` for atomics.
    #[inline(always)]
    #[track_caller]
    fn atomic_slot(&self, (row, col): (usize, usize)) -> *mut T {
        bounds::check_2d(Container::SharedArray, (row, col), (R, C));
        unsafe { self.ptr.add(row * C + col) }
    }
}

impl<T, const R: usize, const C: usize> Index<(usize, usize)> for SharedArray2d<T, R, C> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, (row, col): (usize, usize)) -> &T {
        bounds::check_2d(Container::SharedArray, (row, col), (R, C));
        let p = unsafe { self.ptr.add(row * C + col) };
        report_access(p.cast(), core::mem::size_of::<T>(), false);
        unsafe { &*p }
    }
}

impl<T, const R: usize, const C: usize> IndexMut<(usize, usize)> for SharedArray2d<T, R, C> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, (row, col): (usize, usize)) -> &mut T {
        bounds::check_2d(Container::SharedArray, (row, col), (R, C));
        let p = unsafe { self.ptr.add(row * C + col) };
        report_access(p.cast(), core::mem::size_of::<T>(), true);
        unsafe { &mut *p }
    }
}

/// A block-wide array in shared memory whose length is known at run time: the dynamic shared
/// memory of the launch ([`dynamic_shared_array`], [`DynamicShared::take`]) or a flat view of a
/// 2-D array ([`SharedArray2d::flat`]).
pub struct SharedSlice<T> {
    ptr: *mut T,
    len: usize,
}

impl<T> Clone for SharedSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedSlice<T> {}

impl<T> core::fmt::Debug for SharedSlice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SharedSlice")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T> SharedSlice<T> {
    /// The number of elements.
    #[inline(always)]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the slice has no elements.
    #[inline(always)]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A pointer to the first element.
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// The element at `index`, copied out.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: usize) -> T
    where
        T: Copy,
    {
        bounds::check(Container::SharedArray, index, self.len);
        unsafe { self.get_unchecked(index) }
    }

    /// Writes `value` at `index`.
    ///
    /// # Panics
    /// When `index >= self.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, index: usize, value: T) {
        bounds::check(Container::SharedArray, index, self.len);
        unsafe { self.set_unchecked(index, value) }
    }

    /// The element at `index`, without a bounds check.
    ///
    /// # Safety
    /// `index < self.len()`, and the element must have been written.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn get_unchecked(&self, index: usize) -> T
    where
        T: Copy,
    {
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), false);
        unsafe { p.read() }
    }

    /// Writes `value` at `index`, without a bounds check.
    ///
    /// # Safety
    /// `index < self.len()`.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn set_unchecked(&self, index: usize, value: T) {
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), true);
        unsafe { p.write(value) }
    }

    /// Checked pointer to the element at `index` for atomics.
    #[inline(always)]
    #[track_caller]
    fn atomic_slot(&self, index: usize) -> *mut T {
        bounds::check(Container::SharedArray, index, self.len);
        unsafe { self.ptr.add(index) }
    }
}

impl<T> Index<usize> for SharedSlice<T> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, index: usize) -> &T {
        bounds::check(Container::SharedArray, index, self.len);
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), false);
        unsafe { &*p }
    }
}

impl<T> IndexMut<usize> for SharedSlice<T> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: usize) -> &mut T {
        bounds::check(Container::SharedArray, index, self.len);
        let p = unsafe { self.ptr.add(index) };
        report_access(p.cast(), core::mem::size_of::<T>(), true);
        unsafe { &mut *p }
    }
}

crate::atomic::atomic_methods!(impl[T, const N: usize] SharedArray<T, N>, usize);
crate::atomic::atomic_methods!(impl[T, const R: usize, const C: usize] SharedArray2d<T, R, C>, (usize, usize));
crate::atomic::atomic_methods!(impl[T] SharedSlice<T>, usize);

/// Asking `gpu_launch_sized_workgroup_mem` for this type aligns the dynamic region to 16 bytes.
#[cfg(target_arch = "nvptx64")]
#[repr(C, align(16))]
struct Align16([u8; 16]);

/// The block's dynamic shared memory: base address and size in bytes (the launch's
/// `shared_mem` argument).
#[inline(always)]
fn dynamic_region() -> (*mut u8, usize) {
    #[cfg(target_arch = "nvptx64")]
    {
        let base = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Align16>();
        let size: u32;
        // SAFETY: reads a special register.
        unsafe {
            core::arch::asm!("mov.u32 {size}, %dynamic_smem_size;", size = out(reg32) size,
                options(pure, nomem, nostack));
        }
        (base.cast(), size as usize)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    crate::sim::hooks().shared_dynamic()
}

/// The launch's whole dynamic shared memory as an array of `T` (CUDA's
/// `extern __shared__ T buf[]`): `shared_mem_bytes / size_of::<T>()` elements.
///
/// Every call returns the same memory, whatever `T`. To lay several arrays out in it, use
/// [`DynamicShared`].
#[inline(always)]
pub fn dynamic_shared_array<T>() -> SharedSlice<T> {
    DynamicShared::new().take_rest::<T>()
}

/// Takes non-overlapping, aligned arrays out of the launch's dynamic shared memory.
///
/// ```ignore
/// let mut carve = DynamicShared::new();
/// let a = carve.take::<f32>(n);       // n floats
/// let b = carve.take::<u32>(m);       // then m u32s, after `a`
/// ```
///
/// Every thread of the block must take the same sizes in the same order (so that they agree on
/// where each array lies), like the offsets into `extern __shared__` memory in CUDA C.
#[derive(Debug)]
pub struct DynamicShared {
    base: *mut u8,
    size: usize,
    offset: usize,
}

impl Default for DynamicShared {
    fn default() -> Self {
        Self::new()
    }
}

impl DynamicShared {
    /// A carver over the whole dynamic shared memory of this launch, starting at its beginning.
    #[inline(always)]
    pub fn new() -> Self {
        let (base, size) = dynamic_region();
        DynamicShared {
            base,
            size,
            offset: 0,
        }
    }

    /// The dynamic shared memory of the launch, in bytes.
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The bytes not taken yet.
    #[inline(always)]
    pub fn remaining(&self) -> usize {
        self.size - self.offset
    }

    /// The next `len` elements of `T`, aligned for `T`.
    ///
    /// # Panics
    /// When the launch's dynamic shared memory is too small (with the sizes in the message on the
    /// simulator): pass more bytes with `.shared_mem(bytes)` or the fourth `launch!` argument.
    #[inline(always)]
    #[track_caller]
    pub fn take<T>(&mut self, len: usize) -> SharedSlice<T> {
        let align = core::mem::align_of::<T>();
        let address = self.base as usize + self.offset;
        let start = self.offset + (address.wrapping_neg() & (align - 1));
        let bytes = core::mem::size_of::<T>().checked_mul(len);
        match bytes.and_then(|b| b.checked_add(start)) {
            Some(end) if end <= self.size => {
                self.offset = end;
                // SAFETY: `start..end` lies inside the region.
                SharedSlice {
                    ptr: unsafe { self.base.add(start) }.cast(),
                    len,
                }
            }
            _ => too_small(self.size, start, len, core::mem::size_of::<T>()),
        }
    }

    /// All the remaining bytes as elements of `T` (aligned for `T`; an incomplete last element
    /// is left out).
    #[inline(always)]
    pub fn take_rest<T>(&mut self) -> SharedSlice<T> {
        let align = core::mem::align_of::<T>();
        let address = self.base as usize + self.offset;
        let start = (self.offset + (address.wrapping_neg() & (align - 1))).min(self.size);
        let len = (self.size - start) / core::mem::size_of::<T>().max(1);
        self.offset = start + len * core::mem::size_of::<T>();
        // SAFETY: `start..offset` lies inside the region.
        SharedSlice {
            ptr: unsafe { self.base.add(start) }.cast(),
            len,
        }
    }
}

/// The panic of [`DynamicShared::take`].
#[cold]
#[inline(never)]
#[track_caller]
fn too_small(size: usize, offset: usize, len: usize, elem: usize) -> ! {
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "dynamic shared memory too small: taking {len} elements of {elem} bytes at byte offset {offset} needs {} bytes, but the launch gave {size} bytes (set it with `.shared_mem(bytes)` or the fourth `launch!` argument)",
        offset as u128 + len as u128 * elem as u128
    );
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (size, offset, len, elem);
        panic!(
            "dynamic shared memory too small for DynamicShared::take (set it with `.shared_mem(bytes)`; run on the simulator to see the sizes)"
        )
    }
}

/// A declaration site of a static shared array on the simulator: its address is the site's key.
#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct SiteMarker<A> {
    _byte: u8,
    _array: PhantomData<fn() -> A>,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<A> Default for SiteMarker<A> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<A> SiteMarker<A> {
    /// A marker (one byte, so that every site has its own address).
    pub const fn new() -> Self {
        SiteMarker {
            _byte: 0,
            _array: PhantomData,
        }
    }

    /// The key identifying this site.
    #[inline(always)]
    pub fn key(&'static self) -> usize {
        self as *const Self as usize
    }
}

/// Declares a block-wide array in static shared memory and returns its handle: CUDA's
/// `__shared__ T tile[N]` (or `[R][C]`), one line in a kernel body.
///
/// - `shared_array!(f32; 256)` is a [`SharedArray<f32, 256>`](crate::shared::SharedArray),
///   indexed `tile[i]`;
/// - `shared_array!(f32; 16, 17)` is a 16-row, 17-column
///   [`SharedArray2d`](crate::shared::SharedArray2d), indexed `tile[(row, col)]`.
///
/// Sizes are constant expressions. Each use of the macro is one array per block, as a
/// `__shared__` variable: a loop or a helper function reaching the same line sees the same memory.
/// Bind the handle with `let mut` to write through `tile[i] = x`.
#[cfg(target_arch = "nvptx64")]
#[macro_export]
macro_rules! shared_array {
    ($t:ty; $n:expr $(,)?) => {{
        // `#[used]` keeps LTO from optimising the static as ordinary memory before the builder's
        // link step moves every global of section ".shared" to shared memory (`.shared`).
        #[unsafe(link_section = ".shared")]
        #[used]
        static mut __FERROCUDA_SHARED: ::core::mem::MaybeUninit<[$t; $n]> =
            ::core::mem::MaybeUninit::uninit();
        // SAFETY: the static is block-shared memory of exactly this type, valid for the launch.
        unsafe {
            $crate::shared::SharedArray::<$t, { $n }>::__from_static(
                (&raw mut __FERROCUDA_SHARED).cast::<$t>(),
            )
        }
    }};
    ($t:ty; $rows:expr, $cols:expr $(,)?) => {{
        #[unsafe(link_section = ".shared")]
        #[used]
        static mut __FERROCUDA_SHARED: ::core::mem::MaybeUninit<[[$t; $cols]; $rows]> =
            ::core::mem::MaybeUninit::uninit();
        // SAFETY: as above.
        unsafe {
            $crate::shared::SharedArray2d::<$t, { $rows }, { $cols }>::__from_static(
                (&raw mut __FERROCUDA_SHARED).cast::<$t>(),
            )
        }
    }};
}

/// Declares a block-wide array in static shared memory and returns its handle: CUDA's
/// `__shared__ T tile[N]` (or `[R][C]`), one line in a kernel body.
///
/// - `shared_array!(f32; 256)` is a [`SharedArray<f32, 256>`](crate::shared::SharedArray),
///   indexed `tile[i]`;
/// - `shared_array!(f32; 16, 17)` is a 16-row, 17-column
///   [`SharedArray2d`](crate::shared::SharedArray2d), indexed `tile[(row, col)]`.
///
/// Sizes are constant expressions. Each use of the macro is one array per block, as a
/// `__shared__` variable: a loop or a helper function reaching the same line sees the same memory.
/// Bind the handle with `let mut` to write through `tile[i] = x`.
#[cfg(not(target_arch = "nvptx64"))]
#[macro_export]
macro_rules! shared_array {
    ($t:ty; $n:expr $(,)?) => {{
        // One byte whose address names this declaration site; its type mentions the array type so
        // that a generic element type is rejected here as it is on the GPU.
        static __FERROCUDA_SITE: $crate::shared::SiteMarker<[$t; $n]> =
            $crate::shared::SiteMarker::new();
        $crate::shared::SharedArray::<$t, { $n }>::__from_site(__FERROCUDA_SITE.key())
    }};
    ($t:ty; $rows:expr, $cols:expr $(,)?) => {{
        static __FERROCUDA_SITE: $crate::shared::SiteMarker<[[$t; $cols]; $rows]> =
            $crate::shared::SiteMarker::new();
        $crate::shared::SharedArray2d::<$t, { $rows }, { $cols }>::__from_site(
            __FERROCUDA_SITE.key(),
        )
    }};
}
