//! Kernel-language benchmark (GPU only): ferrocuda's vecadd, tiled matrix product, padded-tile
//! transpose, shared-memory histogram and warp-shuffle sum against the same algorithms in CUDA C
//! (built with nvcc on the GPU machine, loaded into this process), with the CuPy and Numba
//! figures of the same kernels read from the files `bench/cupy_kernels.py` and
//! `bench/numba_kernels.py` wrote in the same run. Run through `bench/run.sh`:
//!
//! ```text
//! bench_kernels --cuda-ptx reference_kernels.ptx [--references cupy.csv,numba.csv]
//!               [--no-lineinfo-ptx kernels-nolineinfo.ptx] [--out-dir DIR]
//! ```
//!
//! The implementations of a kernel run alternately on the same inputs, one launch between two
//! CUDA events per sample, 3 warm-up rounds then medians; every output is checked. With
//! `--no-lineinfo-ptx`, ferrocuda's kernels are also launched through `cuLaunchKernel` from its
//! embedded PTX (line tables by default) and from that PTX (built with `FERROCUDA_LINEINFO=0`),
//! alternating with the others: what line tables cost in time and registers.
//!
//! Prints the report's tables and writes `bench-results.csv`, `bench-results.md` and
//! `bench-chart.svg` into `--out-dir` (default: the current directory); `bench_chart`
//! regenerates the last two from the CSV.

use ferrocuda::cudarc::driver::{CudaFunction, CudaModule};
use ferrocuda::prelude::*;
use ferrocuda_examples::bench_report::{
    CSV_HEADER, KERNELS, LINE_TABLES, Measurement, UNCHECKED, markdown, parse_csv, to_csv,
};
use ferrocuda_examples::{
    EventTimer, ExampleResult, bench_chart, launch_raw, median, optional_arg, param as p,
    random_f32, reference, registers, required_arg,
};
use kernels_nvptx::elementwise::vecadd;
use kernels_nvptx::histogram::histogram_shared;
use kernels_nvptx::matmul_tiled::{matmul_tiled, matmul_tiled_unchecked};
use kernels_nvptx::reduce::sum_warp_shuffle;
use kernels_nvptx::transpose::transpose_tiled32;
use std::path::PathBuf;
use std::sync::Arc;

/// The PTX modules the benchmark loads into one context.
struct Modules {
    /// The CUDA C references, from `--cuda-ptx`.
    cuda: Arc<CudaModule>,
    /// ferrocuda's own kernels (the PTX this program embeds, with line tables by default).
    ours: Arc<CudaModule>,
    /// ferrocuda's kernels built with `FERROCUDA_LINEINFO=0`, from `--no-lineinfo-ptx`.
    no_lineinfo: Option<Arc<CudaModule>>,
}

/// One parameter of a ferrocuda entry as its PTX declares it: a slice is two (pointer,
/// length).
#[derive(Clone, Copy)]
enum EntryArg {
    /// A `&[T]` or `&mut [T]`: device address and element count.
    Slice(u64, usize),
    /// A `u32`.
    U32(u32),
}

/// Launches ferrocuda's entry `f` with `cuLaunchKernel`: its parameters, then the hidden launch
/// token (0: no launch's token).
fn launch_entry(
    f: &CudaFunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[EntryArg],
) -> ferrocuda::Result<()> {
    // Each value in its own 8-byte slot; the driver reads 4 bytes for a u32 parameter, which on
    // this little-endian host are the u32's.
    let mut values: Vec<u64> = Vec::new();
    for a in args {
        match *a {
            EntryArg::Slice(ptr, len) => values.extend([ptr, len as u64]),
            EntryArg::U32(v) => values.push(u64::from(v)),
        }
    }
    values.push(0);
    let mut params: Vec<*mut std::ffi::c_void> = values.iter().map(p).collect();
    // SAFETY: `params` holds one value per entry parameter in the entry's order (slices as
    // pointer and length, then the token), and the callers pass live buffers that outlive the
    // launch (they synchronize before dropping them).
    unsafe { launch_raw(f, grid, block, &mut params) }
}

