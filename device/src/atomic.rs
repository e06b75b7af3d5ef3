//! Atomic read-modify-write operations on global memory (the elements of `&mut [T]` kernel
//! parameters) and on shared memory.
//!
//! ```ignore
//! use ferrocuda::prelude::*;
//!
//! #[kernel]
//! pub fn histogram(data: &[u32], bins: &mut [u32]) {
//!     let i = grid!(1);
//!     if i < data.len() {
//!         bins.atomic_add(data[i] as usize % bins.len(), 1);   // CUDA's atomicAdd
//!     }
//! }
//! ```
//!
//! Three ways in, all returning the element's previous value as CUDA's `atomicXxx` do:
//! - [`AtomicSlice`], implemented for slices: `slice.atomic_add(i, v)`, bounds-checked;
//! - the same methods on the shared-memory handles
//!   ([`SharedArray`](crate::shared::SharedArray), [`SharedArray2d`](crate::shared::SharedArray2d),
//!   [`SharedSlice`](crate::shared::SharedSlice)), which are not reported to the simulator's race
//!   detector;
//! - free functions on raw pointers ([`atomic_add`], ...), with an explicit [`Ordering`].
//!
//! | operation | `i32` `u32` `i64` `u64` | `f32` `f64` |
//! |---|---|---|
//! | add, sub, min, max, exchange, compare-and-swap, load, store | yes | yes |
//! | and, or, xor | yes | no |
//!
//! The half-precision types (`f16`, `bf16` and the pairs `f16x2`, `bf16x2`) have the float row;
//! their addition is `atom.add.noftz.f16`/`.f16x2` (sm_70) and `.bf16`/`.bf16x2` (sm_90, a
//! compare-and-swap loop before), the other operations compare-and-swap loops (`half_atomic.rs`).
//!
//! # Memory ordering
//! The plain methods are relaxed, like CUDA's `atomicAdd`: atomic, but they order no other memory
//! access. The `_ordered` methods take an [`Ordering`] and honour it at device (GPU) scope: on the
//! GPU by fences around a relaxed operation (`fence.acq_rel.gpu` before a release and after an
//! acquire, `fence.sc.gpu` before a sequentially consistent one; LLVM 22's NVPTX backend drops
//! the ordering of the read-modify-write instruction itself), on the simulator by the host's own
//! atomics with that ordering.
//!
//! # Floating point
//! `f32`/`f64` addition is one `atom.add.f32`/`atom.add.f64` instruction on the GPU (sm_60 and
//! newer). Min and max are compare-and-swap loops (`atom.min.f32` needs sm_90) with std's
//! semantics: a NaN operand is ignored. Compare-and-swap on floats compares bit patterns, so `-0.0`
//! and `0.0` differ and a NaN can match itself.
//!
//! # One table
//! The read-modify-write operations are listed once, in `rmw_table!` below: from each line come
//! the [`RmwOp`] variant, its integer and float implementations, the free function
//! ([`atomic_add`], ...) and the methods of [`AtomicSlice`] and the shared-memory handles
//! (`atomic_add`, `atomic_add_ordered`, ...). What differs between the GPU and the simulator
//! (fences, the float addition) is in the backend (`backend/{gpu,simulator}/atomic.rs`).

use crate::backend::atomic as imp;
use crate::bounds::{self, Container};
pub use core::sync::atomic::Ordering;
use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

/// The read-modify-write table, handed to a callback macro with `$extra` tokens first. Each line:
/// the [`RmwOp`] variant, the free function and the `_ordered` method it names, the element
/// trait it needs, the method of `core`'s integer atomics that implements it, its float
/// implementation (`-`: integers only), what it does to the element, CUDA's name, and a note.
macro_rules! rmw_table {
    ($($callback:ident)::+, $extra:tt) => {
        $($callback)::+! { $extra
            Add: atomic_add, atomic_add_ordered, Atomic, fetch_add, float[add],
                "adds `value` to the element", "atomicAdd", "Integers wrap.";
            Sub: atomic_sub, atomic_sub_ordered, Atomic, fetch_sub, float[sub],
                "subtracts `value` from the element", "atomicSub", "Integers wrap.";
            Min: atomic_min, atomic_min_ordered, Atomic, fetch_min, float[update min],
                "replaces the element by its minimum with `value`", "atomicMin",
                "Floats ignore a NaN operand.";
            Max: atomic_max, atomic_max_ordered, Atomic, fetch_max, float[update max],
                "replaces the element by its maximum with `value`", "atomicMax",
                "Floats ignore a NaN operand.";
            Exchange: atomic_exchange, atomic_exchange_ordered, Atomic, swap, float[swap],
                "replaces the element by `value`", "atomicExch", "";
            And: atomic_and, atomic_and_ordered, AtomicBitwise, fetch_and, float[-],
                "replaces the element by `element & value`", "atomicAnd", "";
            Or: atomic_or, atomic_or_ordered, AtomicBitwise, fetch_or, float[-],
                "replaces the element by `element | value`", "atomicOr", "";
            Xor: atomic_xor, atomic_xor_ordered, AtomicBitwise, fetch_xor, float[-],
                "replaces the element by `element ^ value`", "atomicXor", "";
        }
    };
}

