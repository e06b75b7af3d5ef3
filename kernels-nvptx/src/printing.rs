//! Device printing: each thread prints its element before and after doubling
//! it. The lines reach the host's stdout at the launch's next synchronization (on the simulator,
//! when the launch returns), in no guaranteed order between threads.

use ferrocuda::prelude::*;

/// `a[i] *= 2`, printing `Before: idx = i, value = a[i]` and `After: idx = i, value = a[i]`
/// from each thread.
#[kernel]
pub fn multiply_by_two(a: &mut [f32]) {
    let i = grid!(1);
    if i < a.len() {
        gpu_println!("Before: idx = {}, value = {:.6}", i, a[i]);
        a[i] *= 2.0;
        gpu_println!("After: idx = {}, value = {:.6}", i, a[i]);
    }
}
