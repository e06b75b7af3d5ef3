//! End to end: what a kernel crate's build leaves in `OUT_DIR` under the line-info and cubin
//! switches.
//!
//! Like `errors_reported_once.rs`, each test writes a tiny kernel crate under
//! `CARGO_TARGET_TMPDIR` and builds it with the cargo running these tests, in the target
//! directory those tests use (so `core` for nvptx64 is built once per setting). They need the
//! pinned toolchain; the cubin test also needs the workspace's ptxas (`scripts/fetch-ptxas.sh`).
//! Without them they print why and pass.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{manifest, toolchain_installed, write};

/// The kernel's store is on line 10 of `src/lib.rs`.
const LIB_RS: &str = r#"#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
#[cfg(target_arch = "nvptx64")]
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn store(x: *mut f32, v: f32) {
    unsafe { *x.add(3) = v * 2.0 }
}
"#;

/// The line of `LIB_RS` with the store.
const STORE_LINE: u32 = 10;

/// The crate `name`, written under the test's temporary directory (inside this workspace, so
/// its build finds the workspace's `.tools/ptxas/ptxas`), or, for a name starting with
/// `outside-`, under the system's temporary directory.
fn crate_dir(name: &str) -> PathBuf {
    let dir = if name.starts_with("outside-") {
        std::env::temp_dir().join(format!("nvptx-builder-{name}"))
    } else {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
    };
    write(&dir.join("Cargo.toml"), &manifest(name));
    write(
        &dir.join("build.rs"),
        "fn main() {\n    nvptx_builder::build()\n}\n",
    );
    write(&dir.join("src/lib.rs"), LIB_RS);
    dir
}

fn target_dir() -> PathBuf {
    // Shared with errors_reported_once.rs: same arch and overflow checks, so the same `core`.
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report-once-target")
}

/// Builds crate `name` with the environment `env`; returns success, cargo's stderr and the
/// build script's `OUT_DIR`.
fn build(name: &str, env: &[(&str, &str)]) -> (bool, String, PathBuf) {
    let dir = crate_dir(name);
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--offline", "--color", "never"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", target_dir());
    for key in [
        nvptx_builder::ARCH_ENV,
        nvptx_builder::TOOLCHAIN_ENV,
        nvptx_builder::LINE_INFO_ENV,
        nvptx_builder::PTXAS_ENV,
        nvptx_builder::CUBIN_ARCHS_ENV,
        nvptx_builder::PTXAS_REPORT_ENV,
    ] {
        cmd.env_remove(key);
    }
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), stderr, out_dir(name))
}

/// The newest `OUT_DIR` of package `name`'s build script.
fn out_dir(name: &str) -> PathBuf {
    let build = target_dir().join("debug").join("build");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&build)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path().join("out"))
                .filter(|p| {
                    p.parent()
                        .and_then(Path::file_name)
                        .and_then(|f| f.to_str())
                        .is_some_and(|f| f.starts_with(&format!("{name}-")))
                        && p.join(nvptx_builder::PTX_FILE_NAME).exists()
                })
                .collect()
        })
        .unwrap_or_default();
    dirs.sort_by_key(|p| {
        std::fs::metadata(p.join(nvptx_builder::PTX_FILE_NAME))
            .and_then(|m| m.modified())
            .ok()
    });
    dirs.pop().unwrap_or(build)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn line_tables_are_on_by_default_and_off_with_the_switch() {
    if !toolchain_installed() {
        return;
    }
    let name = "products-lines";
    let (ok, output, out) = build(name, &[(nvptx_builder::PTXAS_ENV, "0")]);
    assert!(ok, "{output}");
    let ptx = read(&out.join(nvptx_builder::PTX_FILE_NAME));
    let lib_rs = crate_dir(name).join("src").join("lib.rs");
    let file_line = format!("\t.file\t1 {:?}", lib_rs.to_str().unwrap());
    assert!(
        ptx.lines()
            .any(|l| l.starts_with(&file_line[..file_line.len() - 1])),
        "no `{file_line}` in\n{ptx}"
    );
    assert!(
        ptx.lines()
            .any(|l| l.trim().starts_with(&format!(".loc\t1 {STORE_LINE} "))),
        "no .loc of line {STORE_LINE} in\n{ptx}"
    );
    assert!(!ptx.contains(", debug"), "{ptx}");
    assert!(!ptx.contains(".debug_info"), "{ptx}");
    // FERROCUDA_PTXAS=0: PTX only, quietly.
    assert_eq!(read(&out.join(nvptx_builder::BINARIES_FILE_NAME)), "&[]\n");
    assert!(!output.contains("no ptxas found"), "{output}");

    let (ok, output, out) = build(
        name,
        &[
            (nvptx_builder::PTXAS_ENV, "0"),
            (nvptx_builder::LINE_INFO_ENV, "0"),
        ],
    );
    assert!(ok, "{output}");
    let ptx = read(&out.join(nvptx_builder::PTX_FILE_NAME));
    assert!(!ptx.contains(".loc"), "{ptx}");
    assert!(!ptx.contains(".file"), "{ptx}");
    assert!(ptx.contains(".entry store"), "{ptx}");

    let (ok, output, _) = build(name, &[(nvptx_builder::LINE_INFO_ENV, "sometimes")]);
    assert!(!ok, "{output}");
    assert!(
        output
            .contains("invalid value \"sometimes\" of the environment variable FERROCUDA_LINEINFO"),
        "{output}"
    );
}

