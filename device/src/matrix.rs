//! Two-dimensional views of slices: `m[(row, col)]` on a row-major matrix, with each index
//! checked against its own dimension.
//!
//! ```ignore
//! #[kernel]
//! pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, p: u32) {
//!     let (m, n, p) = (m as usize, n as usize, p as usize);
//!     let (a, b) = (Matrix::new(a, m, n), Matrix::new(b, n, p));
//!     let mut c = MatrixMut::new(c, m, p);
//!     let (col, row) = grid!(2);
//!     if row < m && col < p {
//!         let mut sum = 0.0;
//!         for k in 0..n {
//!             sum += a[(row, k)] * b[(k, col)];
//!         }
//!         c[(row, col)] = sum;
//!     }
//! }
//! ```
//!
//! A view may have a row stride (pitch) larger than its column count, to look at a sub-matrix
//! or at rows padded for alignment: element `(r, c)` is `data[r * stride + c]`.

use crate::backend::matrix as imp;
use crate::bounds::{self, Container};
use core::ops::{Index, IndexMut};

/// The number of elements a `rows` x `cols` view with this row stride reaches, or `None` on
/// overflow.
pub(crate) fn extent(rows: usize, cols: usize, stride: usize) -> Option<usize> {
    if rows == 0 || cols == 0 {
        Some(0)
    } else {
        (rows - 1).checked_mul(stride)?.checked_add(cols)
    }
}

/// Checks the shape of a new view against the slice's length.
#[inline(always)]
#[track_caller]
fn check_shape(len: usize, rows: usize, cols: usize, stride: usize) {
    if stride < cols {
        imp::shape_error(ShapeError::StrideBelowCols, len, rows, cols, stride);
    }
    match extent(rows, cols, stride) {
        Some(needed) if needed <= len => {}
        _ => imp::shape_error(ShapeError::TooShort, len, rows, cols, stride),
    }
}

/// What is wrong with a new view's shape.
#[derive(Clone, Copy)]
pub(crate) enum ShapeError {
    /// The row stride is smaller than the column count.
    StrideBelowCols,
    /// The view reaches past the end of the slice.
    TooShort,
}

/// A read-only row-major matrix view of a slice: `rows` x `cols`, row stride `stride`.
#[derive(Debug)]
pub struct Matrix<'a, T> {
    data: &'a [T],
    rows: usize,
    cols: usize,
    stride: usize,
}

impl<T> Clone for Matrix<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Matrix<'_, T> {}

impl<'a, T> Matrix<'a, T> {
    /// A `rows` x `cols` view of `data` in row-major order.
    ///
    /// # Panics
    /// When `rows * cols > data.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn new(data: &'a [T], rows: usize, cols: usize) -> Self {
        Self::with_stride(data, rows, cols, cols)
    }

    /// A `rows` x `cols` view whose rows start `stride` elements apart (`stride >= cols`).
    ///
    /// # Panics
    /// When `stride < cols`, or the last row ends past `data.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn with_stride(data: &'a [T], rows: usize, cols: usize, stride: usize) -> Self {
        check_shape(data.len(), rows, cols, stride);
        Matrix {
            data,
            rows,
            cols,
            stride,
        }
    }

    /// The number of rows.
    #[inline(always)]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    #[inline(always)]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The distance between the starts of two rows, in elements.
    #[inline(always)]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// The element at `(row, col)`, or `None` outside the matrix.
    #[inline(always)]
    pub fn get(&self, (row, col): (usize, usize)) -> Option<&'a T> {
        if row < self.rows && col < self.cols {
            // SAFETY: `row < rows` and `col < cols` (checked just above), so the offset is at most
            // `(rows - 1) * stride + cols - 1`, below the slice's length by `check_shape`.
            Some(unsafe { self.data.get_unchecked(row * self.stride + col) })
        } else {
            None
        }
    }

    /// Row `row` as a slice of `cols` elements.
    ///
    /// # Panics
    /// When `row >= rows`.
    #[inline(always)]
    #[track_caller]
    pub fn row(&self, row: usize) -> &'a [T] {
        if row >= self.rows {
            imp::row_out_of_bounds(row, self.rows);
        }
        let start = row * self.stride;
        // SAFETY: `row < rows` (checked just above), so `start + cols <= (rows - 1) * stride + cols`,
        // which `check_shape` fitted into the slice.
        unsafe { self.data.get_unchecked(start..start + self.cols) }
    }
}

