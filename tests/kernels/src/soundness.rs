//! Safe kernels that once made the optimiser unsound, each the smallest form of a class of
//! holes (`tests/tests/soundness.rs` runs them where a check must fire or a value must be
//! right):
//! - a guard that holds on only one way into its block, the other ways being the cases of a
//!   `switch` LLVM forms from `||` of equalities (`switch_guard`);
//! - a zero-sized parameter before a slice, which rustc leaves out of the PTX entry
//!   (`after_empty_parameter`, `between_empty_parameters`);
//! - checks a loop's counter bounds (`column_sums`) and checks LLVM rewrote into "fail when the
//!   counter reaches the length" (`matrix_vector`), decided by the launch's lengths.

use ferrocuda::prelude::*;

/// An empty `#[repr(C)]` struct: zero-sized, so it has no parameter in the PTX entry.
#[repr(C)]
#[derive(Clone, Copy, DeviceCopy)]
pub struct Nothing {}

/// `a[i] = 1.0` for each thread `i` below `n`, and for every thread when `sel` is 3, 7 or 12.
/// LLVM turns the three equalities into a `switch` whose cases lead to the store as
/// `i < n` does: the store's check must stay, since `i < n` holds on only one way in.
#[kernel]
pub fn switch_guard(a: &mut [f32], n: u32, sel: u32) {
    let i = grid!(1);
    if i < n as usize || sel == 3 || sel == 7 || sel == 12 {
        a[i] = 1.0;
    }
}

/// `a[i] = tag + i` for each `i` of `a`, after a zero-sized parameter.
#[kernel]
pub fn after_empty_parameter(_empty: [u32; 0], a: &mut [u32], tag: u32) {
    let i = grid!(1);
    if i < a.len() {
        a[i] = tag + i as u32;
    }
}

/// `a[i] = tag + i` for each `i` of `a`, its parameters around zero-sized ones.
#[kernel]
pub fn between_empty_parameters(_first: Nothing, a: &mut [u32], _second: [f64; 0], tag: u32) {
    let i = grid!(1);
    if i < a.len() {
        a[i] = tag + i as u32;
    }
}

/// One 7-point stencil step over an `nx` x `ny` x `nz` volume of bytes (x fastest): each
/// interior point becomes the wrapping sum of itself and its six neighbours, each boundary
/// point a copy. The guards bound every index by `nz * ny * nx`, which the optimiser's entry
/// test compares with the slices' lengths: lengths that may pass 2^32.
#[inline(always)]
fn volume_step(input: &[u8], output: &mut [u8], (nx, ny, nz): (u32, u32, u32)) {
    let (x, y, z) = grid!(3);
    let (nx, ny, nz) = (nx as usize, ny as usize, nz as usize);
    if x < nx && y < ny && z < nz {
        let i = (z * ny + y) * nx + x;
        if x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1 {
            output[i] = input[i];
        } else {
            let plane = nx * ny;
            output[i] = input[i]
                .wrapping_add(input[i - 1])
                .wrapping_add(input[i + 1])
                .wrapping_add(input[i - nx])
                .wrapping_add(input[i + nx])
                .wrapping_add(input[i - plane])
                .wrapping_add(input[i + plane]);
        }
    }
}

/// [`volume_step`] on slices whose lengths may pass 2^32.
#[kernel(large_buffers)]
pub fn volume_sums(input: &[u8], output: &mut [u8], nx: u32, ny: u32, nz: u32) {
    volume_step(input, output, (nx, ny, nz));
}

/// [`volume_step`] on the bytes of pixels: slices the kernel derives, four times as long as
/// its parameters, so past 2^32 with parameters below it.
#[kernel]
pub fn volume_sums_bytes(input: &[[u8; 4]], output: &mut [[u8; 4]], nx: u32, ny: u32, nz: u32) {
    volume_step(
        input.as_flattened(),
        output.as_flattened_mut(),
        (nx, ny, nz),
    );
}

/// `sums[j] = data[j] + data[m + j] + ... + data[(n - 1) * m + j]` for `j < m`: a column of the
/// row-major `n` x `m` matrix `data`, summed down its rows. The loop's bound (`i < n`) and the
/// guard (`j < m`) bound every index by `n * m`, which the optimiser's entry test compares with
/// `data.len()`: a slice one element short must still fail the last column's check.
#[kernel]
pub fn column_sums(data: &[f32], sums: &mut [f32], m: u32, n: u32) {
    let j = grid!(1);
    let (m, n) = (m as usize, n as usize);
    if j < m {
        let mut sum = 0.0f32;
        for i in 0..n {
            sum += data[i * m + j];
        }
        sums[j] = sum;
    }
}

/// `out[i] = a[i * n] * x[0] + ... + a[i * n + n - 1] * x[n - 1]` for `i < rows`. LLVM turns
/// the check of `x[j]` into "fail when the counter reaches `x.len()`", which the optimiser
/// decides by `n <= x.len()`.
#[kernel]
pub fn matrix_vector(a: &[f32], x: &[f32], out: &mut [f32], n: u32, rows: u32) {
    let i = grid!(1);
    let n = n as usize;
    if i < rows as usize {
        let mut sum = 0.0f32;
        for j in 0..n {
            sum += a[i * n + j] * x[j];
        }
        out[i] = sum;
    }
}
