//! Warp operations through the simulator, which exchanges values among the 32 lanes of a warp.

use crate::sim::{self, ShuffleKind, WarpOp};
use crate::warp::{Kind, WARP_SIZE, is_shuffle_width};
use core::panic::Location;

/// A shuffle of (up to) 64 bits.
#[inline]
#[track_caller]
fn shuffle_bits(kind: Kind, mask: u32, value: u64, lane: u32, width: u32) -> u64 {
    // CUDA leaves other widths undefined (a GPU computes with a mangled segment mask): stop the
    // thread at the caller's line instead, as documented in `warp.rs`.
    if !is_shuffle_width(width) {
        panic!("shuffle width {width} is not a power of two from 1 to {WARP_SIZE}");
    }
    let kind = match kind {
        Kind::Index => ShuffleKind::Index,
        Kind::Up => ShuffleKind::Up,
        Kind::Down => ShuffleKind::Down,
        Kind::Xor => ShuffleKind::Xor,
    };
    let op = WarpOp::Shuffle {
        kind,
        mask,
        value,
        lane,
        width,
    };
    sim::hooks().warp(op, Location::caller())
}

#[inline]
#[track_caller]
pub(crate) fn shuffle_u32(kind: Kind, mask: u32, value: u32, lane: u32, width: u32) -> u32 {
    shuffle_bits(kind, mask, value as u64, lane, width) as u32
}

#[inline]
#[track_caller]
pub(crate) fn shuffle_f32(kind: Kind, mask: u32, value: f32, lane: u32, width: u32) -> f32 {
    f32::from_bits(shuffle_u32(kind, mask, value.to_bits(), lane, width))
}

#[inline]
#[track_caller]
pub(crate) fn shuffle_u64(kind: Kind, mask: u32, value: u64, lane: u32, width: u32) -> u64 {
    shuffle_bits(kind, mask, value, lane, width)
}

#[inline]
pub(crate) fn lane_id() -> u32 {
    crate::index::thread_rank() % WARP_SIZE
}

#[inline]
pub(crate) fn active_mask() -> u32 {
    sim::hooks().active_mask()
}

#[inline]
#[track_caller]
pub(crate) fn ballot(mask: u32, predicate: bool) -> u32 {
    sim::hooks().warp(WarpOp::Ballot { mask, predicate }, Location::caller()) as u32
}

#[inline]
#[track_caller]
pub(crate) fn any(mask: u32, predicate: bool) -> bool {
    ballot(mask, predicate) != 0
}

#[inline]
#[track_caller]
pub(crate) fn all(mask: u32, predicate: bool) -> bool {
    // Every lane passed `predicate` exactly when none passed its negation.
    ballot(mask, !predicate) == 0
}