/// Prepares the next launch of an implementation (outside the timing) and times it: milliseconds.
type TimedLaunch<'a> = Box<dyn FnMut(&EventTimer) -> ferrocuda::Result<f64> + 'a>;

/// A timed implementation of a kernel: its id in the report, its registers, and a closure that
/// prepares its next launch (outside the timing) and returns the milliseconds of one launch.
struct Variant<'a> {
    /// Implementation id (see `bench_report`).
    implementation: &'static str,
    /// Registers per thread.
    registers: Option<i64>,
    /// Prepares and times one launch.
    run: TimedLaunch<'a>,
}

impl<'a> Variant<'a> {
    /// A variant whose launch needs no preparation.
    fn new(
        implementation: &'static str,
        registers: Option<i64>,
        mut launch: impl FnMut() -> ferrocuda::Result<()> + 'a,
    ) -> Self {
        Variant {
            implementation,
            registers,
            run: Box::new(move |timer| timer.time(&mut launch)),
        }
    }
}

/// Runs `variants` alternately, 3 warm-up rounds then `rounds` timed ones, and turns each
/// median into a measurement of `kernel`: `amount / ms / 1e6` in the kernel's unit (bytes for
/// GB/s, flops / 1000 for TFLOP/s).
fn measure(
    device: &Device,
    kernel: &str,
    amount: f64,
    rounds: usize,
    mut variants: Vec<Variant<'_>>,
) -> ExampleResult<Vec<Measurement>> {
    let timer = EventTimer::new(device)?;
    let mut samples = vec![Vec::new(); variants.len()];
    for round in 0..rounds + 3 {
        for (v, s) in variants.iter_mut().zip(&mut samples) {
            let ms = (v.run)(&timer)?;
            if round >= 3 {
                s.push(ms);
            }
        }
    }
    Ok(variants
        .iter()
        .zip(samples)
        .map(|(v, s)| {
            let ms = median(s);
            Measurement {
                kernel: kernel.to_string(),
                implementation: v.implementation.to_string(),
                value: Some(amount / ms / 1e6),
                ms: Some(ms),
                registers: v.registers,
                note: String::new(),
            }
        })
        .collect())
}

/// The two line-table variants of ferrocuda's entry `name` (with, without), launched with
/// `cuLaunchKernel` on `args`; none without `--no-lineinfo-ptx`.
fn line_table_variants<'a>(
    modules: &Modules,
    name: &str,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: Vec<EntryArg>,
) -> ExampleResult<Vec<Variant<'a>>> {
    let Some(no_lineinfo) = &modules.no_lineinfo else {
        return Ok(Vec::new());
    };
    let mut variants = Vec::new();
    for (implementation, module) in LINE_TABLES.into_iter().zip([&modules.ours, no_lineinfo]) {
        let f = module.load_function(name)?;
        let args = args.clone();
        variants.push(Variant::new(implementation, registers(&f), move || {
            launch_entry(&f, grid, block, &args)
        }));
    }
    Ok(variants)
}

