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
//! # One handle, three shapes
//! Every handle is a [`Shared<T, S>`]: a pointer to the block's memory and a [`Shape`] that
//! turns an index into an offset, checking it. [`SharedArray<T, N>`] (`shared_array!(T; N)`),
//! [`SharedArray2d<T, R, C>`] (`shared_array!(T; R, C)`, indexed `tile[(row, col)]`) and
//! [`SharedSlice<T>`] (dynamic shared memory, length known at run time) are its three shapes, so
//! every method exists once.
//!
//! # Borrowing
//! A handle is owned by the thread that declared it and is not `Copy`: reading (`tile[i]`,
//! [`get`](Shared::get)) borrows it shared, writing (`tile[i] = x`, [`set`](Shared::set),
//! the atomics) borrows it mutably, so a `&T` from `&tile[i]` cannot be held across a write
//! through the same handle; the compiler rejects it (see [`Shared`]). Bind a handle with
//! `let mut` to write through it, and pass `&tile` or `&mut tile` to helper functions. Every
//! index is bounds-checked (a panic naming the index and the length); the `unsafe`
//! `get_unchecked`/`set_unchecked` skip the check for hot loops.
//!
//! Threads of a block share the memory itself: one thread writing what another reads without a
//! barrier between is a data race, the kernel author's duty as in CUDA C. On the simulator every
//! plain access (`[i]`, `get`, `set`, and the unchecked forms) is reported to its race detector,
//! which flags two threads touching the same bytes between two barriers when one of them writes.
//! Atomic operations ([`Shared::atomic_add`] and friends) are not reported: they never race.
//!
//! Like CUDA's `__shared__` variables, a static shared array cannot depend on a generic parameter
//! of the function declaring it (Rust does not allow generic statics): in generic kernels, take the
//! memory from [`DynamicShared`] instead.

use crate::backend::shared as imp;
use core::marker::PhantomData;
use core::ops::{Index, IndexMut};

mod shape;
pub use shape::{Dynamic, Fixed, Fixed2d, Shape};

/// What the `shared_array!` expansion needs on the simulator (nothing on the GPU).
#[doc(hidden)]
pub use crate::backend::shared::macro_support as __macro_support;

/// A block-wide array in shared memory: a pointer and a [`Shape`].
///
/// Reads borrow the handle shared and writes borrow it mutably, so a reference into the array
/// cannot outlive a write through the same handle:
///
/// ```no_run
/// use ferrocuda_device::prelude::*;
///
/// let mut tile = shared_array!(f32; 64);
/// tile[0] = 1.0;
/// let first = tile[0]; // a copy: the handle is free again
/// tile.set(0, first + 1.0);
/// let first = &tile[0];
/// let doubled = *first * 2.0; // the last use of `first`
/// tile.atomic_add(1, doubled);
/// ```
///
/// Holding `&tile[0]` across `tile.set(0, x)` (or any other write, atomic included) does not
/// compile:
///
/// ```compile_fail
/// use ferrocuda_device::prelude::*;
///
/// let mut tile = shared_array!(f32; 64);
/// tile[0] = 1.0;
/// let first = &tile[0];
/// tile.set(0, 2.0); // error: `tile` is borrowed by `first`
/// let _ = *first;
/// ```
///
/// ```compile_fail
/// use ferrocuda_device::prelude::*;
///
/// let mut tile = shared_array!(u32; 64);
/// let first = &tile[0];
/// tile.atomic_add(0, 1); // error: `tile` is borrowed by `first`
/// let _ = *first;
/// ```
///
/// Nor can a handle be copied to write behind a reference:
///
/// ```compile_fail
/// use ferrocuda_device::prelude::*;
///
/// let tile = shared_array!(f32; 64);
/// let mut alias = tile; // moves `tile`
/// alias.set(0, 2.0);
/// let _ = tile[0]; // error: use of moved value
/// ```
pub struct Shared<T, S: Shape> {
    ptr: *mut T,
    shape: S,
    /// The handle stands for the elements it reaches (and is neither `Send` nor `Sync`).
    _elements: PhantomData<*mut T>,
}

/// A block-wide array of `N` elements of `T` in static shared memory, made by
/// [`shared_array!`](crate::shared_array) and indexed `tile[i]`.
///
/// Shared memory starts uninitialised (garbage on the GPU): write each element before reading
/// it, with a barrier in between when another thread wrote it.
pub type SharedArray<T, const N: usize> = Shared<T, Fixed<N>>;

