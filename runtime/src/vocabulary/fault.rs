//! [`SimulatorFault`]: a bug the CPU simulator found that would hang or corrupt memory on a GPU,
//! as data: the kernel, the block, the threads involved grouped by what they were doing, and
//! the source sites. `Display` writes the one-paragraph report the simulator has always printed.

use crate::Dim3;
use crate::vocabulary::thread_set::{describe_threads, thread_rank};
use std::fmt;

/// A place in the kernel's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceSite {
    /// Source file, as the compiler names it.
    pub file: &'static str,
    /// Line (from 1).
    pub line: u32,
    /// Column (from 1).
    pub column: u32,
}

impl SourceSite {
    /// The site of a `#[track_caller]` location.
    pub fn from_location(location: &'static std::panic::Location<'static>) -> Self {
        SourceSite {
            file: location.file(),
            line: location.line(),
            column: location.column(),
        }
    }
}

impl fmt::Display for SourceSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// What the threads of a [`ThreadGroup`] were doing when the simulator stopped the block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThreadActivity {
    /// They could still run.
    Runnable,
    /// They waited at a block barrier.
    AtBarrier {
        /// The barrier's CUDA name: `syncthreads`, `syncthreads_count`, `syncthreads_and`,
        /// `syncthreads_or`, or `grid_sync` for the grid barrier.
        barrier: &'static str,
        /// Where the barrier is.
        site: SourceSite,
    },
    /// They waited at a warp operation.
    AtWarpOperation {
        /// The operation's CUDA name, e.g. `shfl_sync`, `ballot_sync`, `syncwarp`.
        operation: &'static str,
        /// The lane mask they passed.
        mask: u32,
        /// Where the operation is.
        site: SourceSite,
    },
    /// They had returned from the kernel.
    Exited,
    /// They had panicked.
    Panicked,
    /// The simulator had stopped them.
    Stopped,
}

/// Threads of one block that were doing the same thing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadGroup {
    /// Their `threadIdx`, in increasing linear rank (x fastest).
    pub threads: Vec<Dim3>,
    /// What they were doing.
    pub activity: ThreadActivity,
}

/// Blocks of a cooperative launch that were doing the same thing when a grid barrier could not
/// be released.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockGroup {
    /// Their `blockIdx`, in increasing linear rank (x fastest).
    pub blocks: Vec<Dim3>,
    /// What their threads were doing: waiting at a grid barrier (`AtBarrier` with `grid_sync`),
    /// or all ended (`Exited`).
    pub activity: ThreadActivity,
}

/// One access of a data race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedAccess {
    /// The accessing thread's `threadIdx`.
    pub thread: Dim3,
    /// Whether it wrote (else it read).
    pub write: bool,
    /// Where the access is.
    pub site: SourceSite,
}

/// Which shared memory a data race happened in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SharedMemoryKind {
    /// A static shared array of the kernel.
    Static,
    /// The launch's dynamic shared memory.
    Dynamic,
}

