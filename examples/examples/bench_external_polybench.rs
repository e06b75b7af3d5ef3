//! The external suite's Rodinia CFD (euler3d) and PolyBench-GPU kernels (GPU only):
//! `kernels-external`'s euler3d, fdtd-2d, correlation and gemver kernels against their CUDA C
//! twins of `bench/external/polybench.cu`, built by nvcc on the GPU machine:
//!
//! ```text
//! nvcc -O3 --fmad=false -arch=sm_90 -ptx bench/external/polybench.cu -o polybench.ptx
//! bench_external_polybench --cuda-ptx polybench.ptx [--rounds N] [--out FILE.md]
//! ```
//!
//! Sizes: euler3d on a random mesh of 200,000 elements (Rodinia's `fvcorr.domn.193K` is not
//! available; each element's four neighbours lie within 2048 places of it, one face in 16 a
//! wing wall and one in 16 the far field); fdtd-2d on 2048 x 2048; correlation of a 2048 x
//! 2048 matrix; gemver with n = 8192. Each kernel runs on the same inputs in both
//! implementations, each on buffers of its own, alternately, one launch (the fdtd-2d step row:
//! three) between two CUDA events per sample, 3 warm-up rounds and then `--rounds` (10) timed
//! ones; the table gives the medians. Kernels that update in place run the same sequence of
//! launches on both sides, so their final states are comparable too. After timing, the two
//! outputs are compared: bit for bit (both sides round every operation as IEEE does; the CUDA C
//! is built with `--fmad=false`), or, failing that, within a relative tolerance of 1e-5 (the
//! table says which held); beyond it the kernel fails.
//!
//! The ratio is CUDA C's time over ferrocuda's (higher is better for ferrocuda). Registers are
//! the driver's. A kernel that fails is reported and the others still run; the exit status is
//! non-zero if any failed. On a machine without a GPU the program says so and exits 0.

use ferrocuda::cudarc::driver::{CudaFunction, CudaModule};
use ferrocuda::prelude::*;
use ferrocuda_examples::bench_harness::{cuda_ptx_suite, finish, record_failure, time_pair};
use ferrocuda_examples::{ExampleResult, launch_raw, param, random_f32, registers};
use kernels_external::correlation::{
    correlation_corr, correlation_mean, correlation_reduce, correlation_std,
};
use kernels_external::euler3d::{
    FarField, NNB, NVAR, euler3d_compute_flux, euler3d_compute_step_factor, euler3d_time_step,
    far_field,
};
use kernels_external::fdtd2d::{fdtd_step1, fdtd_step2, fdtd_step3};
use kernels_external::gemver::{gemver_add, gemver_outer, gemver_product, gemver_transposed};
use std::fmt::Write as _;
use std::sync::Arc;

/// The relative tolerance (`|a - b| <= TOLERANCE * max(1, |b|)`) accepted where the two sides
/// do not agree bit for bit.
const TOLERANCE: f32 = 1e-5;

/// One parameter of a raw launch of a CUDA C twin.
enum Arg {
    /// A device pointer.
    Ptr(u64),
    /// An `int`.
    I32(i32),
    /// A `float`.
    F32(f32),
    /// The euler3d far-field state, passed by value (`struct FarField`, the same C layout).
    Far(FarField),
}

/// A CUDA C twin: its function and the grid it is launched on.
struct Twin {
    /// The loaded entry.
    function: CudaFunction,
    /// Its registers per thread.
    registers: Option<i64>,
    /// Grid of the launch.
    grid: (u32, u32, u32),
    /// Block of the launch.
    block: (u32, u32, u32),
}

impl Twin {
    /// Entry `<name>_cuda` of `module`, launched on `grid` x `block`.
    fn new(
        module: &Arc<CudaModule>,
        name: &str,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
    ) -> ExampleResult<Twin> {
        let function = module
            .load_function(&format!("{name}_cuda"))
            .map_err(|e| format!("loading {name}_cuda: {e:?}"))?;
        Ok(Twin {
            registers: registers(&function),
            function,
            grid,
            block,
        })
    }

