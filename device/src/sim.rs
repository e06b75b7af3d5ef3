//! The host side of the device API: how kernel code talks to the CPU simulator.
//!
//! On the host every device function reads the simulated thread's [`ThreadContext`] from a
//! thread-local slot. The simulator in the `ferrocuda` runtime fills that slot before it resumes a
//! simulated thread and answers the operations that need other threads (barriers, warp
//! operations, shared memory) through [`SimHooks`]. Kernel authors never use this module directly.

use crate::Dim3;
use core::cell::Cell;
use core::panic::Location;

/// Where a simulated thread stands: its indices and the simulator serving it.
pub struct ThreadContext {
    /// `threadIdx`.
    pub thread_idx: Dim3,
    /// `blockIdx`.
    pub block_idx: Dim3,
    /// `blockDim`.
    pub block_dim: Dim3,
    /// `gridDim`.
    pub grid_dim: Dim3,
    /// The simulator serving this thread's block.
    pub hooks: *const dyn SimHooks,
}

/// The barrier flavours: block-wide (`__syncthreads` and its predicate forms) and grid-wide.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarrierOp {
    /// `__syncthreads()`.
    Sync,
    /// `__syncthreads_count(p)`: number of threads whose predicate is true.
    Count,
    /// `__syncthreads_and(p)`: 1 if every thread's predicate is true.
    And,
    /// `__syncthreads_or(p)`: 1 if any thread's predicate is true.
    Or,
    /// `grid_sync()`: every thread of every block of a cooperative launch (the block's
    /// threads wait together, then the block waits for the others).
    Grid,
}

/// The shuffle flavours (`__shfl_sync` and friends).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShuffleKind {
    /// Read from an absolute lane.
    Index,
    /// Read from `lane - delta`.
    Up,
    /// Read from `lane + delta`.
    Down,
    /// Read from `lane ^ mask`.
    Xor,
}

/// A warp-synchronous operation: every lane named in `mask` must reach the same operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `__syncwarp(mask)`.
    Sync {
        /// Lanes taking part.
        mask: u32,
    },
    /// A shuffle of a 64-bit value (32-bit values travel in the low half).
    Shuffle {
        /// Which shuffle.
        kind: ShuffleKind,
        /// Lanes taking part.
        mask: u32,
        /// This lane's value.
        value: u64,
        /// Source lane, delta or xor mask.
        lane: u32,
        /// Sub-warp width (a power of two up to 32).
        width: u32,
    },
    /// `__ballot_sync(mask, predicate)`.
    Ballot {
        /// Lanes taking part.
        mask: u32,
        /// This lane's predicate.
        predicate: bool,
    },
    /// A warp-collective instruction that needs every lane's data (`ldmatrix`): each lane gives
    /// 128 bits and receives those of every lane of the mask (zero for the others). The lanes
    /// must name the same instruction and mask.
    Gather {
        /// The instruction, for fault reports (`ldmatrix.x4.trans`).
        instruction: &'static str,
        /// Lanes taking part.
        mask: u32,
        /// This lane's 128 bits.
        value: [u64; 2],
        /// Where the simulator writes the 32 lanes' values, indexed by lane: valid until the
        /// lane resumes (it waits at the operation meanwhile).
        gathered: *mut [[u64; 2]; 32],
    },
    /// `mma.sync.aligned` (`mma_sync`): all 32 lanes take part; the simulator computes `D` with
    /// [`execute_warp_mma`] and writes each lane's fragment of it through `d`.
    Mma {
        /// The input type (and so the shape).
        input: MmaType,
        /// This lane's registers of `A`.
        a: [u32; 4],
        /// This lane's registers of `B`.
        b: [u32; 2],
        /// This lane's registers of `C` (`f32` bits).
        c: [u32; 4],
        /// Where this lane's registers of `D` (`f32` bits) go: a local of the lane's suspended
        /// call, valid until the simulator releases the lane.
        d: *mut [u32; 4],
    },
}

pub use crate::backend::mma::{LaneOperands, execute_warp_mma};
pub use crate::mma::MmaType;

/// A static shared-memory declaration site (`shared_array!`), identified by its address.
#[derive(Clone, Copy, Debug)]
pub struct SharedSite {
    /// A unique key for the declaration site.
    pub key: usize,
    /// Size of the array in bytes.
    pub bytes: usize,
    /// Alignment of the array in bytes.
    pub align: usize,
}

