//! Reading kernels' PTX text in tests that pin what the compiler made of them.

/// The body of the entry `name` in `ptx`, from its `.visible .entry` line to its closing brace.
///
/// # Panics
/// When `ptx` has no entry `name`.
pub fn entry_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let header = format!("\n.visible .entry {name}(");
    let start = ptx
        .find(&header)
        .unwrap_or_else(|| panic!("no entry {name} in the PTX"));
    let end = start + ptx[start..].find("\n}").expect("end of the entry");
    &ptx[start..end]
}
