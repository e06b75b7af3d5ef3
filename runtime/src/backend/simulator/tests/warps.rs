//! Warp operations.

use super::*;

// ---------------------------------------------------------------------------------------------
// Warp operations.

/// The shuffles checked: (kind, operand, width).
const SHUFFLES: [(ShuffleKind, u32, u32); 16] = [
    (ShuffleKind::Down, 1, 32),
    (ShuffleKind::Down, 16, 32),
    (ShuffleKind::Down, 1, 8),
    (ShuffleKind::Down, 4, 8),
    (ShuffleKind::Up, 1, 32),
    (ShuffleKind::Up, 5, 32),
    (ShuffleKind::Up, 2, 8),
    (ShuffleKind::Up, 7, 8),
    (ShuffleKind::Xor, 1, 32),
    (ShuffleKind::Xor, 16, 32),
    (ShuffleKind::Xor, 3, 8),
    (ShuffleKind::Xor, 16, 8),
    (ShuffleKind::Index, 0, 32),
    (ShuffleKind::Index, 37, 32),
    (ShuffleKind::Index, 5, 8),
    (ShuffleKind::Index, 11, 8),
];

/// CUDA's documented shuffle semantics, written independently of the simulator's PTX form.
fn reference_source(kind: ShuffleKind, lane: u32, operand: u32, width: u32) -> u32 {
    let section = lane / width * width;
    match kind {
        ShuffleKind::Down if lane % width + operand < width => lane + operand,
        ShuffleKind::Up if lane % width >= operand => lane - operand,
        // xor: later sections are out of reach, earlier ones are read.
        ShuffleKind::Xor if (lane ^ operand) / width <= lane / width => lane ^ operand,
        ShuffleKind::Index => section + operand % width,
        _ => lane,
    }
}

unsafe fn shuffles_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let t = rank();
    let value = t as u32 * 10 + 7;
    // Before any lane can exit.
    out[t * (SHUFFLES.len() + 2) + SHUFFLES.len() + 1] = sim::hooks().active_mask();
    for (i, (kind, operand, width)) in SHUFFLES.iter().enumerate() {
        out[t * (SHUFFLES.len() + 2) + i] = shfl(*kind, u32::MAX, value, *operand, *width);
    }
    let ballot = sim::hooks().warp(
        WarpOp::Ballot {
            mask: u32::MAX,
            predicate: t.is_multiple_of(3),
        },
        Location::caller(),
    );
    out[t * (SHUFFLES.len() + 2) + SHUFFLES.len()] = ballot as u32;
}
static SHUFFLES_KERNEL: KernelInfo = KernelInfo::new("shuffles", &MODULE, shuffles_sim, &[]);

#[test]
fn shuffles_ballot_and_active_mask_match_cuda() {
    let sim = Simulator::new();
    // 48 threads: a full warp and a partial one of 16 lanes.
    let threads = 48;
    let stride = SHUFFLES.len() + 2;
    let mut out = vec![0u32; threads * stride];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &SHUFFLES_KERNEL, 1, threads as u32, 0, &params).expect("runs");
    for t in 0..threads {
        let (base, lane) = (t / 32 * 32, (t % 32) as u32);
        let lanes = if base == 0 { 32 } else { 16 };
        for (i, (kind, operand, width)) in SHUFFLES.iter().enumerate() {
            let source = reference_source(*kind, lane, *operand, *width);
            let source = if source < lanes { source } else { lane };
            let expected = (base as u32 + source) * 10 + 7;
            assert_eq!(
                out[t * stride + i],
                expected,
                "thread {t}, {kind:?} {operand} width {width}"
            );
        }
        let ballot = (0..lanes)
            .filter(|l| (base as u32 + l).is_multiple_of(3))
            .fold(0u32, |m, l| m | (1 << l));
        assert_eq!(
            out[t * stride + SHUFFLES.len()],
            ballot,
            "ballot of thread {t}"
        );
        let active = if lanes == 32 { u32::MAX } else { 0xffff };
        assert_eq!(
            out[t * stride + SHUFFLES.len() + 1],
            active,
            "active mask of thread {t}"
        );
    }
}

