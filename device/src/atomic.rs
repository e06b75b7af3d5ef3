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

use crate::bounds::{self, Container};
pub use core::sync::atomic::Ordering;
use core::sync::atomic::{AtomicI32, AtomicI64, AtomicU32, AtomicU64};

mod sealed {
    pub trait Sealed {}
}

/// The element types of atomic operations: `i32`, `u32`, `i64`, `u64`, `f32` and `f64`.
///
/// Sealed: its associated functions are the implementation behind [`AtomicSlice`] and the free
/// functions of this module, which are the API to use.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no atomic operations on the GPU",
    label = "not an atomic element type",
    note = "atomics work on `i32`, `u32`, `i64`, `u64`, `f32` and `f64` elements"
)]
pub trait Atomic: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn __add(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __sub(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __min(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __max(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __exchange(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering);
}

/// The integer element types, which also have bitwise atomics: `i32`, `u32`, `i64`, `u64`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no bitwise atomics",
    label = "`atomic_and`, `atomic_or` and `atomic_xor` need integer elements",
    note = "bitwise atomics work on `i32`, `u32`, `i64` and `u64` elements"
)]
pub trait AtomicBitwise: Atomic {
    #[doc(hidden)]
    unsafe fn __and(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __or(ptr: *mut Self, value: Self, order: Ordering) -> Self;
    #[doc(hidden)]
    unsafe fn __xor(ptr: *mut Self, value: Self, order: Ordering) -> Self;
}

/// The ordering of the load half of a compare-and-swap whose store half has `order`.
#[inline(always)]
fn failure_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release | Ordering::Relaxed => Ordering::Relaxed,
        Ordering::Acquire | Ordering::AcqRel => Ordering::Acquire,
        _ => Ordering::SeqCst,
    }
}

/// Runs the atomic `op` so that it has `order`: on the GPU a relaxed `op` between fences, on the
/// host `op` with that ordering.
#[inline(always)]
fn ordered<R>(order: Ordering, op: impl FnOnce(Ordering) -> R) -> R {
    #[cfg(target_arch = "nvptx64")]
    {
        // SAFETY: fences only.
        unsafe {
            match order {
                Ordering::Release | Ordering::AcqRel => core::arch::asm!("fence.acq_rel.gpu;"),
                Ordering::SeqCst => core::arch::asm!("fence.sc.gpu;"),
                _ => {}
            }
        }
        let result = op(Ordering::Relaxed);
        unsafe {
            if matches!(
                order,
                Ordering::Acquire | Ordering::AcqRel | Ordering::SeqCst
            ) {
                core::arch::asm!("fence.acq_rel.gpu;");
            }
        }
        result
    }
    #[cfg(not(target_arch = "nvptx64"))]
    op(order)
}

/// Loads for atomics that do not store (`Release` is not a valid load ordering).
#[inline(always)]
fn load_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Release => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Acquire,
        other => other,
    }
}

/// Stores for atomics that do not load (`Acquire` is not a valid store ordering).
#[inline(always)]
fn store_order(order: Ordering) -> Ordering {
    match order {
        Ordering::Acquire => Ordering::Relaxed,
        Ordering::AcqRel => Ordering::Release,
        other => other,
    }
}

macro_rules! impl_integer {
    ($($t:ty => $atomic:ty),* $(,)?) => {$(
        impl sealed::Sealed for $t {}

        impl Atomic for $t {
            #[inline(always)]
            unsafe fn __add(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_add(value, o))
            }
            #[inline(always)]
            unsafe fn __sub(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_sub(value, o))
            }
            #[inline(always)]
            unsafe fn __min(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_min(value, o))
            }
            #[inline(always)]
            unsafe fn __max(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_max(value, o))
            }
            #[inline(always)]
            unsafe fn __exchange(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.swap(value, o))
            }
            #[inline(always)]
            unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self {
                ordered(order, |o| {
                    match unsafe { <$atomic>::from_ptr(ptr) }.compare_exchange(
                        current,
                        new,
                        o,
                        failure_order(o),
                    ) {
                        Ok(old) | Err(old) => old,
                    }
                })
            }
            #[inline(always)]
            unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.load(load_order(o)))
            }
            #[inline(always)]
            unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering) {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.store(value, store_order(o)))
            }
        }

        impl AtomicBitwise for $t {
            #[inline(always)]
            unsafe fn __and(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_and(value, o))
            }
            #[inline(always)]
            unsafe fn __or(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_or(value, o))
            }
            #[inline(always)]
            unsafe fn __xor(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                ordered(order, |o| unsafe { <$atomic>::from_ptr(ptr) }.fetch_xor(value, o))
            }
        }
    )*};
}