/// A bug the simulator found in a kernel, that would hang or corrupt memory on a GPU. Returned
/// inside [`Error::SimulatorFault`](crate::Error::SimulatorFault); the launch ended at the fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SimulatorFault {
    /// Threads of a block waited at different barriers, or some exited while others waited at
    /// one (`__syncthreads` in divergent code).
    #[error("kernel `{kernel}`: divergent barrier in block {block}: {}", groups_text(*block_dim, groups, barrier_exit_text(groups)))]
    DivergentBarrier {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// `blockDim` of the launch.
        block_dim: Dim3,
        /// Every thread of the block, grouped by what it was doing.
        groups: Vec<ThreadGroup>,
    },
    /// The lanes of a warp operation's mask did not all reach the same operation.
    #[error("kernel `{kernel}`: divergent warp operation in block {block}: {}", groups_text(*block_dim, groups, "exited without reaching it"))]
    DivergentWarpOperation {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// `blockDim` of the launch.
        block_dim: Dim3,
        /// The lanes of the operation's mask, grouped by what they were doing.
        groups: Vec<ThreadGroup>,
    },
    /// A thread called a warp operation with a mask that does not include its own lane.
    #[error(
        "kernel `{kernel}`: invalid warp mask in block {block}: {} calls {operation} at {site} with mask {mask:#010x}, which does not include its own lane {lane}",
        describe_threads(&[thread_rank(*thread, *block_dim)], *block_dim)
    )]
    InvalidWarpMask {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// `blockDim` of the launch.
        block_dim: Dim3,
        /// `threadIdx` of the calling thread.
        thread: Dim3,
        /// The operation's CUDA name.
        operation: &'static str,
        /// Where the call is.
        site: SourceSite,
        /// The mask passed.
        mask: u32,
        /// The caller's lane.
        lane: u32,
    },
    /// No thread of a block can ever run again (a barrier against a warp operation, say).
    #[error("kernel `{kernel}`: deadlock in block {block}: {}", groups_text(*block_dim, groups, "exited"))]
    Deadlock {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// `blockDim` of the launch.
        block_dim: Dim3,
        /// The threads that had not panicked or been stopped, grouped by what they were doing.
        groups: Vec<ThreadGroup>,
    },
    /// Two threads accessed the same shared memory byte, at least one writing, with no barrier
    /// between.
    #[error(
        "kernel `{kernel}`: data race on shared memory in block {block}: thread {} {} at {} and thread {} {} at {} with no syncthreads between (byte {offset} of a {region_bytes}-byte {})",
        first.thread, verb(first.write), first.site, second.thread, verb(second.write), second.site,
        region_name(*memory)
    )]
    DataRace {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// The earlier access.
        first: SharedAccess,
        /// The later access, which found the race.
        second: SharedAccess,
        /// Which shared memory.
        memory: SharedMemoryKind,
        /// The byte raced on, from the start of its array.
        offset: usize,
        /// The size of the array in bytes.
        region_bytes: usize,
    },
    /// A thread accessed shared memory that an asynchronous copy (`async_copy`, `cp.async`) is
    /// still writing: the copy is complete only after its thread's `async_copy_wait` covering its
    /// group (and visible to other threads after a barrier following that wait).
    #[error(
        "kernel `{kernel}`: in block {block}, thread {} {} shared memory at {} that an async_copy started by thread {} at {} is still writing ({}); on a GPU the access would see old, new or partly copied bytes",
        access.thread, verb(access.write), access.site, copy.thread, copy.site,
        if *committed { "its group has not been waited for: call async_copy_wait in that thread first, then syncthreads for other threads" } else { "it was never committed: call async_copy_commit and async_copy_wait in that thread first" }
    )]
    AsyncCopyPending {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// The access that touched the pending bytes (a copy started over them counts as a
        /// write).
        access: SharedAccess,
        /// The pending copy: the thread that started it and where.
        copy: SharedAccess,
        /// Whether the copy had been committed to a group.
        committed: bool,
    },
    /// A thread reached an instruction the simulator cannot execute (the Hopper instructions:
    /// `wgmma`, TMA copies, `mbarrier`, `setmaxnreg`). Such a kernel runs only on a GPU.
    #[error(
        "kernel `{kernel}`: in block {block}, thread {} reached `{instruction}` at {}, which the simulator cannot execute; run this kernel on a GPU of the architecture it was built for",
        site.thread, site.site
    )]
    UnsupportedInstruction {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// The PTX instruction (`wgmma.mma_async`, `cp.async.bulk.tensor`, ...).
        instruction: &'static str,
        /// The thread and the source line (`write` is false).
        site: SharedAccess,
    },
    /// The kernel's static shared arrays exceed the per-block limit.
    #[error(
        "kernel `{kernel}`: the kernel's static shared arrays need {static_bytes} bytes, more than the limit of {limit} bytes per block (a GPU's 48 KiB of static shared memory less the 8 bytes of ferrocuda's launch token): move the largest array to dynamic shared memory (`dynamic_shared_array`, sized with `.shared_mem(bytes)`)"
    )]
    StaticSharedMemoryLimit {
        /// The kernel's entry name.
        kernel: String,
        /// Bytes of static shared memory declared so far.
        static_bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// Static plus dynamic shared memory exceed the per-block limit.
    #[error(
        "kernel `{kernel}`: the kernel needs {static_bytes} bytes of static and {dynamic_bytes} bytes of dynamic shared memory, more than the limit of {limit} bytes per block (the device's opt-in limit less the 8 bytes of ferrocuda's launch token)"
    )]
    SharedMemoryLimit {
        /// The kernel's entry name.
        kernel: String,
        /// Bytes of static shared memory.
        static_bytes: usize,
        /// Bytes of dynamic shared memory.
        dynamic_bytes: usize,
        /// The limit in bytes.
        limit: usize,
    },
    /// A simulated thread overflowed its stack (a large local array, deep recursion). The
    /// launch ended there; the thread's stack is not reused (a GPU refuses a launch whose
    /// threads need more local memory than it has with `CUDA_ERROR_OUT_OF_MEMORY`).
    #[error(
        "kernel `{kernel}`: thread {thread} of block {block} overflowed its {} KiB simulator stack (a large local array or deep calls); set FERROCUDA_SIMULATOR_STACK_KIB to more KiB",
        stack_bytes / 1024
    )]
    StackOverflow {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the thread.
        block: Dim3,
        /// `threadIdx` of the thread.
        thread: Dim3,
        /// The stack size in bytes (`FERROCUDA_SIMULATOR_STACK_KIB`).
        stack_bytes: usize,
    },
    /// The simulator could not allocate the stack of a simulated thread.
    #[error(
        "kernel `{kernel}`: the simulator could not allocate a {} KiB stack for a simulated thread: {reason}",
        stack_bytes / 1024
    )]
    StackAllocation {
        /// The kernel's entry name.
        kernel: String,
        /// The stack size in bytes (`FERROCUDA_SIMULATOR_STACK_KIB`).
        stack_bytes: usize,
        /// The operating system's error.
        reason: String,
    },
    /// Blocks of a cooperative launch did not all reach the same grid barrier (`grid_sync`):
    /// some waited at one while others had ended or waited at another. A GPU would hang.
    #[error(
        "kernel `{kernel}`: divergent grid barrier in a grid of {grid} blocks: {}; every thread of the grid must reach the same grid_sync",
        block_groups_text(*grid, groups)
    )]
    DivergentGridBarrier {
        /// The kernel's entry name.
        kernel: String,
        /// `gridDim` of the launch.
        grid: Dim3,
        /// Every block, grouped by what its threads were doing.
        groups: Vec<BlockGroup>,
    },
    /// The launch made no progress (no thread finished, passed a barrier or completed a warp
    /// operation) for the watchdog's time, `FERROCUDA_SIMULATOR_WATCHDOG_SECS`: a spin-wait for
    /// a value nobody will write, or an endless loop. A GPU would hang.
    #[error(
        "kernel `{kernel}`: no progress in block {block} for {seconds} s (no thread finished, passed a barrier or completed a warp operation; FERROCUDA_SIMULATOR_WATCHDOG_SECS sets the time): thread {thread} was running; {}. A spin-wait for a value no thread writes never ends, nor one for a block that cannot start while the waiting blocks hold the simulated device (2048 threads at once)",
        groups_text(*block_dim, groups, "exited")
    )]
    NoProgress {
        /// The kernel's entry name.
        kernel: String,
        /// `blockIdx` of the block.
        block: Dim3,
        /// `blockDim` of the launch.
        block_dim: Dim3,
        /// The thread that was running when the watchdog fired.
        thread: Dim3,
        /// The watchdog's time, in seconds.
        seconds: u64,
        /// The threads that had not panicked or been stopped, grouped by what they were doing.
        groups: Vec<ThreadGroup>,
    },
}

