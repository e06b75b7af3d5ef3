//! The devices a test runs on.
//!
//! Every kernel test is written once, as a function of a [`Device`], and instantiated for each
//! backend by [`device_tests!`](crate::device_tests): `<name>::simulator` always runs;
//! `<name>::gpu` runs on the first CUDA GPU. Without one, the GPU variant prints why and passes,
//! unless `FERROCUDA_REQUIRE_GPU` is set ([`REQUIRE_GPU_ENV`]): then it fails with that reason,
//! so that a GPU machine whose driver is broken does not show green. `scripts/gpu-run.sh` sets
//! it.
//!
//! The `_with` forms take the environment as a lookup function and the opening of the GPU as a
//! closure, as `nvptx-builder`'s `config.rs` does, so that `tests/require_gpu.rs` can check the
//! policy without process state or a GPU; the plain forms pass [`process_env`] and GPU 0.

use ferrocuda::Device;

/// `FERROCUDA_SKIP_GPU_TESTS=1` skips the GPU variants without trying the driver.
pub const SKIP_GPU_ENV: &str = "FERROCUDA_SKIP_GPU_TESTS";

/// `FERROCUDA_REQUIRE_GPU` set to anything but empty or `0` turns a GPU variant that cannot
/// run (no driver, no GPU, or [`SKIP_GPU_ENV`]) into a failure naming the reason.
pub const REQUIRE_GPU_ENV: &str = "FERROCUDA_REQUIRE_GPU";

/// The process environment, as the lookup function the `_with` functions take.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// The first CUDA GPU, or why there is none.
pub fn gpu() -> Result<Device, String> {
    gpu_with(process_env, open_first_gpu)
}

/// Like [`gpu`], with the environment and the way to open the GPU given as functions.
pub fn gpu_with(
    env: impl Fn(&str) -> Option<String>,
    open: impl FnOnce() -> Result<Device, String>,
) -> Result<Device, String> {
    if env(SKIP_GPU_ENV).is_some_and(|v| v == "1") {
        return Err(format!("{SKIP_GPU_ENV}=1"));
    }
    open()
}

/// Whether `env` asks for GPU variants that cannot run to fail ([`REQUIRE_GPU_ENV`]).
fn gpu_required(env: impl Fn(&str) -> Option<String>) -> bool {
    env(REQUIRE_GPU_ENV).is_some_and(|v| !matches!(v.trim(), "" | "0"))
}

/// GPU 0, with the driver's error as a sentence.
fn open_first_gpu() -> Result<Device, String> {
    Device::new(0).map_err(|e| e.to_string())
}

/// Runs a test body on the GPU; without one, prints why it was skipped, or panics with the
/// reason when [`REQUIRE_GPU_ENV`] is set.
pub fn on_gpu(test: &str, body: impl FnOnce(&Device)) {
    on_gpu_with(test, process_env, open_first_gpu, body)
}

/// Like [`on_gpu`], with the environment and the way to open the GPU given as functions.
///
/// # Panics
/// When the GPU is unavailable and `env` sets [`REQUIRE_GPU_ENV`], with a message naming the
/// test and the reason.
pub fn on_gpu_with(
    test: &str,
    env: impl Fn(&str) -> Option<String>,
    open: impl FnOnce() -> Result<Device, String>,
    body: impl FnOnce(&Device),
) {
    match gpu_with(&env, open) {
        Ok(device) => body(&device),
        Err(reason) if gpu_required(&env) => panic!(
            "{test} must run on the GPU ({REQUIRE_GPU_ENV} is set), but the GPU is unavailable: {reason}"
        ),
        Err(reason) => eprintln!("skipped {test} on the GPU: {reason}"),
    }
}

/// A second device to mix with `device` in the tests of cross-device checks: the GPU for the
/// simulator (or `None`, printing why there is none), the simulator for a GPU.
pub fn other_device(device: &Device) -> Option<Device> {
    if !device.is_simulator() {
        return Some(Device::simulator());
    }
    match gpu() {
        Ok(gpu) => Some(gpu),
        Err(reason) => {
            eprintln!("no second device to mix with: {reason}");
            None
        }
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
/// gives `vecadd_matches_cpu::simulator` and `vecadd_matches_cpu::gpu` (see [`on_gpu`] for
/// what the latter does without a GPU).
#[macro_export]
macro_rules! device_tests {
    ($( $(#[$meta:meta])* fn $name:ident($device:ident) $body:block )*) => {
        $(
            $(#[$meta])*
            // `allow`, not `expect`: the module is named after the test, which may be in any case,
            // and a test body may or may not use its file's imports.
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
                    $crate::on_gpu(concat!(module_path!(), "::gpu"), run);
                }
            }
        )*
    };
}
