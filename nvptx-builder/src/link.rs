//! Linker mode: turning rustc's LTO'd bitcode into PTX with the `llvm-tools` binaries.
//!
//! The nested build passes `-Clinker=<this build script>`; rustc then runs the build script
//! with linker arguments (see [`crate::link_args`]). The steps:
//!
//! 1. extract the LLVM bitcode members of every archive input (`compiler_builtins`) with
//!    `llvm-ar x` and merge them with `llvm-link`;
//! 2. `llvm-link main.bc --only-needed libs.bc` pulls in just the builtins that are used;
//! 3. `llvm-dis`, [`crate::passes::panic_rewrite`] (core's index panics record integers),
//!    [`crate::passes::ir_rewrite`] (shared and constant memory), [`crate::passes::max_block`] (`.maxntid` of
//!    the entries that declare their largest block), `llvm-as`;
//! 4. `opt -passes=internalize,globaldce,default<O3>` keeping the exported symbols and the
//!    constant-memory globals public (with `-unroll-runtime=false` under the pipeline's
//!    `late_unroll`, which then runs LLVM's unroller and `load_speculation` again after the
//!    passes of step 5: [`crate::pipeline`]);
//! 5. `llc -mtriple=nvptx64-nvidia-cuda -mcpu=<sm> -mattr=<features>` writes the PTX, from the
//!    optimised module without its compiler fences ([`crate::passes::compiler_fences`]), with its 64-bit
//!    loop counters bounded by a `u32` made 32-bit ([`crate::passes::loop_counter_narrowing`]), with the
//!    loads that bounds checks guard moved above the checks ([`crate::passes::load_speculation`]) and
//!    the checks of offset indices after their base's check narrowed ([`crate::passes::offset_checks`]),
//!    and the kernels whose guards decide checks in a loop versioned on a test of their
//!    arguments ([`crate::passes::check_versioning`]);
//! 6. of the debug information llc wrote, only the line table stays
//!    ([`crate::passes::line_tables`]);
//! 7. kernels built with fast math are named in a comment at the top of the PTX
//!    ([`crate::passes::fast_math`], which adds its flags between steps 4 and 5).
//!
//! Intermediate files live in a fresh directory next to the output, removed on success and
//! kept (and named in the error) on failure, or always with `NVPTX_BUILDER_KEEP_TEMPS=1`.

use crate::config::NVPTX_TARGET;
use crate::error::{Error, Result};
use crate::link_args;
use crate::link_args::LinkArgs;
use crate::passes::ir_rewrite;
use crate::process::{display_command, run_captured};
use crate::toolchain::tool;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Environment variable that keeps the linker's intermediate files.
pub(crate) const KEEP_TEMPS_ENV: &str = "NVPTX_BUILDER_KEEP_TEMPS";

/// Runs the linker on `args` (the command line without the program name).
pub(crate) fn run(args: Vec<OsString>) -> Result<()> {
    let args = link_args::parse(args)?;
    if let Some(t) = &args.target
        && !t.starts_with("nvptx64")
    {
        return Err(Error::new(format!(
            "nvptx-builder only links for {NVPTX_TARGET}, not {t}"
        )));
    }
    let llvm_bin = crate::toolchain::llvm_bin_for_linker()?;
    let output = args
        .output
        .clone()
        .ok_or_else(|| Error::new("no output file given to the linker"))?;
    let tmp = TempDir::create_next_to(&output)?;
    let result = link(&args, &llvm_bin, &tmp.path, &output);
    match result {
        Ok(()) => {
            tmp.finish(false);
            Ok(())
        }
        Err(e) if tmp.is_empty() => {
            tmp.finish(false);
            Err(e)
        }
        Err(e) => {
            tmp.finish(true);
            Err(Error::new(format!(
                "{}\n(intermediate files kept in {})",
                e.message(),
                tmp.path.display()
            )))
        }
    }
}

/// A uniquely named scratch directory.
struct TempDir {
    path: PathBuf,
}

