//! Kernel-language benchmark (GPU only): ferrocuda's tiled matrix product, padded-tile transpose
//! and shared-memory histogram against the same algorithms in CUDA C (built with nvcc on the GPU
//! machine, loaded into this process), and the warp-shuffle sum against CuPy's `sum` (CUB,
//! measured by `bench/cupy_sum.py` in the same run). Run through `bench/run.sh`.
//!
//! Each pair runs alternately on the same buffers, timed with CUDA events; the table gives
//! medians, ratios (higher is better for ferrocuda), and each kernel's registers and local
//! memory (spills) as the driver reports them.

use ferrocuda::cudarc::driver::sys::CUfunction_attribute;
use ferrocuda::cudarc::driver::{CudaFunction, CudaModule, result};
use ferrocuda::prelude::*;
use ferrocuda_examples::{
    EventTimer, ExampleResult, launch_raw, median, param as p, random_f32, reference, required_arg,
};
use kernels_nvptx::histogram::histogram_shared;
use kernels_nvptx::matmul_tiled::{matmul_tiled, matmul_tiled_unchecked};
use kernels_nvptx::reduce::sum_warp_shuffle;
use kernels_nvptx::transpose::transpose_tiled32;
use std::sync::Arc;

/// The two PTX modules the benchmark loads into one context.
struct Modules {
    /// The CUDA C references, from `--cuda-ptx`.
    cuda: Arc<CudaModule>,
    /// ferrocuda's own kernels, for their driver-reported registers.
    ours: Arc<CudaModule>,
}

impl Modules {
    /// Registers and local memory of ferrocuda's entry `name`.
    fn our_registers(&self, name: &str) -> ExampleResult<String> {
        Ok(registers(&self.ours.load_function(name)?))
    }
}

/// Times `ours` and `theirs` alternately, 3 warm-up rounds then `rounds` timed ones: (median ms
/// of ours, median ms of theirs).
fn time_pair(
    device: &Device,
    rounds: usize,
    mut ours: impl FnMut() -> ferrocuda::Result<()>,
    mut theirs: impl FnMut() -> ferrocuda::Result<()>,
) -> ferrocuda::Result<(f64, f64)> {
    let timer = EventTimer::new(device)?;
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for round in 0..rounds + 3 {
        let (x, y) = (timer.time(&mut ours)?, timer.time(&mut theirs)?);
        if round >= 3 {
            a.push(x);
            b.push(y);
        }
    }
    Ok((median(a), median(b)))
}

/// "N regs, M B local" of a loaded function, as the driver reports them (-1 where it cannot).
fn registers(f: &CudaFunction) -> String {
    // SAFETY: the function is loaded.
    let get =
        |a| unsafe { result::function::get_function_attribute(f.cu_function(), a) }.unwrap_or(-1);
    format!(
        "{} regs, {} B local",
        get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS),
        get(CUfunction_attribute::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    )
}