pub(crate) use rmw_table;

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Declares [`RmwOp`] and the free functions from the table.
macro_rules! rmw_declarations {
    ([] $($op:ident: $free:ident, $ordered:ident, $bound:ident, $fetch:ident, float[$($float:tt)*],
        $what:literal, $cuda:literal, $note:literal;)*) => {
        /// A read-modify-write operation, the argument of [`Atomic::__rmw`].
        #[doc(hidden)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum RmwOp {
            $(
                #[doc = concat!("`", stringify!($free), "`.")]
                $op,
            )*
        }

        $(
            #[doc = concat!("Atomically ", $what, " at `*ptr`; returns the previous value (`", $cuda, "`). ", $note)]
            ///
            /// # Safety
            /// `ptr` must be valid for reads and writes and aligned; every concurrent access to
            /// `*ptr` must be atomic.
            #[inline(always)]
            pub unsafe fn $free<T: $bound>(ptr: *mut T, value: T, order: Ordering) -> T {
                // SAFETY: the caller's contract is `__rmw`'s.
                unsafe { T::__rmw(ptr, value, RmwOp::$op, order) }
            }
        )*
    };
}
rmw_table!(rmw_declarations, []);

/// The element types of atomic operations: `i32`, `u32`, `i64`, `u64`, `f32`, `f64` and the
/// half-precision types (`f16`, `bf16`, `f16x2`, `bf16x2`: see `half_atomic.rs`).
///
/// Sealed: its associated functions are the implementation behind [`AtomicSlice`] and the free
/// functions of this module, which are the API to use.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic operations on the GPU",
    label = "not an atomic element type",
    note = "atomics work on `i32`, `u32`, `i64`, `u64`, `f32`, `f64`, `f16`, `bf16`, `f16x2` and `bf16x2` elements"
)]
pub trait Atomic: Copy + sealed::Sealed {
    /// Applies `op` to `*ptr`; returns the previous value. The bitwise operations exist for
    /// [`AtomicBitwise`] types only (the free functions require it).
    ///
    /// # Safety
    /// As [`atomic_add`].
    #[doc(hidden)]
    unsafe fn __rmw(ptr: *mut Self, value: Self, op: RmwOp, order: Ordering) -> Self;
    /// Compare-and-swap; see [`atomic_cas`].
    ///
    /// # Safety
    /// As [`atomic_add`].
    #[doc(hidden)]
    unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self;
    /// Atomic load; see [`atomic_load`].
    ///
    /// # Safety
    /// As [`atomic_add`].
    #[doc(hidden)]
    unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self;
    /// Atomic store; see [`atomic_store`].
    ///
    /// # Safety
    /// As [`atomic_add`].
    #[doc(hidden)]
    unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering);
}

/// The integer element types, which also have bitwise atomics: `i32`, `u32`, `i64`, `u64`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no bitwise atomics",
    label = "`atomic_and`, `atomic_or` and `atomic_xor` need integer elements",
    note = "bitwise atomics work on `i32`, `u32`, `i64` and `u64` elements"
)]
pub trait AtomicBitwise: Atomic {}

/// The ordering of the load half of a compare-and-swap whose store half has `order`.
#[inline(always)]
pub(crate) fn failure_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::Acquire | Ordering::AcqRel => Ordering::Acquire,
        _ => Ordering::SeqCst,
    }
}

/// Loads for atomics that do not store (`Release` is not a valid load ordering).
#[inline(always)]
pub(crate) fn load_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        other => other,
    }
}

