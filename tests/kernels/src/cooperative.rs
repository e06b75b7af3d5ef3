//! Kernels of the cooperative-launch and memory-model tests (`tests/tests/cooperative.rs`,
//! `tests/tests/ptx_barrier_reload.rs`): threads that read back, after a barrier, what another
//! thread (of the block, or of another block) wrote over an element they wrote themselves
//! before it; a stencil iterated with a grid barrier between rounds; and the misuses the
//! simulator and the GPU must refuse.

use ferrocuda::prelude::*;

/// The value thread `i` first writes to its own element: any mix that is not the final value.
#[inline(always)]
pub fn first_value(i: usize) -> u32 {
    (i as u32).wrapping_mul(7).wrapping_add(1)
}

/// What thread `writer` makes of the element `x` it overwrites for its partner.
#[inline(always)]
pub fn overwrite(x: u32, writer: usize) -> u32 {
    x.wrapping_mul(3).wrapping_add(writer as u32)
}

/// Block-barrier reload. Thread `mine` (of the whole grid) writes
/// `data[mine] = first_value(mine)`; after a barrier each odd thread overwrites the element of
/// the even thread before it, `data[mine - 1] = overwrite(data[mine - 1], mine)`; after a
/// second barrier every thread copies its own element to `seen[mine]`: the even threads' was
/// overwritten meanwhile. Race-free: between two barriers each element has one writer and no
/// other reader. An even thread stores nothing between the barriers (and an odd one stores to
/// `mine - 1`, which the compiler knows is not `mine`), so only the barrier keeps the compiler
/// from forwarding the thread's first store to its last load (it wrote `data[mine]` itself, and
/// `data` is a `&mut [u32]`, which rustc marks `noalias`). Blocks of an even number of
/// threads; `data` and `seen` hold one element per thread of the grid.
#[kernel]
pub fn block_partner_reload(data: &mut [u32], seen: &mut [u32]) {
    let mine = grid!(1);
    data[mine] = first_value(mine);
    syncthreads();
    if mine % 2 == 1 {
        data[mine - 1] = overwrite(data[mine - 1], mine);
    }
    syncthreads();
    seen[mine] = data[mine];
}

/// [`block_partner_reload`] with the exchange in a helper function that takes the slice as a
/// `&mut [u32]` of its own (`noalias` again, for the helper's body) and holds both barriers: the
/// shape of a user's device function, which `#[kernel]` does not see.
#[kernel]
pub fn helper_partner_reload(data: &mut [u32], seen: &mut [u32]) {
    let mine = grid!(1);
    seen[mine] = exchange_with_partner(data, mine);
}

/// The two barriers of [`block_partner_reload`] and what lies between them; returns
/// `data[mine]` read after the second.
#[inline]
fn exchange_with_partner(data: &mut [u32], mine: usize) -> u32 {
    data[mine] = first_value(mine);
    syncthreads();
    if mine % 2 == 1 {
        // Rounds of `overwrite` (a loop, so that rustc's MIR inliner leaves the helper to
        // LLVM's, which gives the barriers the slice's scope).
        let mut x = data[mine - 1];
        for round in 0..(mine % 4 + 1) {
            x = overwrite(x, mine + round);
        }
        data[mine - 1] = x;
    }
    syncthreads();
    data[mine]
}

/// Grid-barrier reload: [`block_partner_reload`] across blocks, with grid barriers: each thread
/// of an odd block overwrites the element of the same thread of the block before it,
/// `data[mine ^ blockDim.x]` (which is `mine - blockDim.x` for blocks of a power-of-two number
/// of threads, and which the compiler knows is not `mine`). Blocks of a power-of-two number of
/// threads, an even number of blocks.
#[kernel(cooperative)]
pub fn grid_partner_reload(data: &mut [u32], seen: &mut [u32]) {
    let mine = grid!(1);
    let partner = mine ^ block_dim().x as usize;
    data[mine] = first_value(mine);
    grid_sync();
    if block_idx().x % 2 == 1 {
        data[partner] = overwrite(data[partner], mine);
    }
    grid_sync();
    seen[mine] = data[mine];
}

