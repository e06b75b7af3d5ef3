//! Shared memory on the simulator: the block's copies of each static array and of the dynamic
//! region come from the simulator, and every plain access is reported to its race detector.

use crate::sim;
use core::panic::Location;

/// Reports a plain access of `bytes` bytes at `address` to the simulator's race detector.
#[inline]
#[track_caller]
pub(crate) fn report_access(address: *const u8, bytes: usize, write: bool) {
    sim::hooks().shared_access(address, bytes, write, Location::caller());
}

/// The block's dynamic shared memory: base address and size in bytes.
#[inline]
pub(crate) fn dynamic_region() -> (*mut u8, usize) {
    sim::hooks().shared_dynamic()
}

/// The panic of `DynamicShared::take`, with the sizes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn too_small(size: usize, offset: usize, len: usize, elem: usize) -> ! {
    panic!(
        "dynamic shared memory too small: taking {len} elements of {elem} bytes at byte offset {offset} needs {} bytes, but the launch gave {size} bytes (set it with `.shared_mem(bytes)` or the fourth `launch!` argument)",
        offset as u128 + len as u128 * elem as u128
    );
}

/// What the simulator's `shared_array!` expansion needs.
pub mod macro_support {
    use crate::shared::{Shape, Shared};
    use core::marker::PhantomData;

    /// A declaration site of a static shared array: its address is the site's key.
    pub struct SiteMarker<A> {
        _byte: u8,
        _array: PhantomData<fn() -> A>,
    }

    impl<A> Default for SiteMarker<A> {
        fn default() -> Self {
            Self::new()
        }
    }

    impl<A> SiteMarker<A> {
        /// A marker (one byte, so that every site has its own address).
        pub const fn new() -> Self {
            SiteMarker {
                _byte: 0,
                _array: PhantomData,
            }
        }

        /// The block's copy of the array `A` declared at this site, as the handle `H` (allocated
        /// by the simulator on first use in each block).
        #[inline]
        #[track_caller]
        pub fn handle<T, S: Shape>(&'static self) -> Shared<T, S>
        where
            Shared<T, S>: FromSite<T>,
        {
            let ptr = super::sim::hooks().shared_static(super::sim::SharedSite {
                key: self as *const Self as usize,
                bytes: core::mem::size_of::<A>(),
                align: core::mem::align_of::<T>(),
            });
            // SAFETY: the simulator returns this block's copy of the site's array: `size_of::<A>()`
            // bytes aligned for `T`, valid for the launch, reached only through this site.
            unsafe { <Shared<T, S> as FromSite<T>>::from_site(ptr.cast()) }
        }
    }

    /// Handles of static arrays, made from the simulator's copy of their site.
    pub trait FromSite<T> {
        /// The handle of the array at `ptr`.
        ///
        /// # Safety
        /// As `__from_static`.
        unsafe fn from_site(ptr: *mut T) -> Self;
    }

    impl<T, const N: usize> FromSite<T> for crate::shared::SharedArray<T, N> {
        unsafe fn from_site(ptr: *mut T) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Self::__from_static(ptr) }
        }
    }

    impl<T, const R: usize, const C: usize> FromSite<T> for crate::shared::SharedArray2d<T, R, C> {
        unsafe fn from_site(ptr: *mut T) -> Self {
            // SAFETY: the caller's contract.
            unsafe { Self::__from_static(ptr) }
        }
    }
}

/// The simulator side of `shared_array!`: one byte whose address names the declaration site
/// (its type mentions the array type, so that a generic element type is rejected here as it is
/// on the GPU), and the block's copy of the array.
#[doc(hidden)]
#[macro_export]
macro_rules! __shared_static {
    ($handle:ty, $array:ty) => {{
        static __FERROCUDA_SITE: $crate::shared::__macro_support::SiteMarker<$array> =
            $crate::shared::__macro_support::SiteMarker::new();
        let handle: $handle = __FERROCUDA_SITE.handle();
        handle
    }};
}