/// The operations a simulated thread asks of the simulator.
pub trait SimHooks {
    /// Waits until every thread of the block reaches a barrier; returns the reduced predicate
    /// (count, and, or; 0 for a plain sync).
    fn barrier(&self, op: BarrierOp, predicate: bool, location: &'static Location<'static>) -> u32;
    /// Performs a warp-synchronous operation; returns the shuffled value, or the ballot mask.
    fn warp(&self, op: WarpOp, location: &'static Location<'static>) -> u64;
    /// The lanes of this thread's warp that have not exited (`__activemask`).
    fn active_mask(&self) -> u32;
    /// The block's copy of a static shared array (allocated on first use in each block).
    fn shared_static(&self, site: SharedSite) -> *mut u8;
    /// The block's dynamic shared memory: base and size in bytes.
    fn shared_dynamic(&self) -> (*mut u8, usize);
    /// Records a plain (non-atomic) access to shared memory for the race detector.
    fn shared_access(
        &self,
        address: *const u8,
        bytes: usize,
        write: bool,
        location: &'static Location<'static>,
    );
    /// Prints `text` verbatim: the whole output of one `gpu_print!` or `gpu_println!` call,
    /// already formatted as the GPU's `printf` would format it. It ends with a newline only when
    /// the call was `gpu_println!`; nothing is added, so output without one continues the line.
    fn print(&self, text: &str);
    /// The launch's copy of a constant-memory symbol (`init` is its initial value).
    fn constant(&self, name: &'static str, init: &'static [u8]) -> *const u8;
    /// Starts an asynchronous copy (`cp.async`) of `data` (the source bytes, read at the start)
    /// to the shared memory at `destination`, pending until a wait completes its group.
    fn async_copy(&self, destination: *mut u8, data: &[u8], location: &'static Location<'static>);
    /// Closes the calling thread's uncommitted copies into a group (`cp.async.commit_group`).
    fn async_copy_commit(&self);
    /// Completes the calling thread's groups except the `pending_groups` most recent
    /// (`cp.async.wait_group`): writes their bytes to shared memory.
    fn async_copy_wait(&self, pending_groups: u32, location: &'static Location<'static>);
    /// Waits until every thread of the grid reaches a grid barrier (`grid_sync`); returns
    /// `false` at once when the launch is not cooperative (the caller then panics).
    fn grid_barrier(&self, location: &'static Location<'static>) -> bool;
    /// Whether the launch is cooperative (`#[kernel(cooperative)]`).
    fn is_cooperative_launch(&self) -> bool;
    /// Lets the other threads of the block run before this one goes on (a thread spinning on a
    /// flag another thread sets must let that thread run). Called every [`ATOMICS_PER_YIELD`]
    /// atomic operations of a thread.
    fn yield_now(&self);
    /// Stops the kernel with a fault: the simulator cannot run `instruction` (`wgmma.mma_async`,
    /// `cp.async.bulk.tensor`, `mbarrier.init`, ...). Does not return.
    fn unsupported(&self, instruction: &'static str, location: &'static Location<'static>) -> !;
    /// Ends the running simulated thread after its stack overflowed, without unwinding (its
    /// frames are abandoned): called by the simulator's stack guard on a fresh stack, never by
    /// kernel code. Does not return.
    fn stack_overflowed(&self) -> !;
}

/// How many atomic operations a simulated thread performs between two offers to yield: a spin
/// on an atomic flag lets the other threads run after this many reads, and a thread doing
/// millions of atomics (a histogram) switches coroutines only once every this many. Measured on
/// the histogram example's global atomics (its threads stay on one cache-warm stack longer):
/// 64 cost about 30% more time than no yield at all, 1024 about 15%, 4096 about 6%.
pub const ATOMICS_PER_YIELD: u32 = 4096;

/// Restarts the count of [`after_atomic`] (at the start of a launch, so that where threads yield
/// depends only on the launch: the simulator stays deterministic).
pub fn reset_atomic_count() {
    ATOMICS.with(|c| c.set(0));
}

/// Counts an atomic operation of the running simulated thread, and yields to the other threads
/// of its block every [`ATOMICS_PER_YIELD`] atomics of the OS thread (one counter per OS thread:
/// cheaper than one per simulated thread, and a thread spinning alone still yields after at most
/// that many of its own).
#[inline]
pub fn after_atomic() {
    let count = ATOMICS.with(|c| {
        let count = c.get() + 1;
        c.set(count % ATOMICS_PER_YIELD);
        count
    });
    if count == ATOMICS_PER_YIELD {
        hooks().yield_now();
    }
}

std::thread_local! {
    static CURRENT: Cell<*const ThreadContext> = const { Cell::new(core::ptr::null()) };
    /// Atomic operations since the running simulated thread last offered to yield.
    static ATOMICS: Cell<u32> = const { Cell::new(0) };
}

/// Makes `context` the running simulated thread of this OS thread (null: none).
///
/// # Safety
/// `context` must stay valid until it is replaced, and its `hooks` as long as the context.
pub unsafe fn set_current(context: *const ThreadContext) {
    CURRENT.with(|c| c.set(context));
}

/// The running simulated thread's context.
///
/// # Panics
/// When called outside a kernel launch (a device function called from ordinary host code).
#[inline]
#[track_caller]
pub fn current() -> &'static ThreadContext {
    let ptr = CURRENT.with(|c| c.get());
    if ptr.is_null() {
        panic!(
            "ferrocuda: a device function was called outside a kernel launch; \
             device functions only work inside a kernel run on a GPU or the simulator"
        );
    }
    // SAFETY: the simulator keeps the context alive while it is current.
    unsafe { &*ptr }
}

/// The running simulated thread's context, if a simulated thread runs on this OS thread.
#[inline]
pub fn try_current() -> Option<&'static ThreadContext> {
    let ptr = CURRENT.with(|c| c.get());
    // SAFETY: the simulator keeps the context alive while it is current.
    (!ptr.is_null()).then(|| unsafe { &*ptr })
}

/// The simulator serving the running simulated thread.
#[inline]
#[track_caller]
pub fn hooks() -> &'static dyn SimHooks {
    // SAFETY: see `set_current`.
    unsafe { &*current().hooks }
}
