//! The Rodinia kernels of the external suite (GPU only): `kernels_external::{gaussian, lavamd,
//! particle_filter, streamcluster}` against their CUDA C twins of `bench/external/rodinia.cu`,
//! built on the GPU machine with `nvcc -O3 --fmad=false -arch=sm_90 -ptx`:
//!
//! ```text
//! bench_external_rodinia --cuda-ptx rodinia.ptx [--rounds N] [--out FILE.md]
//! ```
//!
//! Sizes are Rodinia's: Gaussian elimination of a 2048 x 2048 system (one sample is the whole
//! elimination, 2 x 2047 launches), lavaMD with 10 boxes per side (1000 boxes of 100
//! particles), the particle filter's likelihood and `find_index` on 100,000 particles in a
//! 128 x 128 x 10 video with a disk of radius 5, and streamcluster's `pgain` cost kernel on
//! 65,536 points of 256 dimensions with 20 centers. Both sides run on the same inputs with the
//! same grids, alternately, their inputs restored before each sample (outside the timing), one
//! sample between two CUDA events, 3 warm-up rounds and `--rounds` (10) timed ones; the table
//! gives the medians, the ratio CUDA C ms / ferrocuda ms (above 1: ferrocuda is faster) and the
//! registers of each side (the driver's).
//!
//! The results are checked against each other: bit for bit where no `exp` is involved
//! (Gaussian elimination, the particle filter's indices, likelihoods and resampled positions,
//! streamcluster's costs and flags); lavaMD's potentials and forces within 5e-4 (absolute plus
//! relative) and the particle filter's weights within 8 ulp and block sums within 1e-5
//! relative, since CUDA's `expf` and the `libm` `expf` of ferrocuda's kernels may differ in the
//! last bits. A kernel that fails is reported and the others still run; the exit status is
//! non-zero if any failed.

use ferrocuda::cudarc::driver::{CudaFunction, CudaModule};
use ferrocuda::device::math::ulp_distance_f32;
use ferrocuda::prelude::*;
use ferrocuda_examples::bench_harness::{cuda_ptx_suite, finish, record_failure, time_pair};
use ferrocuda_examples::{EventTimer, ExampleResult, compare, launch_raw, random_f32, registers};
use kernels_external::gaussian::{FAN1_BLOCK, FAN2_BLOCK, fan1, fan2};
use kernels_external::lavamd::{FourVector, LavaBox, MAX_NEIGHBOURS, PAR_PER_BOX, THREADS, lavamd};
use kernels_external::particle_filter::{self, find_index, likelihood_kernel};
use kernels_external::streamcluster::{self, Point, compute_cost, launch_grid};
use std::fmt::Write as _;
use std::sync::Arc;

/// One parameter of a raw launch of a CUDA C twin, each kept in an 8-byte slot (the driver
/// reads as many bytes as the parameter has, the low ones on this little-endian host).
#[derive(Clone, Copy)]
enum Arg {
    /// A device pointer.
    Ptr(u64),
    /// An `int` or `unsigned int`.
    I32(i32),
    /// A `float`.
    F32(f32),
}

/// Launches the CUDA C twin `f` with `cuLaunchKernel` on the default stream.
fn launch_cuda(
    f: &CudaFunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    args: &[Arg],
) -> ferrocuda::Result<()> {
    let values: Vec<u64> = args
        .iter()
        .map(|a| match *a {
            Arg::Ptr(p) => p,
            Arg::I32(v) => u64::from(v as u32),
            Arg::F32(v) => u64::from(v.to_bits()),
        })
        .collect();
    let mut params: Vec<*mut std::ffi::c_void> =
        values.iter().map(ferrocuda_examples::param).collect();
    // SAFETY: `params` holds one value per parameter of the twin, in its order (each caller
    // builds `args` from the CUDA C signature in bench/external/rodinia.cu), and every buffer
    // they point to outlives the launch: the callers synchronize (the event timer waits for the
    // launch, and results are read back) before dropping them.
    unsafe { launch_raw(f, grid, block, &mut params) }
}

/// One side's sample: restores its inputs, then times its launches with the timer
/// ([`time_pair`] runs the two sides alternately and gives their medians).
type Sample<'a> = Box<dyn FnMut(&EventTimer) -> ExampleResult<f64> + 'a>;

