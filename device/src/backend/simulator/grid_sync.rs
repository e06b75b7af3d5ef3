//! The grid barrier through the simulator's cooperative scheduler, between compiler fences as
//! the block barriers are (see `sync.rs`).

use super::sync::between_fences;
use crate::sim;
use core::panic::Location;

#[inline]
#[track_caller]
pub(crate) fn grid_sync() -> bool {
    let location = Location::caller();
    between_fences(|| sim::hooks().grid_barrier(location))
}

#[inline]
pub(crate) fn is_cooperative_launch() -> bool {
    sim::hooks().is_cooperative_launch()
}
