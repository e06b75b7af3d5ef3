//! The idiomatic benchmark suite (GPU only): the six kernels of `kernels-idiomatic`, written the
//! way a new user writes them, against their CUDA C twins of `bench/idiomatic.cu`, built twice
//! by nvcc on the GPU machine (`--fmad=false`, and nvcc's default, which contracts
//! multiply-adds). Run through `bench/run.sh`:
//!
//! ```text
//! bench_idiomatic --cuda-nofma-ptx idiomatic_nofma.ptx --cuda-fma-ptx idiomatic_fma.ptx
//!                 [--fast-math-ptx FILE] [--rounds N] [--out FILE.md]
//! ```
//!
//! Every implementation of a kernel runs with the same grid on the same inputs, alternately,
//! one launch (or, for the row sweep, one whole sweep) between two CUDA events per sample, 3
//! warm-up rounds and then `--rounds` (10) timed ones; the table gives the medians. Results are
//! cross-checked: ferrocuda against CUDA C `--fmad=false` bit for bit (neither side contracts
//! multiply-adds), CUDA C's default build within a tolerance.
//!
//! `--fast-math-ptx` adds a column: the same kernel crate built with fast math (FMA
//! contraction), whose entries this program loads from that PTX and launches with
//! `cuLaunchKernel`, compared with nvcc's default build (the target: >= 0.95x of it) and checked
//! within the same tolerance.
//!
//! The ratio is CUDA C's time over ferrocuda's (higher is better for ferrocuda); the target is
//! 0.95x. Registers are the driver's, from each loaded function's attributes.

use ferrocuda::cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use ferrocuda::cudarc::nvrtc::Ptx;
use ferrocuda::device::panic::ENTRY_TEST_TOKEN_BIT;
use ferrocuda::prelude::*;
use ferrocuda_examples::bench_harness::{
    finish, gpu, load_ptx, record_failure, rounds_arg, time_alternately,
};
use ferrocuda_examples::{
    ExampleResult, compare, launch_raw, optional_arg, random_f32, registers, required_arg,
};
use kernels_idiomatic::convolution::{FILTER, FILTER_SIZE, convolution};
use kernels_idiomatic::hotspot::{HotspotCoefficients, hotspot, launch_grid};
use kernels_idiomatic::nbody::{Float4, nbody};
use kernels_idiomatic::pathfinder::{launch_blocks, pathfinder};
use kernels_idiomatic::spmv::spmv_csr;
use kernels_idiomatic::stencil3d::stencil3d;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::Mutex;

/// ferrocuda's time over CUDA C's that the suite aims for, as CUDA C ms / ferrocuda ms.
const TARGET: f64 = 0.95;

/// The modules the benchmark loads into the GPU's context.
struct Modules {
    /// The context, for constant memory of the raw modules.
    context: Arc<CudaContext>,
    /// The CUDA C twins built with `--fmad=false`.
    cuda_nofma: Arc<CudaModule>,
    /// The CUDA C twins built with nvcc's default (`--fmad=true`).
    cuda_fma: Arc<CudaModule>,
    /// ferrocuda's kernels as embedded (loaded again here for their attributes).
    ours: Arc<CudaModule>,
    /// ferrocuda's kernels built with fast math, from `--fast-math-ptx`.
    fast_math: Option<Arc<CudaModule>>,
    /// That module's PTX text (its notes: the versioned entries' tests).
    fast_math_ptx: Option<Rc<str>>,
}

/// One kernel parameter of a raw launch, each kept in an 8-byte slot: the driver reads as many
/// bytes as the entry's parameter has, the low ones on this little-endian host.
#[derive(Clone, Copy)]
enum Arg {
    /// A device pointer (CUDA C pointer parameter).
    Ptr(u64),
    /// A ferrocuda `&[T]` or `&mut [T]`: device address and element count (two parameters).
    Slice(u64, usize),
    /// A 32-bit integer (`int`, `unsigned`, `u32`).
    I32(i32),
    /// An `f32`.
    F32(f32),
}

