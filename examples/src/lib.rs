//! Helpers shared by the examples: picking the device, checking results against the CPU
//! references of [`reference`](mod@reference), deterministic inputs, and the benchmarks' raw-launch and
//! statistics helpers, with the command-line harness of the benchmarks against CUDA C twins
//! ([`bench_harness`]). The workspace tests (`ferrocuda-tests`) use the same references and
//! comparison, so each exists once.

pub mod bench_chart;
pub mod bench_harness;
pub mod bench_report;
pub mod gemm;
pub mod reference;

use ferrocuda::Device;

/// The result type of the examples' `main` (and of their steps, with a value).
pub type ExampleResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// The default device (GPU 0, or the simulator without a GPU), announced on stdout.
pub fn device() -> ferrocuda::Result<Device> {
    let device = Device::default_device()?;
    let (major, minor) = device.compute_capability();
    println!("device: {device} (compute capability {major}.{minor})");
    Ok(device)
}

/// The first disagreement [`compare`] found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mismatch {
    /// The two slices have different lengths.
    Length {
        /// Elements computed.
        actual: usize,
        /// Elements of the reference.
        expected: usize,
    },
    /// Element `index` is out of tolerance.
    Element {
        /// Its position.
        index: usize,
        /// Its computed value.
        actual: f32,
        /// The reference's value.
        expected: f32,
    },
}

/// Compares `actual` with `expected` element by element within `tolerance`, absolute plus
/// relative (`|a - e| <= tolerance * (1 + |e|)`; a NaN never matches): the largest relative error
/// `|a - e| / (1 + |e|)`, or the first element out of tolerance.
pub fn compare(actual: &[f32], expected: &[f32], tolerance: f32) -> Result<f32, Mismatch> {
    if actual.len() != expected.len() {
        return Err(Mismatch::Length {
            actual: actual.len(),
            expected: expected.len(),
        });
    }
    let mut worst = 0.0f32;
    for (index, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let error = (a - e).abs() / (1.0 + e.abs());
        if error.is_nan() || error > tolerance {
            return Err(Mismatch::Element {
                index,
                actual: a,
                expected: e,
            });
        }
        worst = worst.max(error);
    }
    Ok(worst)
}

/// Compares `actual` with the CPU's `expected` within `tolerance` (absolute plus relative, as
/// [`compare`]); prints a one-line verdict and fails with the first mismatch.
pub fn check(what: &str, actual: &[f32], expected: &[f32], tolerance: f32) -> Result<(), String> {
    match compare(actual, expected, tolerance) {
        Ok(worst) => {
            println!(
                "{what}: {} elements match the CPU (largest relative error {worst:.2e})",
                actual.len()
            );
            Ok(())
        }
        Err(Mismatch::Length { actual, expected }) => {
            Err(format!("{what}: {actual} results, expected {expected}"))
        }
        Err(Mismatch::Element {
            index,
            actual,
            expected,
        }) => Err(format!(
            "{what}: element {index} is {actual}, the CPU says {expected}"
        )),
    }
}

/// Deterministic pseudo-random `f32` in `[-1, 1)` (SplitMix64), so examples need no RNG crate.
pub fn random_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state.wrapping_add(0x9e3779b97f4a7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
            z ^= z >> 31;
            ((z >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// The default stream of a device and two events on it: the benchmarks' way of timing one
/// launch at a time on the GPU's own clock.
pub struct EventTimer {
    stream: ferrocuda::Stream,
    start: ferrocuda::Event,
    end: ferrocuda::Event,
}

impl EventTimer {
    /// A timer on `device`'s default stream.
    pub fn new(device: &Device) -> ferrocuda::Result<EventTimer> {
        Ok(EventTimer {
            stream: device.default_stream(),
            start: ferrocuda::Event::new(device)?,
            end: ferrocuda::Event::new(device)?,
        })
    }

    /// Milliseconds between events recorded just before and just after `launch`, which must
    /// queue its work on the default stream; waits for the work to finish.
    pub fn time(&self, launch: impl FnOnce() -> ferrocuda::Result<()>) -> ferrocuda::Result<f64> {
        self.start.record(&self.stream)?;
        launch()?;
        self.end.record(&self.stream)?;
        self.end.synchronize()?;
        Ok(self.start.elapsed_ms(&self.end)? as f64)
    }
}

/// The median of `values` (the upper one of the middle two for an even count).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The value after `--name` on the command line, or an error naming the missing option.
pub fn required_arg(name: &str, what: &str) -> Result<String, String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .ok_or_else(|| format!("{name} <{what}> is required"))
}

/// The value after `--name` on the command line, if the option is given.
pub fn optional_arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

/// Launches `function` on the default stream with the raw driver call (`cuLaunchKernel`), for
/// the benchmarks' CUDA C references and raw-launch baselines.
///
/// # Safety
/// `params` must point to one value per entry parameter of `function`, of the entry's types, and
/// every device pointer among them must stay valid until the kernel has run.
pub unsafe fn launch_raw(
    function: &ferrocuda::cudarc::driver::CudaFunction,
    grid: (u32, u32, u32),
    block: (u32, u32, u32),
    params: &mut [*mut std::ffi::c_void],
) -> ferrocuda::Result<()> {
    // SAFETY: this function's contract: the caller vouches that `params` matches the entry's
    // parameters and that its device pointers outlive the kernel; `function` was loaded from a
    // module of a live context, so its handle is valid.
    unsafe {
        ferrocuda::cudarc::driver::result::launch_kernel(
            function.cu_function(),
            grid,
            block,
            0,
            std::ptr::null_mut(),
            params,
        )
    }
    .map_err(|e| ferrocuda::Error::Driver {
        call: "cuLaunchKernel",
        name: format!("{e:?}"),
        description: String::new(),
    })
}

/// "Registers per thread" of a loaded function as the driver reports it (`None` if the driver
/// does not say).
pub fn registers(f: &ferrocuda::cudarc::driver::CudaFunction) -> Option<i64> {
    use ferrocuda::cudarc::driver::{result, sys::CUfunction_attribute};
    // SAFETY: the function is loaded from a live module.
    unsafe {
        result::function::get_function_attribute(
            f.cu_function(),
            CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
        )
    }
    .ok()
    .map(i64::from)
}

/// The address of a kernel parameter's value, as [`launch_raw`] takes it.
pub fn param<T>(value: &T) -> *mut std::ffi::c_void {
    value as *const T as *mut std::ffi::c_void
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_reports_the_worst_error_or_the_first_mismatch() {
        assert_eq!(compare(&[1.0, 3.0], &[1.0, 3.0], 0.0), Ok(0.0));
        assert_eq!(compare(&[1.5], &[1.0], 0.25), Ok(0.25));
        assert!(matches!(
            compare(&[1.0, f32::NAN, 9.0], &[1.0, 2.0, 3.0], 1.0),
            Err(Mismatch::Element { index: 1, actual, expected: 2.0 }) if actual.is_nan()
        ));
        assert_eq!(
            compare(&[1.0], &[], 0.0),
            Err(Mismatch::Length {
                actual: 1,
                expected: 0
            })
        );
    }
}
