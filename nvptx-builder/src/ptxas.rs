//! Machine code: NVIDIA's PTX assembler turns the PTX into one cubin per GPU architecture, so
//! that the first launch on a fresh machine loads machine code instead of waiting for the
//! driver to JIT-compile the whole module (seconds for a large module).
//!
//! Where ptxas comes from, first found wins (see [`locate`]):
//!
//! 1. [`PTXAS_ENV`]: a path, or `0`/`off` for no cubins;
//! 2. `.tools/ptxas/ptxas` in the kernel crate's directory or one above it (the workspace root,
//!    where the project's `scripts/fetch-ptxas.sh` puts it);
//! 3. `ptxas` on `PATH`;
//! 4. `$CUDA_HOME/bin/ptxas`, then `/usr/local/cuda/bin/ptxas`.
//!
//! Each architecture is assembled in its own thread (ptxas is single-threaded), with `-v` for
//! the per-kernel report and `-lineinfo` when the PTX has line tables. A ptxas that does not
//! know an architecture (CUDA 13's has dropped `sm_70`) or is older than the PTX's ISA version
//! skips it (with a warning when the architecture was asked for by name, or when no cubin is
//! left); a ptxas that rejects the PTX otherwise is a build error, shown once, since the driver
//! would most likely reject it too.
//!
//! Without any ptxas the build makes PTX only and says so once per build of the kernel crate
//! (a `cargo::warning`, shown when the PTX is rebuilt, never for crates.io dependencies, whose
//! warnings cargo hides); `FERROCUDA_PTXAS=0` asks for PTX only and silences it.

use crate::config::{Config, Origin, PTXAS_ENV, PtxasChoice};
use crate::error::{Error, Result};
use crate::process::{display_command, is_executable};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A ptxas found, and where, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ptxas {
    /// The executable.
    pub(crate) path: PathBuf,
    /// How it was found, e.g. "from FERROCUDA_PTXAS".
    pub(crate) found: &'static str,
}

/// Finds ptxas as the module documentation says. `Ok(None)` when there is none (or cubins are
/// off); an error when [`PTXAS_ENV`] names something that is not an executable.
///
/// `manifest_dir` is the kernel crate's directory; `env` looks environment variables up and
/// `executable` says whether a path is an executable file (both injected for tests).
pub(crate) fn locate(
    choice: &PtxasChoice,
    manifest_dir: &Path,
    env: &dyn Fn(&str) -> Option<String>,
    executable: &dyn Fn(&Path) -> bool,
) -> Result<Option<Ptxas>> {
    match choice {
        PtxasChoice::Off => return Ok(None),
        PtxasChoice::Path(path) => {
            return if executable(path) {
                Ok(Some(Ptxas {
                    path: path.clone(),
                    found: "from FERROCUDA_PTXAS",
                }))
            } else {
                Err(Error::new(format!(
                    "{PTXAS_ENV}={} is not an executable file: name NVIDIA's ptxas, or set \
                     {PTXAS_ENV}=0 to build PTX only",
                    path.display()
                )))
            };
        }
        PtxasChoice::Search => {}
    }
    let found = |path: PathBuf, found| Some(Ptxas { path, found });
    for dir in manifest_dir.ancestors() {
        let candidate = dir.join(".tools").join("ptxas").join("ptxas");
        if executable(&candidate) {
            return Ok(found(candidate, "in .tools/ptxas of the workspace"));
        }
    }
    if let Some(path) = env("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("ptxas");
            if executable(&candidate) {
                return Ok(found(candidate, "on PATH"));
            }
        }
    }
    if let Some(home) = env("CUDA_HOME") {
        let candidate = Path::new(&home).join("bin").join("ptxas");
        if executable(&candidate) {
            return Ok(found(candidate, "in $CUDA_HOME/bin"));
        }
    }
    let candidate = PathBuf::from("/usr/local/cuda/bin/ptxas");
    if executable(&candidate) {
        return Ok(found(candidate, "in /usr/local/cuda/bin"));
    }
    Ok(None)
}

