//! Asynchronous copies from global to shared memory (`cp.async`, sm_80 and newer), grouped and
//! waited for as in CUDA's `__pipeline_memcpy_async` / `cuda::memcpy_async`.
//!
//! ```ignore
//! // Two stages: copy tile k + 1 while summing tile k.
//! let mut tiles = shared_array!(f32; 2 * TILE);
//! async_copy(&mut tiles, t * 4, &input[first..first + 4]);  // 16 bytes per thread
//! async_copy_commit();                                     // group 0: tile 0
//! for k in 0..count {
//!     if k + 1 < count { /* issue tile k + 1 into the other stage */ }
//!     async_copy_commit();                                 // group k + 1 (maybe empty)
//!     async_copy_wait::<1>();                              // all but the newest group done
//!     syncthreads();                                       // others' copies visible too
//!     // ... read stage k % 2 ...
//!     syncthreads();                                       // before it is overwritten
//! }
//! ```
//!
//! # The protocol
//! - [`async_copy`] starts copying 4, 8 or 16 bytes from a global slice into a shared array
//!   (`cp.async.ca.shared.global` for 4 and 8 bytes, `cp.async.cg.shared.global`, which
//!   bypasses L1, for 16); [`async_copy_zero_fill`] copies fewer elements and fills the rest with
//!   zero bits, for the tail of an input: a whole window is a `cp.async`, a shorter one is
//!   loaded and stored at once (a `cp.async` with a smaller `src-size` still names the whole
//!   window, which may leave the source's buffer), and is complete when the call returns.
//! - [`async_copy_commit`] closes the thread's copies started since the last commit into a
//!   group (`cp.async.commit_group`; a commit with no copies makes an empty group).
//! - [`async_copy_wait::<N>`](async_copy_wait) waits until all of the thread's groups but the
//!   `N` most recent are complete (`cp.async.wait_group N`); [`async_copy_wait_all`] commits and
//!   waits for everything (`cp.async.wait_all`).
//!
//! Only then does the issuing thread see the data, and other threads only after a barrier
//! ([`syncthreads`](crate::syncthreads)) that follows the wait. Reading or writing a destination
//! before its copy has been waited for is a race with the copy engine: on a GPU it returns old,
//! new or partly new bytes; the simulator performs the copies at the wait and reports any access
//! to a pending destination as a fault (`SimulatorFault::AsyncCopyPending`, naming both lines).
//! Copies that are never waited for stay pending on the simulator (an access to them by any
//! thread is reported) and are dropped when the block ends.
//!
//! # Checks
//! Both backends check, and panic at the caller's line when violated: the copy is 4, 8 or 16
//! bytes; the destination range lies inside the shared array; the source and destination
//! addresses are aligned to the copy's size (the instruction requires it); for the zero-fill form
//! the source is not longer than the copy. The source range is whatever slice the caller passes,
//! so ordinary slice indexing checks it.
//!
//! A static `shared_array!` is aligned to its element type only (4 bytes for `f32`): for 8- and
//! 16-byte copies of smaller elements, take the shared memory from [`DynamicShared`] or
//! [`dynamic_shared_array`](crate::dynamic_shared_array), whose start is 16-byte aligned, as the
//! kernels of `tests/kernels/src/async_copy.rs` do. Device buffers start 256-byte aligned.
//!
//! [`DynamicShared`]: crate::DynamicShared
//!
//! # Architecture
//! `cp.async` needs sm_80: in a kernel crate built for an older GPU, calling these functions is a
//! compile error (see [`crate::architecture`]; the commit and wait functions, which have no type
//! parameter to carry the bound, do not exist in such a build).

use crate::DeviceCopy;
use crate::architecture::{Sm80, Target};
use crate::backend::async_copy as imp;
use crate::shared::{Shape, Shared};

/// The sizes in bytes one `cp.async` copies.
pub const ASYNC_COPY_SIZES: [usize; 3] = [4, 8, 16];

/// Starts copying `src` into `dst[start..start + src.len()]` (`cp.async`), without waiting.
///
/// `src` must be 4, 8 or 16 bytes, and both ends aligned to that size; `start` is a flat element
/// index (`row * C + col` for a 2-D array). The copied elements become visible to this thread
/// after [`async_copy_commit`] and an [`async_copy_wait`] that covers the group, and to the other
/// threads of the block after a barrier following that wait.
///
/// # Panics
/// When the size is not 4, 8 or 16 bytes, the range leaves `dst`, or an address is misaligned.
#[inline(always)]
#[track_caller]
pub fn async_copy<T: DeviceCopy, S: Shape>(dst: &mut Shared<T, S>, start: usize, src: &[T])
where
    Target<T>: Sm80,
{
    let bytes = core::mem::size_of_val(src);
    let destination = destination::<T, S>(dst, start, src.len(), bytes);
    imp::copy(destination, src.as_ptr().cast(), bytes, bytes);
}

