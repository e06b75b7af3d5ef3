//! Finding (and if needed installing) the nightly toolchain with `rust-src` and `llvm-tools`.
//!
//! The device build needs a nightly rustc (`-Zbuild-std`, `abi_ptx`), the standard library
//! sources (`rust-src`, to build `core` for nvptx64) and LLVM's command-line tools
//! (`llvm-tools`, for the final link). All three come from rustup.

use crate::config::Origin;
use crate::error::{Error, Result};
use crate::process::{find_in_path, is_executable, run_captured};
use std::env::consts::EXE_SUFFIX;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Environment variable through which the outer build tells the linker where the LLVM tools are.
pub(crate) const LLVM_BIN_ENV: &str = "NVPTX_BUILDER_LLVM_BIN";

/// The LLVM tools the link step runs, all from the `llvm-tools` component.
pub(crate) const LLVM_TOOLS: [&str; 6] =
    ["llvm-link", "opt", "llc", "llvm-ar", "llvm-dis", "llvm-as"];

/// A toolchain checked to be usable for the device build.
#[derive(Debug, Clone)]
pub(crate) struct Toolchain {
    /// The rustup toolchain name.
    pub(crate) name: String,
    /// The toolchain's `rustc` executable (not the rustup proxy).
    pub(crate) rustc: PathBuf,
    /// The toolchain's `cargo` executable (not the rustup proxy).
    pub(crate) cargo: PathBuf,
    /// `rustc --print sysroot`.
    pub(crate) sysroot: PathBuf,
    /// Directory holding `llvm-link`, `opt`, `llc`, ...
    pub(crate) llvm_bin: PathBuf,
}

/// The command that installs everything from scratch.
fn install_command(name: &str) -> String {
    format!("rustup toolchain install {name} --profile minimal --component rust-src,llvm-tools")
}

/// Checks toolchain `name` (which came from `origin`), installing it or its missing
/// components with rustup if needed.
pub(crate) fn ensure(name: &str, origin: Origin) -> Result<Toolchain> {
    let Some(rustup) = find_rustup() else {
        return Err(Error::new(format!(
            "rustup was not found (looked in PATH, $CARGO_HOME/bin and ~/.cargo/bin), but it is \
             needed to find the `{name}` toolchain ({origin}) for the nvptx64 build. Install \
             rustup from https://rustup.rs, then run: {}",
            install_command(name)
        )));
    };
    if let Some(rustc) = which_rustc(&rustup, name) {
        let toolchain = inspect(name, &rustc)?;
        if missing_components(&toolchain).is_empty() {
            return Ok(toolchain);
        }
    }
    // A workspace with several kernel crates runs their build scripts at once, and two rustups
    // installing one toolchain at the same time fail ("detected conflict: .../bin/llc"). One
    // build script installs while the others wait here, then finds the toolchain complete.
    let _lock = install_lock(name)?;
    install_missing(name, origin, &rustup)
}

/// An exclusive lock, across processes, on installing toolchain `name` (released on drop).
fn install_lock(name: &str) -> Result<std::fs::File> {
    let path = std::env::temp_dir().join(format!("nvptx-builder-install-{name}.lock"));
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| {
            Error::new(format!(
                "cannot open the install lock {}: {e}",
                path.display()
            ))
        })?;
    file.lock()
        .map_err(|e| Error::new(format!("cannot lock {}: {e}", path.display())))?;
    Ok(file)
}

