//! Outer mode: the nested `cargo rustc` that compiles the crate for nvptx64 and hands the PTX
//! to the host build.
//!
//! The nested build uses its own target directory,
//! `<outer target dir>/nvptx-builder/<arch>/{overflow-checks,wrapping}`, shared by the outer
//! builds with the same overflow checks (so `core` is built once per arch and setting), and a
//! profile defined on the command line (fat LTO, `panic = "abort"`, one codegen unit,
//! `opt-level = 3`, no debug assertions, and the outer build's overflow checks: debug builds
//! check integer overflow on the GPU as on the simulator, release builds wrap on both).
//! `-Ctarget-cpu` and `-Cllvm-args=-unroll-runtime-multi-exit` (see [`RUNTIME_UNROLL_MULTI_EXIT`])
//! go to every crate through `CARGO_ENCODED_RUSTFLAGS`; the linker flags go
//! only to the kernel crate (`cargo rustc -- ...`), so a different build-script path (debug vs
//! release outer build) re-links the kernel crate but never rebuilds `core`. With line info on
//! (the default), the profile has `debug = "line-tables-only"` for every crate, `core` included,
//! so that a line of an inlined `core` or device-library function is named too.
//!
//! Then ptxas, when there is one, assembles the PTX into cubins ([`crate::ptxas`]), and
//! [`crate::products`] writes the PTX, the cubins and their list into `OUT_DIR`.

use crate::cargo_messages::BuildMessages;
use crate::config::{Config, NESTED_PROFILE, NVPTX_TARGET, PtxasChoice};
use crate::error::{Error, Result, warn};
use crate::process::display_command;
use crate::products::write_module_files;
use crate::ptxas::{self, Cubins};
use crate::toolchain::{LLVM_BIN_ENV, Toolchain};
use crate::{NESTED_ENV, PTX_ARCH_ENV, depinfo};
use std::ffi::OsStr;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Environment variable the nested cargo must not inherit (exact names).
const CLEARED_VARS: &[&str] = &[
    "RUSTC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTC_LINKER",
    "RUSTDOC",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "RUSTUP_TOOLCHAIN",
    "CARGO",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_ENCODED_RUSTDOCFLAGS",
    "CARGO_MAKEFLAGS",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_RUSTC_CURRENT_DIR",
    "CARGO_INCREMENTAL",
    "CARGO_BUILD_TARGET",
    "TARGET",
    "HOST",
    "OUT_DIR",
    "PROFILE",
    "OPT_LEVEL",
    "DEBUG",
    "NUM_JOBS",
];

/// Prefixes of environment variables the nested cargo must not inherit.
const CLEARED_PREFIXES: &[&str] = &[
    "CARGO_BUILD_",
    "CARGO_TARGET_",
    "CARGO_PROFILE_",
    "CARGO_PKG_",
    "CARGO_CFG_",
    "CARGO_FEATURE_",
    "CARGO_MANIFEST_",
    "DEP_",
    "__CARGO",
];