/// vecadd of 2^26 floats, 256 threads per block.
fn vecadd_rows(device: &Device, modules: &Modules) -> ExampleResult<Vec<Measurement>> {
    let n = 1usize << 26;
    let a = DeviceBuffer::from_slice(device, &random_f32(n, 1))?;
    let b = DeviceBuffer::from_slice(device, &random_f32(n, 2))?;
    let mut c1 = DeviceBuffer::<f32>::zeros(device, n)?;
    let c2 = DeviceBuffer::<f32>::zeros(device, n)?;
    let c3 = DeviceBuffer::<f32>::zeros(device, n)?;
    let f = modules.cuda.load_function("vecadd_cuda")?;
    let ours = modules.ours.load_function("vecadd")?;
    let grid = n.div_ceil(256) as u32;
    let (pa, pb, pc, nn) = (a.device_ptr(), b.device_ptr(), c2.device_ptr(), n as u64);
    let mut variants = vec![
        Variant::new(
            "ferrocuda",
            registers(&ours),
            || launch!(vecadd[grid, 256](&a, &b, &mut c1)),
        ),
        Variant::new("cuda_c", registers(&f), || {
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (grid, 1, 1),
                    (256, 1, 1),
                    &mut [p(&pa), p(&pb), p(&pc), p(&nn)],
                )
            }
        }),
    ];
    let slice = |b: &DeviceBuffer<f32>| EntryArg::Slice(b.device_ptr(), n);
    variants.extend(line_table_variants(
        modules,
        "vecadd",
        (grid, 1, 1),
        (256, 1, 1),
        vec![slice(&a), slice(&b), slice(&c3)],
    )?);
    let rows = measure(device, "vecadd", 12.0 * n as f64, 20, variants)?;
    let (ha, hb) = (a.to_vec()?, b.to_vec()?);
    let expected: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    for (what, c) in [("ferrocuda", &c1), ("CUDA C", &c2)] {
        if c.to_vec()? != expected {
            return Err(format!("vecadd by {what} differs from the CPU").into());
        }
    }
    if modules.no_lineinfo.is_some() && c3.to_vec()? != expected {
        return Err("vecadd launched with cuLaunchKernel differs from the CPU".into());
    }
    Ok(rows)
}

/// The tiled 16x16 matrix product at 4096: ferrocuda, CUDA C, and ferrocuda with unchecked
/// accesses in its hot loop (what the bounds checks cost).
fn matmul_rows(device: &Device, modules: &Modules) -> ExampleResult<Vec<Measurement>> {
    let n = 4096usize;
    let a = DeviceBuffer::from_slice(device, &random_f32(n * n, 1))?;
    let b = DeviceBuffer::from_slice(device, &random_f32(n * n, 2))?;
    let mut c1 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let c2 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let mut c3 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let c4 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let f = modules.cuda.load_function("matmul_tiled_cuda")?;
    let grid = ((n / 16) as u32, (n / 16) as u32);
    let (pa, pb, pc, nn) = (a.device_ptr(), b.device_ptr(), c2.device_ptr(), n as u32);
    let mut variants = vec![
        Variant::new(
            "ferrocuda",
            registers(&modules.ours.load_function("matmul_tiled")?),
            || launch!(matmul_tiled[grid, (16, 16)](&a, &b, &mut c1, nn, nn, nn)),
        ),
        Variant::new("cuda_c", registers(&f), || {
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (grid.0, grid.1, 1),
                    (16, 16, 1),
                    &mut [p(&pa), p(&pb), p(&pc), p(&nn), p(&nn), p(&nn)],
                )
            }
        }),
        Variant::new(
            UNCHECKED,
            registers(&modules.ours.load_function("matmul_tiled_unchecked")?),
            || launch!(matmul_tiled_unchecked[grid, (16, 16)](&a, &b, &mut c3, nn, nn, nn)),
        ),
    ];
    let slice = |b: &DeviceBuffer<f32>| EntryArg::Slice(b.device_ptr(), n * n);
    variants.extend(line_table_variants(
        modules,
        "matmul_tiled",
        (grid.0, grid.1, 1),
        (16, 16, 1),
        vec![
            slice(&a),
            slice(&b),
            slice(&c4),
            EntryArg::U32(nn),
            EntryArg::U32(nn),
            EntryArg::U32(nn),
        ],
    )?);
    let flops = 2.0 * (n as f64).powi(3);
    let rows = measure(device, "matmul", flops / 1e3, 10, variants)?;
    let ours = c1.to_vec()?;
    let worst = ours
        .iter()
        .zip(&c2.to_vec()?)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    if worst > 1e-3 {
        return Err(format!("matmul results of ferrocuda and CUDA C differ by {worst}").into());
    }
    if c3.to_vec()? != ours {
        return Err("checked and unchecked matmul results differ".into());
    }
    if modules.no_lineinfo.is_some() && c4.to_vec()? != ours {
        return Err("matmul launched with cuLaunchKernel differs from launch!".into());
    }
    Ok(rows)
}

