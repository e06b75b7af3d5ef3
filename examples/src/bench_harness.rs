//! The command-line harness of the benchmarks that time ferrocuda's kernels against CUDA C twins
//! loaded from PTX files (`examples/bench_idiomatic.rs`, `bench_external_rodinia.rs`,
//! `bench_external_polybench.rs`): the options (`--cuda-ptx FILE`, `--rounds N`, `--out FILE`),
//! the GPU and the twins' modules, the timed rounds with their medians, and the end of a run
//! (the report printed and written, the failures turned into the exit status).
//!
//! A run of such a benchmark: [`cuda_ptx_suite`] (or [`rounds_arg`], [`gpu`] and [`load_ptx`]
//! for other options), then for each kernel [`time_pair`] or [`time_alternately`], with
//! [`record_failure`] for a kernel that fails while the others still run, and last [`finish`].

use crate::{EventTimer, ExampleResult, median, optional_arg, required_arg};
use ferrocuda::Device;
use ferrocuda::cudarc::driver::{CudaContext, CudaModule};
use ferrocuda::cudarc::nvrtc::Ptx;
use std::sync::Arc;

/// The rounds [`time_alternately`] runs, untimed, before the timed ones.
pub const WARM_UP_ROUNDS: usize = 3;

/// The timed rounds of `--rounds N`, 10 without the option: an error when `N` is not a whole
/// number or is below `min`.
pub fn rounds_arg(min: usize) -> Result<usize, String> {
    let rounds: usize = match optional_arg("--rounds") {
        Some(r) => r
            .parse()
            .map_err(|_| format!("--rounds {r}: expected a whole number, at least {min}"))?,
        None => 10,
    };
    if rounds < min {
        return Err(if min == 1 {
            format!("--rounds {rounds}: at least one timed round is needed")
        } else {
            format!("--rounds {rounds}: at least {min} timed rounds are needed for a median")
        });
    }
    Ok(rounds)
}

/// GPU 0, announced on stdout (`device: ...`), and its CUDA context, into which the twins' PTX
/// is loaded; `program` names the benchmark in the error when the device has no context.
pub fn gpu(program: &str) -> ExampleResult<(Device, Arc<CudaContext>)> {
    let device = Device::new(0)?;
    println!("device: {device}");
    let context = device
        .cuda_context()
        .ok_or(format!("{program} needs a GPU"))?
        .clone();
    Ok((device, context))
}

/// The PTX file `path` loaded into `context`; the error names the file.
pub fn load_ptx(context: &Arc<CudaContext>, path: &str) -> Result<Arc<CudaModule>, String> {
    context
        .load_module(Ptx::from_file(path))
        .map_err(|e| format!("loading {path}: {e:?}"))
}

/// The start of a benchmark whose twins are one PTX file: `--cuda-ptx FILE` (required; `what`
/// says how the file is built, in the error when it is missing), `--rounds N` (at least 1),
/// GPU 0 ([`gpu`], `program` naming the benchmark) and the file loaded into its context:
/// `(device, twins, rounds)`.
pub fn cuda_ptx_suite(
    program: &str,
    what: &str,
) -> ExampleResult<(Device, Arc<CudaModule>, usize)> {
    let ptx = required_arg("--cuda-ptx", what)?;
    let rounds = rounds_arg(1)?;
    let (device, context) = gpu(program)?;
    let module = load_ptx(&context, &ptx)?;
    Ok((device, module, rounds))
}

/// Times `sides` implementations of `kernel` (announced on stderr) alternately on `device`'s
/// default stream: each round calls `sample(side, timer)` for every side in order, which
/// returns that side's milliseconds (timed with the timer, after whatever it restores outside
/// the timing); [`WARM_UP_ROUNDS`] rounds, then `rounds` timed ones. Each side's median, in
/// order.
pub fn time_alternately(
    device: &Device,
    kernel: &str,
    rounds: usize,
    sides: usize,
    mut sample: impl FnMut(usize, &EventTimer) -> ExampleResult<f64>,
) -> ExampleResult<Vec<f64>> {
    eprintln!("timing {kernel}...");
    let timer = EventTimer::new(device)?;
    let mut samples = vec![Vec::new(); sides];
    for round in 0..rounds + WARM_UP_ROUNDS {
        for (side, samples) in samples.iter_mut().enumerate() {
            let ms = sample(side, &timer)?;
            if round >= WARM_UP_ROUNDS {
                samples.push(ms);
            }
        }
    }
    Ok(samples.into_iter().map(median).collect())
}

/// [`time_alternately`] for two sides, ferrocuda's `ours` first, then CUDA C's `cuda`: the
/// medians `(ferrocuda ms, CUDA C ms)`.
pub fn time_pair(
    device: &Device,
    kernel: &str,
    rounds: usize,
    mut ours: impl FnMut(&EventTimer) -> ExampleResult<f64>,
    mut cuda: impl FnMut(&EventTimer) -> ExampleResult<f64>,
) -> ExampleResult<(f64, f64)> {
    let medians = time_alternately(device, kernel, rounds, 2, |side, timer| {
        if side == 0 { ours(timer) } else { cuda(timer) }
    })?;
    Ok((medians[0], medians[1]))
}

/// Records that `what` failed with `error`: said on stderr at once (`<what> FAILED: <error>`)
/// and kept in `failures` for the report and the exit status ([`finish`]).
pub fn record_failure(failures: &mut Vec<String>, what: &str, error: impl std::fmt::Display) {
    eprintln!("{what} FAILED: {error}");
    failures.push(format!("{what}: {error}"));
}

/// The end of a run: prints `report` after an empty line, writes it to the file of `--out FILE`
/// when the option is given (and says so), then fails when anything did, with `failures`
/// counted as `noun` (`"kernel(s)"`, say) and joined.
pub fn finish(report: &str, failures: &[String], noun: &str) -> ExampleResult {
    println!();
    print!("{report}");
    if let Some(path) = optional_arg("--out") {
        std::fs::write(&path, report).map_err(|e| format!("writing {path}: {e}"))?;
        println!("wrote {path}");
    }
    if failures.is_empty() {
        Ok(())
    } else {
        Err(format!("{} {noun} failed: {}", failures.len(), failures.join("; ")).into())
    }
}
