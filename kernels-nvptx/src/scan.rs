//! Inclusive prefix sum: `output[i] = input[0] + ... + input[i]`.
//!
//! The tutorial's version only did the up-sweep of a Blelloch scan and printed wrong results;
//! this one is correct for any length:
//! 1. [`scan_blocks`] scans each block's chunk in shared memory (Hillis-Steele, double-buffered
//!    so no thread reads a slot another is writing) and writes each chunk's total;
//! 2. the chunk totals are scanned the same way (recursively, on the host side of
//!    [`inclusive_scan`]);
//! 3. [`add_block_offsets`] adds to every chunk the scanned total of the chunks before it.

use ferrocuda::prelude::*;

/// Most threads per block of [`scan_blocks`].
pub const SCAN_BLOCK: usize = 1024;

/// Scans each block's chunk of `input` (`block_dim().x` elements from `b * block_dim().x`) into
/// the same positions of `output`, and writes the chunk's total to `block_totals[b]` (when
/// `block_totals` has room for it). Any block size up to 1024 threads.
#[kernel]
pub fn scan_blocks(input: &[f32], output: &mut [f32], block_totals: &mut [f32]) {
    let threads = block_dim().x as usize;
    assert!(
        threads <= SCAN_BLOCK,
        "scan_blocks takes blocks of at most 1024 threads"
    );
    let mut buffers = shared_array!(f32; 2, SCAN_BLOCK);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    let mut current = 0;
    buffers[(current, t)] = if i < input.len() { input[i] } else { 0.0 };
    syncthreads();
    let mut offset = 1;
    while offset < threads {
        let next = 1 - current;
        let mut value = buffers[(current, t)];
        if t >= offset {
            value += buffers[(current, t - offset)];
        }
        buffers[(next, t)] = value;
        syncthreads();
        current = next;
        offset *= 2;
    }
    if i < output.len() {
        output[i] = buffers[(current, t)];
    }
    let b = block_idx().x as usize;
    if t == threads - 1 && b < block_totals.len() {
        block_totals[b] = buffers[(current, t)];
    }
}

/// Adds `scanned_totals[b - 1]` (the sum of every chunk before chunk `b`) to each element of
/// chunk `b` of `output`, chunks being `chunk` elements long. One thread per element.
#[kernel]
pub fn add_block_offsets(output: &mut [f32], scanned_totals: &[f32], chunk: u32) {
    let i = grid!(1);
    if i < output.len() {
        let b = i / chunk as usize;
        if b > 0 {
            output[i] += scanned_totals[b - 1];
        }
    }
}

/// Threads per block of the scan passes of [`inclusive_scan`].
#[cfg(not(target_arch = "nvptx64"))]
pub const SCAN_THREADS: u32 = 512;

/// `output[i] = input[0] + ... + input[i]` on `input`'s device, for any length: one
/// [`scan_blocks`] pass over chunks of 512, a recursive scan of the chunk totals when there is
/// more than one chunk, and one [`add_block_offsets`] pass. `output` must be as long as
/// `input`. Sums are in `f32`, in the order of a tree over each chunk.
#[cfg(not(target_arch = "nvptx64"))]
pub fn inclusive_scan(
    input: &ferrocuda::DeviceBuffer<f32>,
    output: &mut ferrocuda::DeviceBuffer<f32>,
) -> ferrocuda::Result<()> {
    use ferrocuda::{DeviceBuffer, Error};
    if output.len() != input.len() {
        return Err(Error::LengthMismatch {
            operation: "inclusive_scan (output vs input)",
            expected: input.len(),
            actual: output.len(),
        });
    }
    if input.is_empty() {
        return Ok(());
    }
    let chunks = input.len().div_ceil(SCAN_THREADS as usize);
    let mut totals = DeviceBuffer::<f32>::zeros(input.device(), chunks)?;
    ferrocuda::launch!(scan_blocks[chunks as u32, SCAN_THREADS](input, &mut *output, &mut totals))?;
    if chunks > 1 {
        let mut scanned = DeviceBuffer::<f32>::zeros(input.device(), chunks)?;
        inclusive_scan(&totals, &mut scanned)?;
        let blocks = input.len().div_ceil(256) as u32;
        ferrocuda::launch!(add_block_offsets[blocks, 256](output, &scanned, SCAN_THREADS))?;
    }
    Ok(())
}
