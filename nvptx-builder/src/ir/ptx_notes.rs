//! The comment lines the builder leaves at the top of the PTX for the runtime to read.

/// `ptx` with a `{prefix}{entry} {note}` comment line for each `(entry, note)` before its
/// `.version` line (at the end of the leading comments when it has none): the notes the
/// builder leaves the runtime ([`crate::passes::fast_math::ptx_note`], [`crate::passes::check_versioning::entry_test::ptx_note`]).
pub(crate) fn ptx_notes<T: std::fmt::Display>(
    ptx: &str,
    prefix: &str,
    notes: &[(String, T)],
) -> String {
    let mut lines = String::new();
    for (entry, note) in notes {
        lines.push_str(&format!("{prefix}{entry} {note}\n"));
    }
    let at = ptx.find("\n.version").map_or(0, |i| i + 1);
    format!("{}{lines}{}", &ptx[..at], &ptx[at..])
}
