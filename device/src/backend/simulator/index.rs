//! Indices and dimensions from the running simulated thread's context.

use crate::{Dim3, sim};

#[inline]
pub(crate) fn thread_idx() -> Dim3 {
    sim::current().thread_idx
}

#[inline]
pub(crate) fn block_idx() -> Dim3 {
    sim::current().block_idx
}

#[inline]
pub(crate) fn block_dim() -> Dim3 {
    sim::current().block_dim
}

#[inline]
pub(crate) fn grid_dim() -> Dim3 {
    sim::current().grid_dim
}