impl TempDir {
    fn create_next_to(output: &Path) -> Result<TempDir> {
        let parent = match output.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_owned(),
            _ => PathBuf::from("."),
        };
        let stem = output
            .file_stem()
            .map_or_else(|| "out".into(), |s| s.to_string_lossy().into_owned());
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        for attempt in 0..100u32 {
            let path = parent.join(format!(
                "{stem}.nvptx-link-{}-{nanos}-{attempt}",
                std::process::id()
            ));
            match std::fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::new(format!(
                        "cannot create temporary directory {}: {e}",
                        path.display()
                    )));
                }
            }
        }
        Err(Error::new("cannot create a unique temporary directory"))
    }

    fn is_empty(&self) -> bool {
        std::fs::read_dir(&self.path).is_ok_and(|mut d| d.next().is_none())
    }

    fn finish(&self, failed: bool) {
        let keep = failed || std::env::var_os(KEEP_TEMPS_ENV).is_some_and(|v| v != "0");
        if !keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// What a file starts with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bitcode,
    Archive,
    Other,
}

fn kind_of(path: &Path) -> Result<Kind> {
    use std::io::Read;
    let mut head = [0u8; 8];
    let mut f = std::fs::File::open(path)
        .map_err(|e| Error::new(format!("cannot open {}: {e}", path.display())))?;
    let n = f
        .read(&mut head)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))?;
    Ok(classify(&head[..n]))
}

fn classify(head: &[u8]) -> Kind {
    if head.starts_with(b"BC\xC0\xDE") || head.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]) {
        Kind::Bitcode
    } else if head.starts_with(b"!<arch>\n") || head.starts_with(b"!<thin>\n") {
        Kind::Archive
    } else {
        Kind::Other
    }
}

/// Runs one LLVM tool, echoing its command line when [`KEEP_TEMPS_ENV`] is set.
fn run_tool(mut cmd: Command) -> Result<()> {
    if std::env::var_os(KEEP_TEMPS_ENV).is_some_and(|v| v != "0") {
        eprintln!("nvptx-builder: {}", display_command(&cmd));
    }
    run_captured(&mut cmd).map(drop)
}

/// The link proper: the steps of the module documentation, in order.
fn link(args: &LinkArgs, llvm_bin: &Path, tmp: &Path, output: &Path) -> Result<()> {
    let (objects, members) = sort_inputs(args, llvm_bin, tmp)?;
    let linked = merge_bitcode(llvm_bin, tmp, &objects, &members)?;
    let (rewritten, constant) = move_to_address_spaces(llvm_bin, tmp, linked)?;
    let optimized = optimize(args, llvm_bin, tmp, &rewritten, &constant)?;
    // Function pointers nothing can call (core's formatting behind panics) cost registers;
    // the fast-math flags go on after inlining ([`crate::passes::fast_math`]).
    let (optimized, notes) = rewrite_optimized(args, llvm_bin, tmp, optimized)?;
    generate_ptx(args, llvm_bin, &optimized, output)?;
    keep_line_tables_only(output)?;
    write_notes(output, &notes)
}

/// What the rewrites tell the runtime through comments at the top of the PTX.
#[derive(Default)]
struct Notes {
    /// The kernels built with fast math ([`crate::passes::fast_math::ptx_note`]).
    fast_math: Vec<(String, crate::FastMath)>,
    /// The versioned kernels' entry tests ([`crate::passes::check_versioning::entry_test::ptx_note`]).
    entry_tests: Vec<(String, String)>,
}

/// Step 7: the notes, a comment line each at the top of the PTX, which the runtime reads back.
fn write_notes(output: &Path, notes: &Notes) -> Result<()> {
    if notes.fast_math.is_empty() && notes.entry_tests.is_empty() {
        return Ok(());
    }
    let ptx = std::fs::read_to_string(output)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", output.display())))?;
    let ptx = crate::passes::fast_math::ptx_note(&ptx, &notes.fast_math);
    let ptx = crate::passes::check_versioning::entry_test::ptx_note(&ptx, &notes.entry_tests);
    std::fs::write(output, ptx)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", output.display())))
}