/// Stores for atomics that do not load (`Acquire` is not a valid store ordering).
#[inline(always)]
pub(crate) fn store_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Acquire => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Release,
        other => other,
    }
}

/// Implements [`Atomic`] for the integer types from the table (every line is a method of
/// `core`'s atomic integers).
macro_rules! integer_atomics {
    ([$t:ty => $atomic:ty] $($op:ident: $free:ident, $ordered:ident, $bound:ident,
        $fetch:ident, float[$($float:tt)*], $what:literal, $cuda:literal, $note:literal;)*) => {
        impl sealed::Sealed for $t {}
        impl AtomicBitwise for $t {}

        impl Atomic for $t {
            #[inline(always)]
            unsafe fn __rmw(ptr: *mut Self, value: Self, op: RmwOp, order: Ordering) -> Self {
                // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses
                // are all atomic, which is `from_ptr`'s contract.
                let atomic = unsafe { <$atomic>::from_ptr(ptr) };
                imp::ordered(order, |o| match op {
                    $(RmwOp::$op => atomic.$fetch(value, o),)*
                })
            }
            #[inline(always)]
            unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self {
                // SAFETY: as in `__rmw`.
                let atomic = unsafe { <$atomic>::from_ptr(ptr) };
                imp::ordered(order, |o| {
                    match atomic.compare_exchange(current, new, o, failure_order(o)) {
                        Ok(old) | Err(old) => old,
                    }
                })
            }
            #[inline(always)]
            unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self {
                // SAFETY: as in `__rmw`.
                let atomic = unsafe { <$atomic>::from_ptr(ptr) };
                imp::ordered(order, |o| atomic.load(load_order(o)))
            }
            #[inline(always)]
            unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering) {
                // SAFETY: as in `__rmw`.
                let atomic = unsafe { <$atomic>::from_ptr(ptr) };
                imp::ordered(order, |o| atomic.store(value, store_order(o)))
            }
        }
    };
}
rmw_table!(integer_atomics, [i32 => AtomicI32]);
rmw_table!(integer_atomics, [u32 => AtomicU32]);
rmw_table!(integer_atomics, [i64 => AtomicI64]);
rmw_table!(integer_atomics, [u64 => AtomicU64]);

/// The atomic view of a float's bits, for the compare-and-swap loops of float atomics.
pub(crate) trait FloatBits: Copy {
    /// Replaces `*ptr` by `new(old)` with a compare-and-swap loop; returns the old value. When
    /// `new` leaves the bits unchanged (a max that is already larger) a relaxed update writes
    /// nothing.
    ///
    /// # Safety
    /// As [`atomic_add`].
    unsafe fn update(ptr: *mut Self, order: Ordering, new: impl Fn(Self) -> Self) -> Self;
}