/// [`ensure`]'s installing part, under the install lock: installs the toolchain or its missing
/// components unless another build script did it meanwhile.
fn install_missing(name: &str, origin: Origin, rustup: &Path) -> Result<Toolchain> {
    let rustup = rustup.to_path_buf();
    let rustc = match which_rustc(&rustup, name) {
        Some(rustc) => rustc,
        None => {
            let cmd = install_command(name);
            println!("cargo:warning=nvptx-builder: installing toolchain `{name}` ({cmd})");
            let mut install = rustup_command(&rustup);
            install.args(["toolchain", "install", name, "--profile", "minimal"]);
            install.args(["--component", "rust-src,llvm-tools"]);
            run_visible(&mut install).map_err(|e| {
                Error::new(format!(
                    "toolchain `{name}` ({origin}) is not installed and installing it failed; \
                     run: {cmd}\n{e}"
                ))
            })?;
            which_rustc(&rustup, name).ok_or_else(|| {
                Error::new(format!(
                    "toolchain `{name}` is still not usable after installing it; run: {cmd}"
                ))
            })?
        }
    };

    let mut toolchain = inspect(name, &rustc)?;
    let missing = missing_components(&toolchain);
    if !missing.is_empty() {
        let cmd = format!(
            "rustup component add {} --toolchain {name}",
            missing.join(" ")
        );
        println!(
            "cargo:warning=nvptx-builder: installing {} ({cmd})",
            missing.join(" and ")
        );
        let mut add = rustup_command(&rustup);
        add.args(["component", "add"]).args(&missing);
        add.args(["--toolchain", name]);
        run_visible(&mut add).map_err(|e| {
            Error::new(format!(
                "toolchain `{name}` lacks {}, and installing failed; run: {cmd}\n{e}",
                missing.join(" and ")
            ))
        })?;
        toolchain = inspect(name, &rustc)?;
        let still = missing_components(&toolchain);
        if !still.is_empty() {
            return Err(Error::new(format!(
                "toolchain `{name}` still lacks {} after installing; run: {cmd}",
                still.join(" and ")
            )));
        }
    }
    Ok(toolchain)
}

/// Whether toolchain `name` is installed, asked of rustup without installing anything.
pub(crate) fn is_installed(name: &str) -> bool {
    find_rustup().is_some_and(|rustup| which_rustc(&rustup, name).is_some())
}

/// Locates the rustup executable.
fn find_rustup() -> Option<PathBuf> {
    let exe = format!("rustup{EXE_SUFFIX}");
    if let Some(p) = find_in_path(&exe) {
        return Some(p);
    }
    let mut dirs = Vec::new();
    if let Some(cargo_home) = std::env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(cargo_home).join("bin"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo").join("bin"));
    }
    dirs.into_iter()
        .map(|d| d.join(&exe))
        .find(|p| is_executable(p))
}

/// A rustup command that neither follows the outer toolchain override nor auto-installs.
fn rustup_command(rustup: &Path) -> Command {
    let mut cmd = Command::new(rustup);
    // No backtraces in rustup's error messages: they would bury the reason.
    cmd.env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env("RUSTUP_AUTO_INSTALL", "0");
    cmd
}

/// Runs a rustup command that may take a while. Its output is echoed to our stderr (which
/// cargo shows with `-vv`; stdout belongs to cargo's build-script protocol) and, when it fails,
/// the end of it goes into the error, since cargo does not show a build script's stderr then.
fn run_visible(cmd: &mut Command) -> Result<()> {
    let output = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::new(format!("could not run rustup: {e}")))?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprint!("{text}");
    if output.status.success() {
        return Ok(());
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let errors: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.trim_start().starts_with("error"))
        .collect();
    let shown = if errors.is_empty() { &lines } else { &errors };
    let mut message = format!("rustup exited with {}", output.status);
    for line in &shown[shown.len().saturating_sub(RUSTUP_OUTPUT_LINES)..] {
        message.push_str("\n  rustup: ");
        message.push_str(line);
    }
    Err(Error::new(message))
}

/// How many of rustup's last output lines (its `error:` lines when there are any) a failure
/// shows.
const RUSTUP_OUTPUT_LINES: usize = 6;

/// The toolchain's rustc, or `None` when the toolchain is not installed.
fn which_rustc(rustup: &Path, name: &str) -> Option<PathBuf> {
    let mut cmd = rustup_command(rustup);
    cmd.args(["which", "rustc", "--toolchain", name]);
    let out = cmd.output().ok().filter(|o| o.status.success())?;
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    is_executable(&path).then_some(path)
}

/// Queries `rustc` for its sysroot and host and derives the other paths.
fn inspect(name: &str, rustc: &Path) -> Result<Toolchain> {
    let (sysroot, host) = sysroot_and_host(rustc)?;
    let cargo = sysroot.join("bin").join(format!("cargo{EXE_SUFFIX}"));
    if !is_executable(&cargo) {
        return Err(Error::new(format!(
            "toolchain `{name}` has no cargo at {}; run: rustup component add cargo --toolchain {name}",
            cargo.display()
        )));
    }
    let llvm_bin = llvm_bin_dir(&sysroot, &host);
    Ok(Toolchain {
        name: name.to_owned(),
        rustc: rustc.to_owned(),
        cargo,
        sysroot,
        llvm_bin,
    })
}

