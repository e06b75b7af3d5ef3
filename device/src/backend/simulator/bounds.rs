//! Index panics on the simulator: messages with the index and the length or shape.

use crate::bounds::Container;

/// The container's name in messages.
fn name(what: Container) -> &'static str {
    match what {
        Container::SharedArray => "shared array",
        Container::Slice => "atomic slice",
        Container::MatrixData => "matrix",
    }
}

/// Panics for an index outside `0..len` of a one-dimensional container.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_out_of_bounds(what: Container, index: usize, len: usize) -> ! {
    panic!(
        "{} index out of bounds: the index is {index} but the length is {len}",
        name(what)
    );
}

/// Panics for a row or column index outside a two-dimensional container.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_2d_out_of_bounds(
    what: Container,
    (row, col): (usize, usize),
    (rows, cols): (usize, usize),
) -> ! {
    if row >= rows {
        panic!(
            "{} row index out of bounds: the row is {row} but there are {rows} rows (index ({row}, {col}) into {rows} x {cols})",
            name(what)
        );
    }
    panic!(
        "{} column index out of bounds: the column is {col} but there are {cols} columns (index ({row}, {col}) into {rows} x {cols})",
        name(what)
    );
}
