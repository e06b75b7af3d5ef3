//! The README's device-API table lists, in its "math" row, exactly the functions of the math
//! table (`MATH_FUNCTIONS`, then the `fast_*` approximations after "opt-in approximations").

use ferrocuda_device::{FAST_MATH_FUNCTIONS, MATH_FUNCTIONS};

/// The names in backticks of `text`, without a receiver (`x.sqrt()` is `sqrt`).
fn names(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|name| {
            let name = name.strip_prefix("x.").unwrap_or(name);
            name.strip_suffix("()").unwrap_or(name).to_string()
        })
        .collect()
}

#[test]
fn readme_math_row_lists_the_math_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    let readme = std::fs::read_to_string(path).expect("the workspace README");
    let row = readme
        .lines()
        .find(|line| line.starts_with("| math |"))
        .expect("a `| math |` row in the README's device-API table");
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