impl_integer!(i32 => AtomicI32, u32 => AtomicU32, i64 => AtomicI64, u64 => AtomicU64);

#[cfg(target_arch = "nvptx64")]
unsafe extern "C" {
    // LLVM upgrades these retired NVVM intrinsics to `atomicrmw fadd` when it reads them, so the
    // backend can infer the address space: `atom.global.add.f32` on a kernel's slice,
    // `atom.shared.add.f32` on shared memory, `atom.add.f32` on a generic pointer. (The upgrade
    // marks the operation seq_cst; LLVM 22's NVPTX backend emits every read-modify-write relaxed,
    // as `ordered` assumes.)
    #[link_name = "llvm.nvvm.atomic.load.add.f32.p0"]
    fn nvvm_atomic_add_f32(ptr: *mut f32, value: f32) -> f32;
    #[link_name = "llvm.nvvm.atomic.load.add.f64.p0"]
    fn nvvm_atomic_add_f64(ptr: *mut f64, value: f64) -> f64;
}

/// Replaces the float at `$atomic` (the atomic integer holding its bits) by `$new`, computed from
/// the old value `$old`, with a compare-and-swap loop; evaluates to the old value. When `$new`
/// leaves the bits unchanged (a max that is already larger) a relaxed update writes nothing.
macro_rules! float_update {
    ($atomic:expr, $t:ty, $order:expr, |$old:ident| $new:expr) => {
        ordered($order, |o| {
            let atomic = $atomic;
            let mut bits = atomic.load(load_order(o));
            loop {
                let $old = <$t>::from_bits(bits);
                let next = ($new).to_bits();
                // Skipping the store is only an option when no ordering rides on it.
                if next == bits && o == Ordering::Relaxed {
                    return $old;
                }
                match atomic.compare_exchange_weak(bits, next, o, failure_order(o)) {
                    Ok(_) => return $old,
                    Err(seen) => bits = seen,
                }
            }
        })
    };
}

macro_rules! impl_float {
    ($($t:ty => $bits:ty, $atomic:ty, $gpu_add:ident;)*) => {$(
        impl sealed::Sealed for $t {}

        impl Atomic for $t {
            #[inline(always)]
            unsafe fn __add(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                #[cfg(target_arch = "nvptx64")]
                {
                    ordered(order, |_| unsafe { $gpu_add(ptr, value) })
                }
                #[cfg(not(target_arch = "nvptx64"))]
                {
                    let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                    float_update!(bits, $t, order, |old| old + value)
                }
            }
            #[inline(always)]
            unsafe fn __sub(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                unsafe { Self::__add(ptr, -value, order) }
            }
            #[inline(always)]
            unsafe fn __min(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                float_update!(bits, $t, order, |old| old.min(value))
            }
            #[inline(always)]
            unsafe fn __max(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                float_update!(bits, $t, order, |old| old.max(value))
            }
            #[inline(always)]
            unsafe fn __exchange(ptr: *mut Self, value: Self, order: Ordering) -> Self {
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                <$t>::from_bits(ordered(order, |o| bits.swap(value.to_bits(), o)))
            }
            #[inline(always)]
            unsafe fn __cas(ptr: *mut Self, current: Self, new: Self, order: Ordering) -> Self {
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                let old = ordered(order, |o| {
                    match bits.compare_exchange(current.to_bits(), new.to_bits(), o, failure_order(o)) {
                        Ok(old) | Err(old) => old,
                    }
                });
                <$t>::from_bits(old)
            }
            #[inline(always)]
            unsafe fn __load(ptr: *mut Self, order: Ordering) -> Self {
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                <$t>::from_bits(ordered(order, |o| bits.load(load_order(o))))
            }
            #[inline(always)]
            unsafe fn __store(ptr: *mut Self, value: Self, order: Ordering) {
                let bits = unsafe { <$atomic>::from_ptr(ptr.cast::<$bits>()) };
                ordered(order, |o| bits.store(value.to_bits(), store_order(o)))
            }
        }
    )*};
}