/// Implements [`Atomic`] for the float types from the table.
macro_rules! float_atomics {
    ([$t:ty => $bits:ty, $atomic:ty, $add:ident] $($op:ident: $free:ident, $ordered:ident,
        $bound:ident, $fetch:ident, float[$($float:tt)*], $what:literal, $cuda:literal,
        $note:literal;)*) => {
        impl sealed::Sealed for $t {}

        impl FloatBits for $t {
            #[inline(always)]
            unsafe fn update(ptr: *mut Self, order: Ordering, new: impl Fn(Self) -> Self) -> Self {
                // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses
                // are all atomic; the float and its bits have the same size and alignment.
                let atomic = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                imp::ordered(order, |o| {
                    let mut bits = atomic.load(load_order(o));
                    loop {
                        let old = <$t>::from_bits(bits);
                        let next = new(old).to_bits();
                        // Skipping the store is only an option when no ordering rides on it.
                        if next == bits && o == Ordering::Relaxed {
                            return old;
                        }
                        match atomic.compare_exchange_weak(bits, next, o, failure_order(o)) {
                            Ok(_) => return old,
                            Err(seen) => bits = seen,
                        }
                    }
                })
            }
        }

        impl Atomic for $t {
            #[inline(always)]
            unsafe fn __rmw(ptr: *mut Self, value: Self, op: RmwOp, order: Ordering) -> Self {
                match op {
                    $(RmwOp::$op => float_atomics!(@op $t, $bits, $atomic, $add, ptr, value, order, $($float)*),)*
                }
            }
            #[inline(always)]
            unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self {
                // SAFETY: as in `update`.
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                let old = imp::ordered(order, |o| {
                    match bits.compare_exchange(current.to_bits(), new.to_bits(), o, failure_order(o)) {
                        Ok(old) | Err(old) => old,
                    }
                });
                <$t>::from_bits(old)
            }
            #[inline(always)]
            unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self {
                // SAFETY: as in `update`.
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                <$t>::from_bits(imp::ordered(order, |o| bits.load(load_order(o))))
            }
            #[inline(always)]
            unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering) {
                // SAFETY: as in `update`.
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                imp::ordered(order, |o| bits.store(value.to_bits(), store_order(o)))
            }
        }
    };
    (@op $t:ty, $bits:ty, $atomic:ty, $add:ident, $ptr:ident, $value:ident, $order:ident, add) => {
        // SAFETY: the caller's contract is the backend's.
        unsafe { imp::$add($ptr, $value, $order) }
    };
    (@op $t:ty, $bits:ty, $atomic:ty, $add:ident, $ptr:ident, $value:ident, $order:ident, sub) => {
        // SAFETY: the caller's contract is the backend's.
        unsafe { imp::$add($ptr, -$value, $order) }
    };
    (@op $t:ty, $bits:ty, $atomic:ty, $add:ident, $ptr:ident, $value:ident, $order:ident, update $method:ident) => {
        // SAFETY: the caller's contract is `update`'s.
        unsafe { <$t as FloatBits>::update($ptr, $order, |old| old.$method($value)) }
    };
    (@op $t:ty, $bits:ty, $atomic:ty, $add:ident, $ptr:ident, $value:ident, $order:ident, swap) => {{
        // SAFETY: as in `update`.
        let bits = unsafe { <$atomic>::from_ptr($ptr.cast::<$bits>()) };
        <$t>::from_bits(imp::ordered($order, |o| bits.swap($value.to_bits(), o)))
    }};
    (@op $t:ty, $bits:ty, $atomic:ty, $add:ident, $ptr:ident, $value:ident, $order:ident, -) => {
        unreachable!("bitwise atomics need integer elements (`AtomicBitwise`)")
    };
}
rmw_table!(float_atomics, [f32 => u32, AtomicU32, add_f32]);
rmw_table!(float_atomics, [f64 => u64, AtomicU64, add_f64]);

/// Atomically replaces `*ptr` by `new` if it equals `current` (bitwise for floats); returns the
/// previous value either way (`atomicCAS`): the swap happened if it equals `current`.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_cas<T: Atomic>(ptr: *mut T, current: T, new: T, order: Ordering) -> T {
    // SAFETY: the caller's contract is `__cas`'s.
    unsafe { T::__cas(ptr, current, new, order) }
}

/// Atomically reads `*ptr` (a `Release` ordering reads as relaxed).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_load<T: Atomic>(ptr: *mut T, order: Ordering) -> T {
    // SAFETY: the caller's contract is `__load`'s.
    unsafe { T::__load(ptr, order) }
}

/// Atomically writes `value` to `*ptr` (an `Acquire` ordering writes as relaxed).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_store<T: Atomic>(ptr: *mut T, value: T, order: Ordering) {
    // SAFETY: the caller's contract is `__store`'s.
    unsafe { T::__store(ptr, value, order) }
}