/// Launches `f` with `cuLaunchKernel` on the default stream; `ferrocuda_entry` (the PTX module
/// and the entry's name) appends the hidden launch token of a ferrocuda entry: no launch's token
/// (0), with the bit a versioned entry reads as its entry test already passed when the test
/// holds on `args`, as `launch!` sets it ([`ferrocuda::entry_test_holds`]).
fn launch_args(
    f: &CudaFunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
    ferrocuda_entry: Option<(&str, &str)>,
) -> ferrocuda::Result<()> {
    let mut values: Vec<u64> = Vec::new();
    for a in args {
        match *a {
            Arg::Ptr(p) => values.push(p),
            Arg::Slice(p, len) => values.extend([p, len as u64]),
            Arg::I32(v) => values.push(u64::from(v as u32)),
            Arg::F32(v) => values.push(u64::from(v.to_bits())),
        }
    }
    if let Some((ptx, entry)) = ferrocuda_entry {
        values.push(0);
        // The answer is kept, as `launch!` keeps it: a test that reads block indices is
        // decided over the grid's blocks (HotSpot's: about 0.1 ms of host time), which a
        // launch repeated with the same arguments need not pay again.
        /// `(entry, parameters, grid, whether the test held)`.
        type Answer = (String, Vec<u64>, [u32; 3], bool);
        static ANSWERS: Mutex<Vec<Answer>> = Mutex::new(Vec::new());
        let grid = [grid.0, grid.1, grid.2];
        let mut answers = ANSWERS.lock().unwrap_or_else(|e| e.into_inner());
        let known = answers
            .iter()
            .find(|(e, v, g, _)| e == entry && *v == values && *g == grid)
            .map(|&(.., holds)| holds);
        let holds = known.unwrap_or_else(|| {
            let holds = ferrocuda::entry_test_holds(ptx, entry, &values, grid) == Some(true);
            answers.push((entry.to_string(), values.clone(), grid, holds));
            holds
        });
        if holds {
            *values.last_mut().expect("the token") = ENTRY_TEST_TOKEN_BIT;
        }
    }
    let mut params: Vec<*mut std::ffi::c_void> =
        values.iter().map(ferrocuda_examples::param).collect();
    // SAFETY: `params` holds one value per entry parameter in the entry's order (the callers
    // build `args` from the kernel's signature), and every buffer they point to outlives the
    // launch: the callers synchronize (read the results back) before dropping them.
    unsafe { launch_raw(f, grid, block, &mut params) }
}

/// Writes `values` into the `__constant__` array `name` of a module loaded through cudarc.
fn write_constant(
    modules: &Modules,
    module: &Arc<CudaModule>,
    name: &str,
    values: &[f32],
) -> ExampleResult {
    let stream = modules.context.default_stream();
    let mut symbol = module.get_global(name, &stream)?;
    // SAFETY: the symbol is an array of at least `values.len()` f32s (checked by
    // `transmute_mut`, which returns None when the symbol is smaller).
    let mut view = unsafe { symbol.transmute_mut::<f32>(values.len()) }
        .ok_or_else(|| format!("constant {name} holds fewer than {} floats", values.len()))?;
    stream.memcpy_htod(values, &mut view)?;
    stream.synchronize()?;
    Ok(())
}

/// Who ran: the implementations of one kernel, in the table's order.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Implementation {
    /// ferrocuda through `launch!`.
    Ferrocuda,
    /// The CUDA C twin, `nvcc -O3 --fmad=false`.
    CudaNoFma,
    /// The CUDA C twin, `nvcc -O3` (contraction on).
    CudaFma,
    /// ferrocuda built with fast math, through `cuLaunchKernel`.
    FastMath,
}

/// A timed implementation: its launch (or launches) and its registers.
struct Variant<'a> {
    /// Which implementation.
    implementation: Implementation,
    /// Registers per thread.
    registers: Option<i64>,
    /// Queues one sample's work on the default stream.
    launch: Box<dyn FnMut() -> ferrocuda::Result<()> + 'a>,
}

/// The medians of one kernel's implementations.
struct Row {
    /// What ran, at which size.
    kernel: String,
    /// (implementation, median ms, registers).
    figures: Vec<(Implementation, f64, Option<i64>)>,
}

impl Row {
    /// The median of `implementation`, if it ran.
    fn ms(&self, implementation: Implementation) -> Option<f64> {
        self.figures
            .iter()
            .find(|f| f.0 == implementation)
            .map(|f| f.1)
    }

    /// The registers of `implementation`, as text.
    fn registers(&self, implementation: Implementation) -> String {
        match self.figures.iter().find(|f| f.0 == implementation) {
            Some((_, _, Some(r))) => r.to_string(),
            Some((_, _, None)) => "?".into(),
            None => "-".into(),
        }
    }
}

