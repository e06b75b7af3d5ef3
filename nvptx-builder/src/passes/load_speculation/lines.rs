//! One line of a body as the speculation reads it: its instruction, whether it is a call, a phi
//! or a load, the name it defines, the labels it branches to, the array a load indexes.

use crate::ir::syntax::split_top_level;

use std::collections::HashMap;

/// The targets named by `label %X` in a terminator.
pub(super) fn label_references(terminator: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = terminator;
    while let Some(at) = rest.find("label %") {
        let after = &rest[at + "label %".len()..];
        let n = crate::ir::syntax::name_len(after);
        out.push(after[..n].to_string());
        rest = &after[n..];
    }
    out
}

/// The instruction of a line without its `%name = ` part.
pub(super) fn instruction(line: &str) -> &str {
    let t = line.trim();
    match (t.starts_with('%'), t.find(" = ")) {
        (true, Some(eq)) => &t[eq + 3..],
        _ => t,
    }
}

/// A call of any kind.
pub(super) fn is_call(inst: &str) -> bool {
    ["call ", "tail call ", "notail call ", "musttail call "]
        .iter()
        .any(|p| inst.starts_with(p))
}

pub(super) fn is_phi(line: &str) -> bool {
    instruction(line).starts_with("phi ")
}

pub(super) fn is_load(line: &str) -> bool {
    instruction(line).starts_with("load ")
}

/// The name a line defines (`%x` of `%x = ...`).
pub(super) fn defined_name(line: &str) -> Option<&str> {
    let t = line.trim();
    t.starts_with('%').then(|| t.split(" = ").next()).flatten()
}

/// `(base, idx)` when `line` loads `base[idx]` through a one-index `getelementptr` of the
/// loaded type.
pub(super) fn indexed_load(line: &str, defs: &HashMap<String, String>) -> Option<(String, String)> {
    let rest = instruction(line).strip_prefix("load ")?;
    let parts = split_top_level(rest);
    let ty = *parts.first()?;
    let address = parts.get(1)?.split_whitespace().last()?;
    let gep = defs.get(address)?.strip_prefix("getelementptr ")?;
    let gep_parts: Vec<&str> = split_top_level(gep)
        .into_iter()
        .filter(|p| !p.starts_with('!'))
        .collect();
    let [elem, base, index] = gep_parts.as_slice() else {
        return None;
    };
    let elem = elem
        .split_whitespace()
        .skip_while(|w| is_gep_flag(w))
        .collect::<Vec<_>>()
        .join(" ");
    if elem != ty {
        return None;
    }
    let base = base.split_whitespace().last()?;
    let index = index.split_whitespace().last()?;
    (base.starts_with('%') || base.starts_with('@')).then(|| (base.to_string(), index.to_string()))
}

/// A `getelementptr` flag.
pub(super) fn is_gep_flag(word: &str) -> bool {
    matches!(word, "inbounds" | "nuw" | "nusw") || word.starts_with("inrange")
}
