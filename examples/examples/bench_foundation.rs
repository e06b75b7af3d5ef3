//! Foundation benchmark (GPU only): ferrocuda's vecadd against the same kernel in CUDA C, and the
//! host cost of one asynchronous launch against CUDA C's `<<<>>>` and against the raw driver call.
//!
//! Run through `bench/run.sh` on the GPU machine, which builds the CUDA C side with nvcc and
//! passes `--cuda-ptx vecadd_cuda.ptx --cuda-launch-us <median from the C program>`. Both vecadd
//! kernels run in this process on the same buffers, alternating, each timed with CUDA events;
//! the table reports medians.

use ferrocuda::cudarc::driver::{CudaContext, CudaFunction};
use ferrocuda::prelude::*;
use ferrocuda_examples::{
    EventTimer, ExampleResult, launch_raw, median, param, random_f32, required_arg,
};
use kernels_nvptx::elementwise::vecadd;
use std::sync::Arc;
use std::time::Instant;

/// Launches per round of the launch-cost measurement.
const LAUNCHES: usize = 10_000;

/// Bandwidth of the two vecadd kernels on 2^26 floats, in GB/s.
struct Bandwidth {
    ours: f64,
    cuda: f64,
}

/// Host microseconds per asynchronous launch of a tiny kernel, medians of 7 rounds.
struct LaunchCosts {
    /// `launch!` of ferrocuda's vecadd.
    ours: f64,
    /// `cuLaunchKernel` of the CUDA C vecadd (what `<<<>>>` reduces to).
    raw_cuda: f64,
    /// `cuLaunchKernel` of ferrocuda's vecadd entry: the same kernel as `ours`, without `launch!`.
    raw_ours: f64,
}

