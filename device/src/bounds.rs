//! The index checks of shared arrays, atomics on slices and matrix views, and their panics.
//!
//! The panic functions are cold and never inlined, so a check costs a compare and a branch in
//! the kernel. On the simulator the message names the index and the length; on the GPU it is a
//! static string (the device panic record keeps static messages only, see [`crate::panic`]).

/// Panics for an index outside `0..len` of a one-dimensional container called `what`.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_out_of_bounds(what: Container, index: usize, len: usize) -> ! {
    #[cfg(not(target_arch = "nvptx64"))]
    panic!(
        "{} index out of bounds: the index is {index} but the length is {len}",
        what.name()
    );
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (index, len);
        match what {
            Container::SharedArray => panic!(
                "shared array index out of bounds (run on the simulator to see the index and the length)"
            ),
            Container::Slice => panic!(
                "atomic index out of bounds of the slice (run on the simulator to see the index and the length)"
            ),
            Container::MatrixData => panic!(
                "matrix row out of bounds of the underlying slice (run on the simulator to see the sizes)"
            ),
        }
    }
}

/// Panics for a row or column index outside a two-dimensional container called `what`.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_2d_out_of_bounds(
    what: Container,
    (row, col): (usize, usize),
    (rows, cols): (usize, usize),
) -> ! {
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if row >= rows {
            panic!(
                "{} row index out of bounds: the row is {row} but there are {rows} rows (index ({row}, {col}) into {rows} x {cols})",
                what.name()
            );
        }
        panic!(
            "{} column index out of bounds: the column is {col} but there are {cols} columns (index ({row}, {col}) into {rows} x {cols})",
            what.name()
        );
    }
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (what, cols, col);
        if row >= rows {
            panic!(
                "2-D index out of bounds: row too large (run on the simulator to see the index and the shape)"
            );
        }
        panic!(
            "2-D index out of bounds: column too large (run on the simulator to see the index and the shape)"
        );
    }
}

/// What was indexed, for panic messages.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Container {
    /// A static or dynamic shared-memory array.
    SharedArray,
    /// A slice used through [`crate::atomic::AtomicSlice`].
    Slice,
    /// A matrix view ([`crate::matrix::Matrix`]).
    MatrixData,
}

impl Container {
    #[cfg(not(target_arch = "nvptx64"))]
    fn name(self) -> &'static str {
        match self {
            Container::SharedArray => "shared array",
            Container::Slice => "atomic slice",
            Container::MatrixData => "matrix",
        }
    }
}

/// Checks `index < len`.
#[inline(always)]
#[track_caller]
pub(crate) fn check(what: Container, index: usize, len: usize) {
    if index >= len {
        index_out_of_bounds(what, index, len);
    }
}

/// Checks `row < rows` and `col < cols`.
#[inline(always)]
#[track_caller]
pub(crate) fn check_2d(what: Container, index: (usize, usize), shape: (usize, usize)) {
    if index.0 >= shape.0 || index.1 >= shape.1 {
        index_2d_out_of_bounds(what, index, shape);
    }
}