    /// Launches the twin with `args` on the default stream.
    fn launch(&self, args: &[Arg]) -> ferrocuda::Result<()> {
        let mut params: Vec<*mut std::ffi::c_void> = args
            .iter()
            .map(|a| match a {
                Arg::Ptr(p) => param(p),
                Arg::I32(v) => param(v),
                Arg::F32(v) => param(v),
                Arg::Far(f) => param(f),
            })
            .collect();
        // SAFETY: the callers give one argument per parameter of the entry, in its order and of
        // its types (the signatures of polybench.cu; `FarField` is `#[repr(C)]` with the layout
        // of the C struct), `args` outlives the call (the driver copies the values at launch),
        // and every pointer is the address of a live `DeviceBuffer` that is read back (which
        // synchronizes) before it is dropped.
        unsafe { launch_raw(&self.function, self.grid, self.block, &mut params) }
    }
}

/// One line of the table.
struct Row {
    /// What ran, at which size.
    kernel: String,
    /// ferrocuda's median ms.
    ours_ms: f64,
    /// CUDA C's median ms.
    cuda_ms: f64,
    /// ferrocuda's registers per thread.
    ours_registers: Option<u32>,
    /// CUDA C's registers per thread.
    cuda_registers: Option<i64>,
    /// How the outputs agreed, or how they differed (a failure).
    agreement: Result<String, String>,
}

/// Times `ours` and `cuda` alternately, each sample one call between the timer's events
/// ([`time_pair`]): 3 warm-up rounds, then `rounds` timed ones; the medians (ferrocuda, CUDA C).
fn measure(
    device: &Device,
    kernel: &str,
    rounds: usize,
    ours: &mut dyn FnMut() -> ferrocuda::Result<()>,
    cuda: &mut dyn FnMut() -> ferrocuda::Result<()>,
) -> ExampleResult<(f64, f64)> {
    time_pair(
        device,
        kernel,
        rounds,
        |timer| Ok(timer.time(&mut *ours)?),
        |timer| Ok(timer.time(&mut *cuda)?),
    )
}

/// Compares ferrocuda's output with CUDA C's: "bit for bit", or the largest relative
/// difference when it is within [`TOLERANCE`], or an error naming the first element beyond.
fn agree(what: &str, ours: &DeviceBuffer<f32>, cuda: &DeviceBuffer<f32>) -> Result<String, String> {
    let read = |b: &DeviceBuffer<f32>| b.to_vec().map_err(|e| format!("{what}: {e}"));
    let (a, b) = (read(ours)?, read(cuda)?);
    if a.len() != b.len() {
        return Err(format!("{what}: {} values against {}", a.len(), b.len()));
    }
    if a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()) {
        return Ok("bit for bit".into());
    }
    let mut worst = 0.0f32;
    for (i, (x, y)) in a.iter().zip(&b).enumerate() {
        let error = (x - y).abs() / y.abs().max(1.0);
        if error.is_nan() || error > TOLERANCE {
            return Err(format!(
                "{what}: element {i} is {x} in ferrocuda and {y} in CUDA C (tolerance {TOLERANCE})"
            ));
        }
        worst = worst.max(error);
    }
    Ok(format!("within {worst:.1e} (not bit for bit)"))
}

/// The agreements of several outputs, joined.
fn agree_all(pairs: &[(&str, &DeviceBuffer<f32>, &DeviceBuffer<f32>)]) -> Result<String, String> {
    let mut notes = Vec::new();
    for (what, ours, cuda) in pairs {
        notes.push(format!("{what}: {}", agree(what, ours, cuda)?));
    }
    Ok(notes.join("; "))
}

/// Two copies of `data` on the device: ferrocuda's and CUDA C's.
fn pair(device: &Device, data: &[f32]) -> ferrocuda::Result<[DeviceBuffer<f32>; 2]> {
    Ok([
        DeviceBuffer::from_slice(device, data)?,
        DeviceBuffer::from_slice(device, data)?,
    ])
}

/// The benchmark's mesh: element count, neighbours, normals, areas, variables.
struct Mesh {
    nelr: usize,
    neighbours: Vec<i32>,
    normals: Vec<f32>,
    areas: Vec<f32>,
    variables: Vec<f32>,
}