/// [`locate`] with the process environment and file system.
pub(crate) fn locate_here(choice: &PtxasChoice, manifest_dir: &Path) -> Result<Option<Ptxas>> {
    locate(
        choice,
        manifest_dir,
        &|key| std::env::var(key).ok(),
        &is_executable,
    )
}

/// The warning shown when no ptxas was found.
pub(crate) fn missing_warning(arch: &str) -> String {
    format!(
        "nvptx-builder: no ptxas found, so the kernels are built as PTX only ({arch}): the first \
         launch on each machine waits while the driver compiles the whole module (seconds for a \
         large one, unless its compute cache holds it). For machine code, run \
         scripts/fetch-ptxas.sh of the ferrocuda repository in your workspace (it puts ptxas in \
         .tools/ptxas/), put NVIDIA's ptxas on PATH or in $CUDA_HOME/bin, or name it with \
         {PTXAS_ENV}=/path/to/ptxas; {PTXAS_ENV}=0 builds PTX only without this warning"
    )
}

/// What assembling the PTX for one architecture gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Assembled {
    /// The cubin and the `ptxas -v` report.
    Cubin { bytes: Vec<u8>, report: String },
    /// This ptxas does not know the architecture or the PTX's ISA version; its message.
    UnknownArch(String),
}

/// The cubins of one build, in the order of the configured architectures, with their reports
/// joined, and the warnings to show.
#[derive(Debug, Default)]
pub(crate) struct Cubins {
    /// `(arch, bytes)`.
    pub(crate) cubins: Vec<(String, Vec<u8>)>,
    /// The `ptxas -v` reports of all of them, in the same order.
    pub(crate) report: String,
    /// What the user should hear (architectures skipped).
    pub(crate) warnings: Vec<String>,
}

/// Assembles `ptx_file` for every architecture of `config.cubin_archs`, in parallel, writing
/// scratch files into `scratch_dir`.
pub(crate) fn assemble_all(
    ptxas: &Ptxas,
    ptx_file: &Path,
    config: &Config,
    scratch_dir: &Path,
) -> Result<Cubins> {
    let (archs, origin) = &config.cubin_archs;
    let results: Vec<(String, Result<Assembled>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = archs
            .iter()
            .map(|arch| {
                let out = scratch_dir.join(format!("ptxas-{arch}.cubin.tmp"));
                let handle =
                    scope.spawn(move || assemble(ptxas, ptx_file, arch, config.line_info, &out));
                (arch.clone(), handle)
            })
            .collect();
        handles
            .into_iter()
            .map(|(arch, handle)| {
                let result = handle
                    .join()
                    .unwrap_or_else(|_| Err(Error::new(format!("assembling {arch} panicked"))));
                (arch, result)
            })
            .collect()
    });
    let mut all = Cubins::default();
    let mut skipped = Vec::new();
    for (arch, result) in results {
        match result? {
            Assembled::Cubin { bytes, report } => {
                all.report.push_str(&report);
                if !report.is_empty() && !report.ends_with('\n') {
                    all.report.push('\n');
                }
                all.cubins.push((arch, bytes));
            }
            Assembled::UnknownArch(message) => skipped.push((arch, message)),
        }
    }
    // Architectures the user named are worth a warning each; of the default ones, only losing
    // all of them is (a CUDA 13 ptxas skipping sm_70 for the default sm_70 PTX is expected).
    let explicit = *origin != Origin::Default;
    if explicit || all.cubins.is_empty() {
        for (arch, message) in skipped {
            all.warnings.push(format!(
                "nvptx-builder: no {arch} cubin: {} cannot assemble this PTX for {arch} ({}); \
                 GPUs of that architecture JIT-compile the PTX at the first launch",
                ptxas.path.display(),
                message.trim()
            ));
        }
    }
    Ok(all)
}