/// The transpose of an 8192 x 8192 matrix through a padded 32x33 tile, blocks of 32x8.
fn transpose_rows(device: &Device, modules: &Modules) -> ExampleResult<Vec<Measurement>> {
    let n = 8192usize;
    let input = DeviceBuffer::from_slice(device, &random_f32(n * n, 3))?;
    let mut t1 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let t2 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let t3 = DeviceBuffer::<f32>::zeros(device, n * n)?;
    let f = modules.cuda.load_function("transpose_tiled_cuda")?;
    let grid = ((n / 32) as u32, (n / 32) as u32);
    let (pi, po, nn) = (input.device_ptr(), t2.device_ptr(), n as u32);
    let mut variants = vec![
        Variant::new(
            "ferrocuda",
            registers(&modules.ours.load_function("transpose_tiled32")?),
            || launch!(transpose_tiled32[grid, (32, 8)](&input, &mut t1, nn, nn)),
        ),
        Variant::new("cuda_c", registers(&f), || {
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (grid.0, grid.1, 1),
                    (32, 8, 1),
                    &mut [p(&pi), p(&po), p(&nn), p(&nn)],
                )
            }
        }),
    ];
    variants.extend(line_table_variants(
        modules,
        "transpose_tiled32",
        (grid.0, grid.1, 1),
        (32, 8, 1),
        vec![
            EntryArg::Slice(input.device_ptr(), n * n),
            EntryArg::Slice(t3.device_ptr(), n * n),
            EntryArg::U32(nn),
            EntryArg::U32(nn),
        ],
    )?);
    let rows = measure(device, "transpose", 8.0 * (n * n) as f64, 20, variants)?;
    let ours = t1.to_vec()?;
    if t2.to_vec()? != ours {
        return Err("transpose results of ferrocuda and CUDA C differ".into());
    }
    if modules.no_lineinfo.is_some() && t3.to_vec()? != ours {
        return Err("transpose launched with cuLaunchKernel differs from launch!".into());
    }
    Ok(rows)
}

/// Elements of the histogram and sum benchmarks.
const STREAM_LEN: usize = 1 << 26;

/// Blocks of the grid-stride histogram and sum kernels: 8 per multiprocessor.
fn grid_stride_blocks(device: &Device) -> u32 {
    device.limits().multiprocessor_count * 8
}

/// The implementations the histogram and sum check, in the order of their buffers.
const VARIANTS: [&str; 4] = [
    "ferrocuda",
    "CUDA C",
    "cuLaunchKernel of the default PTX",
    "cuLaunchKernel of the PTX without line tables",
];

/// A variant that clears `out` (outside the timing) before each timed `launch`.
fn cleared<'a, T: ferrocuda::DeviceCopy + Default>(
    implementation: &'static str,
    registers: Option<i64>,
    out: &'a mut DeviceBuffer<T>,
    mut launch: impl FnMut(&mut DeviceBuffer<T>) -> ferrocuda::Result<()> + 'a,
) -> Variant<'a> {
    let zeros = vec![T::default(); out.len()];
    Variant {
        implementation,
        registers,
        run: Box::new(move |timer| {
            out.copy_from(&zeros)?;
            timer.time(|| launch(out))
        }),
    }
}