impl<T> Index<(usize, usize)> for Matrix<'_, T> {
    type Output = T;
    /// The element at `(row, col)`; panics when the row or the column is out of bounds.
    #[inline(always)]
    #[track_caller]
    fn index(&self, (row, col): (usize, usize)) -> &T {
        bounds::check_2d(Container::MatrixData, (row, col), (self.rows, self.cols));
        // SAFETY: `check_2d` just checked `row < rows` and `col < cols`; in bounds as in `get`.
        unsafe { self.data.get_unchecked(row * self.stride + col) }
    }
}

/// A mutable row-major matrix view of a slice: `rows` x `cols`, row stride `stride`.
#[derive(Debug)]
pub struct MatrixMut<'a, T> {
    data: &'a mut [T],
    rows: usize,
    cols: usize,
    stride: usize,
}

impl<'a, T> MatrixMut<'a, T> {
    /// A `rows` x `cols` view of `data` in row-major order.
    ///
    /// # Panics
    /// When `rows * cols > data.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn new(data: &'a mut [T], rows: usize, cols: usize) -> Self {
        Self::with_stride(data, rows, cols, cols)
    }

    /// A `rows` x `cols` view whose rows start `stride` elements apart (`stride >= cols`).
    ///
    /// # Panics
    /// When `stride < cols`, or the last row ends past `data.len()`.
    #[inline(always)]
    #[track_caller]
    pub fn with_stride(data: &'a mut [T], rows: usize, cols: usize, stride: usize) -> Self {
        check_shape(data.len(), rows, cols, stride);
        MatrixMut {
            data,
            rows,
            cols,
            stride,
        }
    }

    /// The number of rows.
    #[inline(always)]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    #[inline(always)]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The distance between the starts of two rows, in elements.
    #[inline(always)]
    pub fn stride(&self) -> usize {
        self.stride
    }

    /// A read-only view of the same matrix.
    #[inline(always)]
    pub fn as_matrix(&self) -> Matrix<'_, T> {
        Matrix {
            data: self.data,
            rows: self.rows,
            cols: self.cols,
            stride: self.stride,
        }
    }

    /// The element at `(row, col)`, or `None` outside the matrix.
    #[inline(always)]
    pub fn get(&self, index: (usize, usize)) -> Option<&T> {
        self.as_matrix().get(index)
    }

    /// The element at `(row, col)` for writing, or `None` outside the matrix.
    #[inline(always)]
    pub fn get_mut(&mut self, (row, col): (usize, usize)) -> Option<&mut T> {
        if row < self.rows && col < self.cols {
            // SAFETY: `row < rows` and `col < cols` (checked just above), so the offset is at most
            // `(rows - 1) * stride + cols - 1`, below the slice's length by `check_shape`.
            Some(unsafe { self.data.get_unchecked_mut(row * self.stride + col) })
        } else {
            None
        }
    }

    /// Row `row` as a slice of `cols` elements.
    ///
    /// # Panics
    /// When `row >= rows`.
    #[inline(always)]
    #[track_caller]
    pub fn row(&self, row: usize) -> &[T] {
        if row >= self.rows {
            imp::row_out_of_bounds(row, self.rows);
        }
        let start = row * self.stride;
        // SAFETY: `row < rows` (checked just above), so `start + cols <= (rows - 1) * stride + cols`,
        // which `check_shape` fitted into the slice.
        unsafe { self.data.get_unchecked(start..start + self.cols) }
    }

    /// Row `row` as a mutable slice of `cols` elements.
    ///
    /// # Panics
    /// When `row >= rows`.
    #[inline(always)]
    #[track_caller]
    pub fn row_mut(&mut self, row: usize) -> &mut [T] {
        if row >= self.rows {
            imp::row_out_of_bounds(row, self.rows);
        }
        let start = row * self.stride;
        // SAFETY: `row < rows` (checked just above), so `start + cols <= (rows - 1) * stride + cols`,
        // which `check_shape` fitted into the slice.
        unsafe { self.data.get_unchecked_mut(start..start + self.cols) }
    }
}

