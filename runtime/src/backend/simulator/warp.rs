//! Warp-synchronous operations: `syncwarp`, shuffles, ballots, gathers (`ldmatrix`, whose
//! lanes each receive every lane's 128 bits and pick their fragment on the device side) and
//! `mma.sync`.
//!
//! A lane reaching a warp operation waits (its coroutine is suspended). When no thread of the
//! block can run, the scheduler completes every operation whose lanes have all arrived: each lane
//! named in the mask must wait at the same operation (same source location, same flavour, same
//! mask). Lanes of the mask that exited make the operation divergent, a fault. Lanes of a partial
//! last warp that do not exist (block size not a multiple of 32) are left out of every mask.
//!
//! Shuffles follow PTX `shfl.sync` exactly, as CUDA's `__shfl_*_sync(mask, var, lane, width)`
//! lower to it: a lane whose source falls outside its `width`-lane section keeps its own value
//! (for `xor`, as in PTX, a source in an earlier section is read; a later one is not). A lane whose
//! source lane is not in the mask (undefined on a GPU) gets its own value.
//!
//! `mma.sync` names the whole warp (its mask is all 32 lanes): when every lane has arrived with
//! the same input type, the device crate's `execute_warp_mma` computes `D` from the 32 lanes'
//! fragments and each lane's part of it is written where the lane asked (see [`complete_mma`]).

use super::block::{ThreadState, WARP_SIZE, existing_lanes};
use super::report::{op_mask, op_name, thread_groups};
use super::scheduler::{GroupOutcome, Launch};
use crate::device::sim::{LaneOperands, MmaType, ShuffleKind, WarpOp, execute_warp_mma};
use crate::vocabulary::fault::{SimulatorFault, SourceSite};
use crate::vocabulary::thread_set::thread_coords;

/// Whether two lanes' operations can complete together: same flavour, same mask, and for
/// shuffles the same kind and width (the value and source lane are per lane).
fn same_operation(a: &WarpOp, b: &WarpOp) -> bool {
    match (*a, *b) {
        (WarpOp::Sync { mask: m1 }, WarpOp::Sync { mask: m2 }) => m1 == m2,
        (WarpOp::Ballot { mask: m1, .. }, WarpOp::Ballot { mask: m2, .. }) => m1 == m2,
        (
            WarpOp::Gather {
                instruction: i1,
                mask: m1,
                ..
            },
            WarpOp::Gather {
                instruction: i2,
                mask: m2,
                ..
            },
        ) => i1 == i2 && m1 == m2,
        (
            WarpOp::Shuffle {
                kind: k1,
                mask: m1,
                width: w1,
                ..
            },
            WarpOp::Shuffle {
                kind: k2,
                mask: m2,
                width: w2,
                ..
            },
        ) => k1 == k2 && m1 == m2 && w1 == w2,
        (WarpOp::Mma { input: i1, .. }, WarpOp::Mma { input: i2, .. }) => i1 == i2,
        _ => false,
    }
}

/// The lane a shuffle reads for lane `lane`, as PTX `shfl.sync` computes it with the clamp value
/// CUDA passes for `width` (`b` is the source lane, delta or xor mask). Returns `lane` itself when
/// the source is outside the lane's section.
pub(super) fn shuffle_source(kind: ShuffleKind, lane: u32, b: u32, width: u32) -> u32 {
    let segmask = ferrocuda_device::warp::WARP_SIZE.wrapping_sub(width) & 0x1f;
    let clamp = if kind == ShuffleKind::Up { 0 } else { 0x1f };
    let b = b & 0x1f;
    let min_lane = lane & segmask;
    let max_lane = min_lane | (clamp & !segmask & 0x1f);
    let (source, valid) = match kind {
        ShuffleKind::Up => {
            let j = lane as i32 - b as i32;
            (j, j >= max_lane as i32)
        }
        ShuffleKind::Down => {
            let j = (lane + b) as i32;
            (j, j <= max_lane as i32)
        }
        ShuffleKind::Xor => {
            let j = (lane ^ b) as i32;
            (j, j <= max_lane as i32)
        }
        ShuffleKind::Index => {
            let j = (min_lane | (b & !segmask & 0x1f)) as i32;
            (j, j <= max_lane as i32)
        }
    };
    if valid { source as u32 } else { lane }
}

/// The lane numbers set in `mask`, in increasing order.
fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    (0..WARP_SIZE).filter(move |l| mask & (1 << l) != 0)
}