impl_float! {
    f32 => u32, AtomicU32, nvvm_atomic_add_f32;
    f64 => u64, AtomicU64, nvvm_atomic_add_f64;
}

/// Atomically adds `value` to `*ptr`; returns the previous value (`atomicAdd`). Integers wrap.
///
/// # Safety
/// `ptr` must be valid for reads and writes and aligned; every concurrent access to `*ptr` must
/// be atomic.
#[inline(always)]
pub unsafe fn atomic_add<T: Atomic>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__add(ptr, value, order) }
}

/// Atomically subtracts `value` from `*ptr`; returns the previous value (`atomicSub`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_sub<T: Atomic>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__sub(ptr, value, order) }
}

/// Atomically stores the minimum of `*ptr` and `value`; returns the previous value
/// (`atomicMin`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_min<T: Atomic>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__min(ptr, value, order) }
}

/// Atomically stores the maximum of `*ptr` and `value`; returns the previous value
/// (`atomicMax`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_max<T: Atomic>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__max(ptr, value, order) }
}

/// Atomically replaces `*ptr` by `value`; returns the previous value (`atomicExch`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_exchange<T: Atomic>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__exchange(ptr, value, order) }
}

/// Atomically replaces `*ptr` by `new` if it equals `current` (bitwise for floats); returns the
/// previous value either way (`atomicCAS`): the swap happened if it equals `current`.
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_cas<T: Atomic>(ptr: *mut T, current: T, new: T, order: Ordering) -> T {
    unsafe { T::__cas(ptr, current, new, order) }
}

/// Atomically reads `*ptr` (a `Release` ordering reads as relaxed).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_load<T: Atomic>(ptr: *mut T, order: Ordering) -> T {
    unsafe { T::__load(ptr, order) }
}

/// Atomically writes `value` to `*ptr` (an `Acquire` ordering writes as relaxed).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_store<T: Atomic>(ptr: *mut T, value: T, order: Ordering) {
    unsafe { T::__store(ptr, value, order) }
}

/// Atomically replaces `*ptr` by `*ptr & value`; returns the previous value (`atomicAnd`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_and<T: AtomicBitwise>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__and(ptr, value, order) }
}

/// Atomically replaces `*ptr` by `*ptr | value`; returns the previous value (`atomicOr`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_or<T: AtomicBitwise>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__or(ptr, value, order) }
}

/// Atomically replaces `*ptr` by `*ptr ^ value`; returns the previous value (`atomicXor`).
///
/// # Safety
/// As [`atomic_add`].
#[inline(always)]
pub unsafe fn atomic_xor<T: AtomicBitwise>(ptr: *mut T, value: T, order: Ordering) -> T {
    unsafe { T::__xor(ptr, value, order) }
}

