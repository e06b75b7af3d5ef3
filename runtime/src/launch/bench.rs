//! [`bench()`]: time a launch (or any device work) per call, like `cupyx.profiler.benchmark`.

use crate::handles::device::Device;
use crate::handles::event::Event;
use crate::handles::stream::Stream;
use crate::vocabulary::error::Result;
use crate::vocabulary::limits::Backend;
use std::time::Instant;

/// What [`bench()`] times on: a [`Stream`], or a [`Device`] (its default stream, where
/// `launch!` without a stream argument goes).
pub trait BenchTarget {
    /// The stream the timing events are recorded on.
    fn bench_stream(&self) -> Stream;
}

impl BenchTarget for Stream {
    fn bench_stream(&self) -> Stream {
        self.clone()
    }
}

impl BenchTarget for Device {
    fn bench_stream(&self) -> Stream {
        self.default_stream()
    }
}

/// Per-call timings from [`bench()`], in milliseconds.
///
/// `Display` prints the device time: `median 0.123 ms (min 0.120, max 0.130, 20 runs)`.
#[derive(Clone, Debug, PartialEq)]
pub struct BenchReport {
    /// Device time of each timed call, in order: CUDA events recorded on the stream before
    /// and after the call (on the simulator, where work is synchronous: wall-clock time).
    pub samples_ms: Vec<f64>,
    /// Host time spent inside each call: for asynchronous launches, the launch overhead.
    pub host_samples_ms: Vec<f64>,
    /// Median of `samples_ms` (the mean of the two middle samples for an even count).
    pub median_ms: f64,
    /// Smallest of `samples_ms`.
    pub min_ms: f64,
    /// Largest of `samples_ms`.
    pub max_ms: f64,
    /// Mean of `samples_ms`.
    pub mean_ms: f64,
    /// Median of `host_samples_ms`.
    pub host_median_ms: f64,
    /// Whether the times come from a GPU or the simulator.
    pub backend: Backend,
}

impl BenchReport {
    /// Number of timed calls.
    pub fn runs(&self) -> usize {
        self.samples_ms.len()
    }

    /// Statistics of the given samples (at least one).
    fn from_samples(
        samples_ms: Vec<f64>,
        host_samples_ms: Vec<f64>,
        backend: Backend,
    ) -> BenchReport {
        let n = samples_ms.len() as f64;
        BenchReport {
            median_ms: median(&samples_ms),
            min_ms: samples_ms.iter().copied().fold(f64::INFINITY, f64::min),
            max_ms: samples_ms.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            mean_ms: samples_ms.iter().sum::<f64>() / n,
            host_median_ms: median(&host_samples_ms),
            samples_ms,
            host_samples_ms,
            backend,
        }
    }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

impl std::fmt::Display for BenchReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "median {:.3} ms (min {:.3}, max {:.3}, {} runs)",
            self.median_ms,
            self.min_ms,
            self.max_ms,
            self.runs()
        )
    }
}

/// Runs `call` `warmup` times untimed, then `repeats` times, each timed on `on`'s stream with a
/// pair of events around it (like `cupyx.profiler.benchmark(func, n_warmup=, n_repeat=)`).
///
/// `call` must queue its work on the timed stream: for a [`Device`], its default stream
/// (`launch!(kernel[grid, block](...))`); for a [`Stream`], that stream
/// (`launch!(kernel[grid, block, &stream](...))`). Each timed call is waited for before the
/// next starts, so the samples do not overlap, and kernel panics are reported as errors.
///
/// ```ignore
/// let report = ferrocuda::bench(&device, 3, 20, || launch!(vecadd[grid, 256](&a, &b, &mut c)))?;
/// println!("vecadd: {report}"); // median 0.123 ms (min 0.120, max 0.130, 20 runs)
/// ```
///
/// # Panics
/// If `repeats` is 0 (there would be nothing to report).
pub fn bench<S, F>(on: &S, warmup: usize, repeats: usize, mut call: F) -> Result<BenchReport>
where
    S: BenchTarget + ?Sized,
    F: FnMut() -> Result<()>,
{
    assert!(
        repeats > 0,
        "ferrocuda::bench needs at least one timed repeat"
    );
    let stream = on.bench_stream();
    let device = stream.device().clone();
    for _ in 0..warmup {
        call()?;
    }
    stream.synchronize()?;
    let (start, end) = (Event::new(&device)?, Event::new(&device)?);
    let mut samples = Vec::with_capacity(repeats);
    let mut host_samples = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        start.record(&stream)?;
        let began = Instant::now();
        call()?;
        host_samples.push(began.elapsed().as_secs_f64() * 1e3);
        end.record(&stream)?;
        end.synchronize()?;
        samples.push(start.elapsed_ms(&end)? as f64);
    }
    Ok(BenchReport::from_samples(
        samples,
        host_samples,
        device.backend(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statistics() {
        let report =
            BenchReport::from_samples(vec![3.0, 1.0, 2.0, 10.0], vec![0.5; 4], Backend::Simulator);
        assert_eq!(report.median_ms, 2.5);
        assert_eq!(report.min_ms, 1.0);
        assert_eq!(report.max_ms, 10.0);
        assert_eq!(report.mean_ms, 4.0);
        assert_eq!(report.runs(), 4);
        assert_eq!(
            report.to_string(),
            "median 2.500 ms (min 1.000, max 10.000, 4 runs)"
        );
        assert_eq!(
            BenchReport::from_samples(vec![0.25], vec![0.0], Backend::Cuda).median_ms,
            0.25
        );
    }
}
