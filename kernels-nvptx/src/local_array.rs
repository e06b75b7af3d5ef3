//! Thread-local arrays: vector addition staging each thread's inputs through
//! per-thread arrays (Numba's `cuda.local.array`). Indexed with constants, as here, the compiler
//! keeps them in registers; indexed with values known only at run time they would live in the
//! thread's local memory.

use ferrocuda::prelude::*;

/// Elements each thread of [`vecadd_local`] handles.
pub const LOCAL_ELEMENTS: usize = 4;

/// `c = a + b` with each thread handling [`LOCAL_ELEMENTS`] consecutive elements: it copies
/// its share of `a` and `b` into local arrays `[f32; 4]`, adds them into a third local array,
/// then writes that out. Launch `ceil(n / (4 * block))` blocks; the last thread may own fewer
/// than four elements.
#[kernel]
pub fn vecadd_local(a: &[f32], b: &[f32], c: &mut [f32]) {
    let first = grid!(1) * LOCAL_ELEMENTS;
    let n = c.len();
    if first >= n {
        return;
    }
    let count = (n - first).min(LOCAL_ELEMENTS);
    // Loops over the whole array with constant indices (guarded by `k < count`) let the
    // compiler unroll them and keep the three arrays in registers.
    let mut a_local = [0.0f32; LOCAL_ELEMENTS];
    let mut b_local = [0.0f32; LOCAL_ELEMENTS];
    for k in 0..LOCAL_ELEMENTS {
        if k < count {
            a_local[k] = a[first + k];
            b_local[k] = b[first + k];
        }
    }
    let mut c_local = [0.0f32; LOCAL_ELEMENTS];
    for k in 0..LOCAL_ELEMENTS {
        c_local[k] = a_local[k] + b_local[k];
    }
    for (k, &value) in c_local.iter().enumerate() {
        if k < count {
            c[first + k] = value;
        }
    }
}
