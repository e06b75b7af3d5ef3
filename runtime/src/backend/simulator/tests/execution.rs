//! Plain execution, barriers and shared memory.

use super::*;

// ---------------------------------------------------------------------------------------------
// Plain execution.

unsafe fn vecadd_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let (a, b, c) = unsafe {
        (
            slice::<f32>(p, 0),
            slice::<f32>(p, 1),
            slice_mut::<f32>(p, 2),
        )
    };
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}
pub(super) static VECADD: KernelInfo = KernelInfo::new("vecadd", &MODULE, vecadd_sim, &[]);

#[test]
fn vecadd_with_a_partial_last_block() {
    let sim = Simulator::new();
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let mut c = vec![0.0f32; n];
    let mut params = ParamBuffer::default();
    push_slice(&mut params, &a);
    push_slice(&mut params, &b);
    push_slice_mut(&mut params, &mut c);
    launch(&sim, &VECADD, n.div_ceil(256) as u32, 256, 0, &params).expect("vecadd runs");
    for (i, v) in c.iter().enumerate() {
        assert_eq!(*v, 3.0 * i as f32, "element {i}");
    }
}

unsafe fn indices_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<[u32; 6]>(p, 0) };
    let (t, b, d) = (thread_idx(), block_idx(), block_dim());
    let grid = crate::device::grid_dim();
    let block_rank = (b.x + b.y * grid.x + b.z * grid.x * grid.y) as usize;
    out[block_rank * d.product() as usize + rank()] = [t.x, t.y, t.z, b.x, b.y, b.z];
}
static INDICES: KernelInfo = KernelInfo::new("indices", &MODULE, indices_sim, &[]);

#[test]
fn every_thread_of_a_3d_grid_runs_with_its_indices() {
    let sim = Simulator::new();
    let (grid, block) = (Dim3::new(2, 3, 2), Dim3::new(4, 2, 3));
    let mut out = vec![[u32::MAX; 6]; (grid.product() * block.product()) as usize];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &INDICES, grid, block, 0, &params).expect("runs");
    let mut expected = Vec::new();
    for bz in 0..2 {
        for by in 0..3 {
            for bx in 0..2 {
                for tz in 0..3 {
                    for ty in 0..2 {
                        for tx in 0..4 {
                            expected.push([tx, ty, tz, bx, by, bz]);
                        }
                    }
                }
            }
        }
    }
    assert_eq!(out, expected);
}

// ---------------------------------------------------------------------------------------------
// Barriers and shared memory.

unsafe fn reverse_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let (input, output) = unsafe { (slice::<f32>(p, 0), slice_mut::<f32>(p, 1)) };
    let s = Shared::<f32>::new(1, 64);
    let t = thread_idx().x as usize;
    let base = block_idx().x as usize * 64;
    s.set(t, input[base + t]);
    sync();
    output[base + t] = s.get(63 - t);
}
static REVERSE: KernelInfo = KernelInfo::new("reverse", &MODULE, reverse_sim, &[]);

#[test]
fn block_reversal_through_shared_memory() {
    let sim = Simulator::new();
    let input: Vec<f32> = (0..192).map(|i| i as f32).collect();
    let mut output = vec![0.0f32; 192];
    let mut params = ParamBuffer::default();
    push_slice(&mut params, &input);
    push_slice_mut(&mut params, &mut output);
    launch(&sim, &REVERSE, 3, 64, 0, &params).expect("no fault");
    for block in 0..3 {
        for t in 0..64 {
            assert_eq!(output[block * 64 + t], (block * 64 + 63 - t) as f32);
        }
    }
}

unsafe fn big_block_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let s = Shared::<u32>::new(11, 1024);
    let t = rank();
    s.set(t, t as u32);
    sync();
    let v = s.get(1023 - t);
    sync();
    s.set(t, v * 2);
    sync();
    out[t] = s.get(1023 - t);
}
static BIG_BLOCK: KernelInfo = KernelInfo::new("big_block", &MODULE, big_block_sim, &[]);

#[test]
fn blocks_of_1024_threads_wait_at_barriers() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 1024];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &BIG_BLOCK, 1, (32, 8, 4), 0, &params).expect("runs");
    assert!(out.iter().enumerate().all(|(t, v)| *v == 2 * t as u32));
    let kept = sim.stacks.lock().map(|s| s.len()).unwrap_or(0);
    assert_eq!(
        kept, 1024,
        "one stack per waiting thread, kept for the next launch"
    );
}

unsafe fn predicates_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<[u32; 5]>(p, 0) };
    let t = rank() as u32;
    let hooks = sim::hooks();
    let here = Location::caller();
    let count = hooks.barrier(BarrierOp::Count, t.is_multiple_of(3), here);
    let all = hooks.barrier(BarrierOp::And, t < 100, here);
    let all_false = hooks.barrier(BarrierOp::And, t < 10, here);
    let any = hooks.barrier(BarrierOp::Or, t == 5, here);
    let none = hooks.barrier(BarrierOp::Or, false, here);
    out[t as usize] = [count, all, all_false, any, none];
}
static PREDICATES: KernelInfo = KernelInfo::new("predicates", &MODULE, predicates_sim, &[]);