/// `rounds` rounds of a periodic stencil over `a` (any length), with `b` as the other buffer:
/// round `r` reads one buffer and writes `x[i] = 2 x[i] + x[i - 1] + 3 x[i + 1] (mod 2^32)`
/// (indices modulo the length) into the other, in a grid-stride loop, and a grid barrier ends
/// every round. After an even number of rounds the result is in `a`, after an odd one in `b`.
/// Any 1-dimensional grid and block (every block reaches every barrier).
#[kernel(cooperative)]
pub fn stencil_rounds(a: &mut [u32], b: &mut [u32], rounds: u32) {
    let n = a.len();
    let start = grid!(1);
    let stride = gridsize!(1);
    for round in 0..rounds {
        let (from, to): (&[u32], &mut [u32]) = if round % 2 == 0 {
            (&*a, &mut *b)
        } else {
            (&*b, &mut *a)
        };
        let mut i = start;
        while i < n {
            let left = from[(i + n - 1) % n];
            let right = from[(i + 1) % n];
            to[i] = from[i]
                .wrapping_mul(2)
                .wrapping_add(left)
                .wrapping_add(right.wrapping_mul(3));
            i += stride;
        }
        grid_sync();
    }
}

/// `out[block] = 1 + number of grid barriers passed` after `rounds` barriers in a 3-dimensional
/// grid, where thread (0, 0, 0) of each block counts the arrivals of the other blocks through
/// an atomic counter: before barrier `r` every block adds 1 to `counter[0]`, and after it each
/// block's first thread checks that the counter is `(r + 1) * blocks` (a barrier that released
/// a block early shows a smaller count; the number of mismatches goes to `mismatches[block]`).
#[kernel(cooperative)]
pub fn grid_rounds_3d(counter: &mut [u32], mismatches: &mut [u32], rounds: u32) {
    let grid = grid_dim();
    let block = block_idx();
    let blocks = grid.x * grid.y * grid.z;
    let linear = (block.x + grid.x * (block.y + grid.y * block.z)) as usize;
    let first = thread_rank() == 0;
    let mut wrong = 0;
    for round in 0..rounds {
        if first {
            counter.atomic_add(0, 1);
        }
        grid_sync();
        if first && counter.atomic_add(0, 0) != (round + 1) * blocks {
            wrong += 1;
        }
        // The next round's adds must not overtake this round's checks.
        grid_sync();
    }
    if first {
        mismatches[linear] = wrong;
    }
}

/// `out[i] = is_cooperative_launch()` for thread `i`, launched cooperatively.
#[kernel(cooperative)]
pub fn cooperative_flag(out: &mut [u32]) {
    let i = grid!(1);
    if i < out.len() {
        out[i] = is_cooperative_launch() as u32;
    }
}

/// `out[i] = is_cooperative_launch()` for thread `i`, launched normally.
#[kernel]
pub fn ordinary_flag(out: &mut [u32]) {
    let i = grid!(1);
    if i < out.len() {
        out[i] = is_cooperative_launch() as u32;
    }
}

/// A grid barrier in a kernel not marked `cooperative`: every thread panics with
/// `NOT_COOPERATIVE` instead of waiting (`out[i]` stays as it was).
#[kernel]
pub fn grid_sync_not_cooperative(out: &mut [u32]) {
    grid_sync();
    let i = grid!(1);
    if i < out.len() {
        out[i] = 1;
    }
}

/// Block `skip` returns before the grid barrier that the other blocks wait at: a divergent grid
/// barrier (the simulator's fault; a GPU would hang, so this runs on the simulator only).
#[kernel(cooperative)]
pub fn grid_sync_skipped_by_block(skip: u32, out: &mut [u32]) {
    if block_idx().x == skip {
        return;
    }
    grid_sync();
    let i = grid!(1);
    if i < out.len() {
        out[i] = 1;
    }
}

/// Thread 0 of every block returns before the grid barrier that the block's other threads
/// reach: a divergent barrier within each block (simulator only).
#[kernel(cooperative)]
pub fn grid_sync_skipped_by_thread(out: &mut [u32]) {
    if thread_idx().x == 0 {
        return;
    }
    grid_sync();
    let i = grid!(1);
    if i < out.len() {
        out[i] = 1;
    }
}

/// Thread 0 of block `panicking` panics before the grid barrier; every other thread of the grid
/// waits there. The simulator must report the panic, not hang (simulator only: on a GPU the
/// first thread of a block is the one that signals the block's arrival, so the grid would
/// wait for it for ever).
#[kernel(cooperative)]
pub fn grid_sync_after_panic(panicking: u32, out: &mut [u32]) {
    if block_idx().x == panicking && thread_idx().x == 0 {
        panic!("the first thread of this block gives up before the grid barrier");
    }
    grid_sync();
    let i = grid!(1);
    if i < out.len() {
        out[i] = 1;
    }
}