impl Launch<'_> {
    /// Looks at the warp operation thread `leader` waits at: completes it if every lane of its
    /// mask waits at the same operation.
    pub(super) fn resolve_warp_group(&self, leader: usize) -> GroupOutcome {
        let ThreadState::AtWarp { op, location } = self.threads[leader].state.get() else {
            return GroupOutcome::Waiting;
        };
        let base = leader - leader % WARP_SIZE;
        let own_lane = leader - base;
        let raw_mask = op_mask(&op);
        let mask = raw_mask & existing_lanes(base, self.threads.len());
        if mask & (1 << own_lane) == 0 {
            return GroupOutcome::Problem(SimulatorFault::InvalidWarpMask {
                kernel: self.info.name.to_string(),
                block: self.block_idx.get(),
                block_dim: self.block,
                thread: self.coords(leader),
                operation: op_name(&op),
                site: SourceSite::from_location(location),
                mask: raw_mask,
                lane: own_lane as u32,
            });
        }
        let (mut mismatch, mut at_barrier, mut exited) = (false, false, false);
        for lane in lanes(mask) {
            match self.threads[base + lane].state.get() {
                // As on sm_70 and later, lanes may reach the same operation from different
                // source lines (`if lane < 16 { shfl(..) } else { shfl(..) }`).
                ThreadState::AtWarp { op: other, .. } if same_operation(&op, &other) => {}
                ThreadState::AtWarp { .. } => mismatch = true,
                ThreadState::AtBarrier { .. } => at_barrier = true,
                ThreadState::Exited => exited = true,
                ThreadState::Panicked | ThreadState::Aborted | ThreadState::Ready => {
                    return GroupOutcome::Waiting;
                }
            }
        }
        if !(mismatch || at_barrier || exited) {
            self.complete_warp_op(base, mask, &op);
            return GroupOutcome::Completed;
        }
        if at_barrier && !mismatch && !exited {
            return GroupOutcome::Problem(self.deadlock());
        }
        let states = lanes(mask).map(|lane| (base + lane, self.threads[base + lane].state.get()));
        GroupOutcome::Problem(SimulatorFault::DivergentWarpOperation {
            kernel: self.info.name.to_string(),
            block: self.block_idx.get(),
            block_dim: self.block,
            groups: thread_groups(self.block, states),
        })
    }

    /// Completes a warp operation all of whose lanes (`mask`, in the warp starting at thread
    /// `base`) have arrived: computes each lane's result and makes the lanes runnable.
    fn complete_warp_op(&self, base: usize, mask: u32, op: &WarpOp) {
        if let WarpOp::Mma { input, .. } = *op {
            self.complete_mma(base, input);
            return;
        }
        let mut values = [0u64; WARP_SIZE];
        let mut gathered = [[0u64; 2]; WARP_SIZE];
        let mut ballot = 0u32;
        for lane in lanes(mask) {
            if let ThreadState::AtWarp { op, .. } = self.threads[base + lane].state.get() {
                match op {
                    WarpOp::Shuffle { value, .. } => values[lane] = value,
                    WarpOp::Gather { value, .. } => gathered[lane] = value,
                    WarpOp::Ballot {
                        predicate: true, ..
                    } => ballot |= 1 << lane,
                    _ => {}
                }
            }
        }
        for lane in lanes(mask) {
            let slot = &self.threads[base + lane];
            let ThreadState::AtWarp { op: lane_op, .. } = slot.state.get() else {
                continue;
            };
            let result = match lane_op {
                WarpOp::Sync { .. } | WarpOp::Mma { .. } => 0,
                WarpOp::Gather {
                    gathered: destination,
                    ..
                } => {
                    // SAFETY: the lane waits at this operation, so the buffer it named (on its
                    // stack, valid until it resumes) is alive and nothing else refers to it.
                    unsafe { destination.write(gathered) };
                    0
                }
                WarpOp::Ballot { .. } => ballot as u64,
                WarpOp::Shuffle {
                    kind,
                    value,
                    lane: source,
                    width,
                    ..
                } => {
                    let from = shuffle_source(kind, lane as u32, source, width) as usize;
                    if mask & (1 << from) != 0 {
                        values[from]
                    } else {
                        value
                    }
                }
            };
            slot.result.set(result);
            slot.state.set(ThreadState::Ready);
        }
        if let WarpOp::Sync { .. } = op {
            self.shared.borrow_mut().warp_sync(base, mask);
        }
    }

    /// Completes an `mma.sync` all 32 lanes of the warp starting at thread `base` wait at (with
    /// the same input type, checked by [`same_operation`]): computes `D` and hands each lane its
    /// registers.
    fn complete_mma(&self, base: usize, input: MmaType) {
        let mut operands = [LaneOperands::default(); WARP_SIZE];
        for (lane, slot) in operands.iter_mut().enumerate() {
            if let ThreadState::AtWarp {
                op: WarpOp::Mma { a, b, c, .. },
                ..
            } = self.threads[base + lane].state.get()
            {
                *slot = LaneOperands { a, b, c };
            }
        }
        let results = execute_warp_mma(input, &operands);
        for (lane, registers) in results.into_iter().enumerate() {
            let slot = &self.threads[base + lane];
            if let ThreadState::AtWarp {
                op: WarpOp::Mma { d, .. },
                ..
            } = slot.state.get()
            {
                // SAFETY: `d` points at a local of the lane's `mma_sync` call, which is suspended
                // at this operation (its coroutine stack is alive and nothing else touches the
                // local) until the state set below lets the scheduler resume it.
                unsafe { d.write(registers) };
            }
            slot.result.set(0);
            slot.state.set(ThreadState::Ready);
        }
    }

    /// The lanes of the calling thread's warp that have not ended (`__activemask`).
    pub(super) fn active_lanes(&self, rank: usize) -> u32 {
        let base = rank - rank % WARP_SIZE;
        lanes(existing_lanes(base, self.threads.len()))
            .filter(|&lane| !self.threads[base + lane].state.get().has_ended())
            .fold(0, |mask, lane| mask | (1 << lane))
    }

    /// The coordinates of a thread of this block, for messages.
    pub(super) fn coords(&self, rank: usize) -> crate::Dim3 {
        thread_coords(rank, self.block)
    }
}
