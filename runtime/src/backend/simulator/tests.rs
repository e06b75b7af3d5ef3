//! Tests of the simulator, driving it with hand-written kernels that call the hooks the way the
//! device API does.

use super::Simulator;
use super::warp::shuffle_source;
use crate::Dim3;
use crate::device::abi::SliceAbi;
use crate::device::sim::{self, BarrierOp, SharedSite, ShuffleKind, WarpOp};
use crate::device::{block_dim, block_idx, thread_idx};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::fault::{SimulatorFault, SourceSite, ThreadActivity, ThreadGroup};
use crate::vocabulary::kernel::{KernelInfo, PtxModule};
use crate::vocabulary::params::{ParamBuffer, ParamReader};
use crate::vocabulary::shape::LaunchShape;
use crate::vocabulary::thread_set::describe_threads;
use std::panic::Location;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

static MODULE: PtxModule = PtxModule::new("simulator-tests", "");

/// A recorded source location (set by the first thread that reaches it).
type Site = OnceLock<&'static Location<'static>>;

// ---------------------------------------------------------------------------------------------
// A miniature device API over the hooks, as `ferrocuda-device` calls them.

/// The rank of the calling thread in its block.
fn rank() -> usize {
    let (t, d) = (thread_idx(), block_dim());
    (t.x + t.y * d.x + t.z * d.x * d.y) as usize
}

/// `syncthreads()`.
#[track_caller]
fn sync() {
    sim::hooks().barrier(BarrierOp::Sync, false, Location::caller());
}

/// `syncthreads()`, recording where it is.
#[track_caller]
fn sync_at(site: &Site) {
    let location = Location::caller();
    let _ = site.set(location);
    sim::hooks().barrier(BarrierOp::Sync, false, location);
}

/// A shuffle of a `u32`.
#[track_caller]
fn shfl(kind: ShuffleKind, mask: u32, value: u32, lane: u32, width: u32) -> u32 {
    sim::hooks().warp(
        WarpOp::Shuffle {
            kind,
            mask,
            value: value as u64,
            lane,
            width,
        },
        Location::caller(),
    ) as u32
}

/// A shared array as the device API hands it out: every access reported to the race detector.
#[derive(Clone, Copy)]
struct Shared<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Copy> Shared<T> {
    /// The block's static shared array `key` of `len` elements.
    fn new(key: usize, len: usize) -> Self {
        let site = SharedSite {
            key,
            bytes: len * size_of::<T>(),
            align: align_of::<T>(),
        };
        Shared {
            ptr: sim::hooks().shared_static(site).cast(),
            len,
        }
    }

    /// The block's dynamic shared memory as `T`s.
    fn dynamic() -> Self {
        let (ptr, bytes) = sim::hooks().shared_dynamic();
        Shared {
            ptr: ptr.cast(),
            len: bytes / size_of::<T>(),
        }
    }

    #[track_caller]
    fn get(&self, i: usize) -> T {
        assert!(i < self.len, "shared index {i} out of bounds");
        // SAFETY: in bounds.
        let p = unsafe { self.ptr.add(i) };
        sim::hooks().shared_access(p.cast(), size_of::<T>(), false, Location::caller());
        // SAFETY: in bounds of the block's allocation.
        unsafe { p.read() }
    }

    #[track_caller]
    fn set(&self, i: usize, value: T) {
        assert!(i < self.len, "shared index {i} out of bounds");
        // SAFETY: in bounds.
        let p = unsafe { self.ptr.add(i) };
        sim::hooks().shared_access(p.cast(), size_of::<T>(), true, Location::caller());
        // SAFETY: in bounds of the block's allocation.
        unsafe { p.write(value) }
    }
}

/// Parameter `i` as a slice.
unsafe fn slice<'a, T>(p: &ParamReader<'_>, i: usize) -> &'a [T] {
    unsafe { p.get::<SliceAbi<T>>(i).as_slice() }
}

/// Parameter `i` as a mutable slice.
unsafe fn slice_mut<'a, T>(p: &ParamReader<'_>, i: usize) -> &'a mut [T] {
    unsafe { p.get::<SliceAbi<T>>(i).as_mut_slice() }
}

/// Pushes a slice parameter.
fn push_slice<T>(params: &mut ParamBuffer, data: &[T]) {
    params.push(SliceAbi::new(data.as_ptr() as *mut T, data.len()));
}

