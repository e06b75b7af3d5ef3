//! Index panics on the GPU: the kind of check, the container and the integers go into the panic
//! record, and the host prints the simulator's text (see [`super::panic_operands`]).

use super::panic_operands::panic_with_operands;
use crate::bounds::Container;
use crate::panic::{
    PANIC_CONTAINER_SHIFT, PANIC_KIND_CONTAINER_COLUMN, PANIC_KIND_CONTAINER_INDEX,
    PANIC_KIND_CONTAINER_ROW, pack_shape,
};

/// The record kind of a `base` check on `what`.
fn kind(base: u32, what: Container) -> u32 {
    base | (what.code() << PANIC_CONTAINER_SHIFT)
}

/// Panics for an index outside `0..len` of a one-dimensional container.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn index_out_of_bounds(what: Container, index: usize, len: usize) -> ! {
    panic_with_operands(
        kind(PANIC_KIND_CONTAINER_INDEX, what),
        index as u64,
        len as u64,
        0,
    )
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
    let base = if row >= rows {
        PANIC_KIND_CONTAINER_ROW
    } else {
        PANIC_KIND_CONTAINER_COLUMN
    };
    panic_with_operands(
        kind(base, what),
        row as u64,
        col as u64,
        pack_shape(rows, cols),
    )
}