#[test]
fn syncthreads_count_and_or() {
    let sim = Simulator::new();
    let mut out = vec![[9u32; 5]; 64];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &PREDICATES, 1, 64, 0, &params).expect("runs");
    // 0, 3, ..., 63: 22 multiples of 3 below 64.
    assert!(out.iter().all(|r| *r == [22, 1, 0, 1, 0]), "{:?}", out[0]);
}

static EARLY_RETURN_SITE: Site = OnceLock::new();
unsafe fn early_return_sim(_: &ParamReader<'_>) {
    if thread_idx().x >= 16 {
        return;
    }
    sync_at(&EARLY_RETURN_SITE);
}
static EARLY_RETURN: KernelInfo = KernelInfo::new("early_return", &MODULE, early_return_sim, &[]);

#[test]
fn early_return_before_a_barrier_is_a_divergent_barrier() {
    let sim = Simulator::new();
    let result = launch(&sim, &EARLY_RETURN, 2, 32, 0, &ParamBuffer::default());
    let Err(Error::SimulatorFault(fault)) = result else {
        panic!("expected a fault: {result:?}")
    };
    let site = *EARLY_RETURN_SITE.get().expect("reached");
    let SimulatorFault::DivergentBarrier {
        kernel,
        block,
        block_dim,
        groups,
    } = &*fault
    else {
        panic!("expected a divergent barrier: {fault:?}")
    };
    assert_eq!(kernel, "early_return");
    assert_eq!(
        (*block, *block_dim),
        (Dim3::new(0, 0, 0), Dim3::new(32, 1, 1))
    );
    assert_eq!(
        groups,
        &[
            ThreadGroup {
                threads: row(0..16),
                activity: ThreadActivity::AtBarrier {
                    barrier: "syncthreads",
                    site: SourceSite::from_location(site),
                },
            },
            ThreadGroup {
                threads: row(16..32),
                activity: ThreadActivity::Exited,
            },
        ]
    );
    // The full text, pinned once per variant.
    assert_eq!(
        fault.to_string(),
        format!(
            "kernel `early_return`: divergent barrier in block (0, 0, 0): threads (0..16, 0, 0) wait at syncthreads at {site}; threads (16..32, 0, 0) exited without reaching it"
        )
    );
    assert!(
        site.file().ends_with("simulator/tests/execution.rs"),
        "{site}"
    );
}

static TWO_SITES_A: Site = OnceLock::new();
static TWO_SITES_B: Site = OnceLock::new();
unsafe fn two_sites_sim(_: &ParamReader<'_>) {
    let t = thread_idx();
    if t.y < 2 {
        sync_at(&TWO_SITES_A);
    } else {
        sync_at(&TWO_SITES_B);
    }
}
static TWO_SITES: KernelInfo = KernelInfo::new("two_sites", &MODULE, two_sites_sim, &[]);

#[test]
fn barriers_at_two_sites_are_divergent() {
    let sim = Simulator::new();
    let fault = fault(launch(
        &sim,
        &TWO_SITES,
        1,
        (8, 4),
        0,
        &ParamBuffer::default(),
    ));
    let SimulatorFault::DivergentBarrier { groups, .. } = &fault else {
        panic!("expected a divergent barrier: {fault:?}")
    };
    let rows = |ys: std::ops::Range<u32>| -> Vec<Dim3> {
        ys.flat_map(|y| (0..8).map(move |x| Dim3::new(x, y, 0)))
            .collect()
    };
    let at = |site| ThreadActivity::AtBarrier {
        barrier: "syncthreads",
        site,
    };
    assert_eq!(
        groups,
        &[
            ThreadGroup {
                threads: rows(0..2),
                activity: at(site(&TWO_SITES_A)),
            },
            ThreadGroup {
                threads: rows(2..4),
                activity: at(site(&TWO_SITES_B)),
            },
        ]
    );
    let (a, b) = (site(&TWO_SITES_A), site(&TWO_SITES_B));
    // Exited threads are described differently when the waiting ones wait at two barriers.
    assert_eq!(
        fault.to_string(),
        format!(
            "kernel `two_sites`: divergent barrier in block (0, 0, 0): threads (0..8, 0..2, 0) wait at syncthreads at {a}; threads (0..8, 2..4, 0) wait at syncthreads at {b}"
        )
    );
}