/// Starts copying `src` into `dst[start..start + len]` and filling the `len - src.len()`
/// elements after it with zero bits: the tail of an input whose length is not a multiple of the
/// copy. `src` may be empty (only zeros are written). With `src.len() == len` it is
/// [`async_copy`]; a shorter `src` is read and the window written before the call returns, so
/// no byte past `src` is ever addressed.
///
/// `len` elements must be 4, 8 or 16 bytes; see [`async_copy`] for the rest.
///
/// # Panics
/// As [`async_copy`], and when `src` is longer than `len`.
#[inline(always)]
#[track_caller]
pub fn async_copy_zero_fill<T: DeviceCopy, S: Shape>(
    dst: &mut Shared<T, S>,
    start: usize,
    src: &[T],
    len: usize,
) where
    Target<T>: Sm80,
{
    if src.len() > len {
        imp::source_too_long(src.len(), len);
    }
    let bytes = len * core::mem::size_of::<T>();
    let destination = destination::<T, S>(dst, start, len, bytes);
    imp::copy(
        destination,
        src.as_ptr().cast(),
        bytes,
        core::mem::size_of_val(src),
    );
}

/// Starts copying the `len` elements at `src` into `dst[start..start + len]` (`cp.async`) as
/// [`async_copy`] does, without its checks in GPU builds: for kernels whose index arithmetic
/// already guarantees the contract and whose inner loop cannot afford a branch and a 64-bit
/// compare per copy (the tensor-core GEMM of `kernels-nvptx` issues four per thread and step).
/// On the simulator every check of [`async_copy`] still runs, so a kernel's simulator tests
/// catch a broken contract as a panic naming it.
///
/// A 16-byte copy here goes through L1 (`cp.async.ca`; [`async_copy`]'s goes around it,
/// `.cg`): on the H100 the bf16 GEMM's SMs received twice the sectors from L2 with `.cg` and
/// ran at 0.7x the speed. Like every load through L1 it may see stale data for memory that
/// another block wrote during the same kernel, so the contract below excludes that.
///
/// # Safety
/// - `len` elements of `T` are 4, 8 or 16 bytes;
/// - `start + len <= dst.len()`;
/// - `src` points to `len` readable elements of global memory (a device buffer) that no thread
///   writes until the copy is waited for, and that no other block of the kernel has written;
/// - the shared and the global address are both aligned to the copy's size.
#[inline(always)]
#[track_caller]
pub unsafe fn async_copy_unchecked<T: DeviceCopy, S: Shape>(
    dst: &mut Shared<T, S>,
    start: usize,
    src: *const T,
    len: usize,
) where
    Target<T>: Sm80,
{
    #[cfg(target_arch = "nvptx64")]
    if len * core::mem::size_of::<T>() == 16 {
        // The common 16-byte copy of tensor-core kernels: the destination's shared-state-space
        // address is the array's (a pure conversion, hoisted out of loops) plus the byte
        // offset, in 32 bits.
        let base = crate::backend::mbarrier::shared_address(dst.as_ptr());
        let destination = base.wrapping_add((start * core::mem::size_of::<T>()) as u32);
        // SAFETY: the caller's contract, with 16 bytes: both ranges lie in their memories,
        // 16-byte aligned.
        unsafe { imp::copy16_unchecked_shared(destination, src.cast()) }
    } else {
        let bytes = len * core::mem::size_of::<T>();
        // SAFETY: the caller's contract is that of `copy_unchecked`: both ranges lie in their
        // memories, aligned to `bytes`, which is 4, 8 or 16.
        unsafe { imp::copy_unchecked(dst.as_ptr().wrapping_add(start).cast(), src.cast(), bytes) }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        // SAFETY: the caller's contract: `src` points to `len` readable elements.
        let src = unsafe { core::slice::from_raw_parts(src, len) };
        async_copy(dst, start, src);
    }
}

/// Checks a copy of `len` elements (`bytes` bytes) to `dst[start..]` and the alignment of both
/// ends (the source is checked by the backend, which knows its address); returns the address.
#[inline(always)]
#[track_caller]
fn destination<T, S: Shape>(
    dst: &mut Shared<T, S>,
    start: usize,
    len: usize,
    bytes: usize,
) -> *mut u8 {
    if !matches!(bytes, 4 | 8 | 16) {
        imp::bad_size(bytes);
    }
    if start > dst.len() || dst.len() - start < len {
        imp::out_of_bounds(start, len, dst.len());
    }
    // `start <= len` of the array: the pointer stays inside (or one past) its allocation.
    dst.as_ptr().wrapping_add(start).cast()
}

/// Closes this thread's copies started since the last commit into a group
/// (`cp.async.commit_group`).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
#[track_caller]
pub fn async_copy_commit() {
    imp::commit();
}

/// Waits until every group of this thread except the `N` most recent is complete
/// (`cp.async.wait_group N`). Copies not yet committed are not waited for.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
#[track_caller]
pub fn async_copy_wait<const N: u32>() {
    imp::wait::<N>();
}

/// Commits the pending copies and waits for all of this thread's copies (`cp.async.wait_all`,
/// the same as [`async_copy_commit`] then `async_copy_wait::<0>()`).
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
#[inline(always)]
#[track_caller]
pub fn async_copy_wait_all() {
    imp::wait_all();
}
