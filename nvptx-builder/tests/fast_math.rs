//! End to end: fast math in the PTX of a small kernel crate, off by default, crate-wide through
//! `FERROCUDA_FAST_MATH` or `Builder::fast_math`, and per kernel through the marker
//! `#[kernel(fast_math)]` leaves (written by hand here: this crate has no ferrocuda).
//!
//! Like `build_products.rs`, each test writes the crate under `CARGO_TARGET_TMPDIR` and builds
//! it with the cargo running these tests; without the pinned toolchain they print why and pass.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{manifest, toolchain_installed, write};

/// Two kernels with the same multiply-add and a division and square root; `fused` is marked for
/// contraction when `MARKER` is set.
const LIB_RS: &str = r#"#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx, core_float_math))]
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn fused(out: *mut f32, a: f32, b: f32, c: f32) {
    unsafe { *out = a * b + c }
}
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn plain(out: *mut f32, a: f32, b: f32, c: f32) {
    unsafe {
        *out = a * b + c;
        *out.add(1) = a / b;
        *out.add(2) = core::f32::math::sqrt(c);
    }
}
"#;

/// What `#[kernel(fast_math)]` on `fused` leaves.
const MARKER: &str = r#"
#[cfg(target_arch = "nvptx64")]
#[unsafe(link_section = ".ferrocuda.fast_math")]
#[used]
static FUSED_FAST_MATH: [u8; 14] = *b"fused=contract";
"#;

/// Writes the crate `name` with `build_main` as its build script's `main` body, and `MARKER`
/// when `marked`.
fn crate_dir(name: &str, build_main: &str, marked: bool) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    write(&dir.join("Cargo.toml"), &manifest(name));
    write(
        &dir.join("build.rs"),
        &format!("fn main() {{\n    {build_main}\n}}\n"),
    );
    let mut lib = LIB_RS.to_owned();
    if marked {
        lib.push_str(MARKER);
    }
    write(&dir.join("src/lib.rs"), &lib);
    dir
}

fn target_dir() -> PathBuf {
    // Shared with the other end-to-end tests: the same `core`.
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-once-target")
}

/// Builds the crate in `dir` with `FERROCUDA_FAST_MATH` set to `fast_math` (unset when `None`);
/// returns success, cargo's stderr and the PTX (empty when the build failed).
fn build(dir: &Path, fast_math: Option<&str>) -> (bool, String, String) {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--offline", "--color", "never"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env(nvptx_builder::PTXAS_ENV, "0");
    for key in [
        nvptx_builder::ARCH_ENV,
        nvptx_builder::TOOLCHAIN_ENV,
        nvptx_builder::LINE_INFO_ENV,
        nvptx_builder::CUBIN_ARCHS_ENV,
        nvptx_builder::FAST_MATH_ENV,
    ] {
        cmd.env_remove(key);
    }
    if let Some(value) = fast_math {
        cmd.env(nvptx_builder::FAST_MATH_ENV, value);
    }
    let out = cmd.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let name = dir.file_name().unwrap().to_str().unwrap();
    let ptx = newest_ptx(name).unwrap_or_default();
    (out.status.success(), stderr, ptx)
}

/// The PTX of the newest build of package `name`.
fn newest_ptx(name: &str) -> Option<String> {
    let build = target_dir().join("debug").join("build");
    let newest = std::fs::read_dir(&build)
        .ok()?
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|f| f.starts_with(&format!("{name}-")))
        })
        .map(|e| e.path().join("out").join(nvptx_builder::PTX_FILE_NAME))
        .filter(|p| p.exists())
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())?;
    std::fs::read_to_string(newest).ok()
}

/// The instructions (first word of each line) of the `.entry` named `kernel`.
fn instructions<'a>(ptx: &'a str, kernel: &str) -> Vec<&'a str> {
    let start = ptx
        .find(&format!(".entry {kernel}("))
        .unwrap_or_else(|| panic!("no .entry {kernel} in\n{ptx}"));
    let body = &ptx[start..];
    let end = body.find("\n}").map_or(body.len(), |e| e + 2);
    body[..end]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.'))
        .filter_map(|l| l.split_whitespace().next())
        .collect()
}

/// The fast-math note lines of the PTX.
fn notes(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter(|l| l.starts_with(nvptx_builder::PTX_NOTE_PREFIX))
        .collect()
}

