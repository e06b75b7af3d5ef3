//! `ferrocuda::bench`: the report's statistics are consistent. Times are
//! never asserted.

use ferrocuda::prelude::*;
use ferrocuda::{BenchReport, bench};
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::elementwise::vecadd;

fn check_report(report: &BenchReport, runs: usize) {
    assert_eq!(report.runs(), runs);
    assert_eq!(report.samples_ms.len(), runs);
    assert_eq!(report.host_samples_ms.len(), runs);
    assert!(
        report.samples_ms.iter().all(|&t| t.is_finite() && t >= 0.0),
        "{:?}",
        report.samples_ms
    );
    assert!(
        report.min_ms <= report.median_ms && report.median_ms <= report.max_ms,
        "{report:?}"
    );
    assert!(
        report.min_ms <= report.mean_ms && report.mean_ms <= report.max_ms * (1.0 + 1e-12),
        "{report:?}"
    );
    assert_eq!(
        report.min_ms,
        report
            .samples_ms
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
    );
    assert_eq!(
        report.max_ms,
        report.samples_ms.iter().copied().fold(0.0, f64::max)
    );
    let text = report.to_string();
    assert!(
        text.starts_with("median ") && text.ends_with(&format!(", {runs} runs)")),
        "{text}"
    );
}

device_tests! {
    fn bench_report_is_consistent(device) {
        let mut rng = rng("bench");
        let n = 5000;
        let a = DeviceBuffer::from_slice(device, &random_f32(&mut rng, n)).unwrap();
        let b = DeviceBuffer::from_slice(device, &random_f32(&mut rng, n)).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let mut calls = 0;
        let report = bench(device, 2, 7, || {
            calls += 1;
            launch!(vecadd[n.div_ceil(256) as u32, 256](&a, &b, &mut c))
        })
        .unwrap();
        assert_eq!(calls, 9, "2 warm-up calls and 7 timed ones");
        check_report(&report, 7);
        assert_eq!(report.backend, device.backend());
        // The kernel really ran.
        let (ha, hb) = (a.to_vec().unwrap(), b.to_vec().unwrap());
        let expected: Vec<f32> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
        assert_eq!(c.to_vec().unwrap(), expected);
    }

    fn bench_on_a_stream(device) {
        let stream = device.new_stream().unwrap();
        let a = DeviceBuffer::from_slice(device, &[1.0f32; 300]).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, 300).unwrap();
        // The buffers were filled on the default stream, which a new stream waits for.
        let report = bench(&stream, 0, 4, || launch!(vecadd[3, 128, &stream](&a, &a, &mut c))).unwrap();
        check_report(&report, 4);
        assert_eq!(c.to_vec().unwrap(), vec![2.0; 300]);
    }

    fn bench_passes_errors_on(device) {
        let a = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        // A block of 2048 threads is rejected at the first (warm-up) call.
        let result = bench(device, 1, 3, || launch!(vecadd[1, 2048](&a, &a, &mut c)));
        assert!(matches!(result, Err(Error::Launch(_))), "{result:?}");
    }
}

#[test]
#[should_panic(expected = "at least one timed repeat")]
fn bench_needs_a_repeat() {
    let _ = bench(&Device::simulator(), 0, 0, || Ok(()));
}