/// Runs the variants alternately, 3 warm-up rounds then `rounds` timed ones
/// ([`time_alternately`]): the medians.
fn measure(
    device: &Device,
    kernel: &str,
    rounds: usize,
    variants: &mut [Variant<'_>],
) -> ExampleResult<Row> {
    let medians = time_alternately(device, kernel, rounds, variants.len(), |side, timer| {
        Ok(timer.time(&mut variants[side].launch)?)
    })?;
    Ok(Row {
        kernel: kernel.to_string(),
        figures: variants
            .iter()
            .zip(medians)
            .map(|(v, ms)| (v.implementation, ms, v.registers))
            .collect(),
    })
}

/// The CUDA C variants of entry `name` (both builds) and ferrocuda's fast-math one, launched
/// raw on the same grid: `cuda_args(i)` gives the CUDA C arguments of the i-th output buffer
/// set (1: --fmad=false, 2: default), `fast_args` the ferrocuda entry's arguments.
fn raw_variants<'a>(
    modules: &Modules,
    name: &str,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    cuda_args: [Vec<Arg>; 2],
    fast_args: Vec<Arg>,
) -> ExampleResult<Vec<Variant<'a>>> {
    let mut variants = Vec::new();
    for ((implementation, module), args) in [Implementation::CudaNoFma, Implementation::CudaFma]
        .into_iter()
        .zip([&modules.cuda_nofma, &modules.cuda_fma])
        .zip(cuda_args)
    {
        let f = module.load_function(&format!("{name}_cuda"))?;
        variants.push(Variant {
            implementation,
            registers: registers(&f),
            launch: Box::new(move || launch_args(&f, grid, block, &args, None)),
        });
    }
    if let Some((fast, ptx)) = modules
        .fast_math
        .as_ref()
        .zip(modules.fast_math_ptx.clone())
    {
        let f = fast.load_function(name)?;
        let name = name.to_string();
        variants.push(Variant {
            implementation: Implementation::FastMath,
            registers: registers(&f),
            launch: Box::new(move || launch_args(&f, grid, block, &fast_args, Some((&ptx, &name)))),
        });
    }
    Ok(variants)
}

/// The ferrocuda variant through `launch!`, with the embedded entry's registers.
fn ours<'a>(
    modules: &Modules,
    name: &str,
    launch: impl FnMut() -> ferrocuda::Result<()> + 'a,
) -> ExampleResult<Variant<'a>> {
    Ok(Variant {
        implementation: Implementation::Ferrocuda,
        registers: registers(&modules.ours.load_function(name)?),
        launch: Box::new(launch),
    })
}

/// Times entry `name` (in the table as `label`): ferrocuda's `launch_ours` first, then the
/// raw variants of [`raw_variants`] on the same `(grid, block)`, as [`measure`] does.
#[expect(
    clippy::too_many_arguments,
    reason = "one call per kernel, each argument named at the call"
)]
fn time_kernel<'a>(
    device: &Device,
    modules: &Modules,
    (name, label): (&str, &str),
    rounds: usize,
    (grid, block): ((u32, u32, u32), (u32, u32, u32)),
    cuda_args: [Vec<Arg>; 2],
    fast_args: Vec<Arg>,
    launch_ours: impl FnMut() -> ferrocuda::Result<()> + 'a,
) -> ExampleResult<Row> {
    let mut variants = raw_variants(modules, name, grid, block, cuda_args, fast_args)?;
    variants.insert(0, ours(modules, name, launch_ours)?);
    measure(device, label, rounds, &mut variants)
}

/// Output buffers, one per implementation: ferrocuda, CUDA C `--fmad=false`, CUDA C default,
/// ferrocuda fast math.
fn outputs<T: ferrocuda::DeviceCopy + Default>(
    device: &Device,
    len: usize,
) -> ferrocuda::Result<[DeviceBuffer<T>; 4]> {
    Ok([
        DeviceBuffer::zeros(device, len)?,
        DeviceBuffer::zeros(device, len)?,
        DeviceBuffer::zeros(device, len)?,
        DeviceBuffer::zeros(device, len)?,
    ])
}

/// Checks the outputs of one kernel: ferrocuda against CUDA C `--fmad=false` bit for bit, the
/// contracting builds against ferrocuda within `tolerance` (absolute plus relative).
fn cross_check(
    kernel: &str,
    fast_math: bool,
    outs: &[DeviceBuffer<f32>; 4],
    tolerance: f32,
) -> ExampleResult {
    let ours = outs[0].to_vec()?;
    if outs[1]
        .to_vec()?
        .iter()
        .zip(&ours)
        .any(|(a, b)| a.to_bits() != b.to_bits())
    {
        return Err(format!(
            "{kernel}: ferrocuda and CUDA C --fmad=false differ (they must agree bit for bit)"
        )
        .into());
    }
    let mut checked = vec![("CUDA C default", outs[2].to_vec()?)];
    if fast_math {
        checked.push(("ferrocuda fast math", outs[3].to_vec()?));
    }
    for (what, values) in checked {
        compare(&values, &ours, tolerance)
            .map_err(|m| format!("{kernel}: {what} against ferrocuda: {m:?}"))?;
    }
    Ok(())
}