/// The tiled 16x16 matrix product at 4096 against CUDA C, then against itself with unchecked
/// accesses in its hot loop (what the bounds checks cost): two table rows.
fn matmul_rows(device: &Device, modules: &Modules) -> ExampleResult<[String; 2]> {
    let n = 4096usize;
    let a = DeviceBuffer::from_slice(device, &random_f32(n * n, 1))?;
    let b = DeviceBuffer::from_slice(device, &random_f32(n * n, 2))?;
    let mut c1 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let c2 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let f = modules.cuda.load_function("matmul_tiled_cuda")?;
    let grid = ((n / 16) as u32, (n / 16) as u32);
    let (pa, pb, pc, nn) = (a.device_ptr(), b.device_ptr(), c2.device_ptr(), n as u32);
    let (ours, theirs) = time_pair(
        device,
        10,
        || launch!(matmul_tiled[grid, (16, 16)](&a, &b, &mut c1, nn, nn, nn)),
        || {
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (grid.0, grid.1, 1),
                    (16, 16, 1),
                    &mut [p(&pa), p(&pb), p(&pc), p(&nn), p(&nn), p(&nn)],
                )
            }
        },
    )?;
    let (r1, r2) = (c1.to_vec()?, c2.to_vec()?);
    let worst = r1
        .iter()
        .zip(&r2)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    if worst > 1e-3 {
        return Err(format!("matmul results differ by {worst}").into());
    }
    let flops = 2.0 * (n as f64).powi(3);
    let against_cuda = format!(
        "| tiled 16x16 matmul 4096, TFLOP/s | {:.2} | {:.2} (CUDA C) | {:.3}x | >= 0.95x | {} / {} |",
        flops / ours / 1e9,
        flops / theirs / 1e9,
        theirs / ours,
        modules.our_registers("matmul_tiled")?,
        registers(&f)
    );

    let mut c3 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let (checked, unchecked) = time_pair(
        device,
        10,
        || launch!(matmul_tiled[grid, (16, 16)](&a, &b, &mut c1, nn, nn, nn)),
        || launch!(matmul_tiled_unchecked[grid, (16, 16)](&a, &b, &mut c3, nn, nn, nn)),
    )?;
    if c1.to_vec()? != c3.to_vec()? {
        return Err("checked and unchecked matmul results differ".into());
    }
    let bounds_checks = format!(
        "| bounds checks: matmul 4096 checked vs unchecked, TFLOP/s | {:.2} | {:.2} (unchecked) | {:.3}x | (cost of checks) | {} / {} |",
        flops / checked / 1e9,
        flops / unchecked / 1e9,
        unchecked / checked,
        modules.our_registers("matmul_tiled")?,
        modules.our_registers("matmul_tiled_unchecked")?
    );
    Ok([against_cuda, bounds_checks])
}

/// The transpose of an 8192 x 8192 matrix through a padded 32x33 tile against CUDA C.
fn transpose_row(device: &Device, modules: &Modules) -> ExampleResult<String> {
    let n = 8192usize;
    let input = DeviceBuffer::from_slice(device, &random_f32(n * n, 3))?;
    let mut t1 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let t2 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let f = modules.cuda.load_function("transpose_tiled_cuda")?;
    let grid = ((n / 32) as u32, (n / 32) as u32);
    let (pi, po, nn) = (input.device_ptr(), t2.device_ptr(), n as u32);
    let (ours, theirs) = time_pair(
        device,
        20,
        || launch!(transpose_tiled32[grid, (32, 8)](&input, &mut t1, nn, nn)),
        || {
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (grid.0, grid.1, 1),
                    (32, 8, 1),
                    &mut [p(&pi), p(&po), p(&nn), p(&nn)],
                )
            }
        },
    )?;
    if t1.to_vec()? != t2.to_vec()? {
        return Err("transpose results differ".into());
    }
    let bytes = 2.0 * 4.0 * (n * n) as f64;
    Ok(format!(
        "| transpose 8192 (32x33 tile), GB/s | {:.0} | {:.0} (CUDA C) | {:.3}x | >= 0.95x | {} / {} |",
        bytes / ours / 1e6,
        bytes / theirs / 1e6,
        theirs / ours,
        modules.our_registers("transpose_tiled32")?,
        registers(&f)
    ))
}

/// Elements of the histogram and sum benchmarks.
const STREAM_LEN: usize = 1 << 26;

/// Blocks of the grid-stride histogram and sum kernels: 8 per multiprocessor.
fn grid_stride_blocks(device: &Device) -> u32 {
    device.limits().multiprocessor_count * 8
}

