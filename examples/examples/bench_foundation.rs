//! Foundation benchmark (GPU only): ferrocuda's vecadd against the same kernel in CUDA C, and the
//! host cost of one asynchronous launch against CUDA C's `<<<>>>`.
//!
//! Run through `bench/run.sh` on the GPU machine, which builds the CUDA C side with nvcc and
//! passes `--cuda-ptx vecadd_cuda.ptx --cuda-launch-us <median from the C program>`. Both vecadd
//! kernels run in this process on the same buffers, alternating, each timed with CUDA events;
//! the table reports medians.

use ferrocuda::cudarc::driver::result;
use ferrocuda::prelude::*;
use ferrocuda_examples::{ExampleResult, median, random_f32, required_arg};
use kernels_nvptx::elementwise::vecadd;
use std::time::Instant;

fn main() -> ExampleResult {
    let cuda_ptx = required_arg("--cuda-ptx", "vecadd_cuda.ptx from nvcc")?;
    let cuda_launch_us: f64 =
        required_arg("--cuda-launch-us", "microseconds per CUDA C launch")?.parse()?;

    let device = Device::new(0)?;
    println!("device: {device}");
    let context = device.cuda_context().ok_or("needs a GPU")?.clone();
    let module = context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_file(&cuda_ptx))?;
    let cuda_vecadd = module.load_function("vecadd_cuda")?;

    // --- vecadd bandwidth, 2^26 f32 ---
    let n: usize = 1 << 26;
    let a = DeviceBuffer::from_slice(&device, &random_f32(n, 1))?;
    let b = DeviceBuffer::from_slice(&device, &random_f32(n, 2))?;
    let mut c = DeviceBuffer::<f32>::zeros(&device, n)?;
    let stream = device.default_stream();
    let (grid, block) = (n.div_ceil(256) as u32, 256u32);
    let (a_ptr, b_ptr, c_ptr, n_u64) = (a.device_ptr(), b.device_ptr(), c.device_ptr(), n as u64);
    let launch_cuda = || -> ferrocuda::Result<()> {
        let mut params = [
            &a_ptr as *const u64 as *mut std::ffi::c_void,
            &b_ptr as *const u64 as *mut _,
            &c_ptr as *const u64 as *mut _,
            &n_u64 as *const u64 as *mut _,
        ];
        // SAFETY: the parameters match vecadd_cuda's signature; the buffers outlive the launch.
        unsafe {
            result::launch_kernel(
                cuda_vecadd.cu_function(),
                (grid, 1, 1),
                (block, 1, 1),
                0,
                std::ptr::null_mut(),
                &mut params,
            )
        }
        .map_err(|e| ferrocuda::Error::Driver {
            call: "cuLaunchKernel",
            name: format!("{e:?}"),
            description: String::new(),
        })
    };
    let (start, end) = (Event::new(&device)?, Event::new(&device)?);
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..23 {
        start.record(&stream)?;
        launch!(vecadd[grid, block](&a, &b, &mut c))?;
        end.record(&stream)?;
        end.synchronize()?;
        let t_ours = start.elapsed_ms(&end)? as f64;
        start.record(&stream)?;
        launch_cuda()?;
        end.record(&stream)?;
        end.synchronize()?;
        let t_theirs = start.elapsed_ms(&end)? as f64;
        if round >= 3 {
            ours.push(t_ours);
            theirs.push(t_theirs);
        }
    }
    // Both kernels computed the same thing: check it once.
    let (ha, hb, hc) = (a.to_vec()?, b.to_vec()?, c.to_vec()?);
    if let Some(i) = (0..n).find(|&i| hc[i] != ha[i] + hb[i]) {
        return Err(format!("vecadd result wrong at {i}").into());
    }
    let bytes = 3.0 * 4.0 * n as f64;
    let (ms_ours, ms_theirs) = (median(ours), median(theirs));
    let (gbs_ours, gbs_theirs) = (bytes / ms_ours / 1e6, bytes / ms_theirs / 1e6);

    // --- host cost of one asynchronous launch: 10,000 tiny launches, median of 7 rounds ---
    let tiny_a = DeviceBuffer::<f32>::zeros(&device, 32)?;
    let mut tiny_c = DeviceBuffer::<f32>::zeros(&device, 32)?;
    for _ in 0..100 {
        launch!(vecadd[1, 32](&tiny_a, &tiny_a, &mut tiny_c))?;
    }
    device.synchronize()?;
    let mut per_launch = Vec::new();
    for _ in 0..7 {
        let t0 = Instant::now();
        for _ in 0..10_000 {
            launch!(vecadd[1, 32](&tiny_a, &tiny_a, &mut tiny_c))?;
        }
        let elapsed = t0.elapsed();
        device.synchronize()?;
        per_launch.push(elapsed.as_secs_f64() * 1e6 / 10_000.0);
    }
    let launch_us = median(per_launch);

    println!();
    println!("| metric | ferrocuda | CUDA C | ratio | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| vecadd 2^26 f32, GB/s (median of 20, events) | {gbs_ours:.0} | {gbs_theirs:.0} | {:.3}x | >= 0.98x |",
        gbs_ours / gbs_theirs
    );
    println!(
        "| host cost per async launch, us (median of 7 x 10,000) | {launch_us:.2} | {cuda_launch_us:.2} | {:.3}x | <= 1.1x |",
        launch_us / cuda_launch_us
    );
    Ok(())
}
