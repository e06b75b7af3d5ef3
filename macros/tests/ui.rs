//! Compile tests: every misuse of `#[kernel]`, `launch!`, `#[constant]`, `#[derive(DeviceCopy)]`
//! and `gpu_println!` is an error at the user's token with a message that says how to fix it
//! (`tests/ui/*.rs`), and kernels that must compile and run do (`tests/pass/*.rs`).
//!
//! Each `tests/ui/*.rs` file ends with the errors it must produce, one line each:
//!
//! ```text
//! //~ ERROR 12:17: `Params` cannot be passed to or stored on the GPU
//! ```
//!
//! that is, the line and column of the primary span and the whole message. The test
//! passes when the compiler reports exactly these errors: no other error (one mistake, one
//! error), none missing, each at its position and with its message. Only the error's own message
//! and position are compared, never rustc's notes and help, whose wording changes from one
//! compiler release to the next; so the same expectations hold on stable and on nightly.
//! After a deliberate change, `FERROCUDA_UI=bless cargo test -p ferrocuda-macros --test ui`
//! rewrites the expectation lines from what the compiler said; review the diff.
//!
//! Why a small harness here rather than a crate: trybuild compares the whole stderr, rustc's own
//! notes included, which is exactly what changes between compiler versions; `ui_test` compares
//! annotations but pins the line only, not the column, and builds dependencies through its own
//! configuration. This harness builds all files in one `cargo build --message-format=json` of a
//! generated crate (so `ferrocuda` is built once) and compares the structured messages.

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One error: where the primary span starts, and the message.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Diagnostic {
    line: usize,
    column: usize,
    message: String,
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "//~ ERROR {}:{}: {}",
            self.line, self.column, self.message
        )
    }
}

const MARKER: &str = "//~ ERROR ";

#[test]
fn ui() {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fail = files(&manifest_dir.join("tests/ui"));
    let pass = files(&manifest_dir.join("tests/pass"));
    let fixture = Fixture::new(manifest_dir, &fail, &pass);
    let reported = fixture.build();
    let bless = std::env::var("FERROCUDA_UI").is_ok_and(|v| v == "bless");
    let mut failures = Vec::new();
    for file in &fail {
        let name = bin_name(file);
        let actual = reported.get(&name).cloned().unwrap_or_default();
        let expected = expectations(file);
        if bless {
            write_expectations(file, &actual);
        } else if actual != expected {
            failures.push(format!(
                "{}: the compiler reported\n{}\nbut the file expects\n{}",
                file.display(),
                lines(&actual),
                lines(&expected)
            ));
        } else if actual.is_empty() {
            failures.push(format!("{}: compiled without errors", file.display()));
        }
    }
    for file in &pass {
        let name = bin_name(file);
        if let Some(errors) = reported.get(&name) {
            failures.push(format!(
                "{} must compile:\n{}",
                file.display(),
                lines(errors)
            ));
        } else {
            fixture.run(&name, &mut failures);
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

/// The `.rs` files of a folder, sorted.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

fn bin_name(file: &Path) -> String {
    let folder = file
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    format!("{folder}_{}", file.file_stem().unwrap().to_string_lossy())
}

fn lines(diagnostics: &[Diagnostic]) -> String {
    if diagnostics.is_empty() {
        return "  (no error)".to_string();
    }
    let lines: Vec<String> = diagnostics.iter().map(|d| format!("  {d}")).collect();
    lines.join("\n")
}

/// The `//~ ERROR line:column: message` lines of a file, sorted.
fn expectations(file: &Path) -> Vec<Diagnostic> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut expected: Vec<Diagnostic> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix(MARKER))
        .map(|rest| {
            let (position, message) = rest
                .split_once(": ")
                .unwrap_or_else(|| panic!("bad expectation `{rest}` in {}", file.display()));
            let (line, column) = position.split_once(':').expect("line:column");
            Diagnostic {
                line: line.parse().expect("line number"),
                column: column.parse().expect("column number"),
                message: message.to_string(),
            }
        })
        .collect();
    expected.sort();
    expected
}

/// Replaces the expectation lines at the end of `file` by `actual`.
fn write_expectations(file: &Path, actual: &[Diagnostic]) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut code: Vec<&str> = text
        .lines()
        .filter(|line| !line.trim().starts_with(MARKER))
        .collect();
    while code.last().is_some_and(|l| l.trim().is_empty()) {
        code.pop();
    }
    let mut out = code.join("\n");
    out.push_str("\n\n");
    for diagnostic in actual {
        out.push_str(&format!("{diagnostic}\n"));
    }
    std::fs::write(file, out).unwrap();
}