/// A line of the table.
struct Row {
    /// What ran, at which size.
    kernel: String,
    /// ferrocuda's median, ms.
    ours_ms: f64,
    /// CUDA C's median, ms.
    cuda_ms: f64,
    /// ferrocuda's registers per thread.
    ours_registers: Option<u32>,
    /// CUDA C's registers per thread.
    cuda_registers: Option<i64>,
}

/// Fails unless `a` and `b` are equal bit for bit.
fn same_bits(what: &str, a: &[f32], b: &[f32]) -> ExampleResult {
    if a.len() != b.len() {
        return Err(format!("{what}: {} against {} elements", a.len(), b.len()).into());
    }
    if let Some(i) = (0..a.len()).find(|&i| a[i].to_bits() != b[i].to_bits()) {
        return Err(format!(
            "{what}: element {i} differs, ferrocuda {} against CUDA C {} (they must agree bit for bit)",
            a[i], b[i]
        )
        .into());
    }
    Ok(())
}

/// Gaussian elimination of a 2048 x 2048 system: one sample is the whole loop over the pivots.
fn gaussian_row(device: &Device, module: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Row> {
    let n = 2048usize;
    let mut a0 = random_f32(n * n, 21);
    for i in 0..n {
        a0[i * n + i] += n as f32 + 1.0;
    }
    let b0 = random_f32(n, 22);
    let m0 = vec![0.0f32; n * n];
    let mut ours_bufs = (
        DeviceBuffer::from_slice(device, &a0)?,
        DeviceBuffer::from_slice(device, &b0)?,
        DeviceBuffer::from_slice(device, &m0)?,
    );
    let mut cuda_bufs = (
        DeviceBuffer::from_slice(device, &a0)?,
        DeviceBuffer::from_slice(device, &b0)?,
        DeviceBuffer::from_slice(device, &m0)?,
    );
    let f1 = module.load_function("fan1_cuda")?;
    let f2 = module.load_function("fan2_cuda")?;
    let cuda_registers = registers(&f2);
    let ours_registers = fan2.attributes(device)?.registers;
    let fan1_grid = n.div_ceil(FAN1_BLOCK);
    let fan2_grid = (n.div_ceil(FAN2_BLOCK), n.div_ceil(FAN2_BLOCK));
    let (a0r, b0r, m0r) = (&a0, &b0, &m0);
    {
        let (a, b, m) = &mut ours_bufs;
        let mut ours: Sample<'_> = Box::new(|timer: &EventTimer| {
            a.copy_from(a0r)?;
            b.copy_from(b0r)?;
            m.copy_from(m0r)?;
            Ok(timer.time(|| {
                for t in 0..n - 1 {
                    let (nn, tt) = (n as u32, t as u32);
                    launch!(fan1[fan1_grid, FAN1_BLOCK](&mut *m, &*a, nn, tt))?;
                    launch!(fan2[fan2_grid, (FAN2_BLOCK, FAN2_BLOCK)](&*m, &mut *a, &mut *b, nn, tt))?;
                }
                Ok(())
            })?)
        });
        let (a, b, m) = &mut cuda_bufs;
        let mut cuda: Sample<'_> = Box::new(|timer: &EventTimer| {
            a.copy_from(a0r)?;
            b.copy_from(b0r)?;
            m.copy_from(m0r)?;
            let (pa, pb, pm) = (a.device_ptr(), b.device_ptr(), m.device_ptr());
            Ok(timer.time(|| {
                for t in 0..n - 1 {
                    let (nn, tt) = (Arg::I32(n as i32), Arg::I32(t as i32));
                    launch_cuda(
                        &f1,
                        (fan1_grid as u32, 1, 1),
                        (FAN1_BLOCK as u32, 1, 1),
                        &[Arg::Ptr(pm), Arg::Ptr(pa), nn, tt],
                    )?;
                    launch_cuda(
                        &f2,
                        (fan2_grid.0 as u32, fan2_grid.1 as u32, 1),
                        (FAN2_BLOCK as u32, FAN2_BLOCK as u32, 1),
                        &[Arg::Ptr(pm), Arg::Ptr(pa), Arg::Ptr(pb), nn, tt],
                    )?;
                }
                Ok(())
            })?)
        });
        let label = "gaussian n = 2048 (whole elimination, 2 x 2047 launches)";
        let (ours_ms, cuda_ms) = time_pair(device, label, rounds, &mut ours, &mut cuda)?;
        drop((ours, cuda));
        same_bits("gaussian a", &ours_bufs.0.to_vec()?, &cuda_bufs.0.to_vec()?)?;
        same_bits("gaussian b", &ours_bufs.1.to_vec()?, &cuda_bufs.1.to_vec()?)?;
        same_bits("gaussian m", &ours_bufs.2.to_vec()?, &cuda_bufs.2.to_vec()?)?;
        Ok(Row {
            kernel: format!("{label} (registers: fan2)"),
            ours_ms,
            cuda_ms,
            ours_registers,
            cuda_registers,
        })
    }
}

