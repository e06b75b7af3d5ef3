//! The one error type of the crate and how errors reach the user.
//!
//! Build scripts talk to cargo through stdout lines (`cargo::warning=`, `cargo::error=`) and
//! their exit status; a linker talks to rustc through stderr and its exit status. Nothing in
//! this crate panics on a user-facing error: it ends up here instead.
//!
//! A failed build script is reported once, and first: every line of the error becomes a
//! `cargo::error=` line and the script then exits with status 0, which cargo reports as
//! `error: <pkg>: <line>` for each line followed by `error: build script logged errors`.
//! Exiting with status 1 instead makes cargo print its `failed to run custom build command`
//! block, which repeats the whole of the script's stdout and stderr below a paragraph of
//! boilerplate, so each error would show three times and the first copy after unrelated lines.

use std::fmt;

/// An error with a human-readable, user-facing message.
///
/// The first line of the message is the summary; further lines (if any) are details. Output of
/// a compiler that failed (its diagnostics) is kept apart and shown before the summary, so
/// that what the user must fix comes first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    message: String,
    diagnostics: Option<String>,
}

impl Error {
    /// Creates an error from a message.
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            diagnostics: None,
        }
    }

    /// Attaches the diagnostics of the compiler that failed, shown before the message.
    pub(crate) fn with_diagnostics(mut self, diagnostics: impl Into<String>) -> Error {
        self.diagnostics = Some(diagnostics.into());
        self
    }

    /// The full message (without the diagnostics).
    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// The lines a user sees, in order: diagnostics, then the summary (prefixed with
    /// `nvptx-builder: ` so the reader knows who speaks), then the details.
    pub(crate) fn report_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if let Some(d) = &self.diagnostics {
            out.extend(d.trim_end().lines().map(str::to_owned));
        }
        let mut lines = self.message.lines();
        let summary = lines.next().unwrap_or("failed");
        if summary.starts_with("nvptx-builder") {
            out.push(summary.to_owned());
        } else {
            out.push(format!("nvptx-builder: {summary}"));
        }
        out.extend(lines.map(str::to_owned));
        out
    }
}

impl fmt::Display for Error {
    /// The message alone, for embedding in another error's message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result alias of the crate.
pub(crate) type Result<T> = std::result::Result<T, Error>;

/// Reports `err` from a build script, once (see the module documentation).
///
/// Run by cargo (`OUT_DIR` set), it prints one `cargo::error=` line per line of the report and
/// returns, leaving the exit status 0: cargo then fails the build with the error alone. Run by
/// hand, it prints the report on stderr and exits with status 1.
pub(crate) fn report_build_script(err: &Error) {
    if std::env::var_os("OUT_DIR").is_none() {
        eprintln!("error: {}", err.report_lines().join("\n"));
        std::process::exit(1);
    }
    for line in err.report_lines() {
        println!("cargo::error={line}");
    }
}

/// Reports `err` the way a linker should (stderr, shown by rustc) and exits with status 1.
pub(crate) fn exit_linker(err: &Error) -> ! {
    eprintln!("nvptx-builder (linker): {}", err.message());
    std::process::exit(1)
}

/// Prints a `cargo::warning=` line per line of `text`.
pub(crate) fn warn(text: &str) {
    for line in text.lines() {
        println!("cargo::warning={line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diagnostics_come_first_and_the_summary_is_attributed() {
        let e = Error::new("compiling k failed\n(command: cargo rustc)")
            .with_diagnostics("error[E0425]: cannot find value `x`\n --> src/lib.rs:1:1\n\n");
        assert_eq!(
            e.report_lines(),
            [
                "error[E0425]: cannot find value `x`",
                " --> src/lib.rs:1:1",
                "nvptx-builder: compiling k failed",
                "(command: cargo rustc)",
            ]
        );
        let e = Error::new("nvptx-builder (linker): bad");
        assert_eq!(e.report_lines(), ["nvptx-builder (linker): bad"]);
    }
}
