//! Reading cargo's dep-info (`.d`) files and choosing what the outer build should watch.
//!
//! Cargo writes, next to the final artifact of the nested build, a Makefile-style file
//! `<artifact>: <source> <source> ...` listing every source file that went into it, including
//! `core`'s (from the sysroot) and registry crates'. Only the user's own files are worth
//! watching: the rest cannot change without the toolchain or `Cargo.lock` changing.

use std::path::{Path, PathBuf};

/// Parses Makefile-style dep-info text and returns the prerequisites of all rules, in order,
/// without duplicates.
pub(crate) fn parse(text: &str) -> Vec<PathBuf> {
    let mut deps: Vec<PathBuf> = Vec::new();
    // Join backslash-newline continuations.
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    for line in joined.lines() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some(rest) = rule_prerequisites(line) else {
            continue;
        };
        for word in split_words(rest) {
            let p = PathBuf::from(word);
            if !deps.contains(&p) {
                deps.push(p);
            }
        }
    }
    deps
}

/// The text after the rule's `target:` separator (a colon followed by a space or the end of
/// line, which skips Windows drive letters and escaped colons).
fn rule_prerequisites(line: &str) -> Option<&str> {
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b':' if i + 1 == bytes.len() || bytes[i + 1] == b' ' || bytes[i + 1] == b'\t' => {
                return Some(&line[i + 1..]);
            }
            _ => i += 1,
        }
    }
    None
}

/// Splits on unescaped whitespace and removes the escapes (`\ `, `\\`, `\#`, `\:`, `$$`).
fn split_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&n @ (' ' | '\\' | '#' | ':' | '\t')) => {
                    cur.push(n);
                    chars.next();
                }
                _ => cur.push('\\'),
            },
            '$' if chars.peek() == Some(&'$') => {
                cur.push('$');
                chars.next();
            }
            ' ' | '\t' => {
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Keeps the files the user can edit: drops those under any of `excluded` (sysroot, cargo
/// registry and git checkouts, target directories).
pub(crate) fn user_files(deps: Vec<PathBuf>, excluded: &[PathBuf]) -> Vec<PathBuf> {
    deps.into_iter()
        .filter(|p| !excluded.iter().any(|ex| under(p, ex)))
        .collect()
}

fn under(path: &Path, dir: &Path) -> bool {
    if path.starts_with(dir) {
        return true;
    }
    // Compare canonical forms too, so symlinked homes or sysroots match.
    match (path.canonicalize(), dir.canonicalize()) {
        (Ok(p), Ok(d)) => p.starts_with(d),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cargo_external_dep_info() {
        let text = "/t/nvptx/ferrocuda-nvptx/k.ptx: /w/k/src/lib.rs /w/k/src/my\\ mod.rs \\\n /s/lib/rustlib/src/rust/library/core/src/lib.rs /w/k/src/lib.rs\n";
        let deps = parse(text);
        assert_eq!(
            deps,
            vec![
                PathBuf::from("/w/k/src/lib.rs"),
                PathBuf::from("/w/k/src/my mod.rs"),
                PathBuf::from("/s/lib/rustlib/src/rust/library/core/src/lib.rs"),
            ]
        );
        let user = user_files(
            deps,
            &[
                PathBuf::from("/s"),
                PathBuf::from("/home/u/.cargo/registry"),
            ],
        );
        assert_eq!(
            user,
            vec![
                PathBuf::from("/w/k/src/lib.rs"),
                PathBuf::from("/w/k/src/my mod.rs")
            ]
        );
    }

    #[test]
    fn rustc_style_rules() {
        let text = "/t/k.d: src/lib.rs src/a.rs\n\nsrc/lib.rs:\nsrc/a.rs:\n";
        assert_eq!(
            parse(text),
            vec![PathBuf::from("src/lib.rs"), PathBuf::from("src/a.rs")]
        );
        assert_eq!(
            parse("C:\\t\\k.ptx: C:\\w\\lib.rs"),
            vec![PathBuf::from("C:\\w\\lib.rs")]
        );
    }
}