/// The 256-bin histogram of 2^26 values with shared atomics against CUDA C; the bins are
/// cleared before each timed launch, outside the timing.
fn histogram_row(device: &Device, modules: &Modules) -> ExampleResult<String> {
    let n = STREAM_LEN;
    let values: Vec<u32> = random_f32(n, 4)
        .iter()
        .map(|v| ((v + 1.0) * 1e6) as u32)
        .collect();
    let data = DeviceBuffer::from_slice(device, &values)?;
    let mut h1 = DeviceBuffer::<u32>::zeros(device, 256)?;
    let mut h2 = DeviceBuffer::<u32>::zeros(device, 256)?;
    let f = modules.cuda.load_function("histogram_shared_cuda")?;
    let blocks = grid_stride_blocks(device);
    let (pd, ph, nn) = (data.device_ptr(), h2.device_ptr(), n as u64);
    let zeros = [0u32; 256];
    let timer = EventTimer::new(device)?;
    let (mut ours_ms, mut theirs_ms) = (Vec::new(), Vec::new());
    for round in 0..23 {
        h1.copy_from(&zeros)?;
        let x = timer.time(|| launch!(histogram_shared[blocks, 256](&data, &mut h1)))?;
        h2.copy_from(&zeros)?;
        let y = timer.time(|| {
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (blocks, 1, 1),
                    (256, 1, 1),
                    &mut [p(&pd), p(&nn), p(&ph)],
                )
            }
        })?;
        if round >= 3 {
            ours_ms.push(x);
            theirs_ms.push(y);
        }
    }
    let (ours, theirs) = (median(ours_ms), median(theirs_ms));
    let expected = reference::histogram(&values);
    if h1.to_vec()? != expected || h2.to_vec()? != expected {
        return Err("histogram results differ from the CPU".into());
    }
    let bytes = 4.0 * n as f64;
    Ok(format!(
        "| histogram 256 bins, 2^26 u32, GB/s | {:.0} | {:.0} (CUDA C) | {:.3}x | >= 0.95x | {} / {} |",
        bytes / ours / 1e6,
        bytes / theirs / 1e6,
        theirs / ours,
        modules.our_registers("histogram_shared")?,
        registers(&f)
    ))
}

/// The warp-shuffle sum of 2^26 floats against CuPy's `sum`, measured by `bench/cupy_sum.py`.
fn sum_row(device: &Device, modules: &Modules, cupy_gbs: f64) -> ExampleResult<String> {
    let n = STREAM_LEN;
    let blocks = grid_stride_blocks(device);
    let host = random_f32(n, 5);
    let x = DeviceBuffer::from_slice(device, &host)?;
    let mut total = DeviceBuffer::<f32>::zeros(device, 1)?;
    let timer = EventTimer::new(device)?;
    let mut times = Vec::new();
    for round in 0..43 {
        total.copy_from(&[0.0])?;
        let ms = timer.time(|| launch!(sum_warp_shuffle[blocks, 256](&x, &mut total)))?;
        if round >= 3 {
            times.push(ms);
        }
    }
    let ms = median(times);
    let expected: f64 = host.iter().map(|&v| v as f64).sum();
    let got = total.to_vec()?[0] as f64;
    if (got - expected).abs() > 1e-3 * (1.0 + expected.abs()) + 1.0 {
        return Err(format!("sum is {got}, the CPU says {expected}").into());
    }
    let gbs = 4.0 * n as f64 / ms / 1e6;
    Ok(format!(
        "| sum 2^26 f32 (warp shuffles), GB/s | {gbs:.0} | {cupy_gbs:.0} (CuPy sum) | {:.3}x | >= 0.9x | {} / - |",
        gbs / cupy_gbs,
        modules.our_registers("sum_warp_shuffle")?
    ))
}

fn main() -> ExampleResult {
    let cuda_ptx = required_arg("--cuda-ptx", "reference_kernels.ptx from nvcc")?;
    let cupy_gbs: f64 = required_arg("--cupy-sum-gbs", "CuPy's sum in GB/s")?.parse()?;

    let device = Device::new(0)?;
    println!("device: {device}");
    let context = device.cuda_context().ok_or("needs a GPU")?.clone();
    let modules = Modules {
        cuda: context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_file(&cuda_ptx))?,
        ours: context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_src(
            kernels_nvptx::__FERROCUDA_MODULE.ptx,
        ))?,
    };
    let mut rows = Vec::new();
    rows.extend(matmul_rows(&device, &modules)?);
    rows.push(transpose_row(&device, &modules)?);
    rows.push(histogram_row(&device, &modules)?);
    rows.push(sum_row(&device, &modules, cupy_gbs)?);

    println!();
    println!(
        "| benchmark (median of repeated runs, CUDA events) | ferrocuda | reference | ratio | target | registers, local memory (ours / theirs) |"
    );
    println!("|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
    Ok(())
}