/// Generates the bounds-checked atomic methods (`atomic_add(index, value)`, ...) of a container
/// whose `$slot(index)` method returns a checked element pointer.
macro_rules! atomic_methods {
    // Inherent methods of a shared-memory handle (`&self`: handles are `Copy` pointers).
    (impl[$($generics:tt)*] $ty:ty, $index:ty) => {
        impl<$($generics)*> $ty {
            $crate::atomic::atomic_methods!(@all [pub] [] atomic_slot, $index);
        }
    };
    (@all [$($vis:tt)*] [$($mutability:tt)?] $slot:ident, $index:ty) => {
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            Atomic, atomic_add, atomic_add_ordered, atomic_add,
            "Atomically adds `value` to the element at `index` (`atomicAdd`); integers wrap.");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            Atomic, atomic_sub, atomic_sub_ordered, atomic_sub,
            "Atomically subtracts `value` from the element at `index` (`atomicSub`); integers wrap.");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            Atomic, atomic_min, atomic_min_ordered, atomic_min,
            "Atomically replaces the element at `index` by its minimum with `value` (`atomicMin`; floats ignore a NaN operand).");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            Atomic, atomic_max, atomic_max_ordered, atomic_max,
            "Atomically replaces the element at `index` by its maximum with `value` (`atomicMax`; floats ignore a NaN operand).");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            Atomic, atomic_exchange, atomic_exchange_ordered, atomic_exchange,
            "Atomically replaces the element at `index` by `value` (`atomicExch`).");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            AtomicBitwise, atomic_and, atomic_and_ordered, atomic_and,
            "Atomically replaces the element at `index` by `element & value` (`atomicAnd`).");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            AtomicBitwise, atomic_or, atomic_or_ordered, atomic_or,
            "Atomically replaces the element at `index` by `element | value` (`atomicOr`).");
        $crate::atomic::atomic_methods!(@rmw [$($vis)*] [$($mutability)?] $slot, $index,
            AtomicBitwise, atomic_xor, atomic_xor_ordered, atomic_xor,
            "Atomically replaces the element at `index` by `element ^ value` (`atomicXor`).");

        /// Atomically replaces the element at `index` by `new` if it equals `current` (bitwise
        /// for floats), relaxed (`atomicCAS`). Returns the previous value either way: the swap
        /// happened if it equals `current`.
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn atomic_cas(&$($mutability)? self, index: $index, current: T, new: T) -> T
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            // SAFETY: in bounds; concurrent accesses through this API are atomic.
            unsafe { $crate::atomic::atomic_cas(ptr, current, new, $crate::atomic::Ordering::Relaxed) }
        }

        /// [`atomic_cas`](Self::atomic_cas) with the memory ordering `order` (device scope).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn atomic_cas_ordered(
            &$($mutability)? self,
            index: $index,
            current: T,
            new: T,
            order: $crate::atomic::Ordering,
        ) -> T
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            unsafe { $crate::atomic::atomic_cas(ptr, current, new, order) }
        }

        /// Atomically reads the element at `index`, relaxed (never torn, never cached in a
        /// register: the way to poll a flag another thread sets).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn atomic_load(&$($mutability)? self, index: $index) -> T
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            unsafe { $crate::atomic::atomic_load(ptr, $crate::atomic::Ordering::Relaxed) }
        }

        /// [`atomic_load`](Self::atomic_load) with the memory ordering `order` (device scope).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn atomic_load_ordered(
            &$($mutability)? self,
            index: $index,
            order: $crate::atomic::Ordering,
        ) -> T
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            unsafe { $crate::atomic::atomic_load(ptr, order) }
        }

        /// Atomically writes `value` to the element at `index`, relaxed.
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn atomic_store(&$($mutability)? self, index: $index, value: T)
        where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            unsafe { $crate::atomic::atomic_store(ptr, value, $crate::atomic::Ordering::Relaxed) }
        }

        /// [`atomic_store`](Self::atomic_store) with the memory ordering `order` (device scope).
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn atomic_store_ordered(
            &$($mutability)? self,
            index: $index,
            value: T,
            order: $crate::atomic::Ordering,
        ) where
            T: $crate::atomic::Atomic,
        {
            let ptr = self.$slot(index);
            unsafe { $crate::atomic::atomic_store(ptr, value, order) }
        }
    };
    (@rmw [$($vis:tt)*] [$($mutability:tt)?] $slot:ident, $index:ty,
        $bound:ident, $name:ident, $ordered:ident, $free:ident, $doc:literal) => {
        #[doc = $doc]
        /// Relaxed; returns the previous value.
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn $name(&$($mutability)? self, index: $index, value: T) -> T
        where
            T: $crate::atomic::$bound,
        {
            let ptr = self.$slot(index);
            // SAFETY: in bounds; concurrent accesses through this API are atomic.
            unsafe { $crate::atomic::$free(ptr, value, $crate::atomic::Ordering::Relaxed) }
        }

        #[doc = $doc]
        /// With the memory ordering `order` (device scope); returns the previous value.
        ///
        /// # Panics
        /// When `index` is out of bounds.
        #[inline(always)]
        #[track_caller]
        $($vis)* fn $ordered(
            &$($mutability)? self,
            index: $index,
            value: T,
            order: $crate::atomic::Ordering,
        ) -> T
        where
            T: $crate::atomic::$bound,
        {
            let ptr = self.$slot(index);
            unsafe { $crate::atomic::$free(ptr, value, order) }
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

    atomic_methods!(@all [] [mut] __atomic_slot, usize);
}

impl<T> AtomicSlice<T> for [T] {
    #[inline(always)]
    #[track_caller]
    fn __atomic_slot(&mut self, index: usize) -> *mut T {
        bounds::check(Container::Slice, index, self.len());
        // SAFETY: in bounds.
        unsafe { self.as_mut_ptr().add(index) }
    }
}
