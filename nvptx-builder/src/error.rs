//! The one error type of the crate and how errors reach the user.
//!
//! Build scripts talk to cargo through stdout lines (`cargo:warning=`, `cargo::error=`) and
//! their exit status; a linker talks to rustc through stderr and its exit status. Nothing in
//! this crate panics on a user-facing error: it ends up here instead.

use std::fmt;

/// An error with a human-readable, user-facing message.
///
/// The first line is the summary; further lines (if any) are details such as the output of a
/// failed tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Error {
    message: String,
}

impl Error {
    /// Creates an error from a message.
    pub(crate) fn new(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
        }
    }

    /// The full message.
    pub(crate) fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Result alias of the crate.
pub(crate) type Result<T> = std::result::Result<T, Error>;

/// Reports `err` the way a build script should and exits with status 1.
///
/// Detail lines go to stderr and become `cargo:warning=` lines; the summary becomes a
/// `cargo::error=` line.
pub(crate) fn exit_build_script(err: &Error) -> ! {
    let mut lines = err.message().lines();
    let summary = lines.next().unwrap_or("nvptx-builder failed");
    let summary = if summary.starts_with("nvptx-builder") {
        summary.to_owned()
    } else {
        format!("nvptx-builder: {summary}")
    };
    eprintln!("error: {summary}");
    for line in lines {
        eprintln!("{line}");
        println!("cargo:warning={line}");
    }
    println!("cargo::error={summary}");
    std::process::exit(1)
}

/// Reports `err` the way a linker should (stderr, shown by rustc) and exits with status 1.
pub(crate) fn exit_linker(err: &Error) -> ! {
    eprintln!("nvptx-builder (linker): {}", err.message());
    std::process::exit(1)
}

/// Prints a `cargo:warning=` line per line of `text`.
pub(crate) fn warn(text: &str) {
    for line in text.lines() {
        println!("cargo:warning={line}");
    }
}