/// Pushes a slice parameter the kernel writes.
fn push_slice_mut<T>(params: &mut ParamBuffer, data: &mut [T]) {
    params.push(SliceAbi::new(data.as_mut_ptr(), data.len()));
}

/// Launches `info` on `sim`.
fn launch(
    sim: &Simulator,
    info: &'static KernelInfo,
    grid: impl Into<Dim3>,
    block: impl Into<Dim3>,
    shared: u32,
    params: &ParamBuffer,
) -> Result<()> {
    let mut config = LaunchShape::new(grid, block);
    config.shared_mem_bytes = shared;
    sim.launch(info, &config, &params.reader())
}

/// The message of a simulator fault, without the `kernel `name`: ` prefix.
fn fault_message(result: Result<()>) -> String {
    match result {
        Err(Error::SimulatorFault(fault)) => {
            let text = fault.to_string();
            let prefix = format!("kernel `{}`: ", fault.kernel());
            text.strip_prefix(&prefix)
                .expect("the kernel prefix")
                .to_string()
        }
        other => panic!("expected a simulator fault, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Plain execution.

unsafe fn vecadd_sim(p: &ParamReader<'_>) {
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
static VECADD: KernelInfo = KernelInfo::new("vecadd", &MODULE, vecadd_sim, &[]);

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
    } = &fault
    else {
        panic!("expected a divergent barrier: {fault:?}")
    };
    assert_eq!(kernel, "early_return");
    assert_eq!(
        (*block, *block_dim),
        (Dim3::new(0, 0, 0), Dim3::new(32, 1, 1))
    );
    let row = |xs: std::ops::Range<u32>| xs.map(|x| Dim3::new(x, 0, 0)).collect::<Vec<_>>();
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
    assert!(site.file().ends_with("simulator/tests.rs"), "{site}");
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
    let message = fault_message(launch(
        &sim,
        &TWO_SITES,
        1,
        (8, 4),
        0,
        &ParamBuffer::default(),
    ));
    let (a, b) = (TWO_SITES_A.get().expect("a"), TWO_SITES_B.get().expect("b"));
    assert_eq!(
        message,
        format!(
            "divergent barrier in block (0, 0, 0): threads (0..8, 0..2, 0) wait at syncthreads at {a}; threads (0..8, 2..4, 0) wait at syncthreads at {b}"
        )
    );
}

unsafe fn poison_sim(p: &ParamReader<'_>) {
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
    let _ = Shared::<u8>::new(1, 64 * 1024);
}
static TOO_MUCH_SHARED: KernelInfo =
    KernelInfo::new("too_much_shared", &MODULE, too_much_shared_sim, &[]);

#[test]
fn too_much_static_shared_memory_is_a_fault() {
    let sim = Simulator::new();
    let message = fault_message(launch(
        &sim,
        &TOO_MUCH_SHARED,
        1,
        32,
        0,
        &ParamBuffer::default(),
    ));
    assert_eq!(
        message,
        "the kernel's static shared arrays need 65536 bytes, more than the limit of 49152 bytes per block"
    );
}

// ---------------------------------------------------------------------------------------------
// The race detector.

static RACE_WRITE: Site = OnceLock::new();
static RACE_READ: Site = OnceLock::new();
/// Parameter 0: mode (0: no barrier, 1: barrier between write and read, 2: no barrier but each
/// thread reads its own word, 3: syncwarp between, reading a lane of the same warp, 4: syncwarp
/// between, reading a lane of the other warp).
unsafe fn race_sim(p: &ParamReader<'_>) {
    let mode = unsafe { p.get::<u32>(0) };
    let s = Shared::<u32>::new(3, 64);
    let t = rank();
    let write = Location::caller();
    let _ = RACE_WRITE.set(write);
    sim::hooks().shared_access(unsafe { s.ptr.add(t) }.cast(), 4, true, write);
    let neighbour = match mode {
        0 => (t + 1) % 64,
        1 => {
            sync();
            (t + 1) % 64
        }
        2 => t,
        3 => {
            sim::hooks().warp(WarpOp::Sync { mask: u32::MAX }, Location::caller());
            t ^ 1
        }
        _ => {
            sim::hooks().warp(WarpOp::Sync { mask: u32::MAX }, Location::caller());
            (t + 32) % 64
        }
    };
    let read = Location::caller();
    let _ = RACE_READ.set(read);
    sim::hooks().shared_access(unsafe { s.ptr.add(neighbour) }.cast(), 4, false, read);
}
static RACE: KernelInfo = KernelInfo::new("race", &MODULE, race_sim, &[]);

fn run_race(mode: u32) -> Result<()> {
    let sim = Simulator::new();
    let mut params = ParamBuffer::default();
    params.push(mode);
    launch(&sim, &RACE, 2, 64, 0, &params)
}

#[test]
fn race_between_a_write_and_an_unsynchronised_read_is_reported() {
    let message = fault_message(run_race(0));
    let (w, r) = (RACE_WRITE.get().expect("w"), RACE_READ.get().expect("r"));
    // Thread 0 runs first: it writes word 0 and reads word 1; thread 1 then writes word 1.
    assert_eq!(
        message,
        format!(
            "data race on shared memory in block (0, 0, 0): thread (0, 0, 0) read at {r} and thread (1, 0, 0) wrote at {w} with no syncthreads between (byte 4 of a 256-byte static shared array)"
        )
    );
}

#[test]
fn no_race_when_a_barrier_separates_the_accesses() {
    run_race(1).expect("the barrier orders the accesses");
}

#[test]
fn no_race_when_threads_touch_their_own_words() {
    run_race(2).expect("no shared word");
}

#[test]
fn syncwarp_orders_the_lanes_of_a_warp_only() {
    run_race(3).expect("syncwarp orders the lanes of one warp");
    let message = fault_message(run_race(4));
    // Thread 32 wrote word 32 before the syncwarps; thread 0 (another warp) reads it after them.
    assert!(
        message.starts_with(
            "data race on shared memory in block (0, 0, 0): thread (32, 0, 0) wrote at"
        ),
        "{message}"
    );
    assert!(
        message.contains("and thread (0, 0, 0) read at"),
        "{message}"
    );
}

/// Parameter 0: whether each thread also reads its neighbour's byte.
unsafe fn byte_race_sim(p: &ParamReader<'_>) {
    let read_neighbour = unsafe { p.get::<u32>(0) } != 0;
    let s = Shared::<u8>::new(4, 32);
    let t = rank();
    s.set(t, t as u8);
    let _ = s.get(t);
    if read_neighbour {
        let _ = s.get(t ^ 1);
    }
}
static BYTE_RACE: KernelInfo = KernelInfo::new("byte_race", &MODULE, byte_race_sim, &[]);

#[test]
fn neighbouring_bytes_do_not_race_but_the_same_byte_does() {
    let sim = Simulator::new();
    let mut params = ParamBuffer::default();
    params.push(0u32);
    launch(&sim, &BYTE_RACE, 1, 32, 0, &params).expect("bytes of one word are distinct");
    let mut params = ParamBuffer::default();
    params.push(1u32);
    let message = fault_message(launch(&sim, &BYTE_RACE, 1, 32, 0, &params));
    assert!(
        message.contains("thread (0, 0, 0) read at")
            && message.contains("thread (1, 0, 0) wrote at"),
        "{message}"
    );
    assert!(
        message.ends_with("(byte 1 of a 32-byte static shared array)"),
        "{message}"
    );
}

unsafe fn write_write_sim(_: &ParamReader<'_>) {
    let s = Shared::<f64>::new(5, 4);
    s.set(rank() % 4, 1.0);
}
static WRITE_WRITE: KernelInfo = KernelInfo::new("write_write", &MODULE, write_write_sim, &[]);

#[test]
fn two_writes_to_one_element_race() {
    let sim = Simulator::new();
    let message = fault_message(launch(&sim, &WRITE_WRITE, 1, 8, 0, &ParamBuffer::default()));
    assert!(
        message.contains("thread (0, 0, 0) wrote at")
            && message.contains("thread (4, 0, 0) wrote at"),
        "{message}"
    );
    assert!(
        message.ends_with("(byte 0 of a 32-byte static shared array)"),
        "{message}"
    );
}

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
    let message = fault_message(launch(&sim, &WARP_EXIT, 1, 32, 0, &ParamBuffer::default()));
    let site = WARP_EXIT_SITE.get().expect("reached");
    assert_eq!(
        message,
        format!(
            "divergent warp operation in block (0, 0, 0): threads (0..16, 0, 0) wait at shfl_down_sync (mask 0xffffffff) at {site}; threads (16..32, 0, 0) exited without reaching it"
        )
    );
}

unsafe fn partial_mask_sim(p: &ParamReader<'_>) {
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
    let message = fault_message(launch(&sim, &OWN_LANE, 1, 2, 0, &ParamBuffer::default()));
    assert!(
        message.starts_with(
            "invalid warp mask in block (0, 0, 0): thread (1, 0, 0) calls syncwarp at"
        ),
        "{message}"
    );
    assert!(
        message.ends_with("with mask 0x00000001, which does not include its own lane 1"),
        "{message}"
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
    let message = fault_message(launch(&sim, &DEADLOCK, 1, 32, 0, &ParamBuffer::default()));
    let (b, w) = (
        DEADLOCK_BARRIER.get().expect("b"),
        DEADLOCK_WARP.get().expect("w"),
    );
    assert_eq!(
        message,
        format!(
            "deadlock in block (0, 0, 0): threads (0..16, 0, 0) wait at syncthreads at {b}; threads (16..32, 0, 0) wait at syncwarp (mask 0xffffffff) at {w}"
        )
    );
}

// ---------------------------------------------------------------------------------------------
// Panics.

static PANIC_LINE: AtomicU32 = AtomicU32::new(0);
unsafe fn panics_sim(p: &ParamReader<'_>) {
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let (t, b) = (thread_idx().x, block_idx().x);
    let table = [1u32, 2, 3];
    let index = if (b, t) == (1, 5) || (b, t) == (2, 9) {
        t as usize
    } else {
        0
    };
    PANIC_LINE.store(line!() + 1, Ordering::Relaxed);
    let value = table[std::hint::black_box(index)];
    out[(b * 32 + t) as usize] = value;
}
static PANICS: KernelInfo = KernelInfo::new("panics", &MODULE, panics_sim, &[]);

#[test]
fn a_panic_is_reported_with_message_location_block_and_thread() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 96];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    let result = launch(&sim, &PANICS, 3, 32, 0, &params);
    let Err(Error::KernelPanic(panic)) = result else {
        panic!("expected a panic: {result:?}")
    };
    assert_eq!(panic.kernel, "panics");
    assert_eq!(
        panic.message,
        "index out of bounds: the len is 3 but the index is 5"
    );
    assert_eq!(panic.file, file!());
    assert_eq!(panic.line, PANIC_LINE.load(Ordering::Relaxed));
    assert!(panic.column > 0);
    assert_eq!(
        (panic.block, panic.thread),
        (Dim3::new(1, 0, 0), Dim3::new(5, 0, 0))
    );
    assert_eq!(panic.other_panics, 1);
    // Every other thread ran.
    for (i, v) in out.iter().enumerate() {
        let expected = if i == 32 + 5 || i == 64 + 9 { 0 } else { 1 };
        assert_eq!(*v, expected, "element {i}");
    }
    // The simulator works after a panic.
    launch(&sim, &VECADD, 1, 32, 0, &{
        let mut params = ParamBuffer::default();
        push_slice::<f32>(&mut params, &[]);
        push_slice::<f32>(&mut params, &[]);
        push_slice::<f32>(&mut params, &[]);
        params
    })
    .expect("a later launch works");
}

