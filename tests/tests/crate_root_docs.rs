//! One kernel-crate root everywhere: every kernel crate of the workspace (a `src/lib.rs` calling
//! `ferrocuda::ptx_module!()`) and every snippet in the docs (Markdown files and `//!`/`///`
//! comments) that shows the crate-level `cfg_attr` for nvptx64 shows the same line as
//! `kernels-nvptx/src/lib.rs`, followed by `ferrocuda::ptx_module!();`, with no
//! `#[panic_handler]` (the device crate supplies it).

use std::path::{Path, PathBuf};

/// How a crate root's first attribute starts.
const ROOT_START: &str = "#![cfg_attr(target_arch = \"nvptx64\"";
/// The line after it.
const MODULE_LINE: &str = "ferrocuda::ptx_module!();";

/// The workspace root.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// The `.rs` and `.md` files of the workspace, without build outputs and hidden folders.
fn sources(dir: &Path, found: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" {
                sources(&path, found);
            }
        } else if name.ends_with(".rs") || name.ends_with(".md") {
            found.push(path);
        }
    }
}

/// The documentation lines of a file, numbered from 1: every line of a Markdown file, the text
/// of the `//!` and `///` comments of a Rust file.
fn doc_lines(path: &Path, text: &str) -> Vec<(usize, String)> {
    let markdown = path.extension().is_some_and(|e| e == "md");
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let doc = if markdown {
                Some(line)
            } else {
                let trimmed = line.trim_start();
                trimmed
                    .strip_prefix("//!")
                    .or_else(|| trimmed.strip_prefix("///"))
            };
            doc.map(|doc| (i + 1, doc.trim().to_string()))
        })
        .collect()
}

/// The crate-root line of `kernels-nvptx/src/lib.rs`, the one the README shows.
fn reference_root() -> String {
    let path = workspace().join("kernels-nvptx/src/lib.rs");
    let text = std::fs::read_to_string(&path).expect("kernels-nvptx/src/lib.rs");
    let line = text
        .lines()
        .find(|line| line.starts_with(ROOT_START))
        .expect("kernels-nvptx/src/lib.rs starts with the nvptx64 cfg_attr");
    line.to_string()
}

/// The problems of one snippet: `lines` from the root line on (numbered), in `file`.
fn check_snippet(file: &str, lines: &[(usize, String)], root: &str, problems: &mut Vec<String>) {
    let (number, line) = &lines[0];
    if line != root {
        problems.push(format!("{file}:{number}: `{line}` differs from `{root}`"));
    }
    match lines[1..]
        .iter()
        .find(|(_, l)| !l.is_empty() && !l.starts_with("//"))
    {
        Some((_, next)) if next == MODULE_LINE => {}
        other => problems.push(format!(
            "{file}:{number}: the crate root is not followed by `{MODULE_LINE}` (next: {:?})",
            other.map(|(_, l)| l)
        )),
    }
    let snippet_end = lines
        .iter()
        .position(|(_, l)| l.starts_with("```"))
        .unwrap_or(lines.len());
    if let Some((n, _)) = lines[..snippet_end]
        .iter()
        .find(|(_, l)| l.contains("#[panic_handler]"))
    {
        problems.push(format!(
            "{file}:{n}: a kernel crate declares no `#[panic_handler]` (ferrocuda-device has it)"
        ));
    }
}

#[test]
fn every_kernel_crate_root_is_the_same() {
    let root = reference_root();
    let workspace = workspace();
    let mut files = Vec::new();
    sources(&workspace, &mut files);
    let (mut problems, mut doc_snippets, mut kernel_crates) = (Vec::new(), Vec::new(), 0);
    for path in &files {
        let text = std::fs::read_to_string(path).expect("a source file");
        let file = path
            .strip_prefix(&workspace)
            .unwrap_or(path)
            .display()
            .to_string();
        // A kernel crate: its own root.
        if path.ends_with("src/lib.rs") && text.lines().any(|l| l == MODULE_LINE) {
            kernel_crates += 1;
            let lines: Vec<(usize, String)> = text
                .lines()
                .enumerate()
                .map(|(i, l)| (i + 1, l.trim().to_string()))
                .collect();
            match lines.iter().position(|(_, l)| l.starts_with(ROOT_START)) {
                Some(at) => check_snippet(&file, &lines[at..], &root, &mut problems),
                None => problems.push(format!("{file}: a kernel crate without `{root}`")),
            }
        }
        // Its documentation: every line that shows a crate root for nvptx64.
        let docs = doc_lines(path, &text);
        for (at, (_, line)) in docs.iter().enumerate() {
            let shown = line.trim_matches('`');
            if shown.starts_with(ROOT_START) {
                doc_snippets.push(file.clone());
                let mut snippet = docs[at..].to_vec();
                snippet[0].1 = shown.to_string();
                check_snippet(&file, &snippet, &root, &mut problems);
            } else if line.contains("feature(abi_ptx") {
                problems.push(format!(
                    "{file}:{}: mentions `feature(abi_ptx` outside a crate-root line: {line}",
                    docs[at].0
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "kernel-crate roots that differ from kernels-nvptx/src/lib.rs:\n{}",
        problems.join("\n")
    );
    // The check is not vacuous: the README and nvptx-builder's docs show the root, and the
    // workspace has its two kernel crates.
    for expected in ["README.md", "nvptx-builder/src/lib.rs"] {
        assert!(
            doc_snippets.iter().any(|f| f == expected),
            "{expected} shows no kernel-crate root (found in {doc_snippets:?})"
        );
    }
    assert!(kernel_crates >= 2, "kernel crates found: {kernel_crates}");
}
