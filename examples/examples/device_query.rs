//! Device query: print the device's name, compute capability and memory, then
//! allocate and copy a 100-float array there and back — the "is my setup working" program.
//!
//! `cargo run --release --example device_query`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device};

fn main() -> ExampleResult {
    let device = device()?;
    let (major, minor) = device.compute_capability();
    let limits = device.limits();
    println!("name:               {}", device.name());
    println!("backend:            {:?}", device.backend());
    println!("compute capability: {major}.{minor}");
    println!(
        "total memory:       {:.1} GiB",
        device.total_memory() as f64 / (1u64 << 30) as f64
    );
    println!("multiprocessors:    {}", limits.multiprocessor_count);
    println!("threads per block:  {}", limits.max_threads_per_block);
    println!("block dims:         {}", limits.max_block_dim);
    println!("grid dims:          {}", limits.max_grid_dim);
    println!(
        "shared per block:   {} bytes ({} with opt-in)",
        limits.max_shared_memory_per_block, limits.max_shared_memory_per_block_optin
    );

    let host: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
    let buffer = DeviceBuffer::from_slice(&device, &host)?;
    let back = buffer.to_vec()?;
    if back != host {
        return Err("the 100-float round trip through device memory changed the data".into());
    }
    println!("copied 100 floats to the device and back: OK");
    Ok(())
}
