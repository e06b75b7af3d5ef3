//! The shapes of shared-memory handles: how an index becomes a checked offset.

use crate::bounds::{self, Container};

mod sealed {
    pub trait Sealed {}
}

/// How a [`Shared`](super::Shared) handle is indexed: its index type, its length, and the
/// offset of an index (checked, with the panic message of its dimension).
///
/// Sealed: [`Fixed`], [`Fixed2d`] and [`Dynamic`] are the shapes.
pub trait Shape: Copy + core::fmt::Debug + sealed::Sealed {
    /// `usize`, or `(row, col)` for two dimensions.
    type Index: Copy;
    /// The number of elements.
    fn len(&self) -> usize;
    /// Whether there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The offset of `index` from the first element.
    ///
    /// # Panics
    /// When `index` is out of bounds.
    #[track_caller]
    fn offset(&self, index: Self::Index) -> usize;
    /// The offset of `index`, which the caller knows is in bounds (not checked).
    fn offset_unchecked(&self, index: Self::Index) -> usize;
}

/// `N` elements indexed `0..N` (a [`SharedArray`](super::SharedArray)).
#[derive(Clone, Copy, Debug)]
pub struct Fixed<const N: usize>;

/// `R` rows of `C` elements indexed `(row, col)`, row-major (a
/// [`SharedArray2d`](super::SharedArray2d)).
#[derive(Clone, Copy, Debug)]
pub struct Fixed2d<const R: usize, const C: usize>;

/// A length known at run time (a [`SharedSlice`](super::SharedSlice)).
#[derive(Clone, Copy, Debug)]
pub struct Dynamic {
    len: usize,
}

impl Dynamic {
    /// `len` elements.
    pub(crate) const fn new(len: usize) -> Self {
        Dynamic { len }
    }
}

impl<const N: usize> sealed::Sealed for Fixed<N> {}
impl<const R: usize, const C: usize> sealed::Sealed for Fixed2d<R, C> {}
impl sealed::Sealed for Dynamic {}

impl<const N: usize> Shape for Fixed<N> {
    type Index = usize;
    #[inline(always)]
    fn len(&self) -> usize {
        N
    }
    #[inline(always)]
    #[track_caller]
    fn offset(&self, index: usize) -> usize {
        bounds::check(Container::SharedArray, index, N);
        index
    }
    #[inline(always)]
    fn offset_unchecked(&self, index: usize) -> usize {
        index
    }
}

impl<const R: usize, const C: usize> Shape for Fixed2d<R, C> {
    type Index = (usize, usize);
    #[inline(always)]
    fn len(&self) -> usize {
        R * C
    }
    #[inline(always)]
    #[track_caller]
    fn offset(&self, (row, col): (usize, usize)) -> usize {
        bounds::check_2d(Container::SharedArray, (row, col), (R, C));
        row * C + col
    }
    #[inline(always)]
    fn offset_unchecked(&self, (row, col): (usize, usize)) -> usize {
        row * C + col
    }
}

impl Shape for Dynamic {
    type Index = usize;
    #[inline(always)]
    fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    #[track_caller]
    fn offset(&self, index: usize) -> usize {
        bounds::check(Container::SharedArray, index, self.len);
        index
    }
    #[inline(always)]
    fn offset_unchecked(&self, index: usize) -> usize {
        index
    }
}
