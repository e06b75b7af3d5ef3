//! `#[kernel(max_block(x, y, z))]`: the largest block a kernel is launched with, per dimension,
//! CUDA C's `__launch_bounds__` with a bound on each dimension.
//!
//! A kernel that declares its block gets two things from the compiler:
//! - the thread indices are known to be below the bound (`thread_idx().x < x`, and so on), so a
//!   check of a shared-array index derived from them (`tile[(ty, tx)]` on a 16 x 16 tile under
//!   `max_block(16, 16)`) is proved in bounds and removed, and arithmetic on them can stay narrow;
//! - the PTX entry carries `.maxntid x, y, z`, so `ptxas` allocates registers for at most that
//!   many threads per block, as nvcc does under `__launch_bounds__`.
//!
//! Every launch checks the block against the bound on both backends, each dimension on its own
//! (a 256 x 1 block is refused by `max_block(16, 16)` although it has 256 threads): the bound is
//! what the compiler assumed, so a larger block is an error that names the kernel, the block and
//! the bound, never a launch.
//!
//! `min_blocks_per_sm(n)` beside it asks ptxas to leave room for `n` blocks per multiprocessor
//! (`.minnctapersm n`, CUDA C's second `__launch_bounds__` argument), which caps the registers
//! per thread at what `n` blocks of the bound's size leave each.
//!
//! How the bound reaches the compiler: the macro leaves a marker static in nvptx-builder's link
//! section `MAX_BLOCK_SECTION` whose bytes are `<entry symbol>=XXXX,YYYY,ZZZZ,MMMM` (each
//! dimension, then the blocks per multiprocessor or 0, in four decimal digits,
//! [`max_block_marker`]); nvptx-builder reads and removes the markers and gives each named
//! entry LLVM's `"nvvm.maxntid"` (and `"nvvm.minctasm"`) attribute before optimising, which
//! writes `.maxntid` (and `.minnctapersm`).

/// The most threads a block may have on every GPU ferrocuda supports.
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;

/// Whether `dims` can bound a block: each dimension at least 1 and their product at most
/// [`MAX_THREADS_PER_BLOCK`]. `#[kernel(max_block(...))]` asserts it at compile time.
pub const fn is_valid_max_block(dims: [u32; 3]) -> bool {
    let [x, y, z] = dims;
    x >= 1
        && y >= 1
        && z >= 1
        && (x as u128) * (y as u128) * (z as u128) <= MAX_THREADS_PER_BLOCK as u128
}

/// Tells the compiler that the block is at most `dims` along each dimension, so every thread
/// index is below it. The entry of a `#[kernel(max_block(...))]` kernel calls it first.
///
/// # Safety
/// The launch's block must be within `dims` along each dimension: the runtime checks it before
/// every launch of such a kernel (a launch that bypasses the runtime must check it itself).
#[doc(hidden)]
#[inline(always)]
pub unsafe fn assume_block_within(dims: [u32; 3]) {
    let (block, thread) = (crate::index::block_dim(), crate::index::thread_idx());
    // SAFETY: the caller guarantees the block's extent; a thread index is below it.
    unsafe {
        core::hint::assert_unchecked(block.x <= dims[0]);
        core::hint::assert_unchecked(block.y <= dims[1]);
        core::hint::assert_unchecked(block.z <= dims[2]);
        core::hint::assert_unchecked(thread.x < dims[0]);
        core::hint::assert_unchecked(thread.y < dims[1]);
        core::hint::assert_unchecked(thread.z < dims[2]);
    }
}

/// The bytes of a marker: `symbol`, `=`, then the three dimensions and the blocks per
/// multiprocessor (`min_blocks_per_sm`, 0 when not given) in four decimal digits each,
/// separated by commas; `N` is `symbol.len() + 20`. Used by `#[kernel(max_block(...))]`; a
/// number above 9999 (which the attribute's checks reject first) stops compilation.
#[doc(hidden)]
pub const fn max_block_marker<const N: usize>(symbol: &str, numbers: [u32; 4]) -> [u8; N] {
    let name = symbol.as_bytes();
    assert!(N == name.len() + 20, "marker length");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < name.len() {
        out[i] = name[i];
        i += 1;
    }
    out[i] = b'=';
    i += 1;
    let mut d = 0;
    while d < 4 {
        let value = numbers[d];
        assert!(value <= 9999, "a max_block dimension above 9999");
        let mut place = 1000;
        while place > 0 {
            out[i] = b'0' + ((value / place) % 10) as u8;
            i += 1;
            place /= 10;
        }
        if d < 3 {
            out[i] = b',';
            i += 1;
        }
        d += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_spell_each_dimension_in_four_digits() {
        let marker: [u8; 25] = max_block_marker("hello", [16, 8, 1, 0]);
        assert_eq!(&marker, b"hello=0016,0008,0001,0000");
        let marker: [u8; 21] = max_block_marker("k", [1024, 1, 1, 2]);
        assert_eq!(&marker, b"k=1024,0001,0001,0002");
    }

    #[test]
    fn valid_bounds_are_positive_and_fit_a_block() {
        assert!(is_valid_max_block([1024, 1, 1]));
        assert!(is_valid_max_block([16, 16, 4]));
        assert!(!is_valid_max_block([0, 1, 1]));
        assert!(!is_valid_max_block([32, 33, 1]));
        assert!(!is_valid_max_block([u32::MAX, u32::MAX, 2]));
    }
}