/// Whether the outer environment variable `name` is kept for the nested cargo.
pub(crate) fn inherits(name: &str) -> bool {
    !CLEARED_VARS.contains(&name) && !CLEARED_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// Facts about the outer build, read from the build-script environment.
#[derive(Debug, Clone)]
pub(crate) struct Outer {
    pub(crate) manifest_dir: PathBuf,
    pub(crate) out_dir: PathBuf,
    pub(crate) package: String,
    pub(crate) target_root: PathBuf,
    pub(crate) offline: bool,
    /// Whether the outer build has overflow checks: cargo sets `CARGO_CFG_DEBUG_ASSERTIONS` in
    /// the build script of a package built with debug assertions, and `overflow-checks` follows
    /// `debug-assertions` unless a profile sets it apart. The nested build follows, so that a
    /// `u32` overflow panics on the GPU and the simulator in a debug build and wraps on both in a
    /// release build.
    pub(crate) overflow_checks: bool,
}

impl Outer {
    /// Reads the build-script environment cargo provides.
    pub(crate) fn from_env() -> Result<Outer> {
        let var = |k: &str| {
            std::env::var_os(k).ok_or_else(|| {
                Error::new(format!(
                    "{k} is not set: nvptx_builder::build() must be called from a build script (build.rs)"
                ))
            })
        };
        let manifest_dir = PathBuf::from(var("CARGO_MANIFEST_DIR")?);
        let out_dir = PathBuf::from(var("OUT_DIR")?);
        let package = var("CARGO_PKG_NAME")?.to_string_lossy().into_owned();
        let target_root = target_root(
            &out_dir,
            std::env::var_os("CARGO_TARGET_DIR").as_deref(),
            std::env::var_os("TARGET").as_deref(),
        );
        let offline = std::env::var("CARGO_NET_OFFLINE").is_ok_and(|v| v == "true" || v == "1");
        Ok(Outer {
            manifest_dir,
            out_dir,
            package,
            target_root,
            offline,
            overflow_checks: std::env::var_os("CARGO_CFG_DEBUG_ASSERTIONS").is_some(),
        })
    }
}

/// The outer target directory: `CARGO_TARGET_DIR` when it is absolute, otherwise derived from
/// `OUT_DIR` = `<target>[/<triple>]/<profile>/build/<pkg>-<hash>/out`, where `<triple>` (the
/// build script's `TARGET`) is there for `cargo build --target <triple>`.
pub(crate) fn target_root(
    out_dir: &Path,
    cargo_target_dir: Option<&OsStr>,
    target: Option<&OsStr>,
) -> PathBuf {
    if let Some(dir) = cargo_target_dir.map(Path::new)
        && dir.is_absolute()
    {
        return dir.to_owned();
    }
    // The directory holding the `<profile>` directory that holds `build`.
    for dir in out_dir.ancestors() {
        if dir.file_name() == Some(OsStr::new("build"))
            && let Some(root) = dir.parent().and_then(Path::parent)
        {
            // Host-only and `--target` builds share one device build.
            if target.is_some()
                && root.file_name() == target
                && let Some(up) = root.parent()
            {
                return up.to_owned();
            }
            return root.to_owned();
        }
    }
    // Unknown layout: keep the nested build inside OUT_DIR.
    out_dir.join("nvptx-builder-target")
}

/// Runs the whole outer mode.
pub(crate) fn build(config: &Config, toolchain: &Toolchain) -> Result<()> {
    let outer = Outer::from_env()?;
    // One nested target directory per overflow-check setting: switching between a debug and a
    // release outer build then rebuilds nothing.
    let checks = if outer.overflow_checks {
        "overflow-checks"
    } else {
        "wrapping"
    };
    let target_dir = outer
        .target_root
        .join("nvptx-builder")
        .join(&config.arch)
        .join(checks);
    let linker = std::env::current_exe()
        .map_err(|e| Error::new(format!("cannot locate the build-script executable: {e}")))?;

    let mut cmd = nested_command(config, toolchain, &outer, &target_dir, &linker)?;
    let ptx = run_nested(&mut cmd, config, &outer)?;
    let (fast_math, origin) = config.fast_math;
    if !fast_math.is_off() {
        warn(&format!(
            "nvptx-builder: fast math ({fast_math}) in every kernel of {} ({origin}); the \
             simulator computes the IEEE-rounded operations",
            outer.package
        ));
    }

    let ptx_text = std::fs::read(&ptx)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", ptx.display())))?;
    let cubins = machine_code(config, &outer, &ptx)?;
    write_module_files(&outer.out_dir, &ptx_text, &cubins.cubins, &cubins.report)?;
    println!("cargo:rustc-env={PTX_ARCH_ENV}={}", config.arch);

    // Rebuild when (and only when) a source of the device build changes.
    let dep_file = ptx.with_extension("d");
    let excluded = excluded_dirs(toolchain, &outer);
    match std::fs::read_to_string(&dep_file) {
        Ok(text) => {
            for file in depinfo::user_files(depinfo::parse(&text), &excluded) {
                println!("cargo:rerun-if-changed={}", file.display());
            }
        }
        Err(e) => {
            println!(
                "cargo:warning=nvptx-builder: cannot read {} ({e}); rebuilding when any file of the package changes",
                dep_file.display()
            );
            println!("cargo:rerun-if-changed={}", outer.manifest_dir.display());
        }
    }
    Ok(())
}

/// The cubins of the PTX file `ptx`, when a ptxas is found ([`crate::ptxas`]); shows the
/// warnings and, with [`crate::config::PTXAS_REPORT_ENV`], the per-kernel report.
fn machine_code(config: &Config, outer: &Outer, ptx: &Path) -> Result<Cubins> {
    let Some(ptxas) = ptxas::locate_here(&config.ptxas, &outer.manifest_dir)? else {
        if config.ptxas != PtxasChoice::Off {
            warn(&ptxas::missing_warning(&config.arch));
        }
        return Ok(Cubins::default());
    };
    // A new ptxas (scripts/fetch-ptxas.sh with another wheel) re-assembles.
    println!("cargo:rerun-if-changed={}", ptxas.path.display());
    let cubins = ptxas::assemble_all(&ptxas, ptx, config, &outer.out_dir)?;
    for w in &cubins.warnings {
        warn(w);
    }
    if config.ptxas_report {
        warn(&format!(
            "nvptx-builder: ptxas ({}, {}) per kernel:",
            ptxas.path.display(),
            ptxas.found
        ));
        for line in ptxas::summary(&cubins.report) {
            warn(&line);
        }
    }
    Ok(cubins)
}

/// Directories whose files never trigger a PTX rebuild.
fn excluded_dirs(toolchain: &Toolchain, outer: &Outer) -> Vec<PathBuf> {
    let mut dirs = vec![toolchain.sysroot.clone(), outer.target_root.clone()];
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    if let Some(home) = cargo_home {
        dirs.push(home.join("registry"));
        dirs.push(home.join("git"));
    }
    dirs
}

/// A content hash of the linker, passed as an ignored linker argument so that a changed
/// nvptx-builder re-links the kernel crate (cargo does not track the linker binary itself).
fn linker_id(linker: &Path) -> Result<String> {
    use std::hash::Hasher;
    let bytes = std::fs::read(linker)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", linker.display())))?;
    let mut h = std::hash::DefaultHasher::new();
    h.write(&bytes);
    Ok(format!("{:016x}", h.finish()))
}

/// The profile's `debug` setting: line tables only (`.file`/`.loc` in the PTX, no variables or
/// types) when line info is on.
fn debug_setting(line_info: bool) -> &'static str {
    if line_info {
        "\"line-tables-only\""
    } else {
        "false"
    }
}

