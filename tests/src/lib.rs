//! Helpers shared by the workspace tests: the devices to run on, and random inputs.
//!
//! Every kernel test is written once, as a function of a [`Device`], and instantiated for each
//! backend by [`device_tests!`]: `<name>::simulator` always runs; `<name>::gpu` runs on the first
//! CUDA GPU and, on a machine without one, passes after printing why it did not run.

use ferrocuda::Device;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// The first CUDA GPU, or why there is none.
pub fn gpu() -> Result<Device, String> {
    if std::env::var("FERROCUDA_SKIP_GPU_TESTS").is_ok_and(|v| v == "1") {
        return Err("FERROCUDA_SKIP_GPU_TESTS=1".to_string());
    }
    Device::new(0).map_err(|e| e.to_string())
}

/// Runs a test body on the GPU, or prints why it was skipped.
pub fn on_gpu(test: &str, body: impl FnOnce(&Device)) {
    match gpu() {
        Ok(device) => body(&device),
        Err(reason) => eprintln!("skipped {test} on the GPU: {reason}"),
    }
}

/// Declares tests that run on the simulator and on the GPU:
///
/// ```ignore
/// device_tests! {
///     fn vecadd_matches_cpu(device) {
///         ...
///     }
/// }
/// ```
/// gives `vecadd_matches_cpu::simulator` and `vecadd_matches_cpu::gpu`.
#[macro_export]
macro_rules! device_tests {
    ($( $(#[$meta:meta])* fn $name:ident($device:ident) $body:block )*) => {
        $(
            $(#[$meta])*
            #[allow(non_snake_case)]
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                fn run($device: &::ferrocuda::Device) $body

                #[test]
                fn simulator() {
                    run(&::ferrocuda::Device::simulator());
                }

                #[test]
                fn gpu() {
                    $crate::on_gpu(concat!(module_path!(), "::", stringify!($name)), run);
                }
            }
        )*
    };
}

/// A deterministic random generator for a test, seeded from its name.
pub fn rng(seed: &str) -> StdRng {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in seed.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    StdRng::seed_from_u64(h)
}

/// `n` random `f32` in `[-1, 1)`.
pub fn random_f32(rng: &mut StdRng, n: usize) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// `n` random `u32` below `bound`.
pub fn random_u32(rng: &mut StdRng, n: usize, bound: u32) -> Vec<u32> {
    (0..n).map(|_| rng.random_range(0..bound)).collect()
}

/// `n` random bytes.
pub fn random_u8(rng: &mut StdRng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.random()).collect()
}

/// Asserts `actual` matches `expected` within `tolerance` (absolute plus relative), naming the
/// first element that does not.
#[track_caller]
pub fn assert_close(actual: &[f32], expected: &[f32], tolerance: f32) {
    assert_eq!(actual.len(), expected.len(), "lengths differ");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        let ok = (a - e).abs() <= tolerance * (1.0 + e.abs());
        assert!(
            ok,
            "element {i}: got {a}, expected {e} (tolerance {tolerance}), of {} elements",
            actual.len()
        );
    }
}

/// `C = A B` on the CPU for row-major `A` (`m` x `n`) and `B` (`n` x `p`), summed in `f64`.
pub fn matmul_cpu(a: &[f32], b: &[f32], m: usize, n: usize, p: usize) -> Vec<f32> {
    let mut c = vec![0.0f32; m * p];
    for row in 0..m {
        for col in 0..p {
            let sum: f64 = (0..n)
                .map(|k| a[row * n + k] as f64 * b[k * p + col] as f64)
                .sum();
            c[row * p + col] = sum as f32;
        }
    }
    c
}

/// Distance in units in the last place between two `f32` (0 for two NaNs).
pub fn ulps32(a: f32, b: f32) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f32| {
        let bits = x.to_bits() as i32;
        if bits < 0 {
            i32::MIN as i64 - bits as i64
        } else {
            bits as i64
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

/// Distance in units in the last place between two `f64` (0 for two NaNs).
pub fn ulps64(a: f64, b: f64) -> u64 {
    if a == b || (a.is_nan() && b.is_nan()) {
        return 0;
    }
    let key = |x: f64| {
        let bits = x.to_bits() as i64;
        if bits < 0 {
            i64::MIN as i128 - bits as i128
        } else {
            bits as i128
        }
    };
    (key(a) - key(b)).unsigned_abs() as u64
}