/// A generated crate with one binary per test file, depending on `ferrocuda`.
struct Fixture {
    dir: PathBuf,
    target: PathBuf,
}

impl Fixture {
    fn new(manifest_dir: &Path, fail: &[PathBuf], pass: &[PathBuf]) -> Self {
        let workspace = manifest_dir.parent().unwrap();
        // Inside the workspace's target directory, kept between runs.
        let target_tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let dir = target_tmp.join("ferrocuda-ui");
        std::fs::create_dir_all(&dir).unwrap();
        let mut manifest = format!(
            "[package]\nname = \"ferrocuda-ui\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\nferrocuda = {{ path = {:?} }}\n\n[workspace]\n\n",
            workspace.join("runtime")
        );
        for file in fail.iter().chain(pass) {
            manifest.push_str(&format!(
                "[[bin]]\nname = {:?}\npath = {:?}\n\n",
                bin_name(file),
                file
            ));
        }
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        // The workspace's lock file: the same dependency versions, no network.
        std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
        let target = target_tmp.join("ferrocuda-ui-target");
        Fixture { dir, target }
    }

    /// Builds every binary; the errors reported for each, by binary name.
    fn build(&self) -> BTreeMap<String, Vec<Diagnostic>> {
        let output = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .current_dir(&self.dir)
            .args(["build", "--bins", "--keep-going", "--offline", "--quiet"])
            .args(["--message-format=json"])
            .arg("--target-dir")
            .arg(&self.target)
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .expect("run cargo");
        let mut reported: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            let Ok(message) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if message["reason"] != "compiler-message" {
                continue;
            }
            let name = message["target"]["name"].as_str().unwrap_or("").to_string();
            if let Some(diagnostic) = diagnostic(&message["message"], &name) {
                reported.entry(name).or_default().push(diagnostic);
            }
        }
        for errors in reported.values_mut() {
            errors.sort();
        }
        if !output.status.success() && reported.is_empty() {
            panic!(
                "cargo build of the UI crate failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        reported
    }

    /// Runs a binary that must succeed.
    fn run(&self, name: &str, failures: &mut Vec<String>) {
        let output = Command::new(self.target.join("debug").join(name))
            .output()
            .expect("run a pass test");
        if !output.status.success() {
            failures.push(format!(
                "{name} failed:\n{}",
                String::from_utf8_lossy(&output.stderr)
            ));
        }
    }
}

/// An error of rustc's JSON output, with its primary span; `None` for warnings and summaries.
///
/// A span inside a macro (`launch!`'s definition, say) is followed up its expansions to the
/// test file's token that invoked the macro, as rustc's human-readable output does.
fn diagnostic(message: &Value, bin: &str) -> Option<Diagnostic> {
    if message["level"] != "error" {
        return None;
    }
    let text = message["message"].as_str()?;
    let spans = message["spans"].as_array()?;
    let primary = spans.iter().find(|s| s["is_primary"] == true);
    let file = bin.split_once('_').map_or(bin, |(_, file)| file);
    let primary = primary.map(|span| in_test_file(span, &format!("{file}.rs")));
    let Some(primary) = primary else {
        // "aborting due to N previous errors" and similar summaries have no span.
        return (!text.starts_with("aborting due to")).then(|| Diagnostic {
            line: 0,
            column: 0,
            message: text.to_string(),
        });
    };
    Some(Diagnostic {
        line: primary["line_start"].as_u64()? as usize,
        column: primary["column_start"].as_u64()? as usize,
        message: text.to_string(),
    })
}

/// The span itself if it is in `file`, else the first span of its expansion chain that is.
fn in_test_file<'a>(span: &'a Value, file: &str) -> &'a Value {
    let mut current = span;
    loop {
        if current["file_name"]
            .as_str()
            .is_some_and(|f| f.ends_with(file))
        {
            return current;
        }
        match current.get("expansion").and_then(|e| e.get("span")) {
            Some(next) if next.is_object() => current = next,
            _ => return span,
        }
    }
}
