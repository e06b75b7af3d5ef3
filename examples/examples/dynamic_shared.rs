//! Dynamic shared memory: a vector add that stages a, b and the sum in three
//! arrays carved from shared memory sized at launch (3 floats per thread, blocks of 32).
//!
//! `cargo run --release --example dynamic_shared`

use ferrocuda_examples::{ExampleResult, check, device, random_f32};
use kernels_nvptx::dynamic_shared::vecadd_dynamic_shared;

fn main() -> ExampleResult {
    let device = device()?;
    let (n, block) = (1000usize, 32u32);
    let (a, b) = (random_f32(n, 1), random_f32(n, 2));
    let mut c = vec![0.0f32; n];
    let bytes = 3 * block * std::mem::size_of::<f32>() as u32;
    println!(
        "{} blocks of {block} threads, {bytes} bytes of dynamic shared memory each",
        (n as u32).div_ceil(block)
    );
    vecadd_dynamic_shared
        .grid((n as u32).div_ceil(block))
        .block(block)
        .stream(&device.default_stream())
        .shared_mem(bytes)
        .launch(&a, &b, &mut c)?;
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check("vecadd through dynamic shared memory", &c, &expected, 0.0)?;
    Ok(())
}