/// Step 6: the DWARF sections llc writes beside the line table removed
/// ([`crate::passes::line_tables`]).
fn keep_line_tables_only(output: &Path) -> Result<()> {
    let ptx = std::fs::read_to_string(output)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", output.display())))?;
    match crate::passes::line_tables::keep_line_tables_only(&ptx) {
        Some(cleaned) => std::fs::write(output, cleaned)
            .map_err(|e| Error::new(format!("cannot write {}: {e}", output.display()))),
        None => Ok(()),
    }
}

/// Splits the inputs into bitcode objects and the bitcode members of archives (extracted
/// into `tmp`); anything else is an error.
fn sort_inputs(
    args: &LinkArgs,
    llvm_bin: &Path,
    tmp: &Path,
) -> Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let mut objects = Vec::new();
    let mut members = Vec::new();
    for (i, input) in args.inputs.iter().enumerate() {
        match kind_of(input)? {
            Kind::Bitcode => objects.push(input.clone()),
            Kind::Archive => members.extend(extract_bitcode(
                llvm_bin,
                input,
                &tmp.join(format!("ar{i}")),
            )?),
            Kind::Other => {
                return Err(Error::new(format!(
                    "{} is neither LLVM bitcode nor an archive; only bitcode can be linked for \
                     {NVPTX_TARGET}",
                    input.display()
                )));
            }
        }
    }
    if objects.is_empty() {
        return Err(Error::new(
            "no LLVM bitcode object among the inputs (is the crate built with lto = \"fat\"?)",
        ));
    }
    Ok((objects, members))
}

/// Steps 1 and 2: one module of the objects, plus only what it needs of the archive members.
fn merge_bitcode(
    llvm_bin: &Path,
    tmp: &Path,
    objects: &[PathBuf],
    members: &[PathBuf],
) -> Result<PathBuf> {
    let llvm_link = tool(llvm_bin, "llvm-link");
    let main = if let [only] = objects {
        only.clone()
    } else {
        let main = tmp.join("main.bc");
        let mut cmd = Command::new(&llvm_link);
        cmd.args(objects).arg("-o").arg(&main);
        run_tool(cmd)?;
        main
    };
    if members.is_empty() {
        return Ok(main);
    }
    let libs = tmp.join("libs.bc");
    let mut cmd = Command::new(&llvm_link);
    cmd.args(members).arg("-o").arg(&libs);
    run_tool(cmd)?;
    let linked = tmp.join("linked.bc");
    let mut cmd = Command::new(&llvm_link);
    cmd.arg(&main)
        .arg("--only-needed")
        .arg(&libs)
        .arg("-o")
        .arg(&linked);
    run_tool(cmd)?;
    Ok(linked)
}

/// Step 3: core's index panics redirected to entries that record integers
/// ([`crate::passes::panic_rewrite`]), static shared memory and constant memory moved to their address
/// spaces ([`ir_rewrite`]), and the entries of `#[kernel(max_block(...))]` kernels given their
/// bound ([`crate::passes::max_block`]). Returns the module and the constant-memory globals to keep public.
fn move_to_address_spaces(
    llvm_bin: &Path,
    tmp: &Path,
    linked: PathBuf,
) -> Result<(PathBuf, Vec<String>)> {
    let ll = tmp.join("linked.ll");
    let mut cmd = Command::new(tool(llvm_bin, "llvm-dis"));
    cmd.arg(&linked).arg("-o").arg(&ll);
    run_tool(cmd)?;
    let text = std::fs::read_to_string(&ll)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", ll.display())))?;
    let redirected = crate::passes::panic_rewrite::rewrite(&text);
    let mut rewritten = ir_rewrite::rewrite(redirected.as_deref().unwrap_or(&text))?;
    let bounded = crate::passes::max_block::apply(&rewritten.text)?;
    if redirected.is_none()
        && bounded.is_none()
        && rewritten.shared.is_empty()
        && rewritten.constant.is_empty()
    {
        return Ok((linked, rewritten.constant));
    }
    if let Some(bounded) = bounded {
        rewritten.text = bounded;
    }
    let ll2 = tmp.join("rewritten.ll");
    std::fs::write(&ll2, &rewritten.text)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", ll2.display())))?;
    let bc = tmp.join("rewritten.bc");
    let mut cmd = Command::new(tool(llvm_bin, "llvm-as"));
    cmd.arg(&ll2).arg("-o").arg(&bc);
    run_tool(cmd)?;
    Ok((bc, rewritten.constant))
}