unsafe fn panic_before_barrier_sim(p: &ParamReader<'_>) {
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let (t, b) = (thread_idx().x, block_idx().x);
    assert!(!(b == 0 && t == 3), "thread {t} of block {b} gives up");
    sync();
    out[(b * 8 + t) as usize] = 1;
}
static PANIC_BEFORE_BARRIER: KernelInfo = KernelInfo::new(
    "panic_before_barrier",
    &MODULE,
    panic_before_barrier_sim,
    &[],
);

#[test]
fn threads_waiting_for_a_panicked_thread_report_the_panic() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 16];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    let result = launch(&sim, &PANIC_BEFORE_BARRIER, 2, 8, 0, &params);
    let Err(Error::KernelPanic(panic)) = result else {
        panic!("expected a panic: {result:?}")
    };
    assert_eq!(panic.message, "thread 3 of block 0 gives up");
    assert_eq!(
        (panic.block, panic.thread, panic.other_panics),
        (Dim3::new(0, 0, 0), Dim3::new(3, 0, 0), 0)
    );
    // Block 0 stopped at the barrier; block 1 ran.
    assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn panics_outside_kernels_still_reach_the_previous_hook() {
    super::panic_capture::install();
    let caught = std::panic::catch_unwind(|| panic!("an ordinary panic"));
    assert!(caught.is_err());
    assert!(super::panic_capture::take_captured().is_none());
}

