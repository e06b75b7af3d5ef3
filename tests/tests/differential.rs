//! The differential tester: every kernel the optimiser versions or rewrites, run on inputs
//! chosen to break an unsound transformation, with a digest of what it did (its outputs' bits,
//! or its panic's kernel, line and count).
//!
//! The simulator has every check rustc wrote (it runs the kernels as host code), so it is the
//! reference: on a machine with a GPU, `gpu_matches_the_simulator` runs every case on both and
//! fails on the first digest that differs. `scripts/gpu-run.sh differential` runs this binary
//! built with the optimiser (the default) and built with `FERROCUDA_PASSES=none`, writes each
//! build's GPU digests (`FERROCUDA_DIFFERENTIAL_OUT`) and compares the two files as well. On a
//! machine without a GPU every case runs on the simulator alone (the CPU half, in CI), which
//! checks that each case's digest is the same in two runs (the cases are deterministic, so
//! that the GPU comparison means something).
//!
//! The inputs: lengths 0 and 1, sizes off the block, slices exactly as long as the guards
//! need, one element short and longer, one slice short while another is indexed, indices read
//! from data (some out of range), selectors that reach a check past its guard, and the same
//! kernel launched with parameters that change from launch to launch (the runtime keeps its
//! entry-test answers per parameters). Then the random kernels of `scripts/random-kernels.py`
//! (index expressions with casts, wrapping and saturating operations, min/max/clamp, early
//! returns, loops with data-dependent bounds, shared tiles), on data and parameters at the
//! edges.

use ferrocuda::prelude::*;
use ferrocuda_tests::{random_f32, rng};
use kernels_idiomatic::convolution::convolution;
use kernels_idiomatic::hotspot::{hotspot, launch_grid};
use kernels_idiomatic::spmv::spmv_csr;
use kernels_idiomatic::stencil3d::stencil3d;
use rand::Rng;
use test_kernels::check_versioning::{column_window_sums, window_sums};
use test_kernels::offset_checks::five_point_sums;
use test_kernels::random_kernels::{RANDOM_KERNELS, launch_random};
use test_kernels::soundness::{
    after_empty_parameter, switch_guard, volume_sums, volume_sums_bytes,
};
use test_kernels::soundness::{column_sums, matrix_vector};

/// FNV-1a over bytes: the digest of an output.
fn fnv(bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes.into_iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What one launch did: its output's digest, or its panic (kernel, line, how many threads, and
/// what failed when one thread did). The index, and the kind of failure when several threads
/// fail, are not in the digest: which failing thread a GPU reports first is a race (one thread
/// may fail an overflow check and another a bounds check on the same line).
fn outcome<T: DeviceCopy>(
    result: ferrocuda::Result<()>,
    device: &Device,
    out: &DeviceBuffer<T>,
) -> String {
    match result.and_then(|()| device.synchronize()) {
        Ok(()) => {
            let values = out.to_vec().expect("the output reads back");
            // SAFETY: `T` is `DeviceCopy`: plain bytes without padding requirements to read.
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    values.as_ptr().cast::<u8>(),
                    std::mem::size_of_val(&values[..]),
                )
            };
            format!("ok {} {:016x}", values.len(), fnv(bytes.iter().copied()))
        }
        Err(ferrocuda::Error::KernelPanic(p)) => {
            let kind = match p.other_panics {
                0 => p.message.split(':').next().unwrap_or("").to_string(),
                _ => String::from("(first of several)"),
            };
            format!(
                "panic {} line {} {kind} threads {}",
                p.kernel,
                p.line,
                1 + p.other_panics
            )
        }
        Err(e) => format!("error {e}"),
    }
}

