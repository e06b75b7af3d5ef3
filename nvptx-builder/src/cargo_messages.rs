//! Reading the nested cargo's `--message-format=json` output: the PTX file it produced, and
//! the diagnostics worth showing to the user.
//!
//! Errors are kept once each, from rustc's `rendered` text (cargo's own "could not compile"
//! line adds nothing). Warnings are kept only for the user's own (path) packages: they come
//! from code behind `cfg(target_arch = "nvptx64")` that the host build never compiles.

use crate::json::{self, Json};
use std::io::BufRead;
use std::path::{Path, PathBuf};

/// What the nested build reported.
#[derive(Debug, Default)]
pub(crate) struct BuildMessages {
    /// The `.ptx` file of the kernel crate, if one was produced.
    pub(crate) ptx: Option<PathBuf>,
    /// Rendered compiler errors, in order.
    pub(crate) errors: Vec<String>,
    /// Rendered compiler warnings of local packages, in order.
    pub(crate) warnings: Vec<String>,
    /// `build-finished`'s `success`, when cargo got that far.
    pub(crate) success: Option<bool>,
}

impl BuildMessages {
    /// Reads every line of `reader`; `manifest` is the kernel crate's `Cargo.toml`.
    pub(crate) fn read(reader: impl BufRead, manifest: &Path) -> BuildMessages {
        let mut messages = BuildMessages::default();
        for line in reader.lines() {
            let Ok(line) = line else { break };
            if let Ok(msg) = json::parse(&line) {
                messages.add(&msg, manifest);
            }
        }
        messages
    }

    /// Takes one JSON message into account.
    fn add(&mut self, msg: &Json, manifest: &Path) {
        match msg.get("reason").and_then(Json::as_str) {
            Some("compiler-message") => self.add_diagnostic(msg),
            Some("compiler-artifact") => {
                let ours = msg
                    .get("manifest_path")
                    .and_then(Json::as_str)
                    .is_some_and(|p| same_file(Path::new(p), manifest));
                let files = msg.get("filenames").and_then(Json::as_array).unwrap_or(&[]);
                let ptx = files
                    .iter()
                    .filter_map(Json::as_str)
                    .find(|f| f.ends_with(".ptx"));
                if let (true, Some(f)) = (ours, ptx) {
                    self.ptx = Some(PathBuf::from(f));
                }
            }
            Some("build-finished") => self.success = msg.get("success").and_then(Json::as_bool),
            _ => {}
        }
    }

    /// Keeps the rendered text of an error, or of a warning in a local package.
    fn add_diagnostic(&mut self, msg: &Json) {
        let m = msg.get("message");
        let level = m.and_then(|m| m.get("level")).and_then(Json::as_str);
        let Some(rendered) = m.and_then(|m| m.get("rendered")).and_then(Json::as_str) else {
            return;
        };
        let local = msg
            .get("package_id")
            .and_then(Json::as_str)
            .is_some_and(|id| id.starts_with("path+"));
        match level {
            Some("error" | "error: internal compiler error") => {
                self.errors.push(rendered.trim_end().to_owned());
            }
            Some("warning") if local => self.warnings.push(rendered.trim_end().to_owned()),
            _ => {}
        }
    }

    /// What to show when the build failed: the compiler errors, or, when there are none (a bad
    /// manifest, a missing dependency, ...), what cargo printed on stderr minus its progress
    /// lines.
    pub(crate) fn failure_diagnostics(&self, cargo_stderr: &str) -> String {
        if !self.errors.is_empty() {
            return self.errors.join("\n\n");
        }
        cargo_stderr
            .lines()
            .filter(|l| {
                let t = l.trim_start();
                !t.is_empty()
                    && !["Compiling", "Blocking", "Updating", "Locking", "Downloaded"]
                        .iter()
                        .any(|p| t.starts_with(p))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Whether `a` and `b` name the same file.
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || match (a.canonicalize(), b.canonicalize()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shortened from a real nested build of a crate with one device-side error and warning.
    const FAILED: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///k#0.1.0","manifest_path":"/k/Cargo.toml","filenames":["/t/libk.rlib"]}
{"reason":"compiler-message","package_id":"path+file:///k#0.1.0","manifest_path":"/k/Cargo.toml","message":{"level":"warning","rendered":"warning: unused variable: `y`\n"}}
{"reason":"compiler-message","package_id":"registry+https://github.com/rust-lang/crates.io-index#libm@0.2.15","manifest_path":"/r/libm/Cargo.toml","message":{"level":"warning","rendered":"warning: not ours\n"}}
{"reason":"compiler-message","package_id":"path+file:///k#0.1.0","manifest_path":"/k/Cargo.toml","message":{"level":"error","rendered":"error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:7:72\n"}}
not json: ignored
{"reason":"build-finished","success":false}
"#;

    #[test]
    fn keeps_each_error_once_and_local_warnings() {
        let m = BuildMessages::read(FAILED.as_bytes(), Path::new("/k/Cargo.toml"));
        assert_eq!(m.success, Some(false));
        assert_eq!(m.ptx, None);
        assert_eq!(
            m.errors,
            ["error[E0425]: cannot find value `x` in this scope\n --> src/lib.rs:7:72"]
        );
        assert_eq!(m.warnings, ["warning: unused variable: `y`"]);
        let cargo_stderr = "   Compiling k v0.1.0\nerror: could not compile `k` (lib)\n";
        assert_eq!(m.failure_diagnostics(cargo_stderr), m.errors[0]);
    }

    #[test]
    fn finds_the_ptx_and_falls_back_to_cargo_stderr() {
        let ok = r#"{"reason":"compiler-artifact","manifest_path":"/k/Cargo.toml","filenames":["/t/k.ptx"]}
{"reason":"build-finished","success":true}"#;
        let m = BuildMessages::read(ok.as_bytes(), Path::new("/k/Cargo.toml"));
        assert_eq!(m.ptx, Some(PathBuf::from("/t/k.ptx")));
        assert_eq!(m.success, Some(true));
        let stderr =
            "    Updating crates.io index\nerror: no matching package named `nope` found\n";
        assert_eq!(
            m.failure_diagnostics(stderr),
            "error: no matching package named `nope` found"
        );
    }
}
