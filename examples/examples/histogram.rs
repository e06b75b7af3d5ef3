//! 256-bin histograms of 2^25 random ints (2^20 on the simulator): global
//! atomics, then per-block shared-memory bins merged into the global ones, with a grid-stride
//! loop and a block size that is not 256. Both compared exactly with the CPU and timed.
//!
//! `cargo run --release --example histogram`

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, device, random_f32, reference};
use kernels_nvptx::histogram::{histogram_global, histogram_shared};

fn main() -> ExampleResult {
    let device = device()?;
    let n = if device.is_simulator() {
        1 << 20
    } else {
        1 << 25
    };
    let data: Vec<u32> = random_f32(n, 4)
        .iter()
        .map(|v| ((v + 1.0) * 1e7) as u32)
        .collect();
    let expected = reference::histogram(&data);
    let data_dev = DeviceBuffer::from_slice(&device, &data)?;
    let stream = device.default_stream();
    let blocks = 8 * device.limits().multiprocessor_count;
    for (name, shared, threads) in [
        ("global atomics, block 256", false, 256u32),
        ("shared atomics, block 256", true, 256),
        ("shared atomics, block 96", true, 96),
    ] {
        let mut bins = DeviceBuffer::<u32>::zeros(&device, 256)?;
        let start = stream.record_event()?;
        if shared {
            launch!(histogram_shared[blocks, threads](&data_dev, &mut bins))?;
        } else {
            launch!(histogram_global[blocks, threads](&data_dev, &mut bins))?;
        }
        let end = stream.record_event()?;
        end.synchronize()?;
        let ms = start.elapsed_ms(&end)?;
        let bins = bins.to_vec()?;
        if bins != expected {
            return Err(format!("{name}: bins differ from the CPU").into());
        }
        println!("{name:<28} {ms:8.3} ms  (all 256 bins match the CPU)");
    }
    println!(
        "bins[0..8] = {:?}, total = {}",
        &expected[..8],
        expected.iter().sum::<u32>()
    );
    Ok(())
}
