//! End to end: a kernel crate whose PTX build fails shows each error once, before anything
//! else cargo prints about the failure.
//!
//! Each test writes a tiny kernel crate (no ferrocuda, just a raw `ptx-kernel`) under
//! `CARGO_TARGET_TMPDIR`, builds it with the cargo running these tests and inspects what it
//! printed. The crates share one target directory there, so `core` for nvptx64 is built once
//! (about 15 s) and later runs take a few seconds. They need the pinned toolchain
//! ([`nvptx_builder::DEFAULT_TOOLCHAIN`]) installed; without it they print why and pass, rather
//! than download it.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{manifest, toolchain_installed, write};

/// A kernel crate source whose device side is `body`.
fn lib_rs(body: &str) -> String {
    format!(
        r#"#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {{
    loop {{}}
}}
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn store(x: *mut f32) {{
    {body}
}}
"#
    )
}

/// Writes the crate into `<tmp>/<name>` and runs `cargo build` there; returns success and
/// everything cargo printed on stderr.
fn build(name: &str, body: &str, arch: Option<&str>) -> (bool, String) {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let dir = tmp.join(name);
    write(&dir.join("Cargo.toml"), &manifest("report-once"));
    write(
        &dir.join("build.rs"),
        "fn main() {\n    nvptx_builder::build()\n}\n",
    );
    write(&dir.join("src/lib.rs"), &lib_rs(body));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--offline", "--color", "never"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", tmp.join("report-once-target"))
        .env_remove(nvptx_builder::ARCH_ENV)
        .env_remove(nvptx_builder::TOOLCHAIN_ENV);
    if let Some(arch) = arch {
        cmd.env(nvptx_builder::ARCH_ENV, arch);
    }
    let out = cmd.output().expect("cargo runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Checks that `needle` occurs once, in the first `error` line, and that cargo's
/// "failed to run custom build command" block (which repeats the script's output) is absent.
fn assert_once_and_first(output: &str, needle: &str) {
    assert_eq!(
        output.matches(needle).count(),
        1,
        "{needle:?} in:\n{output}"
    );
    let first_error = output
        .lines()
        .find(|l| l.starts_with("error"))
        .unwrap_or("");
    assert!(
        first_error.contains(needle),
        "first error line is {first_error:?} in:\n{output}"
    );
    assert!(
        !output.contains("failed to run custom build command"),
        "{output}"
    );
}

#[test]
fn unknown_architecture_is_reported_once_with_origin() {
    if !toolchain_installed() {
        return;
    }
    let (ok, output) = build("bad-arch", "unsafe { *x = 1.0 }", Some("sm_9000"));
    assert!(!ok, "{output}");
    assert_once_and_first(
        &output,
        "GPU architecture `sm_9000` (from the environment variable FERROCUDA_ARCH)",
    );
    assert!(output.contains("accepted: sm_70, "), "{output}");
}

#[test]
fn compile_error_is_reported_once_and_first() {
    if !toolchain_installed() {
        return;
    }
    let (ok, output) = build("compile-error", "unsafe { *x = 1.0 + missing_value }", None);
    assert!(!ok, "{output}");
    assert_once_and_first(&output, "cannot find value `missing_value` in this scope");
    assert!(
        output.contains("compiling report-once for nvptx64-nvidia-cuda (sm_70"),
        "{output}"
    );
}