/// HotSpot on a 8192 x 8192 grid, 2 steps per launch (Rodinia's pyramid height 2), 16x16 blocks.
fn hotspot_row(device: &Device, modules: &Modules, rounds: usize) -> ExampleResult<Row> {
    let (rows, cols, iteration) = (8192usize, 8192usize, 2usize);
    let k = HotspotCoefficients::for_grid(rows, cols);
    let temp: Vec<f32> = random_f32(rows * cols, 11)
        .iter()
        .map(|v| 323.0 + 10.0 * v)
        .collect();
    let power: Vec<f32> = random_f32(rows * cols, 12)
        .iter()
        .map(|v| 0.35 + 0.35 * v)
        .collect();
    let (temp, power) = (
        DeviceBuffer::from_slice(device, &temp)?,
        DeviceBuffer::from_slice(device, &power)?,
    );
    let mut outs = outputs::<f32>(device, rows * cols)?;
    let grid = launch_grid(rows, cols, iteration);
    let (it, c, r) = (iteration as i32, cols as i32, rows as i32);
    let tail = [c, r, it, it].map(Arg::I32);
    let coefficients = [k.cap, k.rx, k.ry, k.rz, k.step].map(Arg::F32);
    let cuda = |out: &DeviceBuffer<f32>| {
        let mut args = vec![
            Arg::I32(it),
            Arg::Ptr(power.device_ptr()),
            Arg::Ptr(temp.device_ptr()),
            Arg::Ptr(out.device_ptr()),
        ];
        args.extend(tail);
        args.extend(coefficients);
        args
    };
    let mut fast = vec![
        Arg::I32(it),
        Arg::Slice(power.device_ptr(), rows * cols),
        Arg::Slice(temp.device_ptr(), rows * cols),
        Arg::Slice(outs[3].device_ptr(), rows * cols),
    ];
    fast.extend(tail);
    fast.extend(coefficients);
    let it_u32 = iteration as u32;
    let cuda_args = [cuda(&outs[1]), cuda(&outs[2])];
    let [out0, ..] = &mut outs;
    let row = time_kernel(
        device,
        modules,
        ("hotspot", "hotspot 8192^2, 2 steps per launch"),
        rounds,
        ((grid.0, grid.1, 1), (16, 16, 1)),
        cuda_args,
        fast,
        || launch!(hotspot[grid, (16, 16)](it_u32, &power, &temp, &mut *out0, cols as u32, rows as u32, it_u32, it_u32, k.cap, k.rx, k.ry, k.rz, k.step)),
    )?;
    cross_check("hotspot", modules.fast_math.is_some(), &outs, 1e-5)?;
    Ok(row)
}