/// The 256-bin histogram of 2^26 values with shared atomics, 256 threads per block, 8 blocks
/// per multiprocessor; the bins are cleared before each launch, outside the timing.
fn histogram_rows(device: &Device, modules: &Modules) -> ExampleResult<Vec<Measurement>> {
    let n = STREAM_LEN;
    let values: Vec<u32> = random_f32(n, 4)
        .iter()
        .map(|v| ((v + 1.0) * 1e6) as u32)
        .collect();
    let data = DeviceBuffer::from_slice(device, &values)?;
    let bins = || DeviceBuffer::<u32>::zeros(device, 256);
    let (mut h1, mut h2, mut h3, mut h4) = (bins()?, bins()?, bins()?, bins()?);
    let f = modules.cuda.load_function("histogram_shared_cuda")?;
    let blocks = grid_stride_blocks(device);
    let (pd, nn) = (data.device_ptr(), n as u64);
    let mut variants = vec![
        cleared(
            "ferrocuda",
            registers(&modules.ours.load_function("histogram_shared")?),
            &mut h1,
            |h| launch!(histogram_shared[blocks, 256](&data, h)),
        ),
        cleared("cuda_c", registers(&f), &mut h2, |h| {
            let ph = h.device_ptr();
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (blocks, 1, 1),
                    (256, 1, 1),
                    &mut [p(&pd), p(&nn), p(&ph)],
                )
            }
        }),
    ];
    if let Some(no_lineinfo) = &modules.no_lineinfo {
        for ((implementation, module), h) in LINE_TABLES
            .into_iter()
            .zip([&modules.ours, no_lineinfo])
            .zip([&mut h3, &mut h4])
        {
            let entry = module.load_function("histogram_shared")?;
            let r = registers(&entry);
            variants.push(cleared(implementation, r, h, move |h| {
                let args = [EntryArg::Slice(pd, n), EntryArg::Slice(h.device_ptr(), 256)];
                launch_entry(&entry, (blocks, 1, 1), (256, 1, 1), &args)
            }));
        }
    }
    let rows = measure(device, "histogram", 4.0 * n as f64, 20, variants)?;
    let expected = reference::histogram(&values);
    let checked = if modules.no_lineinfo.is_some() { 4 } else { 2 };
    for (i, h) in [&h1, &h2, &h3, &h4].into_iter().take(checked).enumerate() {
        if h.to_vec()? != expected {
            return Err(format!("histogram of {} differs from the CPU", VARIANTS[i]).into());
        }
    }
    Ok(rows)
}

/// The warp-shuffle sum of 2^26 floats (16-byte loads, one atomic add per block), 256 threads
/// per block, 8 blocks per multiprocessor; the total is cleared before each launch.
fn sum_rows(device: &Device, modules: &Modules) -> ExampleResult<Vec<Measurement>> {
    let n = STREAM_LEN;
    let blocks = grid_stride_blocks(device);
    let host = random_f32(n, 5);
    let x = DeviceBuffer::from_slice(device, &host)?;
    let total = || DeviceBuffer::<f32>::zeros(device, 1);
    let (mut s1, mut s2, mut s3, mut s4) = (total()?, total()?, total()?, total()?);
    let f = modules.cuda.load_function("sum_warp_shuffle_cuda")?;
    let (px, nn) = (x.device_ptr(), n as u64);
    let mut variants = vec![
        cleared(
            "ferrocuda",
            registers(&modules.ours.load_function("sum_warp_shuffle")?),
            &mut s1,
            |s| launch!(sum_warp_shuffle[blocks, 256](&x, s)),
        ),
        cleared("cuda_c", registers(&f), &mut s2, |s| {
            let ps = s.device_ptr();
            // SAFETY: the parameters are the CUDA C kernel's, on live buffers.
            unsafe {
                launch_raw(
                    &f,
                    (blocks, 1, 1),
                    (256, 1, 1),
                    &mut [p(&px), p(&nn), p(&ps)],
                )
            }
        }),
    ];
    if let Some(no_lineinfo) = &modules.no_lineinfo {
        for ((implementation, module), s) in LINE_TABLES
            .into_iter()
            .zip([&modules.ours, no_lineinfo])
            .zip([&mut s3, &mut s4])
        {
            let entry = module.load_function("sum_warp_shuffle")?;
            let r = registers(&entry);
            variants.push(cleared(implementation, r, s, move |s| {
                let args = [EntryArg::Slice(px, n), EntryArg::Slice(s.device_ptr(), 1)];
                launch_entry(&entry, (blocks, 1, 1), (256, 1, 1), &args)
            }));
        }
    }
    let rows = measure(device, "sum", 4.0 * n as f64, 40, variants)?;
    let expected: f64 = host.iter().map(|&v| v as f64).sum();
    let checked = if modules.no_lineinfo.is_some() { 4 } else { 2 };
    for (i, s) in [&s1, &s2, &s3, &s4].into_iter().take(checked).enumerate() {
        let got = s.to_vec()?[0] as f64;
        if (got - expected).abs() > 1e-3 * (1.0 + expected.abs()) + 1.0 {
            return Err(format!("sum of {} is {got}, the CPU says {expected}", VARIANTS[i]).into());
        }
    }
    Ok(rows)
}

