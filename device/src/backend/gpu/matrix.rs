//! Matrix-view panics on the GPU: static messages.

use crate::matrix::ShapeError;

/// Panics for a view whose shape does not fit its slice.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn shape_error(
    error: ShapeError,
    len: usize,
    rows: usize,
    cols: usize,
    stride: usize,
) -> ! {
    let _ = (len, rows, cols, stride);
    match error {
        ShapeError::StrideBelowCols => {
            panic!("matrix row stride smaller than its column count")
        }
        ShapeError::TooShort => {
            panic!("matrix shape larger than its slice (run on the simulator to see the sizes)")
        }
    }
}

/// Panics for a row index out of bounds.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn row_out_of_bounds(row: usize, rows: usize) -> ! {
    let _ = (row, rows);
    panic!("matrix row index out of bounds (run on the simulator to see the index)")
}
