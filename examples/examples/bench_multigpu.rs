//! The multi-GPU benchmark (two GPUs of one host; with fewer it prints `SKIP:` and why, and
//! succeeds): ferrocuda's NCCL all-reduce of 256 MiB of `f32` against PyTorch's
//! (`bench/multigpu_torch.py`, `torch.distributed` with NCCL, two processes), and its peer copy
//! of 256 MiB from GPU 0 to GPU 1 against `cudaMemcpyPeerAsync` (`bench/multigpu_peer.cu`, built
//! by nvcc on the GPU machine). Run through `bench/run.sh` (`BENCH_ONLY=multigpu`):
//!
//! ```text
//! bench_multigpu --peer peer.txt --torch torch.txt [--out bench-multigpu.md] [--rounds N]
//! ```
//!
//! The reference files hold `name value` lines (`peer_copy_gbs`, `allreduce_busbw_gbs`). Each
//! measurement is timed with CUDA events on the streams that run it: for the all-reduce, one
//! pair of events per rank around the group call and the slowest rank's time; 5 warm-up runs,
//! then the median of `--rounds` (21). Bus bandwidth is NCCL's: bytes / time * 2 (n - 1) / n.
//! The issue's targets are 0.95x the references. The results are checked (the all-reduce of
//! rank `r`'s value `r + 1`, the copy element by element).
//!
//! NVLink multicast (NVLS) stays off: the benchmark refuses to run unless `NCCL_NVLS_ENABLE=0`
//! is set, as bench/run.sh sets it for PyTorch too.

use ferrocuda::prelude::*;
use ferrocuda::{Communicator, CopyRoute, ReduceOp};
use ferrocuda_examples::{ExampleResult, median, optional_arg, required_arg};
use std::collections::HashMap;

/// Bytes moved by each measurement: 256 MiB.
const BYTES: usize = 256 << 20;
/// Untimed runs before the timed ones.
const WARM_UP: usize = 5;
/// The issue's target: at least this fraction of the reference.
const TARGET: f64 = 0.95;

/// Reads `name value` lines.
fn read_values(path: &str) -> Result<HashMap<String, f64>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(text
        .lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(' ')?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect())
}

/// The median of `rounds` timed runs of `run` (milliseconds) after [`WARM_UP`] untimed ones.
fn median_ms(
    rounds: usize,
    mut run: impl FnMut() -> ferrocuda::Result<f64>,
) -> ferrocuda::Result<f64> {
    for _ in 0..WARM_UP {
        run()?;
    }
    let times = (0..rounds)
        .map(|_| run())
        .collect::<ferrocuda::Result<Vec<_>>>()?;
    Ok(median(times))
}

/// The all-reduce's bus bandwidth in GB/s on GPUs 0 and 1.
fn all_reduce_busbw(devices: &[Device], rounds: usize) -> ExampleResult<f64> {
    let n = BYTES / size_of::<f32>();
    let streams: Vec<Stream> = devices
        .iter()
        .map(Device::new_stream)
        .collect::<ferrocuda::Result<_>>()?;
    let communicator = Communicator::with_streams(&streams)?;
    println!("all-reduce by {}", communicator.library()?);
    let mut buffers: Vec<DeviceBuffer<f32>> = devices
        .iter()
        .enumerate()
        .map(|(rank, d)| DeviceBuffer::from_slice(d, &vec![(rank + 1) as f32; n]))
        .collect::<ferrocuda::Result<_>>()?;
    communicator.all_reduce(&mut buffers, ReduceOp::Sum)?;
    communicator.synchronize()?;
    let expected: f32 = (1..=devices.len()).map(|r| r as f32).sum();
    for (rank, buffer) in buffers.iter().enumerate() {
        if let Some(i) = buffer.to_vec()?.iter().position(|&v| v != expected) {
            return Err(format!("all-reduce: rank {rank}, element {i} is not {expected}").into());
        }
    }
    // Small values again, so that repeated sums stay exact and finite.
    for buffer in &mut buffers {
        buffer.copy_from(&vec![0.0; n])?;
    }
    let ms = median_ms(rounds, || {
        let starts = streams
            .iter()
            .map(Stream::record_event)
            .collect::<ferrocuda::Result<Vec<_>>>()?;
        communicator.all_reduce(&mut buffers, ReduceOp::Sum)?;
        let ends = streams
            .iter()
            .map(Stream::record_event)
            .collect::<ferrocuda::Result<Vec<_>>>()?;
        let mut slowest = 0.0f64;
        for (start, end) in starts.iter().zip(&ends) {
            end.synchronize()?;
            slowest = slowest.max(start.elapsed_ms(end)? as f64);
        }
        Ok(slowest)
    })?;
    let ranks = devices.len() as f64;
    Ok(BYTES as f64 / (ms * 1e-3) * (2.0 * (ranks - 1.0) / ranks) / 1e9)
}

