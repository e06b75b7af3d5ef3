//! Kernels that the GPU runs (or refuses) and the simulator must handle the same way: a
//! spin-wait on a flag another thread sets, a spin on a later block, an endless loop, a large
//! local array, 144 KiB of shared memory, a `u32` overflow, and `get_unchecked` out of
//! bounds (`tests/tests/simulator_promises.rs`).

use ferrocuda::prelude::*;

/// The number of `u32`s in [`shared_beyond_96k`]'s static array: 47 KiB, under the 48 KiB a
/// kernel for sm_70 may declare with the launch token's 16 bytes (every entry's own static).
pub const STATIC_WORDS: usize = 47 * 256;

/// The dynamic shared memory [`shared_beyond_96k`] is launched with: 97 KiB, for 144 KiB in all,
/// more than the simulator's former 96 KiB limit and within an H100's 227 KiB.
pub const DYNAMIC_BYTES: usize = 97 * 1024;

/// The size of [`large_local_array`]'s local array: 400 KB, more than a simulated thread's
/// default 256 KiB stack.
pub const LOCAL_BYTES: usize = 400 * 1000;

/// Thread 0 of each block spins until the block's last thread sets `flags[block]`, then writes
/// `out[block] = 1`.
#[kernel]
pub fn spin_on_flag(flags: &mut [u32], out: &mut [u32]) {
    let block = block_idx().x as usize;
    let thread = thread_idx().x;
    if thread == 0 {
        while flags.atomic_load(block) == 0 {}
        out[block] = 1;
    } else if thread == block_dim().x - 1 {
        flags.atomic_store(block, 1);
    }
}

/// Thread 0 of a block waits for the next block: it spins until `flags[block + 1]` is set, then
/// sets `flags[block] = block + 1`; the last block sets its own at once. The blocks must run at
/// the same time.
#[kernel]
pub fn wait_for_next_block(flags: &mut [u32]) {
    if thread_idx().x != 0 {
        return;
    }
    let block = block_idx().x as usize;
    if block + 1 < grid_dim().x as usize {
        while flags.atomic_load(block + 1) == 0 {}
    }
    flags.atomic_store(block, block as u32 + 1);
}

/// Thread 0 spins until `flags[0]` is set, which no thread does: a hang on a GPU.
#[kernel]
pub fn wait_for_nobody(flags: &mut [u32]) {
    if thread_idx().x == 0 {
        while flags.atomic_load(0) == 0 {}
    }
}

/// Loops for ever without an atomic, a barrier or a print: nothing can stop it but the
/// watchdog's monitor.
#[kernel]
pub fn endless_loop(out: &mut [u32]) {
    let mut x = 0u32;
    loop {
        x = core::hint::black_box(x.wrapping_add(1));
        if x == 0 && out.is_empty() {
            break;
        }
    }
}

/// Fills a 400 KB local array and writes its sum into `out[thread]`.
#[kernel]
pub fn large_local_array(out: &mut [u32]) {
    let i = thread_idx().x as usize;
    let mut local = [0u8; LOCAL_BYTES];
    let local = core::hint::black_box(&mut local);
    for (j, byte) in local.iter_mut().enumerate() {
        *byte = (j + i) as u8;
    }
    let sum = local.iter().map(|&b| b as u32).sum::<u32>();
    if i < out.len() {
        out[i] = sum;
    }
}

/// Fills a 47 KiB static shared array and the dynamic shared memory (word `j` of both together
/// holds `j`), then each thread sums the words of its stride, starting one thread further.
#[kernel]
pub fn shared_beyond_96k(out: &mut [u32]) {
    let mut fixed = shared_array!(u32; STATIC_WORDS);
    let mut dynamic = dynamic_shared_array::<u32>();
    let total = STATIC_WORDS + dynamic.len();
    let t = thread_idx().x as usize;
    let threads = block_dim().x as usize;
    let mut j = t;
    while j < total {
        if j < STATIC_WORDS {
            fixed[j] = j as u32;
        } else {
            dynamic[j - STATIC_WORDS] = j as u32;
        }
        j += threads;
    }
    syncthreads();
    let mut sum = 0u32;
    let mut j = (t + 1) % threads;
    while j < total {
        let word = if j < STATIC_WORDS {
            fixed[j]
        } else {
            dynamic[j - STATIC_WORDS]
        };
        sum = sum.wrapping_add(word);
        j += threads;
    }
    if t < out.len() {
        out[t] = sum;
    }
}

/// `out[0] = a + b` with Rust's `+`: panics on overflow where overflow checks are on (debug
/// builds), wraps where they are off (release builds), on both backends.
#[kernel]
pub fn overflowing_add(a: u32, b: u32, out: &mut [u32]) {
    if thread_idx().x == 0 && !out.is_empty() {
        out[0] = a + b;
    }
}

/// Reads `data` at `index` with `get_unchecked`: out of bounds is undefined behaviour, caught in
/// debug builds by core's precondition check (a non-unwinding panic).
#[kernel]
pub fn unchecked_read(data: &[u32], index: u32, out: &mut [u32]) {
    if thread_idx().x == 0 && !out.is_empty() {
        // SAFETY: none, on purpose: the test passes an index out of bounds to see the debug
        // build's precondition check name the kernel.
        out[0] = unsafe { *data.get_unchecked(index as usize) };
    }
}

/// Each thread adds 1 to `counter[0]` `rounds` times and keeps the value its last addition
/// returned in `last[thread]`: on the simulator, where the threads yield decides the values.
#[kernel]
pub fn interleaved_claims(counter: &mut [u32], last: &mut [u32], rounds: u32) {
    let t = thread_idx().x as usize;
    let mut value = 0;
    for _ in 0..rounds {
        value = counter.atomic_add(0, 1);
    }
    if t < last.len() {
        last[t] = value;
    }
}