unsafe fn poison_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let t = rank();
    let statics = Shared::<f32>::new(7, 32);
    let dynamic = Shared::<f32>::dynamic();
    let (dynamic_ptr, dynamic_bytes) = sim::hooks().shared_dynamic();
    let mut flags = 0;
    flags |= statics.get(t).is_nan() as u32;
    flags |= (dynamic.get(t).is_nan() as u32) << 1;
    flags |= ((dynamic_ptr as usize).is_multiple_of(16) as u32) << 2;
    flags |= ((dynamic_bytes == 256) as u32) << 3;
    flags |= ((dynamic.ptr == dynamic_ptr.cast()) as u32) << 4;
    // Written in block 0, poisoned again in block 1.
    statics.set(t, 1.0);
    dynamic.set(t, 2.0);
    out[block_idx().x as usize * 32 + t] = flags;
}
static POISON: KernelInfo = KernelInfo::new("poison", &MODULE, poison_sim, &[]);

#[test]
fn shared_memory_starts_poisoned_in_every_block() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 64];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &POISON, 2, 32, 256, &params).expect("runs");
    assert!(out.iter().all(|&f| f == 0b11111), "{out:?}");
}

unsafe fn same_pointer_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<usize>(p, 0) };
    let a = Shared::<u32>::new(1, 8);
    let b = Shared::<u64>::new(2, 8);
    let t = rank();
    out[t * 2] = a.ptr as usize;
    out[t * 2 + 1] = b.ptr as usize;
}
static SAME_POINTER: KernelInfo = KernelInfo::new("same_pointer", &MODULE, same_pointer_sim, &[]);

#[test]
fn threads_of_a_block_share_one_static_array() {
    let sim = Simulator::new();
    let mut out = vec![0usize; 64];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &SAME_POINTER, 1, 32, 0, &params).expect("runs");
    assert!(out.chunks(2).all(|p| p == &out[..2]));
    assert_ne!(out[0], out[1]);
    assert_eq!(out[0] % 16, 0);
    assert_eq!(out[1] % 16, 0);
}

unsafe fn too_much_shared_sim(_: &ParamReader<'_>) {
    // One byte more than a GPU kernel's own static shared arrays may take: 48 KiB less the 8
    // bytes of ferrocuda's launch token.
    let _ = Shared::<u8>::new(1, 48 * 1024 - 7);
}
static TOO_MUCH_SHARED: KernelInfo =
    KernelInfo::new("too_much_shared", &MODULE, too_much_shared_sim, &[]);

unsafe fn shared_at_the_limit_sim(_: &ParamReader<'_>) {
    let _ = Shared::<u8>::new(1, 48 * 1024 - 8);
}
static SHARED_AT_THE_LIMIT: KernelInfo =
    KernelInfo::new("shared_at_the_limit", &MODULE, shared_at_the_limit_sim, &[]);

#[test]
fn static_shared_memory_up_to_the_gpus_static_limit_runs() {
    let sim = Simulator::new();
    launch(
        &sim,
        &SHARED_AT_THE_LIMIT,
        1,
        32,
        0,
        &ParamBuffer::default(),
    )
    .unwrap();
}

#[test]
fn too_much_static_shared_memory_is_a_fault() {
    let sim = Simulator::new();
    let fault = fault(launch(
        &sim,
        &TOO_MUCH_SHARED,
        1,
        32,
        0,
        &ParamBuffer::default(),
    ));
    assert_eq!(
        fault,
        SimulatorFault::StaticSharedMemoryLimit {
            kernel: "too_much_shared".to_string(),
            static_bytes: 49145,
            limit: 49144,
        }
    );
    assert!(
        fault.to_string().starts_with(
            "kernel `too_much_shared`: the kernel's static shared arrays need 49145 bytes, more than the limit of 49144 bytes per block (a GPU's 48 KiB of static shared memory less the 8 bytes of ferrocuda's launch token)"
        ),
        "{fault}"
    );
}

#[test]
fn static_and_dynamic_shared_memory_share_the_opt_in_limit_less_the_token() {
    let sim = Simulator::new();
    let total: u32 = 227 * 1024 - 8;
    // 40 KiB static plus the rest dynamic runs; one byte more is a fault naming both parts.
    launch(
        &sim,
        &SHARED_40K,
        1,
        32,
        total - 40 * 1024,
        &ParamBuffer::default(),
    )
    .unwrap();
    let fault = fault(launch(
        &sim,
        &SHARED_40K,
        1,
        32,
        total - 40 * 1024 + 1,
        &ParamBuffer::default(),
    ));
    assert!(
        matches!(
            fault,
            SimulatorFault::SharedMemoryLimit { static_bytes: 40960, limit, .. } if limit == total as usize
        ),
        "{fault:?}"
    );
}

unsafe fn shared_40k_sim(_: &ParamReader<'_>) {
    let _ = Shared::<u8>::new(1, 40 * 1024);
    let _ = Shared::<u8>::dynamic();
}
static SHARED_40K: KernelInfo = KernelInfo::new("shared_40k", &MODULE, shared_40k_sim, &[]);