/// Runs ptxas for one architecture.
fn assemble(
    ptxas: &Ptxas,
    ptx_file: &Path,
    arch: &str,
    line_info: bool,
    out: &Path,
) -> Result<Assembled> {
    let mut cmd = Command::new(&ptxas.path);
    cmd.arg(format!("-arch={arch}")).arg("-v");
    if line_info {
        cmd.arg("-lineinfo");
    }
    cmd.arg(ptx_file).arg("-o").arg(out);
    let shown = display_command(&cmd);
    let output = cmd.output().map_err(|e| {
        Error::new(format!(
            "could not run ptxas ({}, {}): {e}",
            ptxas.path.display(),
            ptxas.found
        ))
    })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let text = format!("{stdout}{stderr}");
    if !output.status.success() {
        let _ = std::fs::remove_file(out);
        if is_unknown_arch(&text) || is_older_than_the_ptx(&text) {
            return Ok(Assembled::UnknownArch(first_line(&text)));
        }
        if let Some(message) = shared_memory_overflow(&text, arch) {
            return Err(Error::new(message));
        }
        return Err(Error::new(format!(
            "ptxas rejected the PTX for {arch} (`{shown}`, {}, {}):\n{}\nThe PTX comes from \
             the kernel crate's device build; the driver would reject it too.",
            output.status,
            ptxas.found,
            text.trim_end()
        )));
    }
    let bytes = std::fs::read(out)
        .map_err(|e| Error::new(format!("cannot read ptxas's output {}: {e}", out.display())))?;
    let _ = std::fs::remove_file(out);
    if !bytes.starts_with(b"\x7fELF") {
        return Err(Error::new(format!(
            "`{shown}` wrote {}, which is not an ELF file",
            out.display()
        )));
    }
    Ok(Assembled::Cubin {
        bytes,
        report: text,
    })
}

/// Whether ptxas's message says it does not know the architecture, e.g. CUDA 13's
/// `ptxas fatal   : Value 'sm_70' is not defined for option 'gpu-name'`.
pub(crate) fn is_unknown_arch(text: &str) -> bool {
    text.contains("is not defined for option 'gpu-name'")
}

/// Whether ptxas's message says the PTX's ISA version is newer than it knows, e.g.
/// `ptxas k.ptx, line 5; fatal   : Unsupported .version 8.0; current version is '7.4'`: the
/// driver may still accept the PTX, so this skips the cubin rather than failing the build.
pub(crate) fn is_older_than_the_ptx(text: &str) -> bool {
    text.contains("Unsupported .version")
}

/// Bytes of static shared memory every `#[kernel]` entry holds for ferrocuda: the launch token
/// the panic handler reads (`LAUNCH_TOKEN_SHARED_BYTES` of `ferrocuda_device::panic`).
const LAUNCH_TOKEN_SHARED_BYTES: u64 = 8;