impl SimulatorFault {
    /// The kernel that was running.
    pub fn kernel(&self) -> &str {
        match self {
            SimulatorFault::DivergentBarrier { kernel, .. }
            | SimulatorFault::DivergentWarpOperation { kernel, .. }
            | SimulatorFault::InvalidWarpMask { kernel, .. }
            | SimulatorFault::Deadlock { kernel, .. }
            | SimulatorFault::DataRace { kernel, .. }
            | SimulatorFault::AsyncCopyPending { kernel, .. }
            | SimulatorFault::UnsupportedInstruction { kernel, .. }
            | SimulatorFault::StaticSharedMemoryLimit { kernel, .. }
            | SimulatorFault::SharedMemoryLimit { kernel, .. }
            | SimulatorFault::StackAllocation { kernel, .. }
            | SimulatorFault::StackOverflow { kernel, .. }
            | SimulatorFault::NoProgress { kernel, .. }
            | SimulatorFault::DivergentGridBarrier { kernel, .. } => kernel,
        }
    }

    /// `blockIdx` of the faulting block, for the faults found in one block.
    pub fn block(&self) -> Option<Dim3> {
        match self {
            SimulatorFault::DivergentBarrier { block, .. }
            | SimulatorFault::DivergentWarpOperation { block, .. }
            | SimulatorFault::InvalidWarpMask { block, .. }
            | SimulatorFault::Deadlock { block, .. }
            | SimulatorFault::DataRace { block, .. }
            | SimulatorFault::AsyncCopyPending { block, .. }
            | SimulatorFault::UnsupportedInstruction { block, .. }
            | SimulatorFault::StackOverflow { block, .. }
            | SimulatorFault::NoProgress { block, .. } => Some(*block),
            SimulatorFault::StaticSharedMemoryLimit { .. }
            | SimulatorFault::SharedMemoryLimit { .. }
            | SimulatorFault::StackAllocation { .. }
            | SimulatorFault::DivergentGridBarrier { .. } => None,
        }
    }