// ---------------------------------------------------------------------------------------------
// Output, constants, determinism.

unsafe fn print_sim(_: &ParamReader<'_>) {
    let (t, b) = (thread_idx().x, block_idx().x);
    sim::hooks().print(&format!("block {b} thread {t}\n"));
    sync();
    if t == 0 {
        sim::hooks().print(&format!("block {b} done\n"));
    }
}
static PRINT: KernelInfo = KernelInfo::new("print", &MODULE, print_sim, &[]);

#[test]
fn printed_lines_come_in_thread_order() {
    let sim = Simulator::new();
    let _ = sim.take_output();
    launch(&sim, &PRINT, 2, 3, 0, &ParamBuffer::default()).expect("runs");
    assert_eq!(
        sim.take_output(),
        "block 0 thread 0\nblock 0 thread 1\nblock 0 thread 2\nblock 0 done\n\
         block 1 thread 0\nblock 1 thread 1\nblock 1 thread 2\nblock 1 done\n"
    );
    assert_eq!(sim.take_output(), "");
}

static SCALE_INIT: [u8; 4] = 2.0f32.to_le_bytes();
unsafe fn constant_sim(p: &ParamReader<'_>) {
    let out = unsafe { slice_mut::<f32>(p, 0) };
    let scale = sim::hooks().constant("SCALE", &SCALE_INIT).cast::<f32>();
    // SAFETY: the simulator's storage for a 4-byte symbol.
    out[rank()] = unsafe { scale.read() } * rank() as f32;
}
static CONSTANT: KernelInfo = KernelInfo::new("constant", &MODULE, constant_sim, &[]);

