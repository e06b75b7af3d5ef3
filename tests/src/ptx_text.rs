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

/// The body of the first function (`.func` or `.entry`) in `ptx` whose name ends with `suffix`:
/// for mangled names such as `..4core9panicking18panic_bounds_check`.
///
/// # Panics
/// When `ptx` defines no such function.
pub fn body_of<'a>(ptx: &'a str, suffix: &str) -> &'a str {
    let start = ptx
        .match_indices("\n.")
        .map(|(i, _)| i + 1)
        .find(|&i| {
            let line = ptx[i..].lines().next().unwrap_or("");
            (line.starts_with(".func ") || line.starts_with(".visible .entry "))
                && line.trim_end_matches('(').ends_with(suffix)
                && line.ends_with('(')
        })
        .unwrap_or_else(|| panic!("no definition ending with {suffix} in the PTX"));
    let end = start + ptx[start..].find("\n}").expect("end of the function");
    &ptx[start..end]
}
