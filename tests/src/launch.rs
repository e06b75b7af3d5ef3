//! Launch-side helpers: grid sizes and unwrapping an expected kernel panic.

use ferrocuda::{Error, KernelPanic};

/// Blocks of `block` threads that cover `n` elements, at least one (a launch of an empty grid is
/// an error, and the kernels handle `n = 0` themselves).
pub fn blocks(n: usize, block: usize) -> u32 {
    n.div_ceil(block).max(1) as u32
}

/// The 2-D grid of `tile` x `tile` blocks that covers a `width` x `height` area: `(x, y)` block
/// counts, at least one each.
pub fn grid_2d(width: usize, height: usize, tile: usize) -> (u32, u32) {
    (blocks(width, tile), blocks(height, tile))
}

/// The kernel panic `result` holds.
///
/// # Panics
/// When `result` is anything else, showing what it was.
#[track_caller]
pub fn expect_panic<T: std::fmt::Debug>(result: ferrocuda::Result<T>) -> KernelPanic {
    match result {
        Err(Error::KernelPanic(panic)) => panic,
        other => panic!("expected a kernel panic, got {other:?}"),
    }
}

/// The 1-based line of the first line of `source` that contains `needle`: where a test expects a
/// kernel's panic to be reported (`source` is the kernel file, through `include_str!`).
///
/// # Panics
/// When no line contains `needle`.
pub fn line_of(source: &str, needle: &str) -> u32 {
    source
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line contains {needle:?}")) as u32
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_every_element_with_at_least_one_block() {
        assert_eq!(blocks(0, 256), 1);
        assert_eq!(blocks(1, 256), 1);
        assert_eq!(blocks(256, 256), 1);
        assert_eq!(blocks(257, 256), 2);
        assert_eq!(grid_2d(33, 16, 16), (3, 1));
        assert_eq!(grid_2d(0, 0, 16), (1, 1));
    }
}
