//! `FERROCUDA_REQUIRE_GPU` turns a GPU variant that cannot run into a failure that names the
//! reason, so that a GPU machine with a broken driver does not show green; without it, the
//! variant prints why it was skipped and passes.
//!
//! Checked twice: through `on_gpu_with`, with the environment and the GPU's absence injected,
//! and end to end, by running this binary's own `probe::gpu` test in a child process with the
//! variables set.

use ferrocuda::Device;
use ferrocuda_tests::{REQUIRE_GPU_ENV, SKIP_GPU_ENV, device_tests, on_gpu_with};
use std::process::Command;

/// The reason the injected "driver" gives for having no GPU.
const NO_GPU: &str = "no CUDA driver on this test's pretend machine";

/// An environment holding exactly `pairs`.
fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

/// Runs a GPU variant on a machine without a GPU in the environment `pairs`: `Ok(())` if it was
/// skipped, the panic message if it failed.
fn without_a_gpu(pairs: &[(&str, &str)]) -> Result<(), String> {
    let env = env_of(pairs);
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        on_gpu_with(
            "probe",
            env,
            || Err(NO_GPU.to_string()),
            |_| panic!("the body ran without a GPU"),
        )
    }));
    run.map_err(|payload| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    })
}

#[test]
fn a_missing_gpu_is_a_skip_by_default() {
    assert_eq!(without_a_gpu(&[]), Ok(()));
    assert_eq!(without_a_gpu(&[(REQUIRE_GPU_ENV, "0")]), Ok(()));
    assert_eq!(without_a_gpu(&[(REQUIRE_GPU_ENV, "")]), Ok(()));
}

#[test]
fn a_missing_gpu_fails_when_the_gpu_is_required() {
    let message = without_a_gpu(&[(REQUIRE_GPU_ENV, "1")]).expect_err("must fail");
    assert_eq!(
        message,
        format!(
            "probe must run on the GPU (FERROCUDA_REQUIRE_GPU is set), but the GPU is \
             unavailable: {NO_GPU}"
        )
    );
}

#[test]
fn skipping_on_purpose_fails_too_when_the_gpu_is_required() {
    let message =
        without_a_gpu(&[(REQUIRE_GPU_ENV, "1"), (SKIP_GPU_ENV, "1")]).expect_err("must fail");
    assert!(
        message.ends_with("the GPU is unavailable: FERROCUDA_SKIP_GPU_TESTS=1"),
        "{message}"
    );
}

device_tests! {
    /// The test the child processes of the end-to-end checks run (`probe::gpu`).
    fn probe(device) {
        let buffer = ferrocuda::DeviceBuffer::from_slice(device, &[1u32, 2, 3]).unwrap();
        assert_eq!(buffer.to_vec().unwrap(), [1, 2, 3]);
    }
}

/// Runs this binary's `probe::gpu` alone with `set` in the environment and `unset` removed:
/// whether it passed, and everything it printed.
fn run_probe(set: &[(&str, &str)], unset: &[&str]) -> (bool, String) {
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    command.args(["probe::gpu", "--exact", "--test-threads=1", "--nocapture"]);
    for name in unset {
        command.env_remove(name);
    }
    for (name, value) in set {
        command.env(name, value);
    }
    let output = command.output().expect("running the test binary");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

#[test]
fn the_gpu_variant_fails_in_a_process_that_requires_the_gpu() {
    let (passed, text) = run_probe(&[(SKIP_GPU_ENV, "1")], &[REQUIRE_GPU_ENV]);
    assert!(passed, "a skipped GPU variant passes by default:\n{text}");
    assert!(
        text.contains("skipped require_gpu::probe::gpu on the GPU: FERROCUDA_SKIP_GPU_TESTS=1"),
        "{text}"
    );

    let (passed, text) = run_probe(&[(SKIP_GPU_ENV, "1"), (REQUIRE_GPU_ENV, "1")], &[]);
    assert!(!passed, "the GPU variant must fail:\n{text}");
    assert!(
        text.contains(
            "must run on the GPU (FERROCUDA_REQUIRE_GPU is set), but the GPU is unavailable: \
             FERROCUDA_SKIP_GPU_TESTS=1"
        ),
        "{text}"
    );
}

/// On a machine without a GPU (this project's build machine), the real driver's reason reaches
/// the failure; on a machine with one, the probe runs and passes.
#[test]
fn a_machine_without_a_gpu_fails_with_the_drivers_reason() {
    let (passed, text) = run_probe(&[(REQUIRE_GPU_ENV, "1")], &[SKIP_GPU_ENV]);
    match Device::new(0) {
        Ok(_) => assert!(passed, "the probe must pass on a GPU:\n{text}"),
        Err(error) => {
            assert!(!passed, "the GPU variant must fail without a GPU:\n{text}");
            let expected = format!("but the GPU is unavailable: {error}");
            assert!(
                text.contains(&expected),
                "expected `{expected}` in:\n{text}"
            );
        }
    }
}