/// Every case on `device`, one line each: `name: outcome`.
fn digests(device: &Device) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rng = rng("differential");
    let mut record = |name: String, outcome: String| lines.push(format!("{name}: {outcome}"));

    // 3-D stencil: exact, longer, input one short, output one short (one slice short while
    // the other is indexed), and sizes changing from launch to launch.
    for (nx, ny, nz) in [
        (1usize, 1usize, 1usize),
        (2, 2, 2),
        (37, 5, 4),
        (33, 9, 2),
        (3, 40, 3),
    ] {
        let n = nx * ny * nz;
        for (input_len, output_len) in [(n, n), (n + 5, n), (n - 1, n), (n, n - 1)] {
            let input = random_f32(&mut rng, input_len);
            let mut out = DeviceBuffer::<f32>::zeros(device, output_len).unwrap();
            let grid = (nx.div_ceil(32) as u32, ny.div_ceil(8) as u32, nz as u32);
            let r = launch!(stencil3d[grid, (32, 8, 1)](&input, &mut out, nx as u32, ny as u32, nz as u32, 0.25, 0.125));
            record(
                format!("stencil3d {nx}x{ny}x{nz} in {input_len} out {output_len}"),
                outcome(r, device, &out),
            );
        }
    }
    // The same stencil with a grid larger than the volume and with one smaller.
    for grid in [(4u32, 4u32, 9u32), (1, 1, 1)] {
        let (nx, ny, nz) = (37usize, 5usize, 4usize);
        let input = random_f32(&mut rng, nx * ny * nz);
        let mut out = DeviceBuffer::<f32>::zeros(device, nx * ny * nz).unwrap();
        let r = launch!(stencil3d[grid, (32, 8, 1)](&input, &mut out, nx as u32, ny as u32, nz as u32, 0.5, 0.25));
        record(format!("stencil3d grid {grid:?}"), outcome(r, device, &out));
    }
    // Byte volumes, through `large_buffers` and through slices the kernel derives.
    for (nx, ny, nz) in [(1usize, 1usize, 1usize), (9, 7, 5), (40, 3, 3)] {
        let n = nx * ny * nz;
        let grid = (nx.div_ceil(32) as u32, ny.div_ceil(8) as u32, nz as u32);
        for len in [n, n - 1, n + 3] {
            let input: Vec<u8> = (0..len).map(|_| rng.random()).collect();
            let mut out = DeviceBuffer::<u8>::zeros(device, n).unwrap();
            let r = launch!(volume_sums[grid, (32, 8, 1)](&input, &mut out, nx as u32, ny as u32, nz as u32));
            record(
                format!("volume_sums {nx}x{ny}x{nz} in {len}"),
                outcome(r, device, &out),
            );
            let pixels: Vec<[u8; 4]> = (0..len.div_ceil(4)).map(|_| rng.random()).collect();
            let mut out = DeviceBuffer::<[u8; 4]>::zeros(device, n.div_ceil(4)).unwrap();
            let r = launch!(volume_sums_bytes[grid, (32, 8, 1)](&pixels, &mut out, nx as u32, ny as u32, nz as u32));
            record(
                format!("volume_sums_bytes {nx}x{ny}x{nz} in {len}"),
                outcome(r, device, &out),
            );
        }
    }
    // HotSpot: grids its tiles cover, one past them, a short output.
    for (rows, cols, iteration) in [
        (1usize, 1usize, 1usize),
        (15, 15, 1),
        (40, 17, 3),
        (9, 70, 7),
        (64, 30, 2),
    ] {
        let n = rows * cols;
        let temp: Vec<f32> = random_f32(&mut rng, n)
            .iter()
            .map(|v| 323.0 + 10.0 * v)
            .collect();
        let power: Vec<f32> = random_f32(&mut rng, n)
            .iter()
            .map(|v| 0.35 + 0.35 * v)
            .collect();
        let (gx, gy) = launch_grid(rows, cols, iteration);
        for (label, grid, out_len) in [
            ("covering", (gx, gy), n),
            ("one more row", (gx, gy + 1), n),
            ("short output", (gx, gy), n - 1),
        ] {
            let mut dst = DeviceBuffer::<f32>::zeros(device, out_len).unwrap();
            let it = iteration as u32;
            let r = launch!(hotspot[grid, (16, 16)](
                it, &power, &temp, &mut dst, cols as u32, rows as u32, it, it, 0.5, 0.1, 0.1, 0.05, 0.001
            ));
            record(
                format!("hotspot {rows}x{cols}/{iteration} {label}"),
                outcome(r, device, &dst),
            );
        }
    }
    // Convolution and the window sums: images off the block, short images.
    for (w, h) in [(1usize, 1usize), (7, 3), (37, 23), (16, 16)] {
        for len in [w * h, w * h - 1] {
            let image = random_f32(&mut rng, len);
            let mut out = DeviceBuffer::<f32>::zeros(device, w * h).unwrap();
            let grid = ((w as u32).div_ceil(16), (h as u32).div_ceil(16));
            let r = launch!(convolution[grid, (16, 16)](&image, &mut out, w as u32, h as u32));
            record(
                format!("convolution {w}x{h} image {len}"),
                outcome(r, device, &out),
            );
            for rows in [1u32, 3, 40] {
                let mut out = DeviceBuffer::<f32>::zeros(device, w * h).unwrap();
                let r = launch!(window_sums[grid, (16, 16)](&image, &mut out, w as u32, h as u32, rows));
                record(
                    format!("window_sums {w}x{h} image {len} rows {rows}"),
                    outcome(r, device, &out),
                );
                let mut out = DeviceBuffer::<f32>::zeros(device, w * h).unwrap();
                let r = launch!(column_window_sums[grid, (16, 16)](&image, &mut out, w as u32, h as u32, rows));
                record(
                    format!("column_window_sums {w}x{h} image {len} rows {rows}"),
                    outcome(r, device, &out),
                );
            }
        }
    }
    // Loops whose counters bound their checks (a column walked with a row stride; a vector
    // LLVM checks as "the counter reached its length"): exact, short and long slices.
    for (m, n) in [(1usize, 1usize), (37, 5), (129, 64)] {
        let blocks = m.div_ceil(128) as u32;
        for len in [n * m, n * m - 1, n * m + 7] {
            let data = random_f32(&mut rng, len);
            let mut sums = DeviceBuffer::<f32>::zeros(device, m).unwrap();
            let r = launch!(column_sums[blocks, 128](&data, &mut sums, m as u32, n as u32));
            record(
                format!("column_sums {m}x{n} data {len}"),
                outcome(r, device, &sums),
            );
        }
        let a = random_f32(&mut rng, m * n);
        for x_len in [n, n - 1, n + 2] {
            let x = random_f32(&mut rng, x_len);
            let mut out = DeviceBuffer::<f32>::zeros(device, m).unwrap();
            let r = launch!(matrix_vector[blocks, 128](&a, &x, &mut out, n as u32, m as u32));
            record(
                format!("matrix_vector {m}x{n} x {x_len}"),
                outcome(r, device, &out),
            );
        }
    }
    // SpMV with column indices from data, some past `x`.
    for (rows, cols, wild) in [(1usize, 1usize, false), (300, 50, false), (300, 50, true)] {
        let mut offsets = vec![0u32];
        let (mut columns, mut values) = (Vec::new(), Vec::new());
        for _ in 0..rows {
            for _ in 0..rng.random_range(0..6) {
                let bound = if wild && rng.random_range(0..50) == 0 {
                    cols as u32 + 3
                } else {
                    cols as u32
                };
                columns.push(rng.random_range(0..bound));
                values.push(rng.random_range(-1.0f32..1.0));
            }
            offsets.push(columns.len() as u32);
        }
        let x = random_f32(&mut rng, cols);
        let mut y = DeviceBuffer::<f32>::zeros(device, rows).unwrap();
        let r = launch!(spmv_csr[rows.div_ceil(256), 256](&offsets, &columns, &values, &x, &mut y));
        record(
            format!("spmv {rows}x{cols} wild {wild}"),
            outcome(r, device, &y),
        );
    }
    // Five-point sums with offsets that reach before and past the input.
    for (len, first, row) in [
        (0usize, 0u32, 1u32),
        (1, 0, 1),
        (100, 10, 10),
        (100, 0, 10),
        (100, 95, 3),
    ] {
        let input = random_f32(&mut rng, len);
        let mut out = DeviceBuffer::<f32>::zeros(device, len.max(1)).unwrap();
        let r = launch!(five_point_sums[1, 128](&input, &mut out, first, row));
        record(
            format!("five_point_sums {len} first {first} row {row}"),
            outcome(r, device, &out),
        );
    }
    // The switch's cases past a guard, and a zero-sized parameter.
    for (sel, n, len) in [
        (3u32, 100u32, 100usize),
        (7, 100, 100),
        (5, 100, 100),
        (12, 0, 128),
        (0, 128, 100),
    ] {
        let mut a = DeviceBuffer::<f32>::zeros(device, len).unwrap();
        let r = launch!(switch_guard[1, 128](&mut a, n, sel));
        record(
            format!("switch_guard sel {sel} n {n} len {len}"),
            outcome(r, device, &a),
        );
    }
    for len in [0usize, 1, 129] {
        let mut a = DeviceBuffer::<u32>::zeros(device, len).unwrap();
        let r = launch!(after_empty_parameter[2, 128]([], &mut a, 5));
        record(
            format!("after_empty_parameter {len}"),
            outcome(r, device, &a),
        );
    }
    // The random kernels (`scripts/random-kernels.py`): data, outputs and parameters at the
    // edges (empty, one element, past the data, `u32::MAX`, negative offsets).
    let data: Vec<u32> = (0..300).map(|_| rng.random_range(0..1000)).collect();
    for n in 0..RANDOM_KERNELS {
        for (len, out_len, p) in [
            (0usize, 1usize, [0u32, 0, 0]),
            (1, 64, [1, 3, (-1i32) as u32]),
            (200, 64, [200, 8, 5]),
            (300, 300, [u32::MAX, 7, 2]),
            (300, 1, [299, 2, (-300i32) as u32]),
            (37, 300, [36, 4, 1]),
        ] {
            let a = DeviceBuffer::from_slice(device, &data[..len]).unwrap();
            let mut out = DeviceBuffer::<u32>::zeros(device, out_len).unwrap();
            let r = launch_random(n, (3, 128), &a, &mut out, p);
            record(
                format!("random_{n} a {len} out {out_len} p {p:?}"),
                outcome(r, device, &out),
            );
        }
    }
    lines
}