/// `rustc --print sysroot` and the host triple from `rustc -vV`.
pub(crate) fn sysroot_and_host(rustc: &Path) -> Result<(PathBuf, String)> {
    let mut cmd = Command::new(rustc);
    cmd.args(["--print", "sysroot"]);
    let out = run_captured(&mut cmd)?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut cmd = Command::new(rustc);
    cmd.arg("-vV");
    let out = run_captured(&mut cmd)?;
    let text = String::from_utf8_lossy(&out.stdout);
    let host = text
        .lines()
        .find_map(|l| l.strip_prefix("host:"))
        .map(|h| h.trim().to_owned())
        .ok_or_else(|| Error::new(format!("`{} -vV` printed no host line", rustc.display())))?;
    Ok((sysroot, host))
}

/// Where `llvm-tools` puts its binaries inside a sysroot.
pub(crate) fn llvm_bin_dir(sysroot: &Path, host: &str) -> PathBuf {
    sysroot.join("lib").join("rustlib").join(host).join("bin")
}

/// Whether `dir` holds every tool of [`LLVM_TOOLS`].
pub(crate) fn has_llvm_tools(dir: &Path) -> bool {
    LLVM_TOOLS
        .iter()
        .all(|t| is_executable(&dir.join(format!("{t}{EXE_SUFFIX}"))))
}

/// The components of the toolchain that are missing, by rustup name.
fn missing_components(tc: &Toolchain) -> Vec<&'static str> {
    let mut missing = Vec::new();
    let library = tc.sysroot.join("lib/rustlib/src/rust/library");
    if !library.join("core").is_dir() {
        missing.push("rust-src");
    }
    if !has_llvm_tools(&tc.llvm_bin) {
        missing.push("llvm-tools");
    }
    missing
}

/// Finds the LLVM tools from inside the linker (run by rustc in the nested build).
///
/// The outer build passes the directory in [`LLVM_BIN_ENV`]; without it (someone used the
/// linker by hand) the `rustc` on `PATH` (the rustup proxy honours `RUSTUP_TOOLCHAIN`) is asked.
pub(crate) fn llvm_bin_for_linker() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os(LLVM_BIN_ENV) {
        let dir = PathBuf::from(dir);
        if has_llvm_tools(&dir) {
            return Ok(dir);
        }
        return Err(Error::new(format!(
            "{LLVM_BIN_ENV}={} does not hold the LLVM tools ({})",
            dir.display(),
            LLVM_TOOLS.join(", ")
        )));
    }
    let rustc = std::env::var_os("RUSTC").map_or_else(|| PathBuf::from("rustc"), PathBuf::from);
    let (sysroot, host) = sysroot_and_host(&rustc)?;
    let dir = llvm_bin_dir(&sysroot, &host);
    if has_llvm_tools(&dir) {
        Ok(dir)
    } else {
        Err(Error::new(format!(
            "the LLVM tools are missing from {}; run: rustup component add llvm-tools",
            dir.display()
        )))
    }
}

/// Path of LLVM tool `name` inside `llvm_bin`.
pub(crate) fn tool(llvm_bin: &Path, name: &str) -> PathBuf {
    llvm_bin.join(format!("{name}{EXE_SUFFIX}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_install_lock_excludes_a_second_holder_until_dropped() {
        let name = format!("lock-test-{}", std::process::id());
        let held = super::install_lock(&name).unwrap();
        let path = std::env::temp_dir().join(format!("nvptx-builder-install-{name}.lock"));
        let other = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(held);
        // Another test of this process may be spawning a command right now: its forked child
        // shares the lock's open file until it execs, which holds the lock for that instant
        // after `drop` (CI saw `WouldBlock` here once). So the lock must be free within a
        // second, not at once.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        loop {
            match other.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => assert!(
                    std::time::Instant::now() < deadline,
                    "the install lock is still held a second after its holder was dropped"
                ),
                Err(e) => panic!("cannot lock {}: {e}", path.display()),
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        drop(other);
        std::fs::remove_file(path).unwrap();
    }
}
