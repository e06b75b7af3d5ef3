//! What the host launches of `#[elementwise]` and `#[reduction]` need: the arguments they take
//! for slices ([`ElementSlice`], [`ElementSliceMut`]: a [`KernelArg`] whose length is known
//! before the launch), the length checks with their messages, and the launch shapes, so that a
//! generated launch has no grid or block to choose.
//!
//! # Shapes
//! - Elementwise: [`ELEMENTWISE_BLOCK`] threads per block, `ceil(n / ELEMENTWISE_BLOCK)` blocks
//!   but at most [`ELEMENTWISE_BLOCKS_PER_SM`] per multiprocessor; the kernel's grid-stride loop
//!   covers the rest.
//! - Reduction: [`REDUCE_BLOCK`] threads per block, at most [`REDUCE_BLOCKS_PER_SM`] blocks per
//!   multiprocessor (fewer when the slice is short: at least 8 elements a thread), each writing
//!   one partial; then one block of [`REDUCE_BLOCK`] threads folds the partials.
//! - Row reduction: one block per row (at most [`ROW_BLOCKS_PER_SM`] per multiprocessor, taking
//!   rows in a grid-stride loop), of 32 to [`REDUCE_BLOCK`] threads: the row length rounded up
//!   to a warp.

use crate::DeviceCopy;
use crate::device::abi::{Slice, SliceMut};
use crate::handles::buffer::{DeviceBuffer, DeviceSlice, DeviceSliceMut};
use crate::handles::device::Device;
use crate::handles::stream::Stream;
use crate::launch::args::KernelArg;
use crate::vocabulary::error::{LaunchError, Result};

/// Threads per block of an elementwise launch.
pub const ELEMENTWISE_BLOCK: u32 = 256;
/// Most blocks per multiprocessor of an elementwise launch.
pub const ELEMENTWISE_BLOCKS_PER_SM: u32 = 32;
/// Threads per block of a reduction.
pub const REDUCE_BLOCK: u32 = 256;
/// Most blocks per multiprocessor of a reduction's first pass: its number of partials. Four
/// blocks of 256 threads are resident at once on any multiprocessor since Volta up to 64
/// registers a thread, so the first pass runs in one wave (more blocks than fit would leave a
/// partial second wave), and eight loads in flight per thread keep the memory busy.
pub const REDUCE_BLOCKS_PER_SM: u32 = 4;
/// Most blocks per multiprocessor of a row reduction.
pub const ROW_BLOCKS_PER_SM: u32 = 32;

/// A read-only slice argument of a generated launch: a [`KernelArg`] for a `&[T]` parameter
/// whose length the launch checks before it launches.
///
/// No `DeviceCopy` bound here: the generated kernel checks its element types once, at the
/// user's type, and the launches add no second error.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for a slice of `{T}` elements",
    label = "expected a slice of `{T}`",
    note = "a slice argument of an `#[elementwise]` or `#[reduction]` launch is a `&DeviceBuffer<{T}>`, a `DeviceSlice<{T}>`, a `&[{T}]`, a `&Vec<{T}>` or a `&[{T}; N]`"
)]
pub trait ElementSlice<'a, T>: KernelArg<'a, Slice<T>> {
    /// The same slice, borrowed for one launch of several (a reduction launches twice).
    type Reborrow<'s>: ElementSlice<'s, T>
    where
        Self: 's;
    /// The number of elements.
    fn element_count(&self) -> usize;
    /// The same slice for one launch, borrowed from this argument.
    fn reborrow(&self) -> Self::Reborrow<'_>;
}

/// A written slice argument of a generated launch: a [`KernelArg`] for a `&mut [T]` parameter
/// whose length the launch checks before it launches.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed for an output slice of `{T}` elements",
    label = "expected a mutable slice of `{T}`",
    note = "an output of an `#[elementwise]` or `#[reduction]` launch is a `&mut DeviceBuffer<{T}>`, a `DeviceSliceMut<{T}>`, a `&mut [{T}]`, a `&mut Vec<{T}>` or a `&mut [{T}; N]`"
)]
pub trait ElementSliceMut<'a, T>: KernelArg<'a, SliceMut<T>> {
    /// The number of elements.
    fn element_count(&self) -> usize;
}

impl<'a, T: DeviceCopy> ElementSlice<'a, T> for &'a DeviceBuffer<T> {
    type Reborrow<'s>
        = &'s DeviceBuffer<T>
    where
        Self: 's;
    fn element_count(&self) -> usize {
        self.len()
    }
    fn reborrow(&self) -> &DeviceBuffer<T> {
        self
    }
}