/// One error for the kernels whose static shared memory ptxas refuses (`ptxas error   : Entry
/// function 'k' uses too much shared data (0xc010 bytes, 0xc000 max)`), naming each kernel, its
/// bytes, the limit and ferrocuda's share, instead of ptxas's whole report; `None` when ptxas
/// refused the PTX for another reason.
pub(crate) fn shared_memory_overflow(text: &str, arch: &str) -> Option<String> {
    let kernels: Vec<(String, u64, u64)> = text
        .lines()
        .filter_map(|line| {
            let rest = line.split("Entry function '").nth(1)?;
            let (kernel, rest) = rest.split_once("' uses too much shared data (")?;
            let (bytes, rest) = rest.split_once(" bytes, ")?;
            let limit = rest.split_once(" max)")?.0;
            let hex = |v: &str| u64::from_str_radix(v.trim().trim_start_matches("0x"), 16).ok();
            Some((kernel.to_owned(), hex(bytes)?, hex(limit)?))
        })
        .collect();
    let (_, _, limit) = kernels.first()?;
    let mut message =
        format!("static shared memory over the GPU's limit of {limit} bytes per block ({arch}):");
    for (kernel, bytes, limit) in &kernels {
        message.push_str(&format!(
            "\n  kernel `{kernel}` needs {bytes} bytes, {} over the limit of {limit}",
            bytes - limit
        ));
    }
    message.push_str(&format!(
        "\nferrocuda's share of each kernel's bytes is its {LAUNCH_TOKEN_SHARED_BYTES}-byte launch \
         token (for panic reports), so a kernel's own static shared arrays can take {} bytes \
         (less where ptxas pads an array's alignment). Move the largest array to dynamic shared \
         memory (`dynamic_shared_array` or `DynamicShared`, sized at launch with \
         `.shared_mem(bytes)`), which reaches the device's opt-in limit (227 KiB on an H100).",
        limit - LAUNCH_TOKEN_SHARED_BYTES
    ));
    Some(message)
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim().to_owned()
}