/// PathFinder over 1,000,000 columns and 101 rows, 20 rows per launch (Rodinia's pyramid
/// height 20), 256 threads per block: one sample is the whole sweep (5 launches), each
/// implementation ping-ponging its own pair of rows. The timed sweeps start from whatever the
/// previous one left (the work does not depend on the values); one more sweep from the first row
/// of the grid, after the timing, gives the results that are compared.
fn pathfinder_row(device: &Device, modules: &Modules, rounds: usize) -> ExampleResult<Row> {
    let (rows, cols, pyramid) = (101usize, 1_000_000usize, 20usize);
    let weights: Vec<i32> = random_f32(rows * cols, 13)
        .iter()
        .map(|v| ((v + 1.0) * 5.0) as i32)
        .collect();
    let wall = DeviceBuffer::from_slice(device, &weights[cols..])?;
    let pairs: Vec<Rc<RefCell<[DeviceBuffer<i32>; 2]>>> = (0..4)
        .map(|_| {
            Ok(Rc::new(RefCell::new([
                DeviceBuffer::zeros(device, cols)?,
                DeviceBuffer::zeros(device, cols)?,
            ])))
        })
        .collect::<ferrocuda::Result<_>>()?;
    // (first row, rows) of each launch; the sweep ends in the second row of a pair after an odd
    // number of launches.
    let launches: Vec<(usize, usize)> = (0..rows - 1)
        .step_by(pyramid)
        .map(|t| (t, pyramid.min(rows - 1 - t)))
        .collect();
    let last = launches.len() % 2;
    let fast_ptx = modules.fast_math_ptx.clone();
    let raw_sweep =
        |f: CudaFunction, pair: &Rc<RefCell<[DeviceBuffer<i32>; 2]>>, ferrocuda_entry: bool| {
            let launches = launches.clone();
            let ptx = fast_ptx.clone();
            let w = wall.device_ptr();
            let pair = pair.borrow();
            let rows_of_pair = [pair[0].device_ptr(), pair[1].device_ptr()];
            move || -> ferrocuda::Result<()> {
                for (i, &(t, iteration)) in launches.iter().enumerate() {
                    let (src, dst) = (rows_of_pair[i % 2], rows_of_pair[1 - i % 2]);
                    let it = Arg::I32(iteration as i32);
                    let (cols_arg, t_arg) = (Arg::I32(cols as i32), Arg::I32(t as i32));
                    let args = if ferrocuda_entry {
                        [
                            it,
                            Arg::Slice(w, (rows - 1) * cols),
                            Arg::Slice(src, cols),
                            Arg::Slice(dst, cols),
                            cols_arg,
                            t_arg,
                            it,
                        ]
                    } else {
                        [
                            it,
                            Arg::Ptr(w),
                            Arg::Ptr(src),
                            Arg::Ptr(dst),
                            cols_arg,
                            t_arg,
                            it,
                        ]
                    };
                    let blocks = launch_blocks(cols, iteration);
                    let entry =
                        ferrocuda_entry.then(|| (ptx.as_deref().unwrap_or_default(), "pathfinder"));
                    launch_args(&f, (blocks, 1, 1), (256, 1, 1), &args, entry)?;
                }
                Ok(())
            }
        };
    let ours_pair = pairs[0].clone();
    let ours_launches = launches.clone();
    let wall_ref = &wall;
    let mut variants = vec![ours(modules, "pathfinder", move || {
        let mut pair = ours_pair.borrow_mut();
        let [a, b] = &mut *pair;
        for (i, &(t, iteration)) in ours_launches.iter().enumerate() {
            let (src, dst) = if i % 2 == 0 {
                (&*a, &mut *b)
            } else {
                (&*b, &mut *a)
            };
            let it = iteration as u32;
            let blocks = launch_blocks(cols, iteration);
            launch!(pathfinder[blocks, 256](it, wall_ref, src, dst, cols as u32, t as u32, it))?;
        }
        Ok(())
    })?];
    for (i, (implementation, module)) in [
        (Implementation::CudaNoFma, &modules.cuda_nofma),
        (Implementation::CudaFma, &modules.cuda_fma),
    ]
    .into_iter()
    .enumerate()
    {
        let f = module.load_function("pathfinder_cuda")?;
        let r = registers(&f);
        variants.push(Variant {
            implementation,
            registers: r,
            launch: Box::new(raw_sweep(f, &pairs[i + 1], false)),
        });
    }
    if let Some(fast) = &modules.fast_math {
        let f = fast.load_function("pathfinder")?;
        let r = registers(&f);
        variants.push(Variant {
            implementation: Implementation::FastMath,
            registers: r,
            launch: Box::new(raw_sweep(f, &pairs[3], true)),
        });
    }
    let row = measure(
        device,
        "pathfinder 10^6 columns x 101 rows, 20 rows per launch",
        rounds,
        &mut variants,
    )?;
    // The checked sweep, from the grid's first row.
    for (pair, variant) in pairs.iter().zip(&mut variants) {
        pair.borrow_mut()[0].copy_from(&weights[..cols])?;
        (variant.launch)()?;
    }
    let ours = pairs[0].borrow()[last].to_vec()?;
    for (pair, variant) in pairs.iter().zip(&variants).skip(1) {
        if pair.borrow()[last].to_vec()? != ours {
            return Err(format!(
                "pathfinder: {:?} differs from ferrocuda",
                variant.implementation
            )
            .into());
        }
    }
    Ok(row)
}

/// The 3-D 7-point stencil on a 512^3 grid, blocks of 32 x 8 x 1 on a 3-D grid.
fn stencil3d_row(device: &Device, modules: &Modules, rounds: usize) -> ExampleResult<Row> {
    let n = 512usize;
    let (c0, c1) = (0.4f32, 0.1f32);
    let input = DeviceBuffer::from_slice(device, &random_f32(n * n * n, 14))?;
    let mut outs = outputs::<f32>(device, n * n * n)?;
    let grid = ((n / 32) as u32, (n / 8) as u32, n as u32);
    let dims = [n as i32; 3].map(Arg::I32);
    let cuda = |out: &DeviceBuffer<f32>| {
        let mut args = vec![Arg::Ptr(input.device_ptr()), Arg::Ptr(out.device_ptr())];
        args.extend(dims);
        args.extend([Arg::F32(c0), Arg::F32(c1)]);
        args
    };
    let mut fast = vec![
        Arg::Slice(input.device_ptr(), n * n * n),
        Arg::Slice(outs[3].device_ptr(), n * n * n),
    ];
    fast.extend(dims);
    fast.extend([Arg::F32(c0), Arg::F32(c1)]);
    let nn = n as u32;
    let cuda_args = [cuda(&outs[1]), cuda(&outs[2])];
    let [out0, ..] = &mut outs;
    let row = time_kernel(
        device,
        modules,
        ("stencil3d", "stencil3d 512^3, 7 points"),
        rounds,
        (grid, (32, 8, 1)),
        cuda_args,
        fast,
        || launch!(stencil3d[grid, (32, 8, 1)](&input, &mut *out0, nn, nn, nn, c0, c1)),
    )?;
    cross_check("stencil3d", modules.fast_math.is_some(), &outs, 1e-5)?;
    Ok(row)
}

