//! Running external programs with errors that say what was run and what it printed.

use crate::error::{Error, Result};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Renders a command line for messages (arguments with spaces are quoted).
pub(crate) fn display_command(cmd: &Command) -> String {
    let mut parts = vec![quote(cmd.get_program())];
    parts.extend(cmd.get_args().map(quote));
    parts.join(" ")
}

fn quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    if s.is_empty() || s.contains([' ', '"', '\'', '\t']) {
        format!("'{}'", s.replace('\'', r"'\''"))
    } else {
        s.into_owned()
    }
}

/// Runs `cmd` to completion, capturing stdout and stderr.
///
/// Fails if it cannot be started or exits unsuccessfully; the error names the command and
/// carries its stderr.
pub(crate) fn run_captured(cmd: &mut Command) -> Result<Output> {
    let output = cmd
        .output()
        .map_err(|e| Error::new(format!("could not run `{}`: {e}", display_command(cmd))))?;
    if output.status.success() {
        Ok(output)
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let stdout = String::from_utf8_lossy(&output.stdout);
        let mut msg = format!("`{}` failed ({})", display_command(cmd), output.status);
        for text in [stderr.trim_end(), stdout.trim_end()] {
            if !text.is_empty() {
                msg.push('\n');
                msg.push_str(text);
            }
        }
        Err(Error::new(msg))
    }
}

/// Finds an executable called `name` in `PATH`.
pub(crate) fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// Whether `path` is an executable regular file.
pub(crate) fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