/// The peer copy's bandwidth in GB/s from GPU 0 to GPU 1.
fn peer_copy_bandwidth(devices: &[Device], rounds: usize) -> ExampleResult<f64> {
    let (from, to) = (&devices[0], &devices[1]);
    if !to.can_access_peer(from)? {
        println!(
            "GPU 1 cannot access GPU 0's memory directly: the peer copy goes the driver's way"
        );
    } else {
        to.enable_peer_access(from)?;
        from.enable_peer_access(to)?;
    }
    let n = BYTES / size_of::<u32>();
    let data: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let source = DeviceBuffer::from_slice(from, &data)?;
    let mut destination = DeviceBuffer::<u32>::zeros(to, n)?;
    let stream = to.new_stream()?;
    let ms = median_ms(rounds, || {
        let start = stream.record_event()?;
        destination.slice_mut(..).copy_from_device_via(
            source.slice(..),
            &stream,
            CopyRoute::Peer,
        )?;
        let end = stream.record_event()?;
        end.synchronize()?;
        Ok(start.elapsed_ms(&end)? as f64)
    })?;
    if destination.to_vec()? != data {
        return Err("peer copy: the destination differs from the source".into());
    }
    Ok(BYTES as f64 / (ms * 1e-3) / 1e9)
}

/// One row of the table.
fn row(what: &str, ours: f64, reference_name: &str, reference: Option<f64>) -> String {
    match reference {
        Some(reference) => {
            let ratio = ours / reference;
            let verdict = if ratio >= TARGET { "met" } else { "MISSED" };
            format!(
                "| {what} | {ours:.1} | {reference_name} {reference:.1} | {ratio:.3}x | >= {TARGET}x: {verdict} |"
            )
        }
        None => format!("| {what} | {ours:.1} | {reference_name} n/a | n/a | >= {TARGET}x |"),
    }
}

fn main() -> ExampleResult {
    let gpus = Device::gpu_count()?;
    if gpus < 2 {
        println!("SKIP: the multi-GPU benchmark needs 2 GPUs of one host; this machine has {gpus}");
        return Ok(());
    }
    if std::env::var("NCCL_NVLS_ENABLE").as_deref() != Ok("0") {
        return Err(
            "set NCCL_NVLS_ENABLE=0 first: NVLink multicast stays off in this benchmark".into(),
        );
    }
    let rounds: usize = optional_arg("--rounds").map_or(Ok(21), |r| r.parse())?;
    let peer_reference = read_values(&required_arg("--peer", "peer.txt")?)?;
    let torch_reference = read_values(&required_arg("--torch", "torch.txt")?).unwrap_or_else(|e| {
        println!("PyTorch reference unavailable: {e}");
        HashMap::new()
    });
    let devices = [Device::new(0)?, Device::new(1)?];
    println!("GPUs: {}, {}", devices[0], devices[1]);

    let busbw = all_reduce_busbw(&devices, rounds)?;
    let peer = peer_copy_bandwidth(&devices, rounds)?;
    let table = [
        "| measurement (256 MiB, 2 GPUs) | ferrocuda GB/s | reference GB/s | ratio | target |"
            .to_string(),
        "|---|---|---|---|---|".to_string(),
        row(
            "all-reduce f32, bus bandwidth",
            busbw,
            "PyTorch NCCL",
            torch_reference.get("allreduce_busbw_gbs").copied(),
        ),
        row(
            "peer copy GPU 0 -> GPU 1",
            peer,
            "cudaMemcpyPeerAsync",
            peer_reference.get("peer_copy_gbs").copied(),
        ),
    ]
    .join("\n");
    println!("{table}");
    if let Some(path) = optional_arg("--out") {
        std::fs::write(&path, format!("{table}\n"))?;
    }
    Ok(())
}
