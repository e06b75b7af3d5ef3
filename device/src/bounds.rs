//! The index checks of shared arrays, atomics on slices and matrix views, and their panics.
//!
//! The panic functions (in the backends) are cold and never inlined, so a check costs a compare
//! and a branch in the kernel. On the simulator the message names the index and the length; on
//! the GPU the integers go into the panic record (kinds `PANIC_KIND_CONTAINER_*` of
//! [`crate::panic`]) and the host prints the same text.

use crate::backend::bounds as imp;

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
    /// The container's code in a panic record's kind (`PANIC_CONTAINER_*`).
    #[cfg_attr(not(target_arch = "nvptx64"), allow(dead_code))] // Read by the GPU backend only.
    pub(crate) const fn code(self) -> u32 {
        match self {
            Container::SharedArray => crate::panic::PANIC_CONTAINER_SHARED_ARRAY,
            Container::Slice => crate::panic::PANIC_CONTAINER_ATOMIC_SLICE,
            Container::MatrixData => crate::panic::PANIC_CONTAINER_MATRIX,
        }
    }
}

/// Checks `index < len`.
#[inline(always)]
#[track_caller]
pub(crate) fn check(what: Container, index: usize, len: usize) {
    if index >= len {
        imp::index_out_of_bounds(what, index, len);
    }
}

/// Checks `row < rows` and `col < cols`.
#[inline(always)]
#[track_caller]
pub(crate) fn check_2d(what: Container, index: (usize, usize), shape: (usize, usize)) {
    if index.0 >= shape.0 || index.1 >= shape.1 {
        imp::index_2d_out_of_bounds(what, index, shape);
    }
}