#[test]
fn off_by_default_and_crate_wide_from_the_environment() {
    if !toolchain_installed() {
        return;
    }
    let dir = crate_dir("fast-math-env", "nvptx_builder::build()", false);
    let (ok, output, default) = build(&dir, None);
    assert!(ok, "{output}");
    for kernel in ["fused", "plain"] {
        let ops = instructions(&default, kernel);
        assert!(
            ops.contains(&"mul.rn.f32") && ops.contains(&"add.rn.f32"),
            "{kernel}: {ops:?}"
        );
        assert!(!ops.contains(&"fma.rn.f32"), "{kernel}: {ops:?}");
    }
    let ops = instructions(&default, "plain");
    assert!(
        ops.contains(&"div.rn.f32") && ops.contains(&"sqrt.rn.f32"),
        "{ops:?}"
    );
    assert!(notes(&default).is_empty(), "{default}");
    assert!(!output.contains("fast math"), "{output}");

    // `off` is the default, to the byte.
    let (ok, output, off) = build(&dir, Some("off"));
    assert!(ok, "{output}");
    assert_eq!(off, default);

    let (ok, output, contract) = build(&dir, Some("contract"));
    assert!(ok, "{output}");
    for kernel in ["fused", "plain"] {
        let ops = instructions(&contract, kernel);
        assert!(ops.contains(&"fma.rn.f32"), "{kernel}: {ops:?}");
        assert!(!ops.contains(&"mul.rn.f32"), "{kernel}: {ops:?}");
    }
    let ops = instructions(&contract, "plain");
    assert!(
        ops.contains(&"div.rn.f32") && ops.contains(&"sqrt.rn.f32"),
        "{ops:?}"
    );
    assert_eq!(
        notes(&contract),
        [
            "// ferrocuda fast math: fused contract",
            "// ferrocuda fast math: plain contract"
        ]
    );
    assert!(
        output.contains(
            "fast math (contract) in every kernel of fast-math-env (from the environment \
             variable FERROCUDA_FAST_MATH)"
        ),
        "{output}"
    );

    let (ok, output, all) = build(&dir, Some("all"));
    assert!(ok, "{output}");
    let ops = instructions(&all, "plain");
    assert!(
        ops.contains(&"fma.rn.f32")
            && ops.contains(&"div.approx.f32")
            && ops.contains(&"sqrt.approx.f32"),
        "{ops:?}"
    );

    let (ok, output, _) = build(&dir, Some("contract,fused-multiply"));
    assert!(!ok);
    assert!(
        output.contains(
            "invalid value \"contract,fused-multiply\" of the environment variable \
             FERROCUDA_FAST_MATH: unknown fast-math option \"fused-multiply\""
        ),
        "{output}"
    );
}

#[test]
fn from_the_builder_and_per_kernel() {
    if !toolchain_installed() {
        return;
    }
    let dir = crate_dir(
        "fast-math-builder",
        "nvptx_builder::Builder::new().fast_math(nvptx_builder::FastMath { approx_div: true, \
         ..nvptx_builder::FastMath::OFF }).build()",
        true,
    );
    let (ok, output, ptx) = build(&dir, None);
    assert!(ok, "{output}");
    // Contraction in the marked kernel only; approximate division in both.
    let fused = instructions(&ptx, "fused");
    let plain = instructions(&ptx, "plain");
    assert!(fused.contains(&"fma.rn.f32"), "{fused:?}");
    assert!(!plain.contains(&"fma.rn.f32"), "{plain:?}");
    assert!(plain.contains(&"mul.rn.f32"), "{plain:?}");
    assert!(plain.contains(&"div.approx.f32"), "{plain:?}");
    assert!(plain.contains(&"sqrt.rn.f32"), "{plain:?}");
    assert_eq!(
        notes(&ptx),
        [
            "// ferrocuda fast math: fused contract,approx-div",
            "// ferrocuda fast math: plain approx-div"
        ]
    );
    // The marker is gone from the PTX.
    assert!(!ptx.contains("FUSED_FAST_MATH"), "{ptx}");
    assert!(!ptx.lines().any(|l| l.contains(".global .align")), "{ptx}");
    assert!(
        output.contains("fast math (approx-div) in every kernel of fast-math-builder (from Builder::fast_math in build.rs)"),
        "{output}"
    );
}