#[test]
fn the_random_kernels_are_the_generators_output() {
    // The committed kernels are what the script writes for its default seed and count.
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let output = std::process::Command::new("python3")
        .arg(format!("{root}/scripts/random-kernels.py"))
        .output()
        .expect("python3 runs scripts/random-kernels.py");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let committed = include_str!("../kernels/src/random_kernels.rs");
    assert!(
        String::from_utf8_lossy(&output.stdout) == committed,
        "tests/kernels/src/random_kernels.rs is not the generator's output: run \
         python3 scripts/random-kernels.py > tests/kernels/src/random_kernels.rs"
    );
}

/// A digest as the GPU and the simulator must agree on it: a launch in which several threads
/// failed is only its kernel's panic. Where threads fail before a barrier, the GPU's other
/// threads of the block go on past it (an exited thread does not hold `bar.sync`) and may fail
/// elsewhere, and the simulator's first report and count of failing threads need not be the
/// GPU's (six random kernels' cases differed so on the H200, identically in both GPU builds). Between two GPU builds
/// (`scripts/gpu-run.sh differential`) the whole digest must agree.
fn across_backends(digest: &str) -> &str {
    match digest.find(" line ") {
        Some(at) if digest.contains("(first of several)") => &digest[..at],
        _ => digest,
    }
}