/// A random mesh of `nelr` elements (see the module documentation) with a physical state.
fn random_mesh(nelr: usize) -> Mesh {
    let picks = random_f32(NNB * nelr, 31);
    let offsets = random_f32(NNB * nelr, 32);
    let neighbours = (0..NNB * nelr)
        .map(|k| {
            let i = (k % nelr) as i64;
            let pick = picks[k];
            if pick < -0.875 {
                -1
            } else if pick < -0.75 {
                -2
            } else {
                let nb = i + (offsets[k] * 2048.0) as i64;
                nb.clamp(0, nelr as i64 - 1) as i32
            }
        })
        .collect();
    let normals = random_f32(3 * NNB * nelr, 33)
        .iter()
        .map(|v| 0.1 * v)
        .collect();
    let areas = random_f32(nelr, 34).iter().map(|v| 1.0 + 0.5 * v).collect();
    let state = random_f32(5 * nelr, 35);
    let mut variables = vec![0.0f32; NVAR * nelr];
    for i in 0..nelr {
        let density = 1.5 + 0.5 * state[5 * i];
        let velocity = [1, 2, 3].map(|d| 0.5 * state[5 * i + d]);
        let pressure = 1.0 + 0.5 * state[5 * i + 4];
        let speed_sqd: f32 = velocity.iter().map(|v| v * v).sum();
        variables[i] = density;
        for d in 0..3 {
            variables[i + (1 + d) * nelr] = density * velocity[d];
        }
        variables[i + 4 * nelr] = pressure / 0.4 + 0.5 * density * speed_sqd;
    }
    Mesh {
        nelr,
        neighbours,
        normals,
        areas,
        variables,
    }
}

/// The three euler3d kernels on a 200,000-element mesh, blocks of 192.
fn euler3d_rows(device: &Device, cuda: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Vec<Row>> {
    let mesh = random_mesh(200_000);
    let nelr = mesh.nelr;
    let n = nelr as u32;
    let far = far_field(1.2, 0.0);
    let grid = (nelr.div_ceil(192) as u32, 1, 1);
    let block = (192, 1, 1);
    let neighbours = DeviceBuffer::from_slice(device, &mesh.neighbours)?;
    let normals = DeviceBuffer::from_slice(device, &mesh.normals)?;
    let areas = DeviceBuffer::from_slice(device, &mesh.areas)?;
    let variables = DeviceBuffer::from_slice(device, &mesh.variables)?;
    let mut rows = Vec::new();

    // compute_step_factor.
    let [mut ours, theirs] = pair(device, &vec![0.0; nelr])?;
    let twin = Twin::new(cuda, "euler3d_compute_step_factor", grid, block)?;
    let args = [
        Arg::Ptr(variables.device_ptr()),
        Arg::Ptr(areas.device_ptr()),
        Arg::Ptr(theirs.device_ptr()),
        Arg::I32(n as i32),
    ];
    let label = "euler3d compute_step_factor, 200k elements";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(euler3d_compute_step_factor[grid.0, 192](&variables, &areas, &mut ours, n)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: euler3d_compute_step_factor.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("step factors", &ours, &theirs),
    });
    let step_factors = ours;

    // compute_flux.
    let [mut ours, theirs] = pair(device, &vec![0.0; NVAR * nelr])?;
    let twin = Twin::new(cuda, "euler3d_compute_flux", grid, block)?;
    let args = [
        Arg::Ptr(neighbours.device_ptr()),
        Arg::Ptr(normals.device_ptr()),
        Arg::Ptr(variables.device_ptr()),
        Arg::Far(far),
        Arg::Ptr(theirs.device_ptr()),
        Arg::I32(n as i32),
    ];
    let label = "euler3d compute_flux, 200k elements";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || {
            launch!(euler3d_compute_flux[grid.0, 192](
                &neighbours, &normals, &variables, far, &mut ours, n
            ))
        },
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: euler3d_compute_flux.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("fluxes", &ours, &theirs),
    });
    let fluxes = ours;

    // time_step (stage j = 1).
    let [mut ours, theirs] = pair(device, &vec![0.0; NVAR * nelr])?;
    let twin = Twin::new(cuda, "euler3d_time_step", grid, block)?;
    let args = [
        Arg::I32(1),
        Arg::Ptr(variables.device_ptr()),
        Arg::Ptr(theirs.device_ptr()),
        Arg::Ptr(step_factors.device_ptr()),
        Arg::Ptr(fluxes.device_ptr()),
        Arg::I32(n as i32),
    ];
    let label = "euler3d time_step, 200k elements";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || {
            launch!(euler3d_time_step[grid.0, 192](
                1i32, &variables, &mut ours, &step_factors, &fluxes, n
            ))
        },
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: euler3d_time_step.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("variables", &ours, &theirs),
    });
    Ok(rows)
}