/// The GPU architecture rustc passed (`--target-cpu`), else the default.
fn target_cpu(args: &LinkArgs) -> &str {
    args.target_cpu
        .as_deref()
        .unwrap_or(crate::config::DEFAULT_ARCH)
}

/// Step 4: internalize everything but the kernels (exported symbols) and constant memory,
/// then optimise.
fn optimize(
    args: &LinkArgs,
    llvm_bin: &Path,
    tmp: &Path,
    input: &Path,
    constant: &[String],
) -> Result<PathBuf> {
    let (opt_level, _) = levels(args.opt_level.as_deref());
    let optimized = tmp.join("optimized.bc");
    let mut cmd = Command::new(tool(llvm_bin, "opt"));
    cmd.arg(format!(
        "-passes=internalize,globaldce,default<{opt_level}>"
    ));
    cmd.arg(format!("-mcpu={}", target_cpu(args)));
    if args.passes.unrolls_late() {
        cmd.arg(crate::pipeline::NO_RUNTIME_UNROLL);
    }
    if let Some(features) = &args.target_features {
        cmd.arg(format!("-mattr={features}"));
    }
    let mut public: Vec<&str> = args.exports.iter().map(String::as_str).collect();
    public.extend(constant.iter().map(String::as_str));
    public.sort_unstable();
    public.dedup();
    for name in public {
        cmd.arg(format!("-internalize-public-api-list={name}"));
    }
    cmd.arg(input).arg("-o").arg(&optimized);
    run_tool(cmd)?;
    Ok(optimized)
}

/// Step 5: code generation straight to the output path rustc asked for.
fn generate_ptx(args: &LinkArgs, llvm_bin: &Path, input: &Path, output: &Path) -> Result<()> {
    let (_, llc_level) = levels(args.opt_level.as_deref());
    let mut cmd = Command::new(tool(llvm_bin, "llc"));
    cmd.arg(format!("-mtriple={NVPTX_TARGET}"));
    cmd.arg(format!("-mcpu={}", target_cpu(args)));
    if let Some(features) = &args.target_features {
        cmd.arg(format!("-mattr={features}"));
    }
    cmd.arg(format!("-O{llc_level}"));
    cmd.arg(input).arg("-o").arg(output);
    run_tool(cmd)
}