#[test]
fn constant_memory_reads_what_the_host_wrote() {
    let sim = Simulator::new();
    let mut out = vec![0.0f32; 4];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &CONSTANT, 1, 4, 0, &params).expect("runs");
    assert_eq!(out, [0.0, 2.0, 4.0, 6.0]);
    let storage = sim.constant_storage("SCALE", &SCALE_INIT);
    assert_eq!(
        storage,
        sim.constant_storage("SCALE", &SCALE_INIT),
        "stable address"
    );
    assert_eq!(storage as usize % 16, 0);
    // SAFETY: 4 bytes of storage.
    unsafe { storage.cast::<f32>().write(3.0) };
    launch(&sim, &CONSTANT, 1, 4, 0, &params).expect("runs");
    assert_eq!(out, [0.0, 3.0, 6.0, 9.0]);
}

unsafe fn mixed_sim(p: &ParamReader<'_>) {
    let (out, counter) = unsafe { (slice_mut::<u32>(p, 0), slice::<AtomicU32>(p, 1)) };
    let s = Shared::<u32>::new(9, 64);
    let t = rank();
    let ticket = counter[0].fetch_add(1, Ordering::Relaxed);
    s.set(t, ticket);
    sync();
    let v = s.get(63 - t) + shfl(ShuffleKind::Xor, u32::MAX, ticket, 5, 32);
    sim::hooks().print(&format!("{t}:{v} "));
    out[block_idx().x as usize * 64 + t] = v;
}
static MIXED: KernelInfo = KernelInfo::new("mixed", &MODULE, mixed_sim, &[]);

#[test]
fn launches_are_deterministic() {
    let sim = Simulator::new();
    let run = || {
        let mut out = vec![0u32; 256];
        let counter = [AtomicU32::new(0)];
        let mut params = ParamBuffer::default();
        push_slice_mut(&mut params, &mut out);
        push_slice(&mut params, &counter);
        let _ = sim.take_output();
        launch(&sim, &MIXED, 4, 64, 0, &params).expect("runs");
        (out, sim.take_output(), counter[0].load(Ordering::Relaxed))
    };
    let first = run();
    assert_eq!(first.2, 256);
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
    let faults: Vec<String> = (0..3).map(|_| fault_message(run_race(0))).collect();
    assert!(faults.iter().all(|f| *f == faults[0]));
}

#[test]
fn invalid_shapes_are_launch_errors() {
    let sim = Simulator::new();
    let result = launch(&sim, &VECADD, 1, 2048, 0, &ParamBuffer::default());
    assert!(matches!(result, Err(Error::Launch(_))), "{result:?}");
    let result = launch(&sim, &VECADD, 0, 32, 0, &ParamBuffer::default());
    assert!(matches!(result, Err(Error::Launch(_))), "{result:?}");
}