impl<T> Index<(usize, usize)> for MatrixMut<'_, T> {
    type Output = T;
    /// The element at `(row, col)`; panics when the row or the column is out of bounds.
    #[inline(always)]
    #[track_caller]
    fn index(&self, (row, col): (usize, usize)) -> &T {
        bounds::check_2d(Container::MatrixData, (row, col), (self.rows, self.cols));
        // SAFETY: `check_2d` just checked `row < rows` and `col < cols`; in bounds as in `get`.
        unsafe { self.data.get_unchecked(row * self.stride + col) }
    }
}

impl<T> IndexMut<(usize, usize)> for MatrixMut<'_, T> {
    /// The element at `(row, col)`; panics when the row or the column is out of bounds.
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, (row, col): (usize, usize)) -> &mut T {
        bounds::check_2d(Container::MatrixData, (row, col), (self.rows, self.cols));
        // SAFETY: `check_2d` just checked `row < rows` and `col < cols`; in bounds as in `get`.
        unsafe { self.data.get_unchecked_mut(row * self.stride + col) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::panic::catch_unwind;
    use std::string::String;
    use std::vec::Vec;
    use std::{format, vec};

    fn panic_text(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
        let payload = catch_unwind(f).expect_err("must panic");
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| String::from(*s)))
            .unwrap()
    }

    #[test]
    fn indexes_row_major_with_stride() {
        let data: Vec<i32> = (0..12).collect();
        let m = Matrix::new(&data, 3, 4);
        assert_eq!((m.rows(), m.cols()), (3, 4));
        assert_eq!(m[(2, 1)], 9);
        assert_eq!(m.row(1), &[4, 5, 6, 7]);
        let sub = Matrix::with_stride(&data[1..], 3, 2, 4);
        assert_eq!(sub[(2, 1)], 10);
        assert_eq!(sub.row(2), &[9, 10]);
        assert_eq!(sub.get((3, 0)), None);
        let mut out = vec![0; 6];
        let mut w = MatrixMut::new(&mut out, 2, 3);
        w[(1, 2)] = 7;
        w.row_mut(0)[1] = 3;
        *w.get_mut((1, 0)).unwrap() = 5;
        assert_eq!(w.as_matrix()[(1, 2)], 7);
        assert_eq!(out, [0, 3, 0, 5, 0, 7]);
        // An empty matrix fits any slice.
        let empty: [u8; 0] = [];
        assert_eq!(Matrix::new(&empty, 0, 5).rows(), 0);
    }

    #[test]
    fn row_and_column_are_checked_separately() {
        let data = [0f32; 12];
        // (1, 5) is inside the slice (offset 9) but column 5 does not exist in a 3 x 4 view.
        let text = panic_text(|| {
            let _ = Matrix::new(&data, 3, 4)[(1, 5)];
        });
        assert_eq!(
            text,
            "matrix column index out of bounds: the column is 5 but there are 4 columns (index (1, 5) into 3 x 4)"
        );
        let text = panic_text(|| {
            let _ = Matrix::new(&data, 3, 4)[(3, 0)];
        });
        assert_eq!(
            text,
            "matrix row index out of bounds: the row is 3 but there are 3 rows (index (3, 0) into 3 x 4)"
        );
        let text = panic_text(|| {
            let _ = Matrix::new(&data, 3, 4).row(7);
        });
        assert_eq!(
            text,
            "matrix row index out of bounds: the row is 7 but there are 3 rows"
        );
    }

    #[test]
    fn constructors_check_the_shape() {
        let data = [0u32; 19];
        assert_eq!(
            panic_text(|| {
                Matrix::new(&data, 4, 5);
            }),
            "a 4 x 5 matrix needs 20 elements, but the slice has 19"
        );
        assert_eq!(
            panic_text(|| {
                Matrix::with_stride(&data, 4, 5, 6);
            }),
            "a 4 x 5 matrix with row stride 6 needs 23 elements, but the slice has 19"
        );
        assert_eq!(
            panic_text(|| {
                Matrix::with_stride(&data, 2, 5, 4);
            }),
            "matrix row stride 4 is smaller than its 5 columns (rows would overlap)"
        );
        assert_eq!(
            panic_text(|| {
                Matrix::new(&data, usize::MAX, 2);
            }),
            format!(
                "a {} x 2 matrix needs more than usize::MAX elements, but the slice has 19",
                usize::MAX
            )
        );
    }
}