/// The 7x7 convolution of a 4096 x 4096 image, filter in constant memory, 16x16 blocks.
fn convolution_row(device: &Device, modules: &Modules, rounds: usize) -> ExampleResult<Row> {
    let n = 4096usize;
    let weights: [f32; FILTER_SIZE * FILTER_SIZE] = random_f32(FILTER_SIZE * FILTER_SIZE, 15)
        .try_into()
        .map_err(|_| "filter size")?;
    FILTER.write(device, &weights)?;
    for module in [&modules.cuda_nofma, &modules.cuda_fma]
        .into_iter()
        .chain(&modules.fast_math)
    {
        write_constant(modules, module, "FILTER", &weights)?;
    }
    let image = DeviceBuffer::from_slice(device, &random_f32(n * n, 16))?;
    let mut outs = outputs::<f32>(device, n * n)?;
    let grid = ((n / 16) as u32, (n / 16) as u32, 1);
    let cuda = |out: &DeviceBuffer<f32>| {
        vec![
            Arg::Ptr(image.device_ptr()),
            Arg::Ptr(out.device_ptr()),
            Arg::I32(n as i32),
            Arg::I32(n as i32),
        ]
    };
    let fast = vec![
        Arg::Slice(image.device_ptr(), n * n),
        Arg::Slice(outs[3].device_ptr(), n * n),
        Arg::I32(n as i32),
        Arg::I32(n as i32),
    ];
    let nn = n as u32;
    let cuda_args = [cuda(&outs[1]), cuda(&outs[2])];
    let [out0, ..] = &mut outs;
    let row = time_kernel(
        device,
        modules,
        ("convolution", "convolution 4096^2, 7x7 constant filter"),
        rounds,
        (grid, (16, 16, 1)),
        cuda_args,
        fast,
        || launch!(convolution[(grid.0, grid.1), (16, 16)](&image, &mut *out0, nn, nn)),
    )?;
    cross_check("convolution", modules.fast_math.is_some(), &outs, 1e-4)?;
    Ok(row)
}