/// The three fdtd-2d kernels on 2048 x 2048 (each sample one launch, the state evolving in
/// place on both sides alike), then whole time steps (three launches per sample).
fn fdtd2d_rows(device: &Device, cuda: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Vec<Row>> {
    let (nx, ny) = (2048usize, 2048usize);
    let (nxu, nyu) = (nx as u32, ny as u32);
    let (nxi, nyi) = (nx as i32, ny as i32);
    let tmax = 16usize;
    let fict = DeviceBuffer::from_slice(device, &random_f32(tmax, 41))?;
    let [mut ex, ex_c] = pair(device, &random_f32(nx * (ny + 1), 42))?;
    let [mut ey, ey_c] = pair(device, &random_f32((nx + 1) * ny, 43))?;
    let [mut hz, hz_c] = pair(device, &random_f32(nx * ny, 44))?;
    let grid = (nyu.div_ceil(32), nxu.div_ceil(8), 1);
    let block = (32, 8, 1);
    let (g, b) = ((grid.0, grid.1), (32, 8));
    let twins = [
        Twin::new(cuda, "fdtd_step1", grid, block)?,
        Twin::new(cuda, "fdtd_step2", grid, block)?,
        Twin::new(cuda, "fdtd_step3", grid, block)?,
    ];
    let step1_args = |t: i32| {
        [
            Arg::Ptr(fict.device_ptr()),
            Arg::Ptr(ey_c.device_ptr()),
            Arg::Ptr(hz_c.device_ptr()),
            Arg::I32(nxi),
            Arg::I32(nyi),
            Arg::I32(t),
        ]
    };
    let step2_args = [
        Arg::Ptr(ex_c.device_ptr()),
        Arg::Ptr(hz_c.device_ptr()),
        Arg::I32(nxi),
        Arg::I32(nyi),
    ];
    let step3_args = [
        Arg::Ptr(ex_c.device_ptr()),
        Arg::Ptr(ey_c.device_ptr()),
        Arg::Ptr(hz_c.device_ptr()),
        Arg::I32(nxi),
        Arg::I32(nyi),
    ];
    let mut rows = Vec::new();
    let mut times = Vec::new();
    let label1 = "fdtd-2d step1 (ey), 2048^2";
    times.push(measure(
        device,
        label1,
        rounds,
        &mut || launch!(fdtd_step1[g, b](&fict, &mut ey, &hz, nxu, nyu, 0u32)),
        &mut || twins[0].launch(&step1_args(0)),
    )?);
    let label2 = "fdtd-2d step2 (ex), 2048^2";
    times.push(measure(
        device,
        label2,
        rounds,
        &mut || launch!(fdtd_step2[g, b](&mut ex, &hz, nxu, nyu)),
        &mut || twins[1].launch(&step2_args),
    )?);
    let label3 = "fdtd-2d step3 (hz), 2048^2";
    times.push(measure(
        device,
        label3,
        rounds,
        &mut || launch!(fdtd_step3[g, b](&ex, &ey, &mut hz, nxu, nyu)),
        &mut || twins[2].launch(&step3_args),
    )?);
    let after_kernels = agree_all(&[("ex", &ex, &ex_c), ("ey", &ey, &ey_c), ("hz", &hz, &hz_c)]);
    let registers = [
        fdtd_step1.attributes(device)?.registers,
        fdtd_step2.attributes(device)?.registers,
        fdtd_step3.attributes(device)?.registers,
    ];
    for (k, (label, (ours_ms, cuda_ms))) in [label1, label2, label3].iter().zip(times).enumerate() {
        rows.push(Row {
            kernel: label.to_string(),
            ours_ms,
            cuda_ms,
            ours_registers: registers[k],
            cuda_registers: twins[k].registers,
            agreement: after_kernels.clone(),
        });
    }

    // Whole time steps, t = 0, 1, ... on each side.
    let (mut t_ours, mut t_cuda) = (0u32, 0i32);
    let label = "fdtd-2d time step (3 kernels), 2048^2";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || {
            let t = t_ours % tmax as u32;
            t_ours += 1;
            launch!(fdtd_step1[g, b](&fict, &mut ey, &hz, nxu, nyu, t))?;
            launch!(fdtd_step2[g, b](&mut ex, &hz, nxu, nyu))?;
            launch!(fdtd_step3[g, b](&ex, &ey, &mut hz, nxu, nyu))
        },
        &mut || {
            let t = t_cuda % tmax as i32;
            t_cuda += 1;
            twins[0].launch(&step1_args(t))?;
            twins[1].launch(&step2_args)?;
            twins[2].launch(&step3_args)
        },
    )?;
    rows.push(Row {
        kernel: format!("{label}, {} steps", rounds + 3),
        ours_ms,
        cuda_ms,
        ours_registers: None,
        cuda_registers: None,
        agreement: agree_all(&[("ex", &ex, &ex_c), ("ey", &ey, &ey_c), ("hz", &hz, &hz_c)]),
    });
    Ok(rows)
}