/// vecadd of 2^26 floats, ferrocuda's and CUDA C's alternately on the same buffers, 20 timed
/// rounds each after 3 warm-up rounds; the result is checked once.
fn vecadd_bandwidth(device: &Device, cuda_vecadd: &CudaFunction) -> ExampleResult<Bandwidth> {
    let n: usize = 1 << 26;
    let a = DeviceBuffer::from_slice(device, &random_f32(n, 1))?;
    let b = DeviceBuffer::from_slice(device, &random_f32(n, 2))?;
    let mut c = DeviceBuffer::<f32>::zeros(device, n)?;
    let (grid, block) = (n.div_ceil(256) as u32, 256u32);
    let (a_ptr, b_ptr, c_ptr, n_u64) = (a.device_ptr(), b.device_ptr(), c.device_ptr(), n as u64);
    let launch_cuda = || -> ferrocuda::Result<()> {
        // SAFETY: the parameters match vecadd_cuda's signature; the buffers outlive the launch.
        unsafe {
            launch_raw(
                cuda_vecadd,
                (grid, 1, 1),
                (block, 1, 1),
                &mut [param(&a_ptr), param(&b_ptr), param(&c_ptr), param(&n_u64)],
            )
        }
    };
    let timer = EventTimer::new(device)?;
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for round in 0..23 {
        let t_ours = timer.time(|| launch!(vecadd[grid, block](&a, &b, &mut c)))?;
        let t_theirs = timer.time(launch_cuda)?;
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
    Ok(Bandwidth {
        ours: bytes / median(ours) / 1e6,
        cuda: bytes / median(theirs) / 1e6,
    })
}

/// Host microseconds per call of [`LAUNCHES`] back-to-back calls of `launch`, then waits for the
/// device so the next round starts idle.
fn microseconds_per_launch(
    device: &Device,
    mut launch: impl FnMut() -> ferrocuda::Result<()>,
) -> ferrocuda::Result<f64> {
    let t0 = Instant::now();
    for _ in 0..LAUNCHES {
        launch()?;
    }
    let us = t0.elapsed().as_secs_f64() * 1e6 / LAUNCHES as f64;
    device.synchronize()?;
    Ok(us)
}

/// The host cost of one asynchronous launch: rounds of 10,000 tiny launches of ours alternate
/// with rounds of the raw driver call (`cuLaunchKernel` on the CUDA C kernel, what `<<<>>>`
/// reduces to, and on ferrocuda's own entry) in this process, so all see the same machine state.
fn launch_costs(
    device: &Device,
    context: &Arc<CudaContext>,
    cuda_vecadd: &CudaFunction,
) -> ExampleResult<LaunchCosts> {
    let tiny_a = DeviceBuffer::<f32>::zeros(device, 32)?;
    let mut tiny_c = DeviceBuffer::<f32>::zeros(device, 32)?;
    let (ta_ptr, tc_ptr, tiny_n) = (tiny_a.device_ptr(), tiny_c.device_ptr(), 32u64);
    let raw_tiny = || -> ferrocuda::Result<()> {
        // SAFETY: the parameters match vecadd_cuda's signature; the buffers outlive the launch.
        unsafe {
            launch_raw(
                cuda_vecadd,
                (1, 1, 1),
                (32, 1, 1),
                &mut [
                    param(&ta_ptr),
                    param(&ta_ptr),
                    param(&tc_ptr),
                    param(&tiny_n),
                ],
            )
        }
    };
    // ferrocuda's own vecadd entry, launched with the raw driver call: the same kernel as ours,
    // so the difference from ours is the host cost of `launch!` alone.
    let ours_module = context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_src(
        kernels_nvptx::__FERROCUDA_MODULE.ptx,
    ))?;
    let ours_vecadd = ours_module.load_function("vecadd")?;
    // The entry's hidden last parameter: 0 is no launch's token (the runtime's start at 1).
    let no_token = 0u64;
    let raw_ours = || -> ferrocuda::Result<()> {
        // SAFETY: vecadd's entry takes (pointer, length) for each of its three slices, then the
        // launch token.
        unsafe {
            launch_raw(
                &ours_vecadd,
                (1, 1, 1),
                (32, 1, 1),
                &mut [
                    param(&ta_ptr),
                    param(&tiny_n),
                    param(&ta_ptr),
                    param(&tiny_n),
                    param(&tc_ptr),
                    param(&tiny_n),
                    param(&no_token),
                ],
            )
        }
    };
    for _ in 0..100 {
        launch!(vecadd[1, 32](&tiny_a, &tiny_a, &mut tiny_c))?;
        raw_tiny()?;
        raw_ours()?;
    }
    device.synchronize()?;
    let (mut per_launch, mut per_raw_launch, mut per_raw_ours) =
        (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..7 {
        per_launch.push(microseconds_per_launch(
            device,
            || launch!(vecadd[1, 32](&tiny_a, &tiny_a, &mut tiny_c)),
        )?);
        per_raw_launch.push(microseconds_per_launch(device, raw_tiny)?);
        per_raw_ours.push(microseconds_per_launch(device, raw_ours)?);
    }
    Ok(LaunchCosts {
        ours: median(per_launch),
        raw_cuda: median(per_raw_launch),
        raw_ours: median(per_raw_ours),
    })
}

/// Prints the benchmark's table.
fn print_table(bandwidth: &Bandwidth, costs: &LaunchCosts, cuda_launch_us: f64) {
    let (gbs_ours, gbs_theirs) = (bandwidth.ours, bandwidth.cuda);
    let (launch_us, raw_launch_us, raw_ours_us) = (costs.ours, costs.raw_cuda, costs.raw_ours);
    println!();
    println!("| metric | ferrocuda | CUDA C | ratio | target |");
    println!("|---|---|---|---|---|");
    println!(
        "| vecadd 2^26 f32, GB/s (median of 20, events) | {gbs_ours:.0} | {gbs_theirs:.0} | {:.3}x | >= 0.98x |",
        gbs_ours / gbs_theirs
    );
    println!(
        "| host cost per async launch vs `<<<>>>` (C program), us (median of 7 x 10,000) | {launch_us:.2} | {cuda_launch_us:.2} | {:.3}x | <= 1.1x |",
        launch_us / cuda_launch_us
    );
    println!(
        "| host cost per async launch vs `cuLaunchKernel` (same process, alternating), us | {launch_us:.2} | {raw_launch_us:.2} | {:.3}x | <= 1.1x |",
        launch_us / raw_launch_us
    );
    println!(
        "| host cost of `launch!` vs `cuLaunchKernel` of the same ferrocuda kernel (same process, alternating), us | {launch_us:.2} | {raw_ours_us:.2} | {:.3}x | |",
        launch_us / raw_ours_us
    );
}

fn main() -> ExampleResult {
    let cuda_ptx = required_arg("--cuda-ptx", "vecadd_cuda.ptx from nvcc")?;
    let cuda_launch_us: f64 =
        required_arg("--cuda-launch-us", "microseconds per CUDA C launch")?.parse()?;

    let device = Device::new(0)?;
    println!("device: {device}");
    let context = device.cuda_context().ok_or("needs a GPU")?.clone();
    let module = context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_file(&cuda_ptx))?;
    let cuda_vecadd = module.load_function("vecadd_cuda")?;

    let bandwidth = vecadd_bandwidth(&device, &cuda_vecadd)?;
    let costs = launch_costs(&device, &context, &cuda_vecadd)?;
    print_table(&bandwidth, &costs, cuda_launch_us);
    Ok(())
}