/// Builds the nested `cargo rustc` command with a clean environment.
fn nested_command(
    config: &Config,
    toolchain: &Toolchain,
    outer: &Outer,
    target_dir: &Path,
    linker: &Path,
) -> Result<Command> {
    let mut cmd = Command::new(&toolchain.cargo);
    cmd.arg("rustc")
        .arg("--manifest-path")
        .arg(outer.manifest_dir.join("Cargo.toml"))
        .args(["--lib", "--target", NVPTX_TARGET, "-Zbuild-std=core"])
        .args(["--crate-type", "cdylib", "--profile", NESTED_PROFILE])
        .arg("--target-dir")
        .arg(target_dir)
        .arg("--message-format=json");
    let p = format!("profile.{NESTED_PROFILE}");
    for setting in [
        format!("{p}.inherits=\"release\""),
        format!("{p}.lto=\"fat\""),
        format!("{p}.panic=\"abort\""),
        format!("{p}.codegen-units=1"),
        format!("{p}.opt-level=3"),
        format!("{p}.debug={}", debug_setting(config.line_info)),
        format!("{p}.debug-assertions=false"),
        format!("{p}.overflow-checks={}", outer.overflow_checks),
        format!("{p}.incremental=false"),
        format!("{p}.strip=false"),
    ] {
        cmd.arg("--config").arg(setting);
    }
    if outer.offline {
        cmd.arg("--offline");
    }
    // Only the kernel crate links, so only it needs the linker flags.
    cmd.arg("--")
        .arg(format!("-Clinker={}", linker.display()))
        .arg("-Clinker-flavor=llbc")
        .arg(format!(
            "-Clink-arg=--nvptx-builder-id={}",
            linker_id(linker)?
        ));
    // Only when on, so that the default build's command (and PTX) stays what it was.
    let (fast_math, _) = config.fast_math;
    if !fast_math.is_off() {
        cmd.arg(format!(
            "-Clink-arg={}={fast_math}",
            crate::passes::fast_math::LINK_ARG
        ));
    }

    // Likewise only for a selection other than every pass.
    if config.passes != crate::pipeline::PassSelection::ALL {
        cmd.arg(format!(
            "-Clink-arg={}={}",
            crate::pipeline::LINK_ARG,
            config.passes
        ));
    }

    cmd.env_clear();
    for (k, v) in std::env::vars_os() {
        if let Some(name) = k.to_str()
            && inherits(name)
        {
            cmd.env(&k, v);
        }
    }
    cmd.env("RUSTUP_TOOLCHAIN", &toolchain.name)
        .env("RUSTC", &toolchain.rustc)
        .env(NESTED_ENV, "1")
        .env(LLVM_BIN_ENV, &toolchain.llvm_bin)
        .env(
            "CARGO_ENCODED_RUSTFLAGS",
            format!(
                "-Ctarget-cpu={}\x1f{RUNTIME_UNROLL_MULTI_EXIT}{}",
                config.arch,
                // Runtime unrolling waits for the linker's passes (`crate::pipeline`).
                if config.passes.unrolls_late() {
                    format!("\x1f-Cllvm-args={}", crate::pipeline::NO_RUNTIME_UNROLL)
                } else {
                    String::new()
                }
            ),
        )
        // Keep the outer `--color` choice out of the JSON; colours would garble warnings.
        .env("CARGO_TERM_COLOR", "never")
        .current_dir(&outer.manifest_dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Ok(cmd)
}

/// Lets LLVM unroll loops whose trip count is known only at run time even when they have more
/// than one exit. A loop over checked indices (`for k in a..b { sum += v[k] * x[c[k]] }`) has an
/// exit to the panic path after every check, and LLVM's default keeps such loops rolled, so a
/// thread has one iteration's loads in flight: the CSR SpMV of `kernels-idiomatic` ran at 0.29x
/// its CUDA C twin, which nvcc unrolls. With this flag LLVM unrolls it by 4 (5 to 17 global loads
/// in its SASS) and it ran at 0.48x on the H100 (7.58 to 4.63 ms); the other kernels of the suite
/// and of the tutorials compiled as before or smaller.
const RUNTIME_UNROLL_MULTI_EXIT: &str = "-Cllvm-args=-unroll-runtime-multi-exit";

/// Runs the nested cargo and returns the PTX file it produced.
///
/// Cargo's own stderr (progress lines) is echoed to ours, which cargo shows with `-vv`; the
/// device-side warnings become `cargo::warning=` lines; a failure is an [`Error`] that carries
/// the compiler's diagnostics, reported once by [`crate::error::report_build_script`].
fn run_nested(cmd: &mut Command, config: &Config, outer: &Outer) -> Result<PathBuf> {
    let shown = display_command(cmd);
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::new(format!("could not run `{shown}`: {e}")))?;
    let (Some(stdout), Some(mut stderr)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(Error::new(format!("`{shown}` started without its pipes")));
    };
    let stderr_thread = std::thread::spawn(move || {
        let mut all = String::new();
        let _ = stderr.read_to_string(&mut all);
        all
    });
    let manifest = outer.manifest_dir.join("Cargo.toml");
    let messages = BuildMessages::read(BufReader::new(stdout), &manifest);
    let status = child
        .wait()
        .map_err(|e| Error::new(format!("waiting for `{shown}` failed: {e}")))?;
    let cargo_stderr = stderr_thread.join().unwrap_or_default();
    eprint!("{cargo_stderr}");

    let failed = !status.success() || messages.success == Some(false);
    if failed {
        let mut message = format!(
            "compiling {} for {NVPTX_TARGET} ({}, toolchain `{}`) failed",
            outer.package, config.arch, config.toolchain
        );
        if messages.errors.is_empty() {
            message.push_str(&format!("\n(command: {shown})"));
        }
        return Err(
            Error::new(message).with_diagnostics(messages.failure_diagnostics(&cargo_stderr))
        );
    }
    // Device-side warnings the host build cannot show (code behind cfg(target_arch = "nvptx64")).
    for w in &messages.warnings {
        warn(&format!("[nvptx64] {w}"));
    }
    messages.ptx.ok_or_else(|| {
        Error::new(format!(
            "the nested build of {} succeeded but produced no .ptx file",
            outer.package
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_filter() {
        for cleared in [
            "RUSTC",
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "RUSTFLAGS",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_BUILD_TARGET_DIR",
            "CARGO_TARGET_DIR",
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER",
            "CARGO_PROFILE_RELEASE_LTO",
            "CARGO_MAKEFLAGS",
            "RUSTUP_TOOLCHAIN",
            "CARGO_PKG_NAME",
            "CARGO_CFG_TARGET_OS",
            "CARGO_FEATURE_STD",
            "TARGET",
            "HOST",
            "OUT_DIR",
            "PROFILE",
            "OPT_LEVEL",
            "DEBUG",
            "NUM_JOBS",
            "CARGO_MANIFEST_DIR",
            "CARGO_MANIFEST_PATH",
            "CARGO_PRIMARY_PACKAGE",
            "CARGO_CRATE_NAME",
            "DEP_Z_INCLUDE",
            "CARGO",
        ] {
            assert!(!inherits(cleared), "{cleared}");
        }
        for kept in [
            "PATH",
            "HOME",
            "CARGO_HOME",
            "RUSTUP_HOME",
            "CARGO_NET_OFFLINE",
            "FERROCUDA_ARCH",
            "SSL_CERT_FILE",
        ] {
            assert!(inherits(kept), "{kept}");
        }
    }

    #[test]
    fn target_root_from_out_dir() {
        let host = Some(OsStr::new("x86_64-unknown-linux-gnu"));
        let out = Path::new("/w/target/debug/build/k-0123abcd/out");
        assert_eq!(target_root(out, None, host), PathBuf::from("/w/target"));
        // `cargo build --target x86_64-unknown-linux-gnu`
        let out = Path::new("/w/target/x86_64-unknown-linux-gnu/release/build/k-01/out");
        assert_eq!(target_root(out, None, host), PathBuf::from("/w/target"));
        assert_eq!(
            target_root(out, Some(OsStr::new("/elsewhere")), host),
            PathBuf::from("/elsewhere")
        );
        // A relative CARGO_TARGET_DIR is relative to where cargo ran, unknown here: ignored.
        assert_eq!(
            target_root(out, Some(OsStr::new("tgt")), host),
            PathBuf::from("/w/target")
        );
        // New build-dir layout: `<build-dir>/<profile>/build/<pkg>/<hash>/out`.
        let out = Path::new("/w/target/debug/build/k/0123/out");
        assert_eq!(target_root(out, None, host), PathBuf::from("/w/target"));
    }
}