#[test]
fn shuffle_source_matches_the_cuda_definition_exhaustively() {
    for kind in [
        ShuffleKind::Down,
        ShuffleKind::Up,
        ShuffleKind::Xor,
        ShuffleKind::Index,
    ] {
        for width in [1, 2, 4, 8, 16, 32] {
            for operand in 0..32 {
                for lane in 0..32 {
                    assert_eq!(
                        shuffle_source(kind, lane, operand, width),
                        reference_source(kind, lane, operand, width),
                        "{kind:?} lane {lane} operand {operand} width {width}"
                    );
                }
            }
        }
    }
}

unsafe fn warp_sum_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let t = rank();
    let mut v = t as u32;
    for offset in [16, 8, 4, 2, 1] {
        v += shfl(ShuffleKind::Down, u32::MAX, v, offset, 32);
    }
    if t.is_multiple_of(32) {
        out[t / 32] = v;
    }
}
static WARP_SUM: KernelInfo = KernelInfo::new("warp_sum", &MODULE, warp_sum_sim, &[]);

#[test]
fn warp_reduction_with_shfl_down() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 8];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &WARP_SUM, 1, 256, 0, &params).expect("runs");
    for (w, sum) in out.iter().enumerate() {
        assert_eq!(*sum, (w as u32 * 32..w as u32 * 32 + 32).sum::<u32>());
    }
}

static WARP_EXIT_SITE: Site = OnceLock::new();
unsafe fn warp_exit_sim(_: &ParamReader<'_>) {
    if thread_idx().x >= 16 {
        return;
    }
    let location = Location::caller();
    let _ = WARP_EXIT_SITE.set(location);
    sim::hooks().warp(
        WarpOp::Shuffle {
            kind: ShuffleKind::Down,
            mask: u32::MAX,
            value: 1,
            lane: 1,
            width: 32,
        },
        location,
    );
}
static WARP_EXIT: KernelInfo = KernelInfo::new("warp_exit", &MODULE, warp_exit_sim, &[]);

#[test]
fn a_shuffle_whose_lanes_exited_is_a_divergent_warp_operation() {
    let sim = Simulator::new();
    let fault = fault(launch(&sim, &WARP_EXIT, 1, 32, 0, &ParamBuffer::default()));
    let shfl = site(&WARP_EXIT_SITE);
    assert_eq!(
        fault,
        SimulatorFault::DivergentWarpOperation {
            kernel: "warp_exit".to_string(),
            block: Dim3::new(0, 0, 0),
            block_dim: Dim3::new(32, 1, 1),
            groups: vec![
                ThreadGroup {
                    threads: row(0..16),
                    activity: ThreadActivity::AtWarpOperation {
                        operation: "shfl_down_sync",
                        mask: u32::MAX,
                        site: shfl,
                    },
                },
                ThreadGroup {
                    threads: row(16..32),
                    activity: ThreadActivity::Exited,
                },
            ],
        }
    );
    assert_eq!(
        fault.to_string(),
        format!(
            "kernel `warp_exit`: divergent warp operation in block (0, 0, 0): threads (0..16, 0, 0) wait at shfl_down_sync (mask 0xffffffff) at {shfl}; threads (16..32, 0, 0) exited without reaching it"
        )
    );
}

unsafe fn partial_mask_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let t = rank();
    // Lanes 0..16 and 16..32 shuffle separately, with their own masks.
    let mask = if t % 32 < 16 {
        0x0000_ffff
    } else {
        0xffff_0000
    };
    out[t] = shfl(ShuffleKind::Xor, mask, t as u32, 1, 32);
}
static PARTIAL_MASK: KernelInfo = KernelInfo::new("partial_mask", &MODULE, partial_mask_sim, &[]);

