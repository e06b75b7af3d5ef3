//! What the first launch of a process costs: creating the context, then the first launch of a
//! `kernels-nvptx` kernel (which loads the crate's module: a cubin, or the PTX that the driver
//! compiles, all 69 kernels of it) and, for comparison, the second launch. Each is timed on the
//! wall clock up to `synchronize`. Prints
//!
//! ```text
//! context_ms <time to create the device>
//! first_launch_ms <first launch, module load included>
//! second_launch_ms <second launch>
//! module_format <cubin sm_90 | ptx | simulator>
//! ```
//!
//! `cargo run --release --example first_launch`. On a GPU, `CUDA_CACHE_DISABLE=1` makes the
//! driver compile PTX afresh as on a machine that never ran it, and `FERROCUDA_MODULE_LOAD=ptx`
//! loads the PTX even where a cubin suits the GPU.

use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, check, random_f32};
use kernels_nvptx::elementwise::vecadd;
use std::time::Instant;

fn main() -> ExampleResult {
    let started = Instant::now();
    let device = Device::default_device()?;
    let context_ms = started.elapsed().as_secs_f64() * 1e3;
    println!("device: {device}");

    let n = 1 << 20;
    let a = random_f32(n, 1);
    let b = random_f32(n, 2);
    let a_gpu = DeviceBuffer::from_slice(&device, &a)?;
    let b_gpu = DeviceBuffer::from_slice(&device, &b)?;
    let mut c_gpu = DeviceBuffer::<f32>::zeros(&device, n)?;
    device.synchronize()?;

    let mut launch_ms = || -> ExampleResult<f64> {
        let started = Instant::now();
        vecadd
            .grid(n.div_ceil(256) as u32)
            .block(256)
            .stream(&device.default_stream())
            .launch(&a_gpu, &b_gpu, &mut c_gpu)?;
        device.synchronize()?;
        Ok(started.elapsed().as_secs_f64() * 1e3)
    };
    let first_ms = launch_ms()?;
    let second_ms = launch_ms()?;

    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    check("vecadd", &c_gpu.to_vec()?, &expected, 0.0)?;

    let format = match device.module_format::<vecadd>() {
        Some(format) => format.to_string(),
        None if device.is_simulator() => "simulator".to_owned(),
        None => "unknown".to_owned(),
    };
    println!("context_ms {context_ms:.1}");
    println!("first_launch_ms {first_ms:.1}");
    println!("second_launch_ms {second_ms:.3}");
    println!("module_format {format}");
    Ok(())
}