/// The boxes of a `d x d x d` grid with their neighbour lists, as Rodinia builds them.
fn lava_boxes(d: usize) -> Vec<LavaBox> {
    let d = d as isize;
    let mut boxes = Vec::new();
    for i in 0..d {
        for j in 0..d {
            for k in 0..d {
                let number = (i * d + j) * d + k;
                let mut nei = [0u32; MAX_NEIGHBOURS];
                let mut nn = 0;
                for di in -1..=1isize {
                    for dj in -1..=1isize {
                        for dk in -1..=1isize {
                            let (ni, nj, nk) = (i + di, j + dj, k + dk);
                            if (di, dj, dk) != (0, 0, 0)
                                && [ni, nj, nk].iter().all(|&c| (0..d).contains(&c))
                            {
                                nei[nn] = ((ni * d + nj) * d + nk) as u32;
                                nn += 1;
                            }
                        }
                    }
                }
                boxes.push(LavaBox {
                    offset: (number as usize * PAR_PER_BOX) as u32,
                    nn: nn as u32,
                    nei,
                });
            }
        }
    }
    boxes
}

/// lavaMD with 10 boxes per side: 1000 boxes of 100 particles, one block of 128 per box.
fn lavamd_row(device: &Device, module: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Row> {
    let boxes = lava_boxes(10);
    let particles = boxes.len() * PAR_PER_BOX;
    // Rodinia's values: in [0.1, 1.0].
    let to_unit = |v: &f32| 0.55 + 0.45 * v;
    let values: Vec<f32> = random_f32(4 * particles, 31).iter().map(to_unit).collect();
    let rv: Vec<FourVector> = values
        .chunks(4)
        .map(|c| FourVector {
            v: c[0],
            x: c[1],
            y: c[2],
            z: c[3],
        })
        .collect();
    let qv: Vec<f32> = random_f32(particles, 32).iter().map(to_unit).collect();
    let zeros = vec![FourVector::default(); particles];
    let alpha = 0.5f32;
    let boxes_dev = DeviceBuffer::from_slice(device, &boxes)?;
    let rv_dev = DeviceBuffer::from_slice(device, &rv)?;
    let qv_dev = DeviceBuffer::from_slice(device, &qv)?;
    let mut fv_ours = DeviceBuffer::from_slice(device, &zeros)?;
    let mut fv_cuda = DeviceBuffer::from_slice(device, &zeros)?;
    let f = module.load_function("lavamd_cuda")?;
    let cuda_registers = registers(&f);
    let ours_registers = lavamd.attributes(device)?.registers;
    let grid = boxes.len();
    let label = "lavaMD 1000 boxes x 100 particles";
    let (ours_ms, cuda_ms) = {
        let zeros = &zeros;
        let (boxes_ref, rv_ref, qv_ref) = (&boxes_dev, &rv_dev, &qv_dev);
        let fv = &mut fv_ours;
        let mut ours: Sample<'_> = Box::new(move |timer: &EventTimer| {
            fv.copy_from(zeros)?;
            Ok(timer.time(
                || launch!(lavamd[grid, THREADS](alpha, boxes_ref, rv_ref, qv_ref, &mut *fv)),
            )?)
        });
        let fv = &mut fv_cuda;
        let mut cuda: Sample<'_> = Box::new(move |timer: &EventTimer| {
            fv.copy_from(zeros)?;
            let args = [
                Arg::F32(alpha),
                Arg::Ptr(boxes_ref.device_ptr()),
                Arg::I32(grid as i32),
                Arg::Ptr(rv_ref.device_ptr()),
                Arg::Ptr(qv_ref.device_ptr()),
                Arg::Ptr(fv.device_ptr()),
            ];
            Ok(timer
                .time(|| launch_cuda(&f, (grid as u32, 1, 1), (THREADS as u32, 1, 1), &args))?)
        });
        time_pair(device, label, rounds, &mut ours, &mut cuda)?
    };
    let flat =
        |v: Vec<FourVector>| -> Vec<f32> { v.iter().flat_map(|p| [p.v, p.x, p.y, p.z]).collect() };
    let (ours, cuda) = (flat(fv_ours.to_vec()?), flat(fv_cuda.to_vec()?));
    compare(&cuda, &ours, 5e-4).map_err(|m| format!("lavaMD: CUDA C against ferrocuda: {m:?}"))?;
    Ok(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers,
        cuda_registers,
    })
}

