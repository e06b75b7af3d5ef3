//! The crate's own source layout: no file under `src/` is longer than [`MAX_LINES`], the
//! modules are layered ([`LAYERS`]: each refers only to its own layer and those below it), and
//! no two files import each other, directly or through others.
//!
//! The test reads the source text: a file's references are the `crate::` and `super::` paths of
//! its code (comments, doc comments included, and string literals are left out) and the paths
//! through the modules it declares itself (`mod foo;` then `foo::bar`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The most lines a source file may have, tests in it included.
const MAX_LINES: usize = 600;

/// The layers, lowest first: the top-level modules of each. A module named in none of them (and
/// the crate root, `lib.rs`, with its re-exports) is in the top layer, the build and link steps
/// (`link`, `link_args`, `nested`, `config`, `prebuilt`, ...).
///
/// The first layer holds the leaf modules every layer shares, which import nothing from the
/// crate: the error type and the names the crate shares with the runtime.
const LAYERS: [&[&str]; 5] = [
    &["error", "contract"],
    &["ir"],
    &["analysis"],
    &["passes"],
    &["pipeline"],
];

/// A source file: its module path (`["passes", "check_versioning"]` for
/// `src/passes/check_versioning/mod.rs`, empty for `lib.rs`) and its code.
struct Source {
    path: PathBuf,
    module: Vec<String>,
    lines: usize,
    code: String,
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            let rel = path.strip_prefix(&src).unwrap();
            let mut module: Vec<String> = rel
                .iter()
                .map(|c| c.to_str().unwrap().trim_end_matches(".rs").to_string())
                .collect();
            let last = module.pop().unwrap();
            if last != "mod" && !(module.is_empty() && last == "lib") {
                module.push(last);
            }
            Source {
                path: rel.to_path_buf(),
                module,
                lines: text.lines().count(),
                code: code_of(&text),
            }
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `text` with its comments and the contents of its string and character literals blanked.
fn code_of(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'*' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == b'r'
            && (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"'))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
        {
            // A raw string: `r"..."`, `r#"..."#`, ...
            let mut j = i + 1;
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            j += 1;
            while j < b.len() && !b[j..].starts_with(&close) {
                j += 1;
            }
            i = j + close.len();
            out.push_str("\"\"");
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == b'\'' {
            // A character literal, or a lifetime (left as it is).
            if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                i = j + 1;
                out.push_str("' '");
            } else if let Some(len) = text[i + 1..].chars().next().map(char::len_utf8)
                && b.get(i + 1 + len) == Some(&b'\'')
            {
                i += len + 2;
                out.push_str("' '");
            } else {
                out.push('\'');
                i += 1;
            }
        } else {
            let len = text[i..].chars().next().unwrap().len_utf8();
            out.push_str(&text[i..i + len]);
            i += len;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths `code` names after `prefix` (`crate`, `super`, `self` or a module name), each as
/// its segments after the prefix; a `{...}` group gives one path per member.
fn paths_after(code: &str, prefix: &str) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    let pattern = format!("{prefix}::");
    let mut from = 0;
    while let Some(at) = code[from..].find(&pattern) {
        let start = from + at;
        from = start + pattern.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == ':') {
            continue;
        }
        out.extend(expand(&code[from..]).into_iter().map(|p| (start, p)));
    }
    out
}

/// The paths at the start of `rest` (what follows a `::`).
fn expand(rest: &str) -> Vec<Vec<String>> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 0;
        let mut end = group.len();
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    end = i;
                    break;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        let inner = &group[..end];
        let mut members = Vec::new();
        let mut depth = 0;
        let mut last = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    members.push(&inner[last..i]);
                    last = i + 1;
                }
                _ => {}
            }
        }
        members.push(&inner[last..]);
        return members
            .into_iter()
            .filter(|m| !m.trim().is_empty())
            .flat_map(|m| {
                let m = m.trim_start();
                let name: String = m.chars().take_while(|&c| is_ident(c)).collect();
                let after = m[name.len()..].trim_start();
                match after.strip_prefix("::") {
                    Some(more) => expand(more)
                        .into_iter()
                        .map(|mut p| {
                            p.insert(0, name.clone());
                            p
                        })
                        .collect(),
                    None => vec![vec![name]],
                }
            })
            .collect();
    }
    let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
    if name.is_empty() {
        return Vec::new();
    }
    let after = rest[name.len()..].trim_start();
    match after.strip_prefix("::") {
        Some(more) if !more.trim_start().starts_with('<') => {
            let tails = expand(more);
            if tails.is_empty() {
                vec![vec![name]]
            } else {
                tails
                    .into_iter()
                    .map(|mut p| {
                        p.insert(0, name.clone());
                        p
                    })
                    .collect()
            }
        }
        _ => vec![vec![name]],
    }
}