#[test]
fn half_warps_shuffle_with_their_own_masks() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 64];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &PARTIAL_MASK, 1, 64, 0, &params).expect("runs");
    assert!(
        out.iter().enumerate().all(|(t, v)| *v == (t ^ 1) as u32),
        "{out:?}"
    );
}

unsafe fn first_warp_only_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let t = rank();
    if t >= 32 {
        return;
    }
    out[t] = shfl(ShuffleKind::Index, u32::MAX, t as u32, 31, 32);
}
static FIRST_WARP_ONLY: KernelInfo =
    KernelInfo::new("first_warp_only", &MODULE, first_warp_only_sim, &[]);

#[test]
fn another_warp_exiting_does_not_disturb_a_shuffle() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 32];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &FIRST_WARP_ONLY, 1, 64, 0, &params).expect("warp 1 is not in warp 0's mask");
    assert!(out.iter().all(|v| *v == 31));
}

unsafe fn own_lane_sim(_: &ParamReader<'_>) {
    sim::hooks().warp(WarpOp::Sync { mask: 1 }, Location::caller());
}
static OWN_LANE: KernelInfo = KernelInfo::new("own_lane", &MODULE, own_lane_sim, &[]);

#[test]
fn a_mask_without_the_callers_lane_is_a_fault() {
    let sim = Simulator::new();
    let fault = fault(launch(&sim, &OWN_LANE, 1, 2, 0, &ParamBuffer::default()));
    let SimulatorFault::InvalidWarpMask {
        thread,
        operation,
        mask,
        lane,
        site,
        ..
    } = fault.clone()
    else {
        panic!("expected an invalid warp mask: {fault:?}")
    };
    assert_eq!(
        (thread, operation, mask, lane),
        (Dim3::new(1, 0, 0), "syncwarp", 1, 1)
    );
    assert!(site.file.ends_with("tests/warps.rs"), "{site}");
    assert_eq!(
        fault.to_string(),
        format!(
            "kernel `own_lane`: invalid warp mask in block (0, 0, 0): thread (1, 0, 0) calls syncwarp at {site} with mask 0x00000001, which does not include its own lane 1"
        )
    );
}

static DEADLOCK_BARRIER: Site = OnceLock::new();
static DEADLOCK_WARP: Site = OnceLock::new();
unsafe fn deadlock_sim(_: &ParamReader<'_>) {
    if thread_idx().x < 16 {
        sync_at(&DEADLOCK_BARRIER);
    } else {
        let location = Location::caller();
        let _ = DEADLOCK_WARP.set(location);
        sim::hooks().warp(WarpOp::Sync { mask: u32::MAX }, location);
    }
}
static DEADLOCK: KernelInfo = KernelInfo::new("deadlock", &MODULE, deadlock_sim, &[]);

#[test]
fn a_barrier_against_a_syncwarp_is_a_deadlock() {
    let sim = Simulator::new();
    let fault = fault(launch(&sim, &DEADLOCK, 1, 32, 0, &ParamBuffer::default()));
    let (b, w) = (site(&DEADLOCK_BARRIER), site(&DEADLOCK_WARP));
    assert_eq!(
        fault,
        SimulatorFault::Deadlock {
            kernel: "deadlock".to_string(),
            block: Dim3::new(0, 0, 0),
            block_dim: Dim3::new(32, 1, 1),
            groups: vec![
                ThreadGroup {
                    threads: row(0..16),
                    activity: ThreadActivity::AtBarrier {
                        barrier: "syncthreads",
                        site: b,
                    },
                },
                ThreadGroup {
                    threads: row(16..32),
                    activity: ThreadActivity::AtWarpOperation {
                        operation: "syncwarp",
                        mask: u32::MAX,
                        site: w,
                    },
                },
            ],
        }
    );
    assert_eq!(
        fault.to_string(),
        format!(
            "kernel `deadlock`: deadlock in block (0, 0, 0): threads (0..16, 0, 0) wait at syncthreads at {b}; threads (16..32, 0, 0) wait at syncwarp (mask 0xffffffff) at {w}"
        )
    );
}