    /// The thread groups of the faults that have them (divergence and deadlock).
    pub fn groups(&self) -> &[ThreadGroup] {
        match self {
            SimulatorFault::DivergentBarrier { groups, .. }
            | SimulatorFault::DivergentWarpOperation { groups, .. }
            | SimulatorFault::Deadlock { groups, .. }
            | SimulatorFault::NoProgress { groups, .. } => groups,
            _ => &[],
        }
    }
}

/// `wrote` or `read`.
fn verb(write: bool) -> &'static str {
    if write { "wrote" } else { "read" }
}

/// The words for a shared memory kind.
fn region_name(memory: SharedMemoryKind) -> &'static str {
    match memory {
        SharedMemoryKind::Static => "static shared array",
        SharedMemoryKind::Dynamic => "dynamic shared memory",
    }
}

/// How exited threads are described in a divergent barrier: "without reaching it" when every
/// waiting thread waits at one barrier, else "without reaching a barrier".
fn barrier_exit_text(groups: &[ThreadGroup]) -> &'static str {
    let mut sites = groups.iter().filter_map(|g| match g.activity {
        ThreadActivity::AtBarrier { site, .. } => Some(site),
        _ => None,
    });
    let first = sites.next();
    if sites.all(|site| Some(site) == first) {
        "exited without reaching it"
    } else {
        "exited without reaching a barrier"
    }
}

/// What threads doing `activity` do, in a fault message: `wait at syncthreads at src/k.rs:3:5`,
/// or `exited_text` for threads that returned.
fn activity_text(activity: &ThreadActivity, exited_text: &str) -> String {
    match activity {
        ThreadActivity::Runnable => "are runnable".to_string(),
        ThreadActivity::AtBarrier { barrier, site } => format!("wait at {barrier} at {site}"),
        ThreadActivity::AtWarpOperation {
            operation,
            mask,
            site,
        } => format!("wait at {operation} (mask {mask:#010x}) at {site}"),
        ThreadActivity::Exited => exited_text.to_string(),
        ThreadActivity::Panicked => "panicked".to_string(),
        ThreadActivity::Stopped => "were stopped".to_string(),
    }
}