/// The four correlation kernels on a 2048 x 2048 matrix.
fn correlation_rows(
    device: &Device,
    cuda: &Arc<CudaModule>,
    rounds: usize,
) -> ExampleResult<Vec<Row>> {
    let (m, n) = (2048usize, 2048usize);
    let (mu, nu, mi, ni) = (m as u32, n as u32, m as i32, n as i32);
    let float_n = n as f32;
    let host = random_f32(n * m, 51);
    let data = DeviceBuffer::from_slice(device, &host)?;
    let columns = (m.div_ceil(256) as u32, 1, 1);
    let block = (256, 1, 1);
    let mut rows = Vec::new();

    let [mut mean, mean_c] = pair(device, &vec![0.0; m])?;
    let twin = Twin::new(cuda, "correlation_mean", columns, block)?;
    let args = [
        Arg::Ptr(data.device_ptr()),
        Arg::Ptr(mean_c.device_ptr()),
        Arg::I32(mi),
        Arg::I32(ni),
        Arg::F32(float_n),
    ];
    let label = "correlation mean, 2048 x 2048";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(correlation_mean[columns.0, 256](&data, &mut mean, mu, nu, float_n)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: correlation_mean.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("mean", &mean, &mean_c),
    });

    let [mut std_dev, std_c] = pair(device, &vec![0.0; m])?;
    let twin = Twin::new(cuda, "correlation_std", columns, block)?;
    let args = [
        Arg::Ptr(data.device_ptr()),
        Arg::Ptr(mean.device_ptr()),
        Arg::Ptr(std_c.device_ptr()),
        Arg::I32(mi),
        Arg::I32(ni),
        Arg::F32(float_n),
    ];
    let label = "correlation std dev, 2048 x 2048";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(correlation_std[columns.0, 256](&data, &mean, &mut std_dev, mu, nu, float_n)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: correlation_std.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("std dev", &std_dev, &std_c),
    });

    // reduce, in place on copies of the data (the same launches on both sides).
    let [mut reduced, reduced_c] = pair(device, &host)?;
    let grid = (mu.div_ceil(32), nu.div_ceil(8), 1);
    let twin = Twin::new(cuda, "correlation_reduce", grid, (32, 8, 1))?;
    let args = [
        Arg::Ptr(mean.device_ptr()),
        Arg::Ptr(std_dev.device_ptr()),
        Arg::Ptr(reduced_c.device_ptr()),
        Arg::I32(mi),
        Arg::I32(ni),
        Arg::F32(float_n),
    ];
    let label = "correlation reduce, 2048 x 2048";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || {
            launch!(correlation_reduce[(grid.0, grid.1), (32, 8)](
                &mean, &std_dev, &mut reduced, mu, nu, float_n
            ))
        },
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: correlation_reduce.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("data", &reduced, &reduced_c),
    });

    // corr, on the data reduced once.
    let mut input = DeviceBuffer::from_slice(device, &host)?;
    launch!(correlation_reduce[(grid.0, grid.1), (32, 8)](
        &mean, &std_dev, &mut input, mu, nu, float_n
    ))?;
    let [mut symmat, symmat_c] = pair(device, &vec![0.0; m * m])?;
    let twin = Twin::new(cuda, "correlation_corr", columns, block)?;
    let args = [
        Arg::Ptr(input.device_ptr()),
        Arg::Ptr(symmat_c.device_ptr()),
        Arg::I32(mi),
        Arg::I32(ni),
    ];
    let label = "correlation corr, 2048 x 2048";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(correlation_corr[columns.0, 256](&input, &mut symmat, mu, nu)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: correlation_corr.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("symmat", &symmat, &symmat_c),
    });
    Ok(rows)
}

