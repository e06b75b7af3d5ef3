//! The runtime's layering, checked on its source: every `crate::…`, `super::…` and `self::…` path
//! of `runtime/src/**/*.rs` is resolved to the file that defines the module it names, which gives
//! the file-level module graph. The test fails when
//! - the graph has a cycle (it prints one);
//! - an import points up a layer: `vocabulary/` → `backend/` → `handles/` → `launch/` (each layer
//!   may import only the layers before it);
//! - `cudarc` is named outside `backend/cuda/` (lib.rs's `pub use cudarc;` re-export is the one
//!   exception);
//! - a handle (`handles/`) matches a backend enum itself (`DeviceBackend::Cuda`,
//!   `StreamHandle::Simulator`, ...) instead of calling the backend's method;
//! - a file imports `backend/cuda/interop.rs`, the cudarc escape hatches of the handles, which
//!   stands above the layers like lib.rs.
//!
//! `cargo test -p ferrocuda --test layers -- --nocapture` prints the graph: files with their layer,
//! then each file's imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, as the folders of `runtime/src` that hold them.
const LAYERS: [&str; 4] = ["vocabulary", "backend", "handles", "launch"];

/// Names lib.rs re-exports from the device and macro crates: `crate::Dim3` names no runtime file.
const EXTERNAL_REEXPORTS: [&str; 6] =
    ["device", "Dim3", "DeviceCopy", "grid", "gridsize", "kernel"];

/// The cudarc escape hatches of the public handles (`Device::cuda_context`, ...): inherent
/// methods of the handles that name cudarc types, so they live in `backend/cuda/` yet import the
/// handles. Like lib.rs, the file stands above the layers; nothing may import it.
const INTEROP: &str = "backend/cuda/interop.rs";

/// The backend enums whose variants only the backend layer may name.
const BACKEND_ENUMS: [&str; 5] = [
    "DeviceBackend",
    "StreamHandle",
    "EventHandle",
    "Allocation",
    "PinnedAllocation",
];

/// The layer of a file (its index in [`LAYERS`]), or `None` for lib.rs, [`INTEROP`] and files
/// outside the layers.
fn layer_of(file: &str) -> Option<usize> {
    if file == INTEROP {
        return None;
    }
    LAYERS
        .iter()
        .position(|layer| file.starts_with(&format!("{layer}/")))
}

/// Every `.rs` file under `dir`, relative to `root`, with `/` separators.
fn rust_files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("readable source folder")
        .map(|e| e.expect("readable entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under the root");
            out.push(relative.to_string_lossy().replace('\\', "/"));
        }
    }
}

/// The source without comments, string and char literals (so that a doc comment or a message
/// naming `crate::x` is no import).
fn code_only(source: &str) -> String {
    let bytes = source.as_bytes();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &source[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            i += end;
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].chars().take_while(|&c| c == '#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = rest[body..]
                .find(&close)
                .map_or(rest.len(), |e| body + e + close.len());
            out.push_str("\"\"");
            i += end;
        } else if bytes[i] == b'"' {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            i = j + 1;
        } else if bytes[i] == b'\'' && is_char_literal(&bytes[i..]) {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'\'' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("' '");
            i = j + 1;
        } else {
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Whether the `'` at the start of `bytes` opens a char literal (not a lifetime).
fn is_char_literal(bytes: &[u8]) -> bool {
    match bytes.get(1) {
        Some(b'\\') => true,
        Some(_) => bytes.get(2) == Some(&b'\'') || (bytes[1] >= 0x80),
        None => false,
    }
}

/// The paths a file names: every `use` tree flattened (`crate::{a::B, c::D}` gives `crate::a::B`
/// and `crate::c::D`) and every other path starting with `crate::`, `super::`, `self::` or
/// `cudarc::`, as lists of segments.
fn paths_in(code: &str, children: &[String]) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    // `use` statements (with their brace groups).
    while let Some(at) = find_keyword(rest, "use") {
        let after = &rest[at + 3..];
        let end = after.find(';').unwrap_or(after.len());
        expand_use_tree(after[..end].trim(), &mut Vec::new(), &mut paths);
        rest = &after[end..];
    }
    // Inline paths anywhere (including the ones in `use` statements: duplicates are harmless),
    // and paths relative to the file's module (`cuda::stream::x` in backend/mod.rs).
    let roots = ["crate", "super", "self", "cudarc"]
        .into_iter()
        .chain(children.iter().map(String::as_str));
    for root in roots {
        let mut rest = code;
        while let Some(at) = find_keyword(rest, root) {
            let tail = &rest[at..];
            let qualified = rest[..at].ends_with("::");
            if !qualified && tail[root.len()..].starts_with("::") {
                paths.push(path_at(tail));
            }
            rest = &tail[root.len()..];
        }
    }
    paths
}

/// The path starting at the beginning of `text`: identifiers joined by `::` with nothing between.
fn path_at(text: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let ident: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if ident.is_empty() {
            break;
        }
        rest = &rest[ident.len()..];
        segments.push(ident);
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => break,
        }
    }
    segments
}