impl<'a, T: DeviceCopy> ElementSlice<'a, T> for DeviceSlice<'a, T> {
    type Reborrow<'s>
        = DeviceSlice<'s, T>
    where
        Self: 's;
    fn element_count(&self) -> usize {
        self.len()
    }
    fn reborrow(&self) -> DeviceSlice<'_, T> {
        DeviceSlice {
            buffer: self.buffer,
            offset: self.offset,
            len: self.len,
        }
    }
}

impl<'a, T: DeviceCopy> ElementSlice<'a, T> for &'a [T] {
    type Reborrow<'s>
        = &'s [T]
    where
        Self: 's;
    fn element_count(&self) -> usize {
        self.len()
    }
    fn reborrow(&self) -> &[T] {
        self
    }
}

impl<'a, T: DeviceCopy> ElementSlice<'a, T> for &'a Vec<T> {
    type Reborrow<'s>
        = &'s Vec<T>
    where
        Self: 's;
    fn element_count(&self) -> usize {
        self.len()
    }
    fn reborrow(&self) -> &Vec<T> {
        self
    }
}

impl<'a, T: DeviceCopy, const N: usize> ElementSlice<'a, T> for &'a [T; N] {
    type Reborrow<'s>
        = &'s [T; N]
    where
        Self: 's;
    fn element_count(&self) -> usize {
        N
    }
    fn reborrow(&self) -> &[T; N] {
        self
    }
}

impl<'a, T: DeviceCopy> ElementSliceMut<'a, T> for &'a mut DeviceBuffer<T> {
    fn element_count(&self) -> usize {
        self.len()
    }
}

impl<'a, T: DeviceCopy> ElementSliceMut<'a, T> for DeviceSliceMut<'a, T> {
    fn element_count(&self) -> usize {
        self.len()
    }
}

impl<'a, T: DeviceCopy> ElementSliceMut<'a, T> for &'a mut [T] {
    fn element_count(&self) -> usize {
        self.len()
    }
}

impl<'a, T: DeviceCopy> ElementSliceMut<'a, T> for &'a mut Vec<T> {
    fn element_count(&self) -> usize {
        self.len()
    }
}

impl<'a, T: DeviceCopy, const N: usize> ElementSliceMut<'a, T> for &'a mut [T; N] {
    fn element_count(&self) -> usize {
        N
    }
}

/// An error unless the slice `param` has `expected` elements, as `reference` has:
/// "`y` has 31 elements but `out` has 32; ...".
pub fn check_length(
    kernel: &'static str,
    param: &str,
    len: usize,
    reference: &str,
    expected: usize,
) -> Result<()> {
    if len == expected {
        return Ok(());
    }
    Err(LaunchError {
        kernel,
        problem: format!(
            "`{param}` has {len} elements but `{reference}` has {expected}; every slice of the launch must have the same length"
        ),
    }
    .into())
}

/// An error unless the `per_row` slice `param` has one element per row of `cols` elements of
/// the output `reference` (of `len` elements), which must be a whole number of rows.
pub fn check_per_row(
    kernel: &'static str,
    param: &str,
    rows_given: usize,
    reference: &str,
    len: usize,
    cols: usize,
) -> Result<()> {
    let problem = if cols == 0 && len > 0 {
        format!("`cols` is 0 but `{reference}` has {len} elements; a row has at least 1 element")
    } else if cols > 0 && !len.is_multiple_of(cols) {
        format!(
            "`{reference}` has {len} elements, not a whole number of rows of `cols` = {cols} elements"
        )
    } else if cols > 0 && rows_given != len / cols {
        format!(
            "`{param}` has {rows_given} elements but `{reference}` has {} rows of {cols} elements; a `per_row` slice has one element per row",
            len / cols
        )
    } else {
        return Ok(());
    };
    Err(LaunchError { kernel, problem }.into())
}

/// An error unless the slice `param` of a row reduction has `rows * cols` elements.
pub fn check_matrix_length(
    kernel: &'static str,
    param: &str,
    len: usize,
    rows: usize,
    cols: usize,
) -> Result<()> {
    match rows.checked_mul(cols) {
        Some(expected) if expected == len => Ok(()),
        expected => Err(LaunchError {
            kernel,
            problem: format!(
                "`{param}` has {len} elements but a matrix of {rows} rows (the length of `out`) and {cols} columns has {}; pass a row-major matrix of `out.len() * cols` elements",
                expected.map_or_else(|| "more than usize::MAX".to_string(), |e| e.to_string())
            ),
        }
        .into()),
    }
}