/// The four gemver kernels with n = 8192 (PolyBench-GPU's alpha and beta).
fn gemver_rows(device: &Device, cuda: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Vec<Row>> {
    let n = 8192usize;
    let (nu, ni) = (n as u32, n as i32);
    let (alpha, beta) = (43532.0f32, 12313.0f32);
    let host_a = random_f32(n * n, 61);
    let a = DeviceBuffer::from_slice(device, &host_a)?;
    let [u1, v1, u2, v2, y, z] =
        [62, 63, 64, 65, 66, 67].map(|seed| DeviceBuffer::from_slice(device, &random_f32(n, seed)));
    let (u1, v1, u2, v2, y, z) = (u1?, v1?, u2?, v2?, y?, z?);
    let vectors = (n.div_ceil(256) as u32, 1, 1);
    let block = (256, 1, 1);
    let mut rows = Vec::new();

    let [mut a_ours, a_cuda] = pair(device, &host_a)?;
    drop(host_a);
    let grid = (nu.div_ceil(32), nu.div_ceil(8), 1);
    let twin = Twin::new(cuda, "gemver_outer", grid, (32, 8, 1))?;
    let args = [
        Arg::Ptr(a_cuda.device_ptr()),
        Arg::Ptr(v1.device_ptr()),
        Arg::Ptr(v2.device_ptr()),
        Arg::Ptr(u1.device_ptr()),
        Arg::Ptr(u2.device_ptr()),
        Arg::I32(ni),
    ];
    let label = "gemver outer (A += u1 v1^T + u2 v2^T), n = 8192";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || {
            launch!(gemver_outer[(grid.0, grid.1), (32, 8)](
                &mut a_ours, &v1, &v2, &u1, &u2, nu
            ))
        },
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: gemver_outer.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("A", &a_ours, &a_cuda),
    });
    drop((a_ours, a_cuda));

    let x_host = random_f32(n, 68);
    let [mut x, x_c] = pair(device, &x_host)?;
    let twin = Twin::new(cuda, "gemver_transposed", vectors, block)?;
    let args = [
        Arg::Ptr(a.device_ptr()),
        Arg::Ptr(x_c.device_ptr()),
        Arg::Ptr(y.device_ptr()),
        Arg::F32(beta),
        Arg::I32(ni),
    ];
    let label = "gemver transposed (x += beta A^T y), n = 8192";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(gemver_transposed[vectors.0, 256](&a, &mut x, &y, beta, nu)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: gemver_transposed.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("x", &x, &x_c),
    });

    let twin = Twin::new(cuda, "gemver_add", vectors, block)?;
    let args = [
        Arg::Ptr(x_c.device_ptr()),
        Arg::Ptr(z.device_ptr()),
        Arg::I32(ni),
    ];
    let label = "gemver add (x += z), n = 8192";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(gemver_add[vectors.0, 256](&mut x, &z, nu)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: gemver_add.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("x", &x, &x_c),
    });

    let [mut w, w_c] = pair(device, &random_f32(n, 69))?;
    let x_in = DeviceBuffer::from_slice(device, &x_host)?;
    let twin = Twin::new(cuda, "gemver_product", vectors, block)?;
    let args = [
        Arg::Ptr(a.device_ptr()),
        Arg::Ptr(x_in.device_ptr()),
        Arg::Ptr(w_c.device_ptr()),
        Arg::F32(alpha),
        Arg::I32(ni),
    ];
    let label = "gemver product (w += alpha A x), n = 8192";
    let (ours_ms, cuda_ms) = measure(
        device,
        label,
        rounds,
        &mut || launch!(gemver_product[vectors.0, 256](&a, &x_in, &mut w, alpha, nu)),
        &mut || twin.launch(&args),
    )?;
    rows.push(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers: gemver_product.attributes(device)?.registers,
        cuda_registers: twin.registers,
        agreement: agree("w", &w, &w_c),
    });
    Ok(rows)
}