/// The particle filter's inputs: 100,000 particles around the centre of a 128 x 128 x 10
/// video, a disk of radius 5.
struct FilterInputs {
    n: usize,
    x: Vec<f32>,
    y: Vec<f32>,
    objxy: Vec<i32>,
    image: Vec<u8>,
    weights: Vec<f32>,
    isz_y: i32,
    nfr: i32,
    max_size: i32,
}

fn filter_inputs() -> FilterInputs {
    let (isz_x, isz_y, nfr, n, radius) = (128i32, 128i32, 10i32, 100_000usize, 5isize);
    // Rodinia's strelDisk and getneighbors: (dy, dx) of the points within the radius.
    let mut objxy = Vec::new();
    for dx in -(radius - 1)..=(radius - 1) {
        for dy in -(radius - 1)..=(radius - 1) {
            if (((dx * dx + dy * dy) as f64).sqrt()) < radius as f64 {
                objxy.push(dy as i32);
                objxy.push(dx as i32);
            }
        }
    }
    // Pixels between 140 and 190, so that exp(likelihood) stays finite in f32.
    let image = random_f32((isz_x * isz_y * nfr) as usize, 41)
        .iter()
        .map(|v| (165.0 + 25.0 * v) as u8)
        .collect();
    let centre = |v: &f32| 64.0 + 10.0 * v;
    FilterInputs {
        n,
        x: random_f32(n, 42).iter().map(centre).collect(),
        y: random_f32(n, 43).iter().map(centre).collect(),
        objxy,
        image,
        weights: vec![1.0 / n as f32; n],
        isz_y,
        nfr,
        max_size: isz_x * isz_y * nfr,
    }
}