/// An error unless `out`, the result of a reduction, has one element.
pub fn check_single_result(kernel: &'static str, len: usize) -> Result<()> {
    if len == 1 {
        return Ok(());
    }
    Err(LaunchError {
        kernel,
        problem: format!(
            "`out` has {len} elements; a reduction writes one value, so pass a slice of 1 element"
        ),
    }
    .into())
}

/// An error unless the scratch of a reduction holds at least `needed` partials.
pub fn check_scratch(kernel: &'static str, len: usize, needed: usize) -> Result<()> {
    if len >= needed {
        return Ok(());
    }
    Err(LaunchError {
        kernel,
        problem: format!(
            "the scratch buffer has {len} elements but this reduction on this device needs {needed} (`scratch_len(&device)`)"
        ),
    }
    .into())
}

/// The multiprocessors of the stream's device (at least 1).
fn multiprocessors(device: &Device) -> u32 {
    device.limits().multiprocessor_count.max(1)
}

/// The grid of an elementwise launch over `len > 0` elements (blocks of [`ELEMENTWISE_BLOCK`]).
pub fn elementwise_grid(stream: &Stream, len: usize) -> u32 {
    let cap = multiprocessors(stream.device()) * ELEMENTWISE_BLOCKS_PER_SM;
    len.div_ceil(ELEMENTWISE_BLOCK as usize).min(cap as usize) as u32
}

/// The number of partials (blocks of the first pass) of a reduction over `len > 0` elements.
pub fn reduce_grid(device: &Device, len: usize) -> u32 {
    let cap = reduce_scratch_len(device);
    len.div_ceil(REDUCE_BLOCK as usize * 8).clamp(1, cap) as u32
}

/// The scratch a reduction needs on `device`: one element per block of its first pass.
pub fn reduce_scratch_len(device: &Device) -> usize {
    (multiprocessors(device) * REDUCE_BLOCKS_PER_SM) as usize
}

/// The grid and block of a row reduction of `rows > 0` rows of `cols` elements.
pub fn rows_shape(stream: &Stream, rows: usize, cols: usize) -> (u32, u32) {
    let cap = multiprocessors(stream.device()) * ROW_BLOCKS_PER_SM;
    let block = cols.div_ceil(32).clamp(1, (REDUCE_BLOCK / 32) as usize) as u32 * 32;
    (rows.min(cap as usize) as u32, block)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn length_errors_name_both_slices_and_lengths() {
        let error = check_length("saxpy_elementwise", "y", 31, "out", 32).unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains("`y` has 31 elements but `out` has 32"),
            "{text}"
        );
        assert!(text.contains("saxpy_elementwise"), "{text}");
        assert!(check_length("k", "y", 5, "out", 5).is_ok());
        let text = check_matrix_length("k_rows", "x", 10, 3, 4)
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("`x` has 10 elements but a matrix of 3 rows"),
            "{text}"
        );
        assert!(text.contains("has 12"), "{text}");
        assert!(check_matrix_length("k", "x", 0, 0, 7).is_ok());
        assert!(check_per_row("k", "m", 3, "out", 30, 10).is_ok());
        let text = check_per_row("k", "m", 4, "out", 30, 10)
            .unwrap_err()
            .to_string();
        assert!(
            text.contains("`m` has 4 elements but `out` has 3 rows of 10"),
            "{text}"
        );
        let text = check_per_row("k", "m", 3, "out", 31, 10)
            .unwrap_err()
            .to_string();
        assert!(text.contains("not a whole number of rows"), "{text}");
        let text = check_per_row("k", "m", 0, "out", 5, 0)
            .unwrap_err()
            .to_string();
        assert!(text.contains("`cols` is 0"), "{text}");
        let text = check_single_result("k", 2).unwrap_err().to_string();
        assert!(
            text.contains("`out` has 2 elements; a reduction writes one value"),
            "{text}"
        );
        let text = check_scratch("k", 3, 8).unwrap_err().to_string();
        assert!(
            text.contains("has 3 elements but") && text.contains("needs 8"),
            "{text}"
        );
    }

    #[test]
    fn shapes_cover_the_length() {
        let device = Device::simulator();
        let stream = device.default_stream();
        assert_eq!(elementwise_grid(&stream, 1), 1);
        assert_eq!(reduce_grid(&device, 1), 1);
        assert!(reduce_grid(&device, 1 << 26) as usize <= reduce_scratch_len(&device));
        assert_eq!(rows_shape(&stream, 5, 1), (5, 32));
        assert_eq!(rows_shape(&stream, 1, 1000).1, REDUCE_BLOCK);
        assert_eq!(rows_shape(&stream, 1, 31).1, 32);
    }
}
