//! Thread-local arrays: vector addition where each thread stages its four
//! elements of `a` and `b` in local arrays `[f32; 4]`, adds them into a third, and writes it
//! out (Numba's `cuda.local.array`). n is not a multiple of 4 x the block. Checked exactly.
//!
//! `cargo run --release --example local_arrays`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::local_array::{LOCAL_ELEMENTS, vecadd_local};

fn main() -> ExampleResult {
    let device = device()?;
    let n = if device.is_simulator() {
        1_000_003
    } else {
        10_000_003
    };
    let a = random_f32(n, 1);
    let b = random_f32(n, 2);
    let a_dev = DeviceBuffer::from_slice(&device, &a)?;
    let b_dev = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_dev = DeviceBuffer::<f32>::zeros(&device, n)?;
    let block = 256u32;
    let grid = n.div_ceil(LOCAL_ELEMENTS * block as usize) as u32;
    launch!(vecadd_local[grid, block](&a_dev, &b_dev, &mut c_dev))?;
    let c = c_dev.to_vec()?;
    println!(
        "each thread adds {LOCAL_ELEMENTS} elements through local arrays: n = {n}, grid = {grid}, block = {block}"
    );
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check("vecadd through local arrays", &c, &expected, 0.0)?;
    println!("c[0..4] = {:?}, c[n-1] = {}", &c[..4], c[n - 1]);
    Ok(())
}
