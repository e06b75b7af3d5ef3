//! Fault reports as data: what each thread of a stuck block was doing, grouped.

use super::block::ThreadState;
use crate::Dim3;
use crate::device::sim::{BarrierOp, ShuffleKind, WarpOp};
use crate::vocabulary::fault::{SourceSite, ThreadActivity, ThreadGroup};
use crate::vocabulary::thread_set::thread_coords;

/// The CUDA name of a barrier flavour.
pub(super) fn barrier_name(op: BarrierOp) -> &'static str {
    match op {
        BarrierOp::Sync => "syncthreads",
        BarrierOp::Count => "syncthreads_count",
        BarrierOp::And => "syncthreads_and",
        BarrierOp::Or => "syncthreads_or",
        BarrierOp::Grid => "grid_sync",
    }
}

/// The CUDA name of a warp operation.
pub(super) fn op_name(op: &WarpOp) -> &'static str {
    match op {
        WarpOp::Sync { .. } => "syncwarp",
        WarpOp::Shuffle {
            kind: ShuffleKind::Index,
            ..
        } => "shfl_sync",
        WarpOp::Shuffle {
            kind: ShuffleKind::Up,
            ..
        } => "shfl_up_sync",
        WarpOp::Shuffle {
            kind: ShuffleKind::Down,
            ..
        } => "shfl_down_sync",
        WarpOp::Shuffle {
            kind: ShuffleKind::Xor,
            ..
        } => "shfl_xor_sync",
        WarpOp::Ballot { .. } => "ballot_sync",
        WarpOp::Gather { instruction, .. } => instruction,
        WarpOp::Mma { .. } => "mma_sync",
    }
}

/// The lanes an operation names.
pub(super) fn op_mask(op: &WarpOp) -> u32 {
    match *op {
        WarpOp::Sync { mask }
        | WarpOp::Shuffle { mask, .. }
        | WarpOp::Ballot { mask, .. }
        | WarpOp::Gather { mask, .. } => mask,
        // `.aligned`: the whole warp.
        WarpOp::Mma { .. } => u32::MAX,
    }
}

/// What a thread in `state` is doing, for a fault report.
pub(super) fn activity(state: &ThreadState) -> ThreadActivity {
    match state {
        ThreadState::Ready => ThreadActivity::Runnable,
        ThreadState::AtBarrier { op, location, .. } => ThreadActivity::AtBarrier {
            barrier: barrier_name(*op),
            site: SourceSite::from_location(location),
        },
        ThreadState::AtWarp { op, location } => ThreadActivity::AtWarpOperation {
            operation: op_name(op),
            mask: op_mask(op),
            site: SourceSite::from_location(location),
        },
        ThreadState::Exited => ThreadActivity::Exited,
        ThreadState::Panicked => ThreadActivity::Panicked,
        ThreadState::Aborted => ThreadActivity::Stopped,
    }
}

/// Groups threads by what they do. `items` are (rank, state) pairs in rank order; groups come in
/// the order of their first thread.
pub(super) fn thread_groups(
    block: Dim3,
    items: impl IntoIterator<Item = (usize, ThreadState)>,
) -> Vec<ThreadGroup> {
    let mut groups: Vec<ThreadGroup> = Vec::new();
    for (rank, state) in items {
        let what = activity(&state);
        let thread = thread_coords(rank, block);
        match groups.iter_mut().find(|g| g.activity == what) {
            Some(group) => group.threads.push(thread),
            None => groups.push(ThreadGroup {
                threads: vec![thread],
                activity: what,
            }),
        }
    }
    groups
}