/// The rows of the reference files (`--references a.csv,b.csv`); a file that is missing or
/// unreadable is reported and left out (its columns show n/a), a malformed one is an error.
fn reference_rows() -> ExampleResult<Vec<Measurement>> {
    let mut rows = Vec::new();
    for file in optional_arg("--references")
        .unwrap_or_default()
        .split(',')
        .filter(|f| !f.is_empty())
    {
        match std::fs::read_to_string(file) {
            Ok(text) => rows.extend(parse_csv(&text).map_err(|e| format!("{file}: {e}"))?),
            Err(e) => eprintln!("reference file {file} left out: {e}"),
        }
    }
    Ok(rows)
}

fn main() -> ExampleResult {
    let cuda_ptx = required_arg("--cuda-ptx", "reference_kernels.ptx from nvcc")?;
    let out_dir = PathBuf::from(optional_arg("--out-dir").unwrap_or_else(|| ".".into()));
    let references = reference_rows()?;

    let device = Device::new(0)?;
    println!("device: {device}");
    let context = device.cuda_context().ok_or("needs a GPU")?.clone();
    let no_lineinfo = match optional_arg("--no-lineinfo-ptx") {
        Some(path) => Some(
            context
                .load_module(ferrocuda::cudarc::nvrtc::Ptx::from_file(&path))
                .map_err(|e| format!("loading {path}: {e:?}"))?,
        ),
        None => None,
    };
    let modules = Modules {
        cuda: context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_file(&cuda_ptx))?,
        ours: context.load_module(ferrocuda::cudarc::nvrtc::Ptx::from_src(
            kernels_nvptx::__FERROCUDA_MODULE.ptx,
        ))?,
        no_lineinfo,
    };
    let mut rows = Vec::new();
    for (kernel, rows_of) in KERNELS.iter().zip([
        vecadd_rows as fn(&Device, &Modules) -> ExampleResult<Vec<Measurement>>,
        matmul_rows,
        transpose_rows,
        histogram_rows,
        sum_rows,
    ]) {
        eprintln!("timing {}...", kernel.description);
        rows.extend(rows_of(&device, &modules)?);
    }
    rows.extend(references);

    let csv = out_dir.join("bench-results.csv");
    std::fs::write(&csv, to_csv(&rows)).map_err(|e| format!("writing {}: {e}", csv.display()))?;
    let heading = format!(
        "# Kernel benchmark on {device}\n\nMedians of repeated runs, one launch between two CUDA events; figures in the kernel's unit (higher is better), `n/a` where an implementation could not run. Columns of `{CSV_HEADER}` in bench-results.csv.\n\n"
    );
    let written = bench_chart::write_report(&rows, &out_dir, &heading)?;
    println!();
    print!("{}", markdown(&rows));
    println!();
    println!("wrote {}", csv.display());
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(())
}