#[test]
fn gpu_matches_the_simulator() {
    let reference = digests(&Device::simulator());
    match ferrocuda_tests::gpu() {
        Ok(gpu) => {
            let on_gpu = digests(&gpu);
            if let Ok(path) = std::env::var("FERROCUDA_DIFFERENTIAL_OUT") {
                std::fs::write(&path, on_gpu.join("\n") + "\n").expect("the digests are written");
            }
            let differences: Vec<String> = reference
                .iter()
                .zip(&on_gpu)
                .filter(|(s, g)| across_backends(s) != across_backends(g))
                .map(|(s, g)| format!("simulator {s}\n      gpu {g}"))
                .collect();
            assert_eq!(reference.len(), on_gpu.len());
            assert!(
                differences.is_empty(),
                "{} of {} cases differ:\n{}",
                differences.len(),
                reference.len(),
                differences.join("\n")
            );
            eprintln!(
                "{} cases, 0 differences between the GPU and the simulator",
                reference.len()
            );
        }
        Err(reason) => {
            // The CPU half: the cases run, and are deterministic.
            assert_eq!(digests(&Device::simulator()), reference);
            assert!(
                reference.iter().any(|l| l.contains(": panic "))
                    && reference.iter().any(|l| l.contains(": ok "))
            );
            eprintln!(
                "{} cases on the simulator; no GPU ({reason})",
                reference.len()
            );
        }
    }
}