/// Generates the bounds-checked atomic methods (`atomic_add(index, value)`, ...) of a container
/// whose `$slot(index)` method returns a checked element pointer: the table's lines, then
/// compare-and-swap, load and store.
macro_rules! atomic_methods {
    // Inherent methods of a shared-memory handle.
    (impl[$($generics:tt)*] $ty:ty, $index:ty) => {
        impl<$($generics)*> $ty {
            $crate::atomic::atomic_methods!(@all pub fn atomic_slot, $index);
        }
    };
    (@all $vis:vis fn $slot:ident, $index:ty) => {
        $crate::atomic::rmw_table!(crate::atomic::atomic_methods, [$vis fn $slot, $index]);
        $crate::atomic::atomic_methods!(@cas_load_store $vis fn $slot, $index);
    };
    ([$vis:vis fn $slot:ident, $index:ty] $($op:ident: $free:ident, $ordered:ident,
        $bound:ident, $fetch:ident, float[$($float:tt)*], $what:literal, $cuda:literal,
        $note:literal;)*) => {$(
        #[doc = concat!("Atomically ", $what, " at `index`, relaxed; returns the previous value (`", $cuda, "`). ", $note)]
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn $free(&mut self, index: $index, value: T) -> T
        where
            T: $crate::atomic::$bound,
        {
            let ptr = self.$slot(index);
            // SAFETY: `ptr` is in bounds (checked by the slot) and aligned; every concurrent
            // access through this API is atomic, and plain accesses through the same handle
            // need `&mut self` too, so none overlaps this one in this thread.
            unsafe { $crate::atomic::$free(ptr, value, $crate::atomic::Ordering::Relaxed) }
        }

        #[doc = concat!("Atomically ", $what, " at `index` with the memory ordering `order` (device scope); returns the previous value (`", $cuda, "`). ", $note)]
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn $ordered(&mut self, index: $index, value: T, order: $crate::atomic::Ordering) -> T
        where
            T: $crate::atomic::$bound,
        {
            let ptr = self.$slot(index);
            // SAFETY: as in the relaxed form.
            unsafe { $crate::atomic::$free(ptr, value, order) }
        }
    )*};
    (@cas_load_store $vis:vis fn $slot:ident, $index:ty) => {
        /// Atomically replaces the element at `index` by `new` if it equals `current` (bitwise
        /// for floats), relaxed (`atomicCAS`). Returns the previous value either way: the swap
        /// happened if it equals `current`.
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn atomic_cas(&mut self, index: $index, current: T, new: T) -> T
        where
            T: $crate::atomic::Atomic,
        {
            self.atomic_cas_ordered(index, current, new, $crate::atomic::Ordering::Relaxed)
        }

        /// [`atomic_cas`](Self::atomic_cas) with the memory ordering `order` (device scope).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn atomic_cas_ordered(
            &mut self,
            index: $index,
            current: T,
            new: T,
            order: $crate::atomic::Ordering,
        ) -> T
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            // SAFETY: as in `atomic_add`.
            unsafe { $crate::atomic::atomic_cas(ptr, current, new, order) }
        }

        /// Atomically reads the element at `index`, relaxed (never torn, never cached in a
        /// register: the way to poll a flag another thread sets).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn atomic_load(&mut self, index: $index) -> T
        where
            T: $crate::atomic::Atomic,
        {
            self.atomic_load_ordered(index, $crate::atomic::Ordering::Relaxed)
        }

        /// [`atomic_load`](Self::atomic_load) with the memory ordering `order` (device scope).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn atomic_load_ordered(&mut self, index: $index, order: $crate::atomic::Ordering) -> T
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            // SAFETY: as in `atomic_add`.
            unsafe { $crate::atomic::atomic_load(ptr, order) }
        }

        /// Atomically writes `value` to the element at `index`, relaxed.
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn atomic_store(&mut self, index: $index, value: T)
        where
            T: $crate::atomic::Atomic,
        {
            self.atomic_store_ordered(index, value, $crate::atomic::Ordering::Relaxed)
        }

        /// [`atomic_store`](Self::atomic_store) with the memory ordering `order` (device scope).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $vis fn atomic_store_ordered(
            &mut self,
            index: $index,
            value: T,
            order: $crate::atomic::Ordering,
        ) where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            // SAFETY: as in `atomic_add`.
            unsafe { $crate::atomic::atomic_store(ptr, value, order) }
        }
    };
}
pub(crate) use atomic_methods;

/// Atomic operations on the elements of a slice, CUDA-style: `bins.atomic_add(i, 1)` returns
/// the element's previous value. Bounds-checked (a panic naming the index and the length).
///
/// Use it on a kernel's `&mut [T]` parameters (global memory), whose elements other threads
/// update concurrently. Every method is relaxed; the `_ordered` forms take an [`Ordering`]. The
/// bitwise ones exist for integer elements only.
pub trait AtomicSlice<T> {
    /// A checked pointer to the element at `index` (the building block of the other methods).
    #[doc(hidden)]
    fn __atomic_slot(&mut self, index: usize) -> *mut T;

    atomic_methods!(@all fn __atomic_slot, usize);
}

impl<T> AtomicSlice<T> for [T] {
    #[inline(always)]
    #[track_caller]
    fn __atomic_slot(&mut self, index: usize) -> *mut T {
        bounds::check(Container::Slice, index, self.len());
        // SAFETY: `index < len` was checked just above, so the offset stays inside the slice.
        unsafe { self.as_mut_ptr().add(index) }
    }
}
