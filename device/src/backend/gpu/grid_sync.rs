//! The grid barrier on the driver's grid workspace, as CUDA's cooperative groups do it
//! (`cooperative_groups/details/sync.h` and `driver_abi.h`).
//!
//! A cooperative launch gets a workspace `{ u32 size; u32 barrier; }` from the driver, its
//! address in the environment registers `%envreg1` (high half) and `%envreg2` (low half). Those
//! are not reliably null in ordinary launches (on driver 580 an ordinary launch read a non-null
//! address there), so whether the launch is cooperative comes from the launch token instead:
//! the runtime sets [`COOPERATIVE_TOKEN_BIT`] in the hidden token parameter of every cooperative
//! launch. At a barrier, after a `bar.sync`, the first thread of each block adds 1
//! to `barrier` (block (0, 0, 0) adds `0x8000_0000 - (blocks - 1)`) with release semantics at GPU
//! scope, so that the sum of one barrier is `0x8000_0000`: the top bit flips exactly when the last
//! block arrives, and the low bits come back to where they were. It then spins with acquire loads
//! until the top bit differs from what its add returned, and a second `bar.sync` releases its
//! block. The release add, the acquire load and the two `bar.sync`s order every thread's
//! accesses before the barrier before every thread's accesses after it; compiler fences around
//! the whole barrier (and around each `bar.sync`, see `sync.rs`) keep the compiler from moving
//! loads or stores across it, which the inline assembly alone would not do for memory behind a
//! `noalias` `&mut [T]`.

use crate::backend::index::{block_idx, grid_dim, thread_idx};
use crate::backend::panic::launched_cooperatively;
use crate::backend::sync::{between_fences, syncthreads};
#[cfg(doc)]
use crate::panic::COOPERATIVE_TOKEN_BIT;
use core::arch::asm;

/// The top bit of the barrier word, which flips once per barrier.
const FLIP: u32 = 0x8000_0000;

/// The address of the launch's grid workspace (meaningful in a cooperative launch only).
#[inline(always)]
fn grid_workspace() -> u64 {
    let (high, low): (u32, u32);
    // SAFETY: reads two environment registers, which every launch has (0 when the driver puts
    // nothing there); no memory is touched.
    unsafe {
        asm!(
            "mov.u32 {high}, %envreg1;",
            "mov.u32 {low}, %envreg2;",
            high = out(reg32) high,
            low = out(reg32) low,
            options(pure, nomem, nostack),
        );
    }
    ((high as u64) << 32) | low as u64
}

#[inline(always)]
pub(crate) fn is_cooperative_launch() -> bool {
    launched_cooperatively()
}

/// The grid barrier; `false` (and no barrier) when the launch is not cooperative.
#[inline(always)]
pub(crate) fn grid_sync() -> bool {
    if !launched_cooperatively() {
        return false;
    }
    let workspace = grid_workspace();
    if workspace == 0 {
        return false;
    }
    between_fences(|| arrive_and_wait(workspace.wrapping_add(4)));
    true
}

/// The barrier itself, on the workspace's `barrier` word at address `barrier`.
#[inline(always)]
fn arrive_and_wait(barrier: u64) {
    syncthreads();
    let thread = thread_idx();
    if thread.x | thread.y | thread.z == 0 {
        let grid = grid_dim();
        let blocks = grid.x.wrapping_mul(grid.y).wrapping_mul(grid.z);
        let block = block_idx();
        let add = if block.x | block.y | block.z == 0 {
            FLIP.wrapping_sub(blocks.wrapping_sub(1))
        } else {
            1
        };
        let arrived: u32;
        // SAFETY: `barrier` is the `barrier` word of the driver's workspace for this launch
        // (the caller found the workspace non-null), global memory that lives as long as the
        // launch.
        unsafe {
            asm!(
                "atom.release.gpu.add.u32 {arrived}, [{barrier}], {add};",
                arrived = out(reg32) arrived,
                barrier = in(reg64) barrier,
                add = in(reg32) add,
                options(nostack),
            );
        }
        loop {
            let now: u32;
            // SAFETY: as above; an acquire load of the same word.
            unsafe {
                asm!(
                    "ld.acquire.gpu.u32 {now}, [{barrier}];",
                    now = out(reg32) now,
                    barrier = in(reg64) barrier,
                    options(nostack),
                );
            }
            if (arrived ^ now) & FLIP != 0 {
                break;
            }
        }
    }
    syncthreads();
}
