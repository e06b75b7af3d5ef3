//! Tests of the simulator, driving it with hand-written kernels that call the hooks the way the
//! device API does. This file holds the miniature device API and the launch helpers; the tests
//! are in the files below, by subject.

mod execution;
mod panics_output;
mod races;
mod warps;

use super::Simulator;
use super::warp::shuffle_source;
use crate::Dim3;
use crate::device::abi::SliceAbi;
use crate::device::sim::{self, BarrierOp, SharedSite, ShuffleKind, WarpOp};
use crate::device::{block_dim, block_idx, thread_idx};
use crate::vocabulary::error::{Error, Result};
use crate::vocabulary::fault::{
    SharedAccess, SharedMemoryKind, SimulatorFault, SourceSite, ThreadActivity, ThreadGroup,
};
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
///
/// # Safety
/// Parameter `i` was pushed as a slice of `T` that lives for `'a`.
unsafe fn slice<'a, T>(p: &ParamReader<'_>, i: usize) -> &'a [T] {
    // SAFETY: the caller guarantees the parameter's type and the slice's lifetime.
    unsafe { p.get::<SliceAbi<T>>(i).as_slice() }
}

/// Parameter `i` as a mutable slice.
///
/// # Safety
/// Parameter `i` was pushed as a slice of `T` that lives for `'a`, and no other reference to
/// the same elements is used meanwhile.
unsafe fn slice_mut<'a, T>(p: &ParamReader<'_>, i: usize) -> &'a mut [T] {
    // SAFETY: the caller guarantees the parameter's type, the lifetime and the exclusivity.
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

/// The simulator fault a launch returned.
fn fault(result: Result<()>) -> SimulatorFault {
    match result {
        Err(Error::SimulatorFault(fault)) => *fault,
        other => panic!("expected a simulator fault, got {other:?}"),
    }
}

/// The threads `(x, 0, 0)` for `x` in `xs`.
fn row(xs: std::ops::Range<u32>) -> Vec<Dim3> {
    xs.map(|x| Dim3::new(x, 0, 0)).collect()
}

/// The site of a recorded location.
fn site(location: &Site) -> SourceSite {
    SourceSite::from_location(location.get().expect("the location was reached"))
}