/// A block-wide `R` x `C` row-major array in static shared memory, made by
/// `shared_array!(T; R, C)` and indexed `tile[(row, col)]`.
///
/// Pad the row length to dodge bank conflicts as in CUDA: `shared_array!(f32; 16, 17)` for a
/// 16x16 tile read by columns.
pub type SharedArray2d<T, const R: usize, const C: usize> = Shared<T, Fixed2d<R, C>>;

/// A block-wide array in shared memory whose length is known at run time: the dynamic shared
/// memory of the launch ([`dynamic_shared_array`], [`DynamicShared::take`]) or a flat view of a
/// 2-D array ([`Shared::flat`]).
pub type SharedSlice<T> = Shared<T, Dynamic>;

impl<T, S: Shape> core::fmt::Debug for Shared<T, S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Shared")
            .field("ptr", &self.ptr)
            .field("shape", &self.shape)
            .finish()
    }
}

impl<T, S: Shape> Shared<T, S> {
    /// The handle of `shape.len()` elements at `ptr`.
    ///
    /// # Safety
    /// `ptr` must point to `shape.len()` elements of block-shared memory, aligned for `T` and
    /// valid for the whole launch, that no other handle of this thread reaches.
    #[inline(always)]
    const unsafe fn from_raw(ptr: *mut T, shape: S) -> Self {
        Shared {
            ptr,
            shape,
            _elements: PhantomData,
        }
    }

    /// The number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.shape.len()
    }

    /// Whether the array has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.shape.len() == 0
    }

    /// A pointer to the first element (a generic address of shared memory on the GPU). Element
    /// `(r, c)` of a 2-D array is at offset `r * C + c`.
    #[inline(always)]
    pub const fn as_ptr(&self) -> *mut T {
        self.ptr
    }

    /// The element at `index`, copied out.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: S::Index) -> T
    where
        T: Copy,
    {
        *self.element(self.shape.offset(index), false)
    }

    /// Writes `value` at `index`.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub fn set(&mut self, index: S::Index, value: T) {
        let offset = self.shape.offset(index);
        // SAFETY: `offset` was checked against the shape.
        unsafe { self.write(offset, value) }
    }

    /// The element at `index`, without a bounds check.
    ///
    /// # Safety
    /// `index` is in bounds, and the element has been written.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn get_unchecked(&self, index: S::Index) -> T
    where
        T: Copy,
    {
        *self.element(self.shape.offset_unchecked(index), false)
    }

    /// Writes `value` at `index`, without a bounds check.
    ///
    /// # Safety
    /// `index` is in bounds.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn set_unchecked(&mut self, index: S::Index, value: T) {
        // SAFETY: the caller guarantees `index` is in bounds.
        unsafe { self.write(self.shape.offset_unchecked(index), value) }
    }

    /// The element at `offset`, reported as a plain access (`write` when it is for `IndexMut`).
    ///
    /// An in-bounds `offset` is the callers' duty: `get` and `Index` pass checked offsets, the
    /// unchecked accessors pass their own callers' promise.
    #[inline(always)]
    #[track_caller]
    fn element(&self, offset: usize, write: bool) -> &T {
        // SAFETY: `offset` is in bounds (see above), so the pointer stays inside the array.
        let p = unsafe { self.ptr.add(offset) };
        imp::report_access(p.cast(), core::mem::size_of::<T>(), write);
        // SAFETY: in bounds and aligned; the memory is valid for the launch; every write through
        // this handle needs `&mut self`, so nothing in this thread writes the element while the
        // returned reference (tied to `&self`) lives.
        unsafe { &*p }
    }

    /// Writes `value` at the in-bounds `offset`, reported as a plain write.
    ///
    /// # Safety
    /// `offset < self.len()`.
    #[inline(always)]
    #[track_caller]
    unsafe fn write(&mut self, offset: usize, value: T) {
        // SAFETY: the caller guarantees `offset` is in bounds.
        let p = unsafe { self.ptr.add(offset) };
        imp::report_access(p.cast(), core::mem::size_of::<T>(), true);
        // SAFETY: in bounds, aligned, valid for the launch, and `&mut self` excludes any live
        // reference into the array from this handle. `write`, not `*p = value`: the old contents
        // may be uninitialised and must not be dropped.
        unsafe { p.write(value) }
    }

    /// Checked pointer to the element at `index` for atomics (not reported as a plain access).
    #[inline(always)]
    #[track_caller]
    fn atomic_slot(&self, index: S::Index) -> *mut T {
        let offset = self.shape.offset(index);
        // SAFETY: `offset` was checked against the shape.
        unsafe { self.ptr.add(offset) }
    }
}