/// The likelihood kernel on 100,000 particles, 512 threads per block.
fn likelihood_row(device: &Device, module: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Row> {
    let p = filter_inputs();
    let (n, count) = (p.n, p.objxy.len() / 2);
    let blocks = n.div_ceil(particle_filter::BLOCK);
    let k = 5i32;
    let x = DeviceBuffer::from_slice(device, &p.x)?;
    let y = DeviceBuffer::from_slice(device, &p.y)?;
    let objxy = DeviceBuffer::from_slice(device, &p.objxy)?;
    let image = DeviceBuffer::from_slice(device, &p.image)?;
    let outputs = || -> ferrocuda::Result<_> {
        Ok((
            DeviceBuffer::<i32>::zeros(device, n * count)?,
            DeviceBuffer::<f32>::zeros(device, n)?,
            DeviceBuffer::from_slice(device, &p.weights)?,
            DeviceBuffer::<f32>::zeros(device, blocks)?,
        ))
    };
    let (mut ours_out, mut cuda_out) = (outputs()?, outputs()?);
    let f = module.load_function("likelihood_kernel_cuda")?;
    let cuda_registers = registers(&f);
    let ours_registers = likelihood_kernel.attributes(device)?.registers;
    let label = "particle filter likelihood, 100,000 particles, disk of 69";
    let (ours_ms, cuda_ms) = {
        let (xr, yr, or, ir, w0) = (&x, &y, &objxy, &image, &p.weights);
        let (ind, like, weights, sums) = &mut ours_out;
        let mut ours: Sample<'_> = Box::new(move |timer: &EventTimer| {
            weights.copy_from(w0)?;
            Ok(timer.time(|| {
                launch!(likelihood_kernel[blocks, particle_filter::BLOCK](
                    xr, yr, or, ir, &mut *ind, &mut *like, &mut *weights, &mut *sums,
                    count as u32, p.max_size, k, p.isz_y, p.nfr
                ))
            })?)
        });
        let (ind, like, weights, sums) = &mut cuda_out;
        let mut cuda: Sample<'_> = Box::new(move |timer: &EventTimer| {
            weights.copy_from(w0)?;
            let args = [
                Arg::Ptr(xr.device_ptr()),
                Arg::Ptr(yr.device_ptr()),
                Arg::Ptr(or.device_ptr()),
                Arg::Ptr(ir.device_ptr()),
                Arg::Ptr(ind.device_ptr()),
                Arg::Ptr(like.device_ptr()),
                Arg::Ptr(weights.device_ptr()),
                Arg::Ptr(sums.device_ptr()),
                Arg::I32(n as i32),
                Arg::I32(count as i32),
                Arg::I32(p.max_size),
                Arg::I32(k),
                Arg::I32(p.isz_y),
                Arg::I32(p.nfr),
            ];
            let block = (particle_filter::BLOCK as u32, 1, 1);
            Ok(timer.time(|| launch_cuda(&f, (blocks as u32, 1, 1), block, &args))?)
        });
        time_pair(device, label, rounds, &mut ours, &mut cuda)?
    };
    if ours_out.0.to_vec()? != cuda_out.0.to_vec()? {
        return Err("particle filter likelihood: the indices differ".into());
    }
    same_bits(
        "particle filter likelihood",
        &ours_out.1.to_vec()?,
        &cuda_out.1.to_vec()?,
    )?;
    let (wo, wc) = (ours_out.2.to_vec()?, cuda_out.2.to_vec()?);
    if let Some(i) = (0..n).find(|&i| ulp_distance_f32(wo[i], wc[i]) > 8) {
        return Err(format!(
            "particle filter weights: element {i}, ferrocuda {} against CUDA C {} (more than 8 ulp)",
            wo[i], wc[i]
        )
        .into());
    }
    let (so, sc) = (ours_out.3.to_vec()?, cuda_out.3.to_vec()?);
    if let Some(b) = (0..blocks).find(|&b| (so[b] - sc[b]).abs() > 1e-5 * so[b].abs()) {
        return Err(format!(
            "particle filter block sums: block {b}, ferrocuda {} against CUDA C {}",
            so[b], sc[b]
        )
        .into());
    }
    Ok(Row {
        kernel: label.replace("69", &count.to_string()),
        ours_ms,
        cuda_ms,
        ours_registers,
        cuda_registers,
    })
}

