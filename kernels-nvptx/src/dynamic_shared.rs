//! Dynamic shared memory: a vector add that stages its three vectors in
//! shared memory whose size is chosen at launch (`3 * block * 4` bytes), carved into three
//! non-overlapping views.

use ferrocuda::prelude::*;

/// `c = a + b`, each thread staging `a[i]`, `b[i]` and the sum in three arrays carved from the
/// launch's dynamic shared memory, which must hold `3 * block_dim().x` floats (the launch's
/// `shared_mem` is `3 * block * 4` bytes; less stops the kernel with a panic that says so).
#[kernel]
pub fn vecadd_dynamic_shared(a: &[f32], b: &[f32], c: &mut [f32]) {
    let threads = block_dim().x as usize;
    let mut carve = DynamicShared::new();
    let mut xs = carve.take::<f32>(threads);
    let mut ys = carve.take::<f32>(threads);
    let mut sums = carve.take::<f32>(threads);
    let t = thread_idx().x as usize;
    let i = grid!(1);
    if i < c.len() {
        xs[t] = a[i];
        ys[t] = b[i];
        sums[t] = xs[t] + ys[t];
        c[i] = sums[t];
    }
}