#[test]
fn thread_sets_are_described_as_index_boxes() {
    let block = Dim3::new(8, 4, 2);
    assert_eq!(describe_threads(&[3], block), "thread (3, 0, 0)");
    assert_eq!(
        describe_threads(&(0..16).collect::<Vec<_>>(), block),
        "threads (0..8, 0..2, 0)"
    );
    assert_eq!(
        describe_threads(&(4..20).collect::<Vec<_>>(), block),
        "threads (4..8, 0, 0), (0..8, 1, 0), (0..4, 2, 0)"
    );
    assert_eq!(
        describe_threads(&(0..64).collect::<Vec<_>>(), block),
        "threads (0..8, 0..4, 0..2)"
    );
    assert_eq!(
        describe_threads(&[0, 2, 4], block),
        "threads (0..=4 step 2, 0, 0)"
    );
    // Two indices at a distance are two boxes, not a strided run.
    assert_eq!(
        describe_threads(&[0, 5, 6, 7], block),
        "threads (0, 0, 0), (5..8, 0, 0)"
    );
    assert_eq!(
        describe_threads(&[0, 1, 2, 4, 6], block),
        "threads (0..3, 0, 0), (4, 0, 0), (6, 0, 0)"
    );
    assert_eq!(
        describe_threads(&[0, 1, 2, 3, 5, 7, 9], Dim3::new(16, 1, 1)),
        "threads (0..4, 0, 0), (5..=9 step 2, 0, 0)"
    );
    // The even threads of every row and plane: one strided box.
    let even: Vec<usize> = (0..64).filter(|r| r % 2 == 0).collect();
    assert_eq!(
        describe_threads(&even, block),
        "threads (0..=6 step 2, 0..4, 0..2)"
    );
    // Lane 0 of every warp of a block of 1024.
    let leaders: Vec<usize> = (0..1024).step_by(32).collect();
    assert_eq!(
        describe_threads(&leaders, Dim3::new(1024, 1, 1)),
        "threads (0..=992 step 32, 0, 0)"
    );
    // Rows that all differ: too many boxes to spell out.
    let scattered: Vec<usize> = (0..8)
        .flat_map(|r| [r * 8 + r % 2, r * 8 + 5 + r % 3])
        .collect();
    let text = describe_threads(&scattered, block);
    assert!(
        text.starts_with("threads (0, 0, 0), (5, 0, 0), (1, 1, 0), (6, 1, 0),"),
        "{text}"
    );
    assert!(text.ends_with(", ... (16 threads in all)"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Speed (run with `cargo test -p ferrocuda --release -- --ignored --nocapture simulator_speed`).

unsafe fn matmul_sim(p: &ParamReader<'_>) {
    let (a, b, c) = unsafe {
        (
            slice::<f32>(p, 0),
            slice::<f32>(p, 1),
            slice_mut::<f32>(p, 2),
        )
    };
    let n = unsafe { p.get::<u32>(3) } as usize;
    let (t, bi) = (thread_idx(), block_idx());
    let (tx, ty) = (t.x as usize, t.y as usize);
    let (row, col) = (bi.y as usize * 16 + ty, bi.x as usize * 16 + tx);
    let tile_a = Shared::<f32>::new(21, 256);
    let tile_b = Shared::<f32>::new(22, 256);
    let mut acc = 0.0f32;
    for tile in 0..n / 16 {
        tile_a.set(ty * 16 + tx, a[row * n + tile * 16 + tx]);
        tile_b.set(ty * 16 + tx, b[(tile * 16 + ty) * n + col]);
        sync();
        for k in 0..16 {
            acc += tile_a.get(ty * 16 + k) * tile_b.get(k * 16 + tx);
        }
        sync();
    }
    c[row * n + col] = acc;
}
static MATMUL: KernelInfo = KernelInfo::new("matmul", &MODULE, matmul_sim, &[]);

#[test]
fn tiled_matmul_is_correct() {
    let sim = Simulator::new();
    let n = 64usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let mut c = vec![0.0f32; n * n];
    let mut params = ParamBuffer::default();
    push_slice(&mut params, &a);
    push_slice(&mut params, &b);
    push_slice_mut(&mut params, &mut c);
    params.push(n as u32);
    let blocks = (n / 16) as u32;
    launch(&sim, &MATMUL, (blocks, blocks), (16, 16), 0, &params).expect("runs");
    for i in 0..n {
        for j in 0..n {
            let expected: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
            assert_eq!(c[i * n + j], expected, "c[{i}][{j}]");
        }
    }
}
