//! Matrix-view panics on the simulator: messages with the sizes.

use crate::matrix::{ShapeError, extent};
use std::format;
use std::string::String;

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
    match error {
        ShapeError::StrideBelowCols => panic!(
            "matrix row stride {stride} is smaller than its {cols} columns (rows would overlap)"
        ),
        ShapeError::TooShort => panic!(
            "a {rows} x {cols} matrix{} needs {} elements, but the slice has {len}",
            if stride == cols {
                String::new()
            } else {
                format!(" with row stride {stride}")
            },
            extent(rows, cols, stride)
                .map_or_else(|| "more than usize::MAX".into(), |n| format!("{n}")),
        ),
    }
}

/// Panics for a row index out of bounds.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn row_out_of_bounds(row: usize, rows: usize) -> ! {
    panic!("matrix row index out of bounds: the row is {row} but there are {rows} rows");
}
