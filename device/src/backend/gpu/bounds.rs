//! Index panics on the GPU: static messages, one per container and dimension.

use crate::bounds::Container;

/// Panics for an index outside `0..len` of a one-dimensional container.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_out_of_bounds(what: Container, index: usize, len: usize) -> ! {
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

/// Panics for a row or column index outside a two-dimensional container.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_2d_out_of_bounds(
    what: Container,
    (row, col): (usize, usize),
    (rows, cols): (usize, usize),
) -> ! {
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