/// The n-body step of 131072 bodies (512 blocks, about 4 per multiprocessor of an H100), 256 per
/// block and per shared tile.
fn nbody_row(device: &Device, modules: &Modules, rounds: usize) -> ExampleResult<Row> {
    let n = 131_072usize;
    let (dt, softening2) = (0.001f32, 0.0025f32);
    let float4s = |seed: u64, mass: bool| -> Vec<Float4> {
        random_f32(4 * n, seed)
            .chunks(4)
            .map(|c| Float4 {
                x: c[0],
                y: c[1],
                z: c[2],
                w: if mass { 1.0 + 0.5 * c[3] } else { 0.0 },
            })
            .collect()
    };
    let positions = DeviceBuffer::from_slice(device, &float4s(17, true))?;
    let velocities = DeviceBuffer::from_slice(device, &float4s(18, false))?;
    let mut new_positions = outputs::<Float4>(device, n)?;
    let mut new_velocities = outputs::<Float4>(device, n)?;
    let grid = ((n / 256) as u32, 1, 1);
    let cuda = |p: &DeviceBuffer<Float4>, v: &DeviceBuffer<Float4>| {
        vec![
            Arg::Ptr(positions.device_ptr()),
            Arg::Ptr(velocities.device_ptr()),
            Arg::Ptr(p.device_ptr()),
            Arg::Ptr(v.device_ptr()),
            Arg::I32(n as i32),
            Arg::F32(dt),
            Arg::F32(softening2),
        ]
    };
    let fast = vec![
        Arg::Slice(positions.device_ptr(), n),
        Arg::Slice(velocities.device_ptr(), n),
        Arg::Slice(new_positions[3].device_ptr(), n),
        Arg::Slice(new_velocities[3].device_ptr(), n),
        Arg::F32(dt),
        Arg::F32(softening2),
    ];
    let cuda_args = [
        cuda(&new_positions[1], &new_velocities[1]),
        cuda(&new_positions[2], &new_velocities[2]),
    ];
    let ([p0, ..], [v0, ..]) = (&mut new_positions, &mut new_velocities);
    let row = time_kernel(
        device,
        modules,
        ("nbody", "nbody 131072 bodies, 256-body shared tiles"),
        rounds,
        (grid, (256, 1, 1)),
        cuda_args,
        fast,
        || launch!(nbody[grid.0, 256](&positions, &velocities, &mut *p0, &mut *v0, dt, softening2)),
    )?;
    // Positions and velocities as floats, for the same checks as the other kernels.
    let flat = |b: &DeviceBuffer<Float4>| -> ferrocuda::Result<Vec<f32>> {
        Ok(b.to_vec()?
            .iter()
            .flat_map(|f| [f.x, f.y, f.z, f.w])
            .collect())
    };
    let as_f32 = |buffers: &[DeviceBuffer<Float4>; 4]| -> ExampleResult<[DeviceBuffer<f32>; 4]> {
        let mut out = Vec::new();
        for b in buffers {
            out.push(DeviceBuffer::from_slice(device, &flat(b)?)?);
        }
        Ok(out.try_into().map_err(|_| "four buffers")?)
    };
    cross_check(
        "nbody positions",
        modules.fast_math.is_some(),
        &as_f32(&new_positions)?,
        1e-4,
    )?;
    cross_check(
        "nbody velocities",
        modules.fast_math.is_some(),
        &as_f32(&new_velocities)?,
        1e-4,
    )?;
    Ok(row)
}

/// The CSR product of a random 2^22 x 2^22 matrix with 4 to 60 non-zeros per row (about 32 on
/// average, 134 million in all) and a random vector, one thread per row, 256 per block.
fn spmv_row(device: &Device, modules: &Modules, rounds: usize) -> ExampleResult<Row> {
    let rows = 1usize << 22;
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0u32);
    let counts = random_f32(rows, 19);
    let mut total = 0u32;
    for c in &counts {
        total += 4 + ((c + 1.0) * 28.0) as u32;
        offsets.push(total);
    }
    let nonzeros = total as usize;
    let columns: Vec<u32> = random_f32(nonzeros, 20)
        .iter()
        .map(|v| ((v + 1.0) * 0.5 * rows as f32) as u32 % rows as u32)
        .collect();
    let (offsets, columns) = (
        DeviceBuffer::from_slice(device, &offsets)?,
        DeviceBuffer::from_slice(device, &columns)?,
    );
    let values = DeviceBuffer::from_slice(device, &random_f32(nonzeros, 21))?;
    let x = DeviceBuffer::from_slice(device, &random_f32(rows, 22))?;
    let mut outs = outputs::<f32>(device, rows)?;
    let grid = (rows.div_ceil(256) as u32, 1, 1);
    let cuda = |y: &DeviceBuffer<f32>| {
        vec![
            Arg::Ptr(offsets.device_ptr()),
            Arg::Ptr(columns.device_ptr()),
            Arg::Ptr(values.device_ptr()),
            Arg::Ptr(x.device_ptr()),
            Arg::Ptr(y.device_ptr()),
            Arg::I32(rows as i32),
        ]
    };
    let fast = vec![
        Arg::Slice(offsets.device_ptr(), rows + 1),
        Arg::Slice(columns.device_ptr(), nonzeros),
        Arg::Slice(values.device_ptr(), nonzeros),
        Arg::Slice(x.device_ptr(), rows),
        Arg::Slice(outs[3].device_ptr(), rows),
    ];
    let cuda_args = [cuda(&outs[1]), cuda(&outs[2])];
    let [out0, ..] = &mut outs;
    let row = time_kernel(
        device,
        modules,
        ("spmv_csr", "spmv_csr 2^22 rows, 32 non-zeros per row"),
        rounds,
        (grid, (256, 1, 1)),
        cuda_args,
        fast,
        || launch!(spmv_csr[grid.0, 256](&offsets, &columns, &values, &x, &mut *out0)),
    )?;
    cross_check("spmv_csr", modules.fast_math.is_some(), &outs, 1e-4)?;
    Ok(row)
}