impl<T, S: Shape> Index<S::Index> for Shared<T, S> {
    type Output = T;
    #[inline(always)]
    #[track_caller]
    fn index(&self, index: S::Index) -> &T {
        self.element(self.shape.offset(index), false)
    }
}

impl<T, S: Shape> IndexMut<S::Index> for Shared<T, S> {
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: S::Index) -> &mut T {
        let offset = self.shape.offset(index);
        // SAFETY: `offset` was checked against the shape.
        let p = unsafe { self.ptr.add(offset) };
        imp::report_access(p.cast(), core::mem::size_of::<T>(), true);
        // SAFETY: in bounds, aligned and valid for the launch; `&mut self` makes the reference
        // the only one into the array through this handle while it lives.
        unsafe { &mut *p }
    }
}

crate::atomic::atomic_methods!(impl[T, S: Shape] Shared<T, S>, S::Index);

impl<T, const N: usize> SharedArray<T, N> {
    /// The handle of the static at `ptr` (used by `shared_array!`).
    ///
    /// # Safety
    /// `ptr` must point to `N` elements of block-shared memory, valid for the whole launch.
    #[doc(hidden)]
    #[inline(always)]
    pub const unsafe fn __from_static(ptr: *mut T) -> Self {
        // SAFETY: the caller's contract is `from_raw`'s.
        unsafe { Shared::from_raw(ptr, Fixed) }
    }
}

impl<T, const R: usize, const C: usize> SharedArray2d<T, R, C> {
    /// The handle of the static at `ptr` (used by `shared_array!`).
    ///
    /// # Safety
    /// `ptr` must point to `R * C` elements of block-shared memory, valid for the whole launch.
    #[doc(hidden)]
    #[inline(always)]
    pub const unsafe fn __from_static(ptr: *mut T) -> Self {
        // SAFETY: the caller's contract is `from_raw`'s.
        unsafe { Shared::from_raw(ptr, Fixed2d) }
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

    /// The whole array as a one-dimensional handle over its `R * C` elements in row-major order.
    /// It takes the 2-D handle, so the two never alias.
    #[inline(always)]
    pub fn flat(self) -> SharedSlice<T> {
        // SAFETY: the same `R * C` elements; `self` is consumed, so no other handle of this
        // thread reaches them.
        unsafe { Shared::from_raw(self.ptr, Dynamic::new(R * C)) }
    }
}

/// The launch's whole dynamic shared memory as an array of `T` (CUDA's
/// `extern __shared__ T buf[]`): `shared_mem_bytes / size_of::<T>()` elements.
///
/// Every call returns the same memory, whatever `T`: call it once per kernel (or take its handle
/// by reference). To lay several arrays out in it, use [`DynamicShared`].
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
/// where each array lies), like the offsets into `extern __shared__` memory in CUDA C. Make one
/// carver per kernel: two carvers hand out the same memory.
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
        let (base, size) = imp::dynamic_region();
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
                // SAFETY: `start..end` lies inside the region, is aligned for `T`, and this
                // carver hands it out once.
                unsafe { Shared::from_raw(self.base.add(start).cast(), Dynamic::new(len)) }
            }
            _ => imp::too_small(self.size, start, len, core::mem::size_of::<T>()),
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
        // SAFETY: `start..offset` lies inside the region (`start <= size`), is aligned for `T`
        // when non-empty, and this carver hands it out once.
        unsafe { Shared::from_raw(self.base.add(start).cast(), Dynamic::new(len)) }
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
/// `__shared__` variable: a loop or a helper function reaching the same line sees the same memory
/// (so declare an array once per kernel and lend the handle out by reference). Bind the handle
/// with `let mut` to write through it.
#[macro_export]
macro_rules! shared_array {
    ($t:ty; $n:expr $(,)?) => {
        $crate::__shared_static!($crate::shared::SharedArray<$t, { $n }>, [$t; $n])
    };
    ($t:ty; $rows:expr, $cols:expr $(,)?) => {
        $crate::__shared_static!(
            $crate::shared::SharedArray2d<$t, { $rows }, { $cols }>,
            [[$t; $cols]; $rows]
        )
    };
}