/// Applies [`crate::passes::compiler_fences::strip`] and [`crate::passes::dead_fn_pointers::strip`] to the
/// optimised module, then [`crate::passes::fast_math::apply`] and the optional passes the build
/// selected ([`crate::pipeline`]), and drops the functions the first orphans;
/// returns the module to generate code from (the input when nothing changed) and the kernels
/// built with fast math.
fn rewrite_optimized(
    args: &LinkArgs,
    llvm_bin: &Path,
    tmp: &Path,
    optimized: PathBuf,
) -> Result<(PathBuf, Notes)> {
    let ll = tmp.join("optimized.ll");
    let mut cmd = Command::new(tool(llvm_bin, "llvm-dis"));
    cmd.arg(&optimized).arg("-o").arg(&ll);
    run_tool(cmd)?;
    let text = std::fs::read_to_string(&ll)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", ll.display())))?;
    let unfenced = crate::passes::compiler_fences::strip(&text);
    let fences_removed = unfenced.is_some();
    let text = unfenced.unwrap_or(text);
    let stripped = crate::passes::dead_fn_pointers::strip(&text);
    let fast =
        crate::passes::fast_math::apply(stripped.as_deref().unwrap_or(&text), args.fast_math)?;
    let (stripped, kernels) = match (fast, stripped) {
        (Some(applied), _) => (Some(applied.text), applied.kernels),
        (None, stripped) => (stripped, Vec::new()),
    };
    let changed = fences_removed || stripped.is_some();
    let text = stripped.unwrap_or(text);
    let optimised = crate::pipeline::run(&text, args.passes);
    let notes = Notes {
        fast_math: kernels,
        entry_tests: optimised.entry_tests,
    };
    let late = args.passes.unrolls_late();
    let stripped = match optimised.text {
        Some(text) => text,
        None if changed || late => text,
        None => return Ok((optimized, notes)),
    };
    let stripped_ll = tmp.join("stripped.ll");
    std::fs::write(&stripped_ll, stripped)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", stripped_ll.display())))?;
    let stripped_bc = tmp.join("stripped.bc");
    let mut cmd = Command::new(tool(llvm_bin, "opt"));
    if late {
        // The runtime unrolling held back until now (`crate::pipeline`), multi-exit loops
        // included, as rustc's pipeline would have (`nested::RUNTIME_UNROLL_MULTI_EXIT`).
        cmd.arg(format!("-passes={}", crate::pipeline::LATE_UNROLL_PASSES))
            .arg("-unroll-runtime-multi-exit")
            .arg(format!("-mcpu={}", target_cpu(args)));
        if let Some(features) = &args.target_features {
            cmd.arg(format!("-mattr={features}"));
        }
    } else {
        cmd.arg("-passes=globaldce");
    }
    cmd.arg(&stripped_ll).arg("-o").arg(&stripped_bc);
    run_tool(cmd)?;
    if !late {
        return Ok((stripped_bc, notes));
    }
    // The passes that read unrolled loops, on what the unroller wrote (`llc` reads the text).
    let unrolled_ll = tmp.join("unrolled.ll");
    let mut cmd = Command::new(tool(llvm_bin, "llvm-dis"));
    cmd.arg(&stripped_bc).arg("-o").arg(&unrolled_ll);
    run_tool(cmd)?;
    let unrolled = std::fs::read_to_string(&unrolled_ll)
        .map_err(|e| Error::new(format!("cannot read {}: {e}", unrolled_ll.display())))?;
    let Some(speculated) = crate::pipeline::after_unrolling(&unrolled, args.passes) else {
        return Ok((stripped_bc, notes));
    };
    let speculated_ll = tmp.join("speculated.ll");
    std::fs::write(&speculated_ll, speculated)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", speculated_ll.display())))?;
    Ok((speculated_ll, notes))
}

/// The `opt` pipeline level and the `llc` level for rustc's `-O` argument.
fn levels(rustc_level: Option<&str>) -> (&'static str, &'static str) {
    match rustc_level {
        Some("0") => ("O0", "0"),
        Some("1") => ("O1", "1"),
        Some("2") => ("O2", "2"),
        Some("s") => ("Os", "2"),
        Some("z") => ("Oz", "2"),
        _ => ("O3", "3"),
    }
}

/// Extracts `archive` into `dir` and returns its LLVM bitcode members, sorted.
fn extract_bitcode(llvm_bin: &Path, archive: &Path, dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
    let archive_abs = std::path::absolute(archive)
        .map_err(|e| Error::new(format!("bad path {}: {e}", archive.display())))?;
    let mut cmd = Command::new(tool(llvm_bin, "llvm-ar"));
    cmd.arg("x").arg(&archive_abs).current_dir(dir);
    run_tool(cmd)?;
    let mut found = Vec::new();
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::new(format!("cannot list {}: {e}", dir.display())))?;
    for entry in entries {
        let path = entry
            .map_err(|e| Error::new(format!("cannot list {}: {e}", dir.display())))?
            .path();
        if path.is_file() && kind_of(&path)? == Kind::Bitcode {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_magic() {
        assert_eq!(classify(b"BC\xC0\xDE\x35\x14"), Kind::Bitcode);
        assert_eq!(classify(&[0xDE, 0xC0, 0x17, 0x0B, 0, 0]), Kind::Bitcode);
        assert_eq!(classify(b"!<arch>\nlib.rmeta"), Kind::Archive);
        assert_eq!(classify(b"\x7fELF"), Kind::Other);
        assert_eq!(classify(b""), Kind::Other);
    }

    #[test]
    fn opt_levels() {
        assert_eq!(levels(Some("3")), ("O3", "3"));
        assert_eq!(levels(None), ("O3", "3"));
        assert_eq!(levels(Some("z")), ("Oz", "2"));
        assert_eq!(levels(Some("0")), ("O0", "0"));
    }
}