/// The byte offset of the next `word` standing alone (not part of a longer identifier).
fn find_keyword(text: &str, word: &str) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// Flattens a `use` tree (`a::{b, c::{d, e}}`) into full paths.
fn expand_use_tree(tree: &str, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim_end_matches("::").trim();
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let pushed = push_segments(head, prefix);
        for item in split_top_level(inner) {
            expand_use_tree(item, prefix, out);
        }
        prefix.truncate(prefix.len() - pushed);
    } else {
        let path = tree.split(" as ").next().unwrap_or(tree);
        let pushed = push_segments(path, prefix);
        out.push(prefix.clone());
        prefix.truncate(prefix.len() - pushed);
    }
}

/// Appends the segments of `path` to `prefix`; returns how many.
fn push_segments(path: &str, prefix: &mut Vec<String>) -> usize {
    let segments: Vec<String> = path
        .split("::")
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let n = segments.len();
    prefix.extend(segments);
    n
}

/// Splits `a, b::{c, d}, e` at the commas outside braces.
fn split_top_level(text: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0, 0, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// The module path of a file: `handles/buffer.rs` is `handles::buffer`, `backend/mod.rs` is
/// `backend`, lib.rs is the root.
fn module_of(file: &str) -> Vec<String> {
    let trimmed = file.trim_end_matches(".rs");
    let mut segments: Vec<String> = trimmed.split('/').map(String::from).collect();
    if matches!(segments.last().map(String::as_str), Some("mod" | "lib")) {
        segments.pop();
    }
    segments
}

/// The file defining the longest prefix of `module` that is a file of the crate.
fn file_of(module: &[String], files: &BTreeSet<String>) -> Option<String> {
    for len in (0..=module.len()).rev() {
        let path = module[..len].join("/");
        let candidates = if len == 0 {
            vec!["lib.rs".to_string()]
        } else {
            vec![format!("{path}.rs"), format!("{path}/mod.rs")]
        };
        if let Some(found) = candidates.into_iter().find(|c| files.contains(c)) {
            return Some(found);
        }
    }
    None
}

/// The names of the child modules of `file`'s module that are files of the crate.
fn children_of(file: &str, files: &BTreeSet<String>) -> Vec<String> {
    let module = module_of(file);
    let dir = if module.is_empty() {
        String::new()
    } else {
        format!("{}/", module.join("/"))
    };
    files
        .iter()
        .filter_map(|f| f.strip_prefix(&dir))
        .filter_map(|rest| match rest.split_once('/') {
            Some((child, "mod.rs")) => Some(child.to_string()),
            Some(_) => None,
            None => rest.strip_suffix(".rs").map(String::from),
        })
        .filter(|child| child != "mod" && child != "lib")
        .collect()
}

/// Resolves a path named in module `module` to the crate module it points into (`None` for other
/// crates). `children` are the child modules of the file's module, which a path may start with.
fn resolve(module: &[String], path: &[String], children: &[String]) -> Option<Vec<String>> {
    let mut module = module.to_vec();
    let mut rest = path;
    match rest.first().map(String::as_str) {
        Some(first) if children.iter().any(|c| c == first) => {}
        Some("crate") => {
            module.clear();
            rest = &rest[1..];
        }
        Some("super") | Some("self") => {
            while let Some(first) = rest.first() {
                match first.as_str() {
                    "super" => {
                        module.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    module.extend(rest.iter().cloned());
    Some(module)
}

/// The crate's file graph and the problems found while building it.
struct Graph {
    /// Every file, with the files it imports.
    edges: BTreeMap<String, BTreeSet<String>>,
    /// Imports that break a rule.
    problems: Vec<String>,
}

fn build_graph(src: &Path) -> Graph {
    let mut names = Vec::new();
    rust_files(src, src, &mut names);
    let files: BTreeSet<String> = names.iter().cloned().collect();
    let mut graph = Graph {
        edges: BTreeMap::new(),
        problems: Vec::new(),
    };
    for file in &names {
        let source = std::fs::read_to_string(src.join(file)).expect("readable source file");
        let code = code_only(&source);
        if file.starts_with("handles/") {
            for enumeration in BACKEND_ENUMS {
                for variant in ["Cuda", "Simulator", "Host"] {
                    let name = format!("{enumeration}::{variant}");
                    if find_keyword(&code, &name).is_some() {
                        graph.problems.push(format!(
                            "{file} matches `{name}`: handles call the backend's methods instead of asking which backend they have"
                        ));
                    }
                }
            }
        }
        let children = children_of(file, &files);
        let targets = graph.edges.entry(file.clone()).or_default();
        // An inline `mod tests { use super::*; ... }` at the end of a file is a module one level
        // down: its `super` is the file's own module.
        let (body, inline_tests) = match code.find("mod tests {") {
            Some(at) => code.split_at(at),
            None => (code.as_str(), ""),
        };
        let own = module_of(file);
        let mut tests_module = own.clone();
        tests_module.push("tests".to_string());
        let named = paths_in(body, &children)
            .into_iter()
            .map(|path| (own.clone(), path))
            .chain(
                paths_in(inline_tests, &[])
                    .into_iter()
                    .map(|path| (tests_module.clone(), path)),
            );
        for (module, path) in named {
            if path.first().is_some_and(|s| s == "cudarc") {
                let allowed = file.starts_with("backend/cuda/") || file == "lib.rs";
                if !allowed {
                    graph.problems.push(format!(
                        "{file} names `{}`: cudarc belongs to backend/cuda/ only",
                        path.join("::")
                    ));
                }
                continue;
            }
            let Some(module) = resolve(&module, &path, &children) else {
                continue;
            };
            let Some(target) = file_of(&module, &files) else {
                continue;
            };
            if target == "lib.rs" && file != "lib.rs" {
                let name = module.first().map(String::as_str).unwrap_or("");
                if !EXTERNAL_REEXPORTS.contains(&name) && !name.is_empty() && name != "*" {
                    graph.problems.push(format!(
                        "{file} names `crate::{name}`, a crate-root re-export: import it from the module that defines it"
                    ));
                }
                continue;
            }
            if target != *file {
                targets.insert(target);
            }
        }
    }
    // A lower layer must not import a higher one.
    for (file, targets) in &graph.edges {
        for target in targets {
            if target == INTEROP {
                graph.problems.push(format!(
                    "{file} imports {INTEROP}, which stands above every layer"
                ));
            }
            if let (Some(from), Some(to)) = (layer_of(file), layer_of(target))
                && to > from
            {
                graph.problems.push(format!(
                    "{file} ({}) imports {target} ({}): a layer may import only the layers below it ({})",
                    LAYERS[from],
                    LAYERS[to],
                    LAYERS.join(" -> ")
                ));
            }
        }
    }
    graph
}

/// A cycle of the graph, as the list of its files, if there is one.
fn find_cycle(edges: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0: unvisited, 1: on the current path, 2: done.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    fn visit<'a>(
        file: &'a str,
        edges: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        state.insert(file, 1);
        path.push(file);
        for next in edges.get(file).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|f| *f == next).expect("on the path");
                    let mut cycle: Vec<String> =
                        path[start..].iter().map(|f| f.to_string()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, edges, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(file, 2);
        None
    }
    for file in edges.keys() {
        if state.get(file.as_str()).copied().unwrap_or(0) == 0
            && let Some(cycle) = visit(file, edges, &mut state, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

/// The strongly connected part of the graph: files that lie on some cycle.
fn files_on_cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> BTreeSet<String> {
    let reaches = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(file) = stack.pop() {
            for next in edges.get(&file).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    edges
        .keys()
        .filter(|file| reaches(file).contains(*file))
        .cloned()
        .collect()
}

fn print_graph(graph: &Graph) {
    let edge_count: usize = graph.edges.values().map(BTreeSet::len).sum();
    println!(
        "runtime/src module graph: {} files, {edge_count} imports",
        graph.edges.len()
    );
    for (file, targets) in &graph.edges {
        let layer = match layer_of(file) {
            Some(l) => LAYERS[l],
            None if file == INTEROP => "interop",
            None => "root",
        };
        let list: Vec<&str> = targets.iter().map(String::as_str).collect();
        println!("  [{layer}] {file} -> {}", list.join(", "));
    }
}

#[test]
fn runtime_layers_import_only_downwards() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = build_graph(&src);
    print_graph(&graph);
    let on_cycles = files_on_cycles(&graph.edges);
    if let Some(cycle) = find_cycle(&graph.edges) {
        println!(
            "files on cycles ({}): {}",
            on_cycles.len(),
            on_cycles.iter().cloned().collect::<Vec<_>>().join(", ")
        );
        graph
            .problems
            .push(format!("import cycle: {}", cycle.join(" -> ")));
    } else {
        println!("no cycle");
    }
    graph.problems.sort();
    graph.problems.dedup();
    assert!(
        graph.problems.is_empty(),
        "the runtime's layering is broken:\n  {}",
        graph.problems.join("\n  ")
    );
}

#[test]
fn the_checker_finds_cycles_and_use_trees() {
    let mut edges = BTreeMap::new();
    edges.insert("a.rs".to_string(), BTreeSet::from(["b.rs".to_string()]));
    edges.insert("b.rs".to_string(), BTreeSet::from(["a.rs".to_string()]));
    assert_eq!(
        find_cycle(&edges),
        Some(vec![
            "a.rs".to_string(),
            "b.rs".to_string(),
            "a.rs".to_string()
        ])
    );
    let mut out = Vec::new();
    expand_use_tree(
        "crate::{a::B, c::{D, e::F as G}}",
        &mut Vec::new(),
        &mut out,
    );
    let joined: Vec<String> = out.iter().map(|p| p.join("::")).collect();
    assert_eq!(joined, ["crate::a::B", "crate::c::D", "crate::c::e::F"]);
    let code = code_only("// crate::x\nlet s = \"crate::y\"; use super::z;");
    let found: Vec<String> = paths_in(&code, &[]).iter().map(|p| p.join("::")).collect();
    assert!(found.contains(&"super::z".to_string()), "{found:?}");
    assert!(
        !found.iter().any(|p| p.contains('x') || p.contains('y')),
        "{found:?}"
    );
    assert_eq!(
        resolve(
            &module_of("handles/buffer.rs"),
            &["super".into(), "stream".into()],
            &[]
        ),
        Some(vec!["handles".to_string(), "stream".to_string()])
    );
}