#[test]
fn cubins_for_the_architectures_asked_with_their_report() {
    if !toolchain_installed() {
        return;
    }
    let ptxas = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/ptxas/ptxas");
    if !ptxas.is_file() {
        eprintln!("skipped: no .tools/ptxas/ptxas (scripts/fetch-ptxas.sh)");
        return;
    }
    let ptxas = ptxas.canonicalize().unwrap();
    let name = "products-cubins";
    let (ok, output, out) = build(
        name,
        &[
            (nvptx_builder::PTXAS_ENV, ptxas.to_str().unwrap()),
            (nvptx_builder::CUBIN_ARCHS_ENV, "sm_75,sm_90"),
            (nvptx_builder::PTXAS_REPORT_ENV, "1"),
        ],
    );
    assert!(ok, "{output}");
    for arch in ["sm_75", "sm_90"] {
        let cubin = std::fs::read(out.join(nvptx_builder::cubin_file_name(arch))).unwrap();
        assert!(cubin.starts_with(b"\x7fELF"), "{arch}");
        // The build's report, shown with FERROCUDA_PTXAS_REPORT=1: one line per kernel.
        assert!(
            output.contains(&format!("warning: {name}@0.1.0: {arch} store: ")),
            "{output}"
        );
    }
    assert!(!out.join(nvptx_builder::cubin_file_name("sm_70")).exists());
    let list = read(&out.join(nvptx_builder::BINARIES_FILE_NAME));
    let expected = format!(
        "&[\n    (\"sm_75\", include_bytes!({:?})),\n    (\"sm_90\", include_bytes!({:?})),\n]\n",
        out.join("ferrocuda-kernels.sm_75.cubin").to_str().unwrap(),
        out.join("ferrocuda-kernels.sm_90.cubin").to_str().unwrap()
    );
    assert_eq!(list, expected);
    let report = read(&out.join(nvptx_builder::PTXAS_REPORT_FILE_NAME));
    assert!(
        report.contains("Compiling entry function 'store' for 'sm_75'"),
        "{report}"
    );
    assert!(
        report.contains("Compiling entry function 'store' for 'sm_90'"),
        "{report}"
    );

    // An architecture older than the PTX's is refused before anything runs.
    let (ok, output, _) = build(
        name,
        &[
            (nvptx_builder::ARCH_ENV, "sm_80"),
            (nvptx_builder::CUBIN_ARCHS_ENV, "sm_75"),
        ],
    );
    assert!(!ok, "{output}");
    assert!(
        output.contains("cubin architecture sm_75 (from the environment variable FERROCUDA_CUBIN_ARCHS) is older than the PTX's architecture sm_80"),
        "{output}"
    );
    // A ptxas that is not there is an error naming the variable.
    let (ok, output, _) = build(name, &[(nvptx_builder::PTXAS_ENV, "/nowhere/ptxas")]);
    assert!(!ok, "{output}");
    assert!(
        output.contains("FERROCUDA_PTXAS=/nowhere/ptxas is not an executable file"),
        "{output}"
    );
}

#[test]
fn without_ptxas_the_build_makes_ptx_only_and_says_how_to_get_machine_code() {
    if !toolchain_installed() {
        return;
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("ptxas").is_file()));
    if on_path || Path::new("/usr/local/cuda/bin/ptxas").exists() {
        eprintln!("skipped: this machine has a ptxas outside the workspace");
        return;
    }
    // Outside the workspace, so `.tools/ptxas` is not found either.
    let name = "outside-no-ptxas";
    let (ok, output, out) = build(name, &[("CUDA_HOME", "/nonexistent")]);
    assert!(ok, "{output}");
    assert_eq!(
        output.matches("no ptxas found").count(),
        1,
        "one warning:\n{output}"
    );
    assert!(output.contains("scripts/fetch-ptxas.sh"), "{output}");
    assert!(output.contains("FERROCUDA_PTXAS=0"), "{output}");
    assert_eq!(read(&out.join(nvptx_builder::BINARIES_FILE_NAME)), "&[]\n");
    assert_eq!(read(&out.join(nvptx_builder::PTXAS_REPORT_FILE_NAME)), "");
    assert!(read(&out.join(nvptx_builder::PTX_FILE_NAME)).contains(".entry store"));
}
