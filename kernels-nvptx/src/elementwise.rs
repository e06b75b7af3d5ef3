//! One thread per element: vector add, saxpy, square, doublify.

use ferrocuda::prelude::*;

/// `c[i] = a[i] + b[i]` for every `i < c.len()`, one thread per element.
#[kernel]
pub fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid!(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

/// `y[i] = a * x[i] + y[i]`.
#[kernel]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {
    let i = grid!(1);
    if i < y.len() {
        y[i] += a * x[i];
    }
}

/// `a[i] = a[i] * a[i]`, in place.
#[kernel]
pub fn square(a: &mut [f32]) {
    let i = grid!(1);
    if i < a.len() {
        a[i] *= a[i];
    }
}

/// Doubles every element of a `width` x `height` row-major matrix, one thread per element of a
/// 2-D block: `idx = tx + ty * width`.
#[kernel]
pub fn doublify(a: &mut [f32], width: u32, height: u32) {
    let t = thread_idx();
    let (x, y) = grid!(2);
    let _ = t;
    if x < width as usize && y < height as usize {
        a[x + y * width as usize] *= 2.0;
    }
}

/// The classic tutorial mistake: `c[i] = a[i] + b[i]` with `i = threadIdx.x` only. With more than
/// one block, every block computes the same first `blockDim.x` elements and the rest stay as
/// they were. Kept to show the lesson in the `vector_add` example.
#[kernel]
pub fn vecadd_thread_index_only(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = thread_idx().x as usize;
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}
