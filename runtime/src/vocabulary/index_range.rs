//! The launch's promise behind 32-bit index arithmetic on the device.
//!
//! A kernel's entry tells the compiler that every slice length and every `usize` parameter fits
//! in `u32` (it rebuilds them from their low 32 bits), and the index helpers (`grid!`, `grid_1d`, `gridsize!`)
//! compute in `u32` without overflow checks, so that idiomatic `usize` index arithmetic,
//! compares and selects compile to 32-bit instructions where they cannot overflow. The launch
//! makes both facts true: it rejects a slice argument of more than [`MAX_NARROW_LEN`] elements
//! and a `usize` argument above it unless the kernel opted out with `#[kernel(large_buffers)]`
//! (its entry then keeps 64-bit lengths and sizes), and it rejects a grid with more than [`MAX_GRID_EXTENT`] threads along a
//! dimension (`gridDim * blockDim`) for every kernel (a kernel over more elements strides
//! through them with `gridsize!`).
//!
//! Element byte offsets stay 64-bit in both cases: 2^30 `f32`s are more than 2^32 bytes and
//! need no opt-out.

use crate::Dim3;
use crate::vocabulary::error::LaunchError;

/// The most elements a slice argument may have without `#[kernel(large_buffers)]`.
pub(crate) const MAX_NARROW_LEN: u64 = u32::MAX as u64;

/// The most threads a grid may have along one dimension (`gridDim * blockDim`).
pub(crate) const MAX_GRID_EXTENT: u64 = u32::MAX as u64;

/// Checks a slice argument's length: `param` is the parameter as `name: type` (for the
/// message), `large_buffers` whether the kernel opted out of 32-bit lengths.
pub(crate) fn check_slice_len(
    kernel: &'static str,
    param: &str,
    len: usize,
    large_buffers: bool,
) -> Result<(), LaunchError> {
    if large_buffers || len as u64 <= MAX_NARROW_LEN {
        return Ok(());
    }
    Err(LaunchError::new(
        kernel,
        format!(
            "argument `{param}` has {len} elements, more than the limit of {MAX_NARROW_LEN} (u32::MAX) for kernels that index in 32 bits; mark the kernel `#[kernel(large_buffers)]` to pass longer slices (its indices then stay 64-bit)"
        ),
    ))
}

/// Checks a `usize` argument (a size or an index, narrowed by the entry like a length).
pub(crate) fn check_usize_value(
    kernel: &'static str,
    param: &str,
    value: usize,
    large_buffers: bool,
) -> Result<(), LaunchError> {
    if large_buffers || value as u64 <= MAX_NARROW_LEN {
        return Ok(());
    }
    Err(LaunchError::new(
        kernel,
        format!(
            "argument `{param}` is {value}, more than the limit of {MAX_NARROW_LEN} (u32::MAX) for `usize` parameters of kernels that index in 32 bits; mark the kernel `#[kernel(large_buffers)]` to pass larger values (or pass a `u64`)"
        ),
    ))
}

/// Checks that the grid has at most [`MAX_GRID_EXTENT`] threads along each dimension, so that
/// `blockIdx * blockDim + threadIdx` fits in `u32`.
pub(crate) fn check_grid_extent(
    kernel: &'static str,
    grid: Dim3,
    block: Dim3,
) -> Result<(), LaunchError> {
    for (axis, blocks, threads) in [
        ("x", grid.x, block.x),
        ("y", grid.y, block.y),
        ("z", grid.z, block.z),
    ] {
        let extent = u64::from(blocks) * u64::from(threads);
        if extent > MAX_GRID_EXTENT {
            return Err(LaunchError::new(
                kernel,
                format!(
                    "the grid has {extent} threads along {axis} ({blocks} blocks of {threads}), more than the limit of {MAX_GRID_EXTENT} (u32::MAX) that keeps thread indices 32-bit; cover more elements with a grid-stride loop (`gridsize!`)"
                ),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_up_to_u32_max_pass_and_longer_ones_need_the_opt_out() {
        for len in [0, 1, 4096, u32::MAX as usize] {
            assert!(
                check_slice_len("k", "a: &[f32]", len, false).is_ok(),
                "{len}"
            );
        }
        let too_long = u32::MAX as usize + 1;
        let error = check_slice_len("k", "a: &[f32]", too_long, false).unwrap_err();
        assert_eq!(error.kernel, "k");
        assert_eq!(
            error.problem,
            "argument `a: &[f32]` has 4294967296 elements, more than the limit of 4294967295 (u32::MAX) for kernels that index in 32 bits; mark the kernel `#[kernel(large_buffers)]` to pass longer slices (its indices then stay 64-bit)"
        );
        assert!(check_slice_len("k", "a: &[f32]", too_long, true).is_ok());
        assert!(check_slice_len("k", "a: &[f32]", usize::MAX, true).is_ok());
    }

    #[test]
    fn usize_values_up_to_u32_max_pass_and_larger_ones_need_the_opt_out() {
        for value in [0, 1, u32::MAX as usize] {
            assert!(
                check_usize_value("k", "n: usize", value, false).is_ok(),
                "{value}"
            );
        }
        let error = check_usize_value("k", "n: usize", 1 << 32, false).unwrap_err();
        assert_eq!(
            error.problem,
            "argument `n: usize` is 4294967296, more than the limit of 4294967295 (u32::MAX) for `usize` parameters of kernels that index in 32 bits; mark the kernel `#[kernel(large_buffers)]` to pass larger values (or pass a `u64`)"
        );
        assert!(check_usize_value("k", "n: usize", usize::MAX, true).is_ok());
    }

    #[test]
    fn grid_extents_past_u32_are_rejected_on_the_axis_that_breaks() {
        let ok = [
            (Dim3::new(1, 1, 1), Dim3::new(1, 1, 1)),
            (Dim3::new(4_194_303, 1, 1), Dim3::new(1024, 1, 1)),
            (Dim3::new(65535, 65535, 65535), Dim3::new(1, 1, 1)),
        ];
        for (grid, block) in ok {
            assert!(check_grid_extent("k", grid, block).is_ok(), "{grid:?}");
        }
        // 4_194_304 * 1024 = 2^32.
        let error =
            check_grid_extent("k", Dim3::new(4_194_304, 1, 1), Dim3::new(1024, 1, 1)).unwrap_err();
        assert_eq!(
            error.problem,
            "the grid has 4294967296 threads along x (4194304 blocks of 1024), more than the limit of 4294967295 (u32::MAX) that keeps thread indices 32-bit; cover more elements with a grid-stride loop (`gridsize!`)"
        );
        let error =
            check_grid_extent("k", Dim3::new(1, 1, 2), Dim3::new(1, 1, u32::MAX)).unwrap_err();
        assert!(error.problem.contains("along z"), "{}", error.problem);
    }
}