/// `threads (0..16, 0, 0) wait at ...; threads (16..32, 0, 0) exited ...`.
fn groups_text(block_dim: Dim3, groups: &[ThreadGroup], exited_text: &str) -> String {
    groups
        .iter()
        .map(|group| {
            let ranks: Vec<usize> = group
                .threads
                .iter()
                .map(|&t| thread_rank(t, block_dim))
                .collect();
            format!(
                "{} {}",
                describe_threads(&ranks, block_dim),
                activity_text(&group.activity, exited_text)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `blocks (0..2, 0, 0) wait at grid_sync at ...; block (2, 0, 0) ended without reaching it`.
fn block_groups_text(grid: Dim3, groups: &[BlockGroup]) -> String {
    groups
        .iter()
        .map(|group| {
            let ranks: Vec<usize> = group.blocks.iter().map(|&b| thread_rank(b, grid)).collect();
            let blocks = describe_threads(&ranks, grid).replace("thread", "block");
            let activity = activity_text(&group.activity, "ended without reaching it");
            format!("{blocks} {activity}")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_stacks_read_as_before() {
        let total = SimulatorFault::SharedMemoryLimit {
            kernel: "k".to_string(),
            static_bytes: 1024,
            dynamic_bytes: 98304,
            limit: 98304,
        };
        assert_eq!(
            total.to_string(),
            "kernel `k`: the kernel needs 1024 bytes of static and 98304 bytes of dynamic shared memory, more than the limit of 98304 bytes per block (the device's opt-in limit less the 8 bytes of ferrocuda's launch token)"
        );
        let overflow = SimulatorFault::StackOverflow {
            kernel: "k".to_string(),
            block: Dim3::new(1, 0, 0),
            thread: Dim3::new(2, 0, 0),
            stack_bytes: 256 * 1024,
        };
        assert_eq!(
            overflow.to_string(),
            "kernel `k`: thread (2, 0, 0) of block (1, 0, 0) overflowed its 256 KiB simulator stack (a large local array or deep calls); set FERROCUDA_SIMULATOR_STACK_KIB to more KiB"
        );
        assert_eq!(
            (overflow.kernel(), overflow.block()),
            ("k", Some(Dim3::new(1, 0, 0)))
        );
        let stack = SimulatorFault::StackAllocation {
            kernel: "k".to_string(),
            stack_bytes: 256 * 1024,
            reason: "out of memory".to_string(),
        };
        assert_eq!(
            stack.to_string(),
            "kernel `k`: the simulator could not allocate a 256 KiB stack for a simulated thread: out of memory"
        );
        assert_eq!((stack.kernel(), stack.block()), ("k", None));
        assert!(stack.groups().is_empty());
    }

    #[test]
    fn exited_threads_are_described_by_what_the_others_wait_at() {
        let site = |line| SourceSite {
            file: "k.rs",
            line,
            column: 5,
        };
        let at = |line| ThreadActivity::AtBarrier {
            barrier: "syncthreads",
            site: site(line),
        };
        let group = |x: u32, activity| ThreadGroup {
            threads: vec![Dim3::new(x, 0, 0)],
            activity,
        };
        let fault = |groups| SimulatorFault::DivergentBarrier {
            kernel: "k".to_string(),
            block: Dim3::new(1, 0, 0),
            block_dim: Dim3::new(4, 1, 1),
            groups,
        };
        let one_site = fault(vec![group(0, at(3)), group(1, ThreadActivity::Exited)]);
        assert_eq!(
            one_site.to_string(),
            "kernel `k`: divergent barrier in block (1, 0, 0): thread (0, 0, 0) wait at syncthreads at k.rs:3:5; thread (1, 0, 0) exited without reaching it"
        );
        let two_sites = fault(vec![
            group(0, at(3)),
            group(1, at(4)),
            group(2, ThreadActivity::Exited),
        ]);
        assert!(
            two_sites
                .to_string()
                .ends_with("thread (2, 0, 0) exited without reaching a barrier"),
            "{two_sites}"
        );
    }
}