/// The modules `code` declares: `(name, start, end)`, where `start..end` is the body of an
/// inline one (`mod foo { ... }`) and empty for a file (`mod foo;`).
fn declared_modules(code: &str) -> Vec<(String, usize, usize)> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        let rest = &code[at + 4..];
        let name: String = rest.chars().take_while(|&c| is_ident(c)).collect();
        let after = rest[name.len()..].trim_start();
        let body = at + 4 + (rest.len() - after.len());
        if name.is_empty() {
            continue;
        }
        if after.starts_with(';') {
            out.push((name, body, body));
        } else if after.starts_with('{') {
            let mut depth = 0;
            let mut end = code.len();
            for (i, c) in code[body..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = body + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            out.push((name, body, end));
        }
    }
    out
}

/// The absolute module paths (from the crate root) `source` refers to.
fn references(source: &Source) -> Vec<Vec<String>> {
    let modules = declared_modules(&source.code);
    // The module the code at `at` is in: the file's, then the inline modules around it.
    let module_at = |at: usize| {
        let mut module = source.module.clone();
        for (name, start, end) in &modules {
            if *start < at && at < *end {
                module.push(name.clone());
            }
        }
        module
    };
    let mut out = Vec::new();
    for (_, path) in paths_after(&source.code, "crate") {
        out.push(path);
    }
    for (at, path) in paths_after(&source.code, "self") {
        let mut full = module_at(at);
        full.extend(path);
        out.push(full);
    }
    for (at, path) in paths_after(&source.code, "super") {
        let mut base = module_at(at);
        base.pop();
        let mut rest = path.as_slice();
        while rest.first().is_some_and(|s| s == "super") {
            base.pop();
            rest = &rest[1..];
        }
        base.extend(rest.iter().cloned());
        out.push(base);
    }
    for (child, _, _) in &modules {
        for (at, path) in paths_after(&source.code, child) {
            let mut full = module_at(at);
            full.push(child.clone());
            full.extend(path);
            out.push(full);
        }
    }
    // A glob of the crate root (`use super::*` in a top-level module's tests) names no module.
    out.retain(|p| p.first().is_some_and(|s| s != "*"));
    out
}

/// The rank of the layer of the top-level module `name` (the top layer's for any other name).
fn layer_of(name: Option<&str>) -> usize {
    name.and_then(|n| LAYERS.iter().position(|layer| layer.contains(&n)))
        .unwrap_or(LAYERS.len())
}

#[test]
fn no_source_file_is_over_the_line_limit() {
    let long: Vec<String> = sources()
        .iter()
        .filter(|s| s.lines > MAX_LINES)
        .map(|s| format!("{} ({} lines)", s.path.display(), s.lines))
        .collect();
    assert!(long.is_empty(), "files over {MAX_LINES} lines: {long:#?}");
}

#[test]
fn modules_refer_only_to_their_layer_and_those_below() {
    let mut wrong = Vec::new();
    for source in sources() {
        let own = layer_of(source.module.first().map(String::as_str));
        for path in references(&source) {
            let target = layer_of(path.first().map(String::as_str));
            if target > own {
                wrong.push(format!(
                    "{}: crate::{}",
                    source.path.display(),
                    path.join("::")
                ));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(wrong.is_empty(), "references to a higher layer: {wrong:#?}");
}

#[test]
fn no_files_import_each_other() {
    let sources = sources();
    let modules: BTreeMap<Vec<String>, usize> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| (s.module.clone(), i))
        .collect();
    // The file of the longest prefix of each path that is a file's module; the crate root
    // (whose re-exports name every layer) is left out.
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); sources.len()];
    for (i, source) in sources.iter().enumerate() {
        for path in references(source) {
            let target = (1..=path.len())
                .rev()
                .find_map(|n| modules.get(&path[..n]).copied());
            if let Some(t) = target
                && t != i
            {
                edges[i].insert(t);
            }
        }
    }
    // A depth-first search for a back edge.
    fn visit(
        n: usize,
        edges: &[BTreeSet<usize>],
        state: &mut [u8],
        stack: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        state[n] = 1;
        stack.push(n);
        for &m in &edges[n] {
            if state[m] == 1 {
                let from = stack.iter().position(|&s| s == m).unwrap();
                let mut cycle = stack[from..].to_vec();
                cycle.push(m);
                return Some(cycle);
            }
            if state[m] == 0
                && let Some(cycle) = visit(m, edges, state, stack)
            {
                return Some(cycle);
            }
        }
        stack.pop();
        state[n] = 2;
        None
    }
    let mut state = vec![0u8; sources.len()];
    for n in 0..sources.len() {
        if state[n] == 0
            && let Some(cycle) = visit(n, &edges, &mut state, &mut Vec::new())
        {
            let names: Vec<String> = cycle
                .iter()
                .map(|&i| sources[i].path.display().to_string())
                .collect();
            panic!("an import cycle: {}", names.join(" -> "));
        }
    }
}