/// find_index on 100,000 particles: the linear search of Rodinia's systematic resampling.
fn find_index_row(device: &Device, module: &Arc<CudaModule>, rounds: usize) -> ExampleResult<Row> {
    let p = filter_inputs();
    let n = p.n;
    let weights: Vec<f32> = random_f32(n, 44).iter().map(|v| 1.5 + v).collect();
    let total: f32 = weights.iter().sum();
    let mut running = 0.0f32;
    let cdf: Vec<f32> = weights
        .iter()
        .map(|w| {
            running += w / total;
            running
        })
        .collect();
    let u1 = 0.37 / n as f32;
    let u: Vec<f32> = (0..n).map(|j| u1 + j as f32 / n as f32).collect();
    let x = DeviceBuffer::from_slice(device, &p.x)?;
    let y = DeviceBuffer::from_slice(device, &p.y)?;
    let cdf = DeviceBuffer::from_slice(device, &cdf)?;
    let u = DeviceBuffer::from_slice(device, &u)?;
    let mut ours_out = (
        DeviceBuffer::<f32>::zeros(device, n)?,
        DeviceBuffer::<f32>::zeros(device, n)?,
    );
    let cuda_out = (
        DeviceBuffer::<f32>::zeros(device, n)?,
        DeviceBuffer::<f32>::zeros(device, n)?,
    );
    let f = module.load_function("find_index_cuda")?;
    let cuda_registers = registers(&f);
    let ours_registers = find_index.attributes(device)?.registers;
    let blocks = n.div_ceil(particle_filter::BLOCK);
    let label = "particle filter find_index, 100,000 particles";
    let (ours_ms, cuda_ms) = {
        let (xr, yr, cr, ur) = (&x, &y, &cdf, &u);
        let (xj, yj) = &mut ours_out;
        let mut ours: Sample<'_> = Box::new(move |timer: &EventTimer| {
            Ok(timer.time(|| {
                launch!(find_index[blocks, particle_filter::BLOCK](xr, yr, cr, ur, &mut *xj, &mut *yj))
            })?)
        });
        let (xj, yj) = &cuda_out;
        let args = [
            Arg::Ptr(xr.device_ptr()),
            Arg::Ptr(yr.device_ptr()),
            Arg::Ptr(cr.device_ptr()),
            Arg::Ptr(ur.device_ptr()),
            Arg::Ptr(xj.device_ptr()),
            Arg::Ptr(yj.device_ptr()),
            Arg::I32(n as i32),
            Arg::I32(n as i32),
        ];
        let mut cuda: Sample<'_> = Box::new(move |timer: &EventTimer| {
            let block = (particle_filter::BLOCK as u32, 1, 1);
            Ok(timer.time(|| launch_cuda(&f, (blocks as u32, 1, 1), block, &args))?)
        });
        time_pair(device, label, rounds, &mut ours, &mut cuda)?
    };
    same_bits(
        "find_index xj",
        &ours_out.0.to_vec()?,
        &cuda_out.0.to_vec()?,
    )?;
    same_bits(
        "find_index yj",
        &ours_out.1.to_vec()?,
        &cuda_out.1.to_vec()?,
    )?;
    Ok(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers,
        cuda_registers,
    })
}

/// streamcluster's cost kernel: 65,536 points of 256 dimensions, 20 centers.
fn streamcluster_row(
    device: &Device,
    module: &Arc<CudaModule>,
    rounds: usize,
) -> ExampleResult<Row> {
    let (num, dim, k) = (65_536usize, 256usize, 20usize);
    let stride = k + 1;
    let coord = random_f32(num * dim, 51);
    // Centers: every 3277th point; each point assigned to one of them, its cost the distance
    // times its weight, scaled so that some points gain by moving and some do not.
    let centers: Vec<usize> = (0..k).map(|c| c * (num / k)).collect();
    let mut center_table = vec![0u32; num];
    for (slot, &c) in centers.iter().enumerate() {
        center_table[c] = slot as u32;
    }
    let scale = random_f32(num, 52);
    let points: Vec<Point> = (0..num)
        .map(|i| {
            let center = centers[i % k];
            let weight = 1.0 + 0.5 * scale[i];
            let distance: f32 = (0..dim)
                .map(|d| {
                    let diff = coord[d * num + i] - coord[d * num + center];
                    diff * diff
                })
                .sum();
            Point {
                weight,
                assign: center as u32,
                cost: distance * weight * (1.0 + 0.2 * scale[(i + 1) % num]),
            }
        })
        .collect();
    let x = 12_345u32;
    let points_dev = DeviceBuffer::from_slice(device, &points)?;
    let coord_dev = DeviceBuffer::from_slice(device, &coord)?;
    let table_dev = DeviceBuffer::from_slice(device, &center_table)?;
    let work0 = vec![0.0f32; num * stride];
    let switch0 = vec![false; num];
    let mut ours_out = (
        DeviceBuffer::from_slice(device, &work0)?,
        DeviceBuffer::from_slice(device, &switch0)?,
    );
    let mut cuda_out = (
        DeviceBuffer::from_slice(device, &work0)?,
        DeviceBuffer::from_slice(device, &switch0)?,
    );
    let f = module.load_function("compute_cost_cuda")?;
    let cuda_registers = registers(&f);
    let ours_registers = compute_cost.attributes(device)?.registers;
    let grid = launch_grid(num);
    let label = "streamcluster compute_cost, 65,536 points x 256 dims, 20 centers";
    let (ours_ms, cuda_ms) = {
        let (pr, cr, tr, w0, s0) = (&points_dev, &coord_dev, &table_dev, &work0, &switch0);
        let (work, switch) = &mut ours_out;
        let mut ours: Sample<'_> = Box::new(move |timer: &EventTimer| {
            work.copy_from(w0)?;
            switch.copy_from(s0)?;
            Ok(timer.time(|| {
                launch!(compute_cost[grid, streamcluster::THREADS](
                    dim as u32, x, pr, k as u32, stride as u32, cr, &mut *work, tr, &mut *switch
                ))
            })?)
        });
        let (work, switch) = &mut cuda_out;
        let mut cuda: Sample<'_> = Box::new(move |timer: &EventTimer| {
            work.copy_from(w0)?;
            switch.copy_from(s0)?;
            let args = [
                Arg::I32(num as i32),
                Arg::I32(dim as i32),
                Arg::I32(x as i32),
                Arg::Ptr(pr.device_ptr()),
                Arg::I32(k as i32),
                Arg::I32(stride as i32),
                Arg::Ptr(cr.device_ptr()),
                Arg::Ptr(work.device_ptr()),
                Arg::Ptr(tr.device_ptr()),
                Arg::Ptr(switch.device_ptr()),
            ];
            let block = (streamcluster::THREADS as u32, 1, 1);
            Ok(timer.time(|| launch_cuda(&f, (grid.0, grid.1, 1), block, &args))?)
        });
        time_pair(device, label, rounds, &mut ours, &mut cuda)?
    };
    same_bits(
        "streamcluster work_mem",
        &ours_out.0.to_vec()?,
        &cuda_out.0.to_vec()?,
    )?;
    if ours_out.1.to_vec()? != cuda_out.1.to_vec()? {
        return Err("streamcluster switch_membership differs".into());
    }
    Ok(Row {
        kernel: label.into(),
        ours_ms,
        cuda_ms,
        ours_registers,
        cuda_registers,
    })
}