/// `cuda_ms / ours_ms` as text with the verdict against [`TARGET`].
fn ratio(ours: Option<f64>, cuda: Option<f64>) -> (String, String) {
    match (ours, cuda) {
        (Some(o), Some(c)) if o > 0.0 => {
            let r = c / o;
            let verdict = if r >= TARGET { "met" } else { "MISSED" };
            (format!("{r:.3}x"), verdict.to_string())
        }
        _ => ("n/a".into(), "n/a".into()),
    }
}

/// The report: one line per kernel.
fn table(rows: &[Row], fast_math: bool) -> String {
    let ms = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.4}"));
    let mut out = String::new();
    let _ = write!(
        out,
        "| kernel | ferrocuda ms | CUDA C --fmad=false ms | ferrocuda / CUDA C (fast math off) | >= {TARGET}x |"
    );
    if fast_math {
        out.push_str(
            " ferrocuda fast math ms | CUDA C default ms | fast math / CUDA C default | >= 0.95x |",
        );
    } else {
        out.push_str(" CUDA C default ms | ferrocuda / CUDA C default (fast math not built) |");
    }
    out.push_str(" registers: ferrocuda / C --fmad=false / C default");
    out.push_str(if fast_math {
        " / fast math |\n"
    } else {
        " |\n"
    });
    let columns = if fast_math { 10 } else { 8 };
    out.push_str(&"|---".repeat(columns));
    out.push_str("|\n");
    for row in rows {
        let (ours, nofma, fma, fast) = (
            row.ms(Implementation::Ferrocuda),
            row.ms(Implementation::CudaNoFma),
            row.ms(Implementation::CudaFma),
            row.ms(Implementation::FastMath),
        );
        let (r, verdict) = ratio(ours, nofma);
        let _ = write!(
            out,
            "| {} | {} | {} | {r} | {verdict} |",
            row.kernel,
            ms(ours),
            ms(nofma)
        );
        if fast_math {
            let (r, verdict) = ratio(fast, fma);
            let _ = write!(out, " {} | {} | {r} | {verdict} |", ms(fast), ms(fma));
        } else {
            let _ = write!(out, " {} | {} |", ms(fma), ratio(ours, fma).0);
        }
        let _ = write!(
            out,
            " {} / {} / {}",
            row.registers(Implementation::Ferrocuda),
            row.registers(Implementation::CudaNoFma),
            row.registers(Implementation::CudaFma)
        );
        if fast_math {
            let _ = write!(out, " / {}", row.registers(Implementation::FastMath));
        }
        out.push_str(" |\n");
    }
    out
}

fn main() -> ExampleResult {
    let nofma = required_arg(
        "--cuda-nofma-ptx",
        "idiomatic.cu built by nvcc -O3 --fmad=false -ptx",
    )?;
    let fma = required_arg("--cuda-fma-ptx", "idiomatic.cu built by nvcc -O3 -ptx")?;
    let rounds = rounds_arg(5)?;
    let (device, context) = gpu("bench_idiomatic")?;
    let load = |path: &str| load_ptx(&context, path);
    let fast_math_path = optional_arg("--fast-math-ptx");
    let modules = Modules {
        cuda_nofma: load(&nofma)?,
        cuda_fma: load(&fma)?,
        ours: context.load_module(Ptx::from_src(kernels_idiomatic::__FERROCUDA_MODULE.ptx))?,
        fast_math: fast_math_path.as_deref().map(load).transpose()?,
        fast_math_ptx: fast_math_path
            .map(|p| std::fs::read_to_string(&p).map_err(|e| format!("reading {p}: {e}")))
            .transpose()?
            .map(Rc::from),
        context,
    };
    // A kernel that fails (a result that differs, a driver error) is reported and the others
    // still run: the table shows what was measured, and the exit status says that one failed.
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (kernel, row_of) in [
        (
            "hotspot",
            hotspot_row as fn(&Device, &Modules, usize) -> ExampleResult<Row>,
        ),
        ("pathfinder", pathfinder_row),
        ("stencil3d", stencil3d_row),
        ("convolution", convolution_row),
        ("nbody", nbody_row),
        ("spmv_csr", spmv_row),
    ] {
        match row_of(&device, &modules, rounds) {
            Ok(row) => rows.push(row),
            Err(e) => record_failure(&mut failures, kernel, e),
        }
    }
    let report = format!(
        "# Idiomatic kernels against CUDA C on {device}\n\nMedians of {rounds} runs after 3 warm-up rounds, one launch (pathfinder: one sweep of 5 launches) between two CUDA events; the ratio is CUDA C's time over ferrocuda's. Outputs checked: ferrocuda and CUDA C --fmad=false bit for bit, the contracting builds within a tolerance.\n\n{}",
        table(&rows, modules.fast_math.is_some())
    );
    finish(&report, &failures, "kernel(s)")
}