/// The lines of the ptxas report worth a glance, for [`crate::config::PTXAS_REPORT_ENV`]: one
/// line per kernel, `arch kernel: N registers, S bytes stack, ... spills, shared, constant`.
pub(crate) fn summary(report: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut entry: Option<(String, String)> = None;
    let mut frame = String::new();
    for line in report.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("ptxas info    : Compiling entry function '") {
            // `name' for 'sm_90'`
            let mut parts = rest.split('\'');
            let name = parts.next().unwrap_or("").to_owned();
            let arch = parts.nth(1).unwrap_or("").to_owned();
            entry = Some((arch, name));
            frame.clear();
        } else if line.contains("bytes stack frame") && entry.is_some() {
            frame = line.to_owned();
        } else if let Some(used) = line.strip_prefix("ptxas info    : Used ")
            && let Some((arch, name)) = entry.take()
        {
            lines.push(format!("{arch} {name}: {used}; {frame}"));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn the_search_order() {
        let manifest = Path::new("/w/crates/kernels");
        let everywhere = |p: &Path| {
            [
                "/w/.tools/ptxas/ptxas",
                "/bin2/ptxas",
                "/cuda/bin/ptxas",
                "/usr/local/cuda/bin/ptxas",
            ]
            .iter()
            .any(|c| Path::new(c) == p)
        };
        let env = |k: &str| match k {
            "PATH" => Some("/bin1:/bin2".to_owned()),
            "CUDA_HOME" => Some("/cuda".to_owned()),
            _ => None,
        };
        let at = |choice, executable: &dyn Fn(&Path) -> bool| {
            locate(choice, manifest, &env, executable)
                .unwrap()
                .map(|p| (p.path, p.found))
        };
        // The workspace's .tools/ptxas, found walking up from the crate.
        assert_eq!(
            at(&PtxasChoice::Search, &everywhere),
            Some((
                "/w/.tools/ptxas/ptxas".into(),
                "in .tools/ptxas of the workspace"
            ))
        );
        let not_tools = |p: &Path| everywhere(p) && !p.starts_with("/w");
        assert_eq!(
            at(&PtxasChoice::Search, &not_tools),
            Some(("/bin2/ptxas".into(), "on PATH"))
        );
        let not_path = |p: &Path| not_tools(p) && !p.starts_with("/bin2");
        assert_eq!(
            at(&PtxasChoice::Search, &not_path),
            Some(("/cuda/bin/ptxas".into(), "in $CUDA_HOME/bin"))
        );
        let only_usr = |p: &Path| p == Path::new("/usr/local/cuda/bin/ptxas");
        assert_eq!(
            at(&PtxasChoice::Search, &only_usr),
            Some(("/usr/local/cuda/bin/ptxas".into(), "in /usr/local/cuda/bin"))
        );
        assert_eq!(at(&PtxasChoice::Search, &|_| false), None);
        // The environment variable wins, or turns cubins off.
        assert_eq!(at(&PtxasChoice::Off, &everywhere), None);
        let named = PtxasChoice::Path("/cuda/bin/ptxas".into());
        assert_eq!(
            at(&named, &everywhere),
            Some(("/cuda/bin/ptxas".into(), "from FERROCUDA_PTXAS"))
        );
    }

    #[test]
    fn a_named_ptxas_that_is_not_there_is_an_error() {
        let choice = PtxasChoice::Path("/nowhere/ptxas".into());
        let e = locate(&choice, Path::new("/w"), &no_env, &|_| false).unwrap_err();
        assert!(
            e.message()
                .starts_with("FERROCUDA_PTXAS=/nowhere/ptxas is not an executable file"),
            "{e}"
        );
        assert!(e.message().contains("FERROCUDA_PTXAS=0"), "{e}");
    }

    #[test]
    fn unknown_architectures_are_recognised() {
        assert!(is_unknown_arch(
            "ptxas fatal   : Value 'sm_70' is not defined for option 'gpu-name'\n"
        ));
        let invalid = "ptxas k.ptx, line 3; error   : Unknown symbol 'x'\nptxas fatal   : Ptx assembly aborted due to errors";
        assert!(!is_unknown_arch(invalid));
        assert!(!is_older_than_the_ptx(invalid));
        assert!(is_older_than_the_ptx(
            "ptxas k.ptx, line 5; fatal   : Unsupported .version 8.0; current version is '7.4'"
        ));
    }

    #[test]
    fn static_shared_memory_over_the_limit_is_one_error_per_build() {
        let text = "ptxas info    : 0 bytes gmem\n\
            ptxas info    : Compiling entry function 'big' for 'sm_90'\n\
            ptxas error   : Entry function 'big' uses too much shared data (0xc008 bytes, 0xc000 max)\n\
            ptxas error   : Entry function 'bigger' uses too much shared data (0xc100 bytes, 0xc000 max)\n\
            ptxas fatal   : Ptx assembly aborted due to errors";
        let message = shared_memory_overflow(text, "sm_90").unwrap();
        assert!(
            message.contains("limit of 49152 bytes per block (sm_90)"),
            "{message}"
        );
        assert!(
            message.contains("kernel `big` needs 49160 bytes, 8 over"),
            "{message}"
        );
        assert!(
            message.contains("kernel `bigger` needs 49408 bytes, 256 over"),
            "{message}"
        );
        assert!(message.contains("can take 49144 bytes"), "{message}");
        assert!(!message.contains("ptxas info"), "{message}");
        assert_eq!(
            shared_memory_overflow("ptxas error   : Unknown symbol 'x'", "sm_90"),
            None
        );
    }

    #[test]
    fn the_summary_has_a_line_per_kernel() {
        let report = "ptxas info    : 0 bytes gmem\n\
ptxas info    : Compiling entry function 'vecadd' for 'sm_90'\n\
ptxas info    : Function properties for vecadd\n\
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Used 12 registers, used 0 barriers, 400 bytes cmem[0]\n\
ptxas info    : Compile time = 1.0 ms\n\
ptxas info    : Function properties for helper\n\
    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n\
ptxas info    : Compiling entry function 'saxpy' for 'sm_80'\n\
ptxas info    : Function properties for saxpy\n\
    16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
ptxas info    : Used 30 registers, 16 bytes cumulative stack size, 384 bytes cmem[0]\n";
        assert_eq!(
            summary(report),
            [
                "sm_90 vecadd: 12 registers, used 0 barriers, 400 bytes cmem[0]; 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
                "sm_80 saxpy: 30 registers, 16 bytes cumulative stack size, 384 bytes cmem[0]; 16 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads",
            ]
        );
    }

    /// A stand-in for ptxas: knows no `sm_75`, rejects PTX containing `bad`, otherwise writes
    /// a tiny ELF and a report line naming the architecture.
    #[cfg(unix)]
    fn fake_ptxas(dir: &Path) -> Ptxas {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join("ptxas");
        std::fs::write(
            &path,
            r#"#!/bin/sh
arch=""; out=""; input=""
while [ $# -gt 0 ]; do
  case "$1" in
    -arch=*) arch="${1#-arch=}" ;;
    -o) out="$2"; shift ;;
    -v|-lineinfo) ;;
    *) input="$1" ;;
  esac
  shift
done
if [ "$arch" = sm_75 ]; then echo "ptxas fatal   : Value '$arch' is not defined for option 'gpu-name'" >&2; exit 255; fi
if grep -q bad "$input"; then echo "ptxas $input, line 1; error   : bad" >&2; exit 255; fi
printf '\177ELF%s' "$arch" > "$out"
echo "ptxas info    : Compiling entry function 'k' for '$arch'" >&2
"#,
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Ptxas {
            path,
            found: "in the test",
        }
    }

    #[cfg(unix)]
    #[test]
    fn assembles_each_architecture_skips_unknown_ones_and_fails_on_bad_ptx() {
        use crate::config::Requested;
        let dir = std::env::temp_dir().join(format!("nvptx-builder-ptxas-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let ptxas = fake_ptxas(&dir);
        let ptx = dir.join("k.ptx");
        std::fs::write(&ptx, ".entry k").unwrap();
        let config_of = |archs: &[&str], origin| {
            let mut config = Config::resolve_with(&Requested::default(), |_| None).unwrap();
            config.cubin_archs = (archs.iter().map(|a| (*a).to_owned()).collect(), origin);
            config
        };

        // Asked for by name: the unknown one is skipped with a warning, the others kept in order.
        let named = Origin::Env("FERROCUDA_CUBIN_ARCHS");
        let all = assemble_all(
            &ptxas,
            &ptx,
            &config_of(&["sm_70", "sm_75", "sm_90"], named),
            &dir,
        )
        .unwrap();
        let archs: Vec<&str> = all.cubins.iter().map(|(a, _)| a.as_str()).collect();
        assert_eq!(archs, ["sm_70", "sm_90"]);
        assert_eq!(all.cubins[1].1, b"\x7fELFsm_90");
        assert_eq!(
            all.report,
            "ptxas info    : Compiling entry function 'k' for 'sm_70'\nptxas info    : Compiling entry function 'k' for 'sm_90'\n"
        );
        assert_eq!(all.warnings.len(), 1, "{:?}", all.warnings);
        assert!(
            all.warnings[0].contains("no sm_75 cubin"),
            "{:?}",
            all.warnings
        );
        // No scratch file is left behind.
        let left: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");

        // By default, a skipped architecture is expected and quiet, unless nothing is left.
        let quiet = assemble_all(
            &ptxas,
            &ptx,
            &config_of(&["sm_75", "sm_80"], Origin::Default),
            &dir,
        )
        .unwrap();
        assert_eq!(quiet.cubins.len(), 1);
        assert!(quiet.warnings.is_empty(), "{:?}", quiet.warnings);
        let none =
            assemble_all(&ptxas, &ptx, &config_of(&["sm_75"], Origin::Default), &dir).unwrap();
        assert!(none.cubins.is_empty());
        assert_eq!(none.warnings.len(), 1);

        // PTX that ptxas rejects is a build error carrying ptxas's message.
        std::fs::write(&ptx, "bad").unwrap();
        let e =
            assemble_all(&ptxas, &ptx, &config_of(&["sm_90"], Origin::Default), &dir).unwrap_err();
        assert!(
            e.message().starts_with("ptxas rejected the PTX for sm_90"),
            "{e}"
        );
        assert!(e.message().contains("error   : bad"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
