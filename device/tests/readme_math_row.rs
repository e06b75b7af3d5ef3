//! The README's device-API table lists, in its "math" row, exactly the functions of the math
//! table (`MATH_FUNCTIONS`, then the `fast_*` approximations after "opt-in approximations"), and
//! every place a CUDA programmer looks for `rsqrtf` (the README row, the rustdoc of `rsqrt` and
//! of `fast_rsqrt`, the math module's documentation) says the same thing about it.

use ferrocuda_device::{DeviceFloat, FAST_MATH_FUNCTIONS, MATH_FUNCTIONS};

/// The names in backticks of `text`, without a receiver (`x.sqrt()` is `sqrt`), leaving out
/// the notes in parentheses outside backticks (`rsqrt` (a note with `code`)).
fn names(text: &str) -> Vec<String> {
    let (mut outside, mut depth, mut in_code) = (String::new(), 0usize, false);
    for c in text.chars() {
        let keep = match c {
            '`' => {
                in_code = !in_code;
                depth == 0
            }
            '(' if !in_code => {
                depth += 1;
                false
            }
            ')' if !in_code && depth > 0 => {
                depth -= 1;
                false
            }
            _ => depth == 0,
        };
        if keep {
            outside.push(c);
        }
    }
    outside
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|name| {
            let name = name.strip_prefix("x.").unwrap_or(name);
            name.strip_suffix("()").unwrap_or(name).to_string()
        })
        .collect()
}

/// The README's `| math |` row.
fn readme_math_row() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let readme = std::fs::read_to_string(path).expect("the workspace README");
    readme
        .lines()
        .find(|line| line.starts_with("| math |"))
        .expect("a `| math |` row in the README's device-API table")
        .to_string()
}

#[test]
fn readme_math_row_lists_the_math_table() {
    let row = readme_math_row();
    let (full, fast) = row
        .split_once("opt-in approximations")
        .expect("the math row names the `fast_*` approximations after \"opt-in approximations\"");
    assert_eq!(
        names(full),
        MATH_FUNCTIONS,
        "README math row vs the math table"
    );
    assert_eq!(
        names(fast),
        FAST_MATH_FUNCTIONS,
        "README approximations vs `fast_*`"
    );
}

#[test]
fn notes_in_parentheses_are_not_names() {
    assert_eq!(
        names("`x.sqrt()`, `rsqrt` (a note: `1 / sqrt(x)`, (nested `y`)), `cbrt` (`z`) |"),
        ["sqrt", "rsqrt", "cbrt"]
    );
}

/// What the docs say about CUDA's `rsqrtf`, in Markdown (README) and in rustdoc (where the name
/// is a link).
const README_RSQRTF: &str = "CUDA's `rsqrtf` is `fast_rsqrt`";
const RUSTDOC_RSQRTF: &str = "CUDA's `rsqrtf` is\n[`fast_rsqrt`]";

/// The doc comment lines just above the first line of `source` that starts (trimmed) with
/// `item`, comment markers removed and lines joined with `\n`.
fn doc_above(source: &str, item: &str) -> String {
    let lines: Vec<&str> = source.lines().collect();
    let at = lines
        .iter()
        .position(|line| line.trim_start().starts_with(item))
        .unwrap_or_else(|| panic!("`{item}` in device/src/math.rs"));
    let mut doc: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .map(|line| line.trim_start())
        .take_while(|line| line.starts_with("///"))
        .map(|line| line.trim_start_matches("///").trim())
        .collect();
    doc.reverse();
    doc.join("\n")
}

/// `text` with the rustdoc link targets `(crate::...)` removed and every line break a space, so
/// that a sentence reads the same however it was wrapped.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        out.push_str(&rest[..at + 1]);
        let after = &rest[at + 2..];
        rest = &after[after.find(')').map_or(after.len(), |end| end + 1)..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn every_doc_of_rsqrt_says_cudas_rsqrtf_is_fast_rsqrt() {
    let source = include_str!("../src/math.rs");
    let rustdoc = plain(RUSTDOC_RSQRTF);
    let module_doc: String = source
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        readme_math_row().contains(README_RSQRTF),
        "the README's math row must say {README_RSQRTF:?}"
    );
    for (place, doc, phrase) in [
        (
            "the rustdoc of `rsqrt`",
            doc_above(source, "rsqrt() -> Self"),
            &*rustdoc,
        ),
        (
            "the rustdoc of `fast_rsqrt`",
            doc_above(source, "fast_rsqrt;"),
            "CUDA's `rsqrtf`",
        ),
        ("the math module's documentation", module_doc, &*rustdoc),
    ] {
        assert!(
            plain(&doc).replace("**", "").contains(phrase),
            "{place} must say {phrase:?}:\n{doc}"
        );
    }
}

#[test]
fn rsqrt_is_the_ieee_rounded_reciprocal_of_sqrt() {
    // What the docs promise, on the simulator's side (the GPU's is checked by the device-API
    // test `math_functions`, with the table's tolerance of 0 ulp for `rsqrt`).
    for x in [0.0f32, 1e-40, 0.3, 1.0, 2.0, 3.0, 1e10, f32::INFINITY] {
        assert_eq!(
            DeviceFloat::rsqrt(x).to_bits(),
            (1.0 / x.sqrt()).to_bits(),
            "{x}"
        );
    }
    for x in [0.0f64, 5e-324, 0.3, 2.0, 3.0, 1e300] {
        assert_eq!(
            DeviceFloat::rsqrt(x).to_bits(),
            (1.0 / x.sqrt()).to_bits(),
            "{x}"
        );
    }
}