/// The markdown table.
fn table(rows: &[Row]) -> String {
    let registers = |r: Option<String>| r.unwrap_or_else(|| "-".into());
    let mut out = String::from(
        "| kernel | ferrocuda ms | CUDA C ms | CUDA C / ferrocuda | registers: ferrocuda / CUDA C | outputs |\n|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let ratio = if row.ours_ms > 0.0 {
            format!("{:.3}x", row.cuda_ms / row.ours_ms)
        } else {
            "n/a".into()
        };
        let _ = writeln!(
            out,
            "| {} | {:.4} | {:.4} | {ratio} | {} / {} | {} |",
            row.kernel,
            row.ours_ms,
            row.cuda_ms,
            registers(row.ours_registers.map(|r| r.to_string())),
            registers(row.cuda_registers.map(|r| r.to_string())),
            match &row.agreement {
                Ok(note) => note.clone(),
                Err(e) => format!("MISMATCH: {e}"),
            }
        );
    }
    out
}

/// The rows of one benchmark: ferrocuda's device and the CUDA C module, and the timed rounds.
type Rows = fn(&Device, &Arc<CudaModule>, usize) -> ExampleResult<Vec<Row>>;

fn main() -> ExampleResult {
    let gpus = Device::gpu_count().unwrap_or(0);
    if gpus == 0 {
        println!("bench_external_polybench: no GPU on this machine; nothing to measure");
        return Ok(());
    }
    let (device, cuda, rounds) = cuda_ptx_suite(
        "bench_external_polybench",
        "polybench.cu built by nvcc -O3 --fmad=false -arch=sm_90 -ptx",
    )?;

    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (name, rows_of) in [
        ("euler3d", euler3d_rows as Rows),
        ("fdtd-2d", fdtd2d_rows),
        ("correlation", correlation_rows),
        ("gemver", gemver_rows),
    ] {
        match rows_of(&device, &cuda, rounds) {
            Ok(r) => {
                for row in &r {
                    if let Err(e) = &row.agreement {
                        record_failure(&mut failures, &row.kernel, e);
                    }
                }
                rows.extend(r);
            }
            Err(e) => record_failure(&mut failures, name, e),
        }
    }
    let mut report = format!(
        "# Rodinia CFD and PolyBench-GPU kernels (kernels-external) against CUDA C on {device}\n\nMedians of {rounds} runs after 3 warm-up rounds, one launch between two CUDA events (the fdtd-2d time step: three), ferrocuda and CUDA C (nvcc -O3 --fmad=false) alternating; the ratio is CUDA C's time over ferrocuda's. Outputs compared after timing: bit for bit, else within a relative {TOLERANCE:e}.\n\n{}",
        table(&rows)
    );
    for failure in &failures {
        let _ = writeln!(report, "\nFAILED: {failure}");
    }
    finish(&report, &failures, "benchmark(s)")
}
