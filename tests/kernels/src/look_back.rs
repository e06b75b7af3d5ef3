//! The decoupled look-back of `ferrocuda::device::look_back` on a tile state that the host
//! prepares, for `tests/tests/look_back.rs`: on the simulator, whose blocks run one after
//! another, a scan's look-back always finds its predecessor's inclusive prefix, so only a state
//! written by the host reaches the walk over aggregates and over several windows.

use crate::collectives::compose_affine;
use ferrocuda::device::look_back::TileState;
use ferrocuda::prelude::*;

/// `prefix[0]` = the exclusive prefix that the look-back of tile `tile` finds with the wrapping
/// `u32` sum (one warp of 32 threads).
#[kernel]
pub fn look_back_sum_u32(
    tile: u32,
    state: &mut [u64],
    aggregates: &mut [u32],
    inclusives: &mut [u32],
    prefix: &mut [u32],
) {
    let mut tiles = TileState::new(state, aggregates, inclusives);
    let found = tiles.look_back(tile as usize, 0, |a: u32, b: u32| a.wrapping_add(b));
    prefix[lane_id() as usize] = found;
}

/// The same with [`compose_affine`] (associative, not commutative; identity 1): the order in
/// which the look-back combines the tiles shows.
#[kernel]
pub fn look_back_affine_u64(
    tile: u32,
    state: &mut [u64],
    aggregates: &mut [u64],
    inclusives: &mut [u64],
    prefix: &mut [u64],
) {
    let mut tiles = TileState::new(state, aggregates, inclusives);
    prefix[lane_id() as usize] = tiles.look_back(tile as usize, 1, compose_affine);
}