/// The report's table.
fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| kernel | ferrocuda ms | CUDA C ms | CUDA C / ferrocuda | registers ferrocuda | registers CUDA C |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let regs = |v: Option<i64>| v.map_or("?".to_string(), |v| v.to_string());
        let _ = writeln!(
            out,
            "| {} | {:.4} | {:.4} | {:.3}x | {} | {} |",
            r.kernel,
            r.ours_ms,
            r.cuda_ms,
            r.cuda_ms / r.ours_ms,
            regs(r.ours_registers.map(i64::from)),
            regs(r.cuda_registers)
        );
    }
    out
}

fn main() -> ExampleResult {
    // A GPU-less machine (no driver, or a driver library the runtime cannot use) has nothing
    // to time: say so and succeed.
    if Device::gpu_count().unwrap_or(0) == 0 {
        println!("bench_external_rodinia needs a GPU, and this machine has none: nothing to time");
        return Ok(());
    }
    let (device, module, rounds) = cuda_ptx_suite(
        "bench_external_rodinia",
        "rodinia.cu built by nvcc -O3 --fmad=false -ptx",
    )?;
    type RowOf = fn(&Device, &Arc<CudaModule>, usize) -> ExampleResult<Row>;
    let kernels: [(&str, RowOf); 5] = [
        ("gaussian", gaussian_row),
        ("lavamd", lavamd_row),
        ("particle filter likelihood", likelihood_row),
        ("particle filter find_index", find_index_row),
        ("streamcluster", streamcluster_row),
    ];
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (kernel, row_of) in kernels {
        match row_of(&device, &module, rounds) {
            Ok(row) => rows.push(row),
            Err(e) => record_failure(&mut failures, kernel, e),
        }
    }
    let mut report = format!(
        "# Rodinia kernels (external suite) against CUDA C on {device}\n\nMedians of {rounds} samples after 3 warm-up rounds, one sample (gaussian: the whole elimination) between two CUDA events, the two sides alternating; CUDA C built with nvcc -O3 --fmad=false. Ratio: CUDA C ms / ferrocuda ms. Results cross-checked: bit for bit without exp, within a tolerance with it (lavaMD, the particle filter's weights).\n\n{}",
        table(&rows)
    );
    if !failures.is_empty() {
        report.push_str("\nFailed:\n\n");
        for f in &failures {
            let _ = writeln!(report, "- {f}");
        }
    }
    finish(&report, &failures, "kernel(s)")
}
