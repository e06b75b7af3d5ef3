//! One instruction of a function body: its name and opcode, its flags, its operands and its
//! trailing metadata, and the operands of the instructions that compute a value from their
//! operands alone.

use std::collections::HashMap;

/// Every `%name = instruction` of the body, by name.
pub(crate) fn definitions<'a>(body: &[&'a str]) -> HashMap<&'a str, &'a str> {
    body.iter().filter_map(|l| definition(l)).collect()
}

/// `(name, instruction)` of a line `  %name = instruction`.
pub(crate) fn definition(line: &str) -> Option<(&str, &str)> {
    let trimmed = line.trim_start();
    if !trimmed.starts_with('%') {
        return None;
    }
    let (name, inst) = trimmed.split_once(" = ")?;
    (!name.contains(' ')).then_some((name, inst.trim_end()))
}

/// `inst` after its opcode `opcode` and any of the `flags` that follow it.
pub(crate) fn strip_words<'a>(inst: &'a str, opcode: &str, flags: &[&str]) -> Option<&'a str> {
    let mut rest = inst.strip_prefix(opcode)?.strip_prefix(' ')?;
    while let Some((word, tail)) = rest.split_once(' ') {
        if !flags.contains(&word) {
            break;
        }
        rest = tail;
    }
    Some(rest)
}

/// The operand list of an instruction without its trailing `, !name !N` attachments.
pub(crate) fn strip_metadata(operands: &str) -> &str {
    match operands.find(", !") {
        Some(at) => &operands[..at],
        None => operands,
    }
}

/// The `, !dbg !N` (and other) attachments at the end of an instruction line.
pub(crate) fn trailing_metadata(line: &str) -> &str {
    let line = line.trim_end();
    match line.find(", !") {
        Some(at) => &line[at..],
        None => "",
    }
}

/// `(index, len)` of `icmp [samesign] ult i64 index, len`.
pub(crate) fn unsigned_less_than(inst: &str) -> Option<(&str, &str)> {
    let rest = strip_words(inst, "icmp", &["samesign"])?;
    let rest = rest.strip_prefix("ult i64 ")?;
    let operands = strip_metadata(rest);
    let (a, b) = operands.split_once(", ")?;
    Some((a.trim(), b.trim()))
}

/// The operands of an instruction `remat` ([`crate::passes::check_versioning`]) can recompute: a cast (`zext`, `sext`, `trunc`)
/// or two-operand integer arithmetic; `None` for anything else.
pub(crate) fn remat_operands(inst: &str) -> Option<Vec<&str>> {
    let opcode = inst.split(' ').next()?;
    match opcode {
        "zext" | "sext" | "trunc" => {
            let rest = strip_words(inst, opcode, &["nneg", "nuw", "nsw"])?;
            let (_, rest) = rest.split_once(' ')?;
            Some(vec![rest.split(" to ").next()?.trim()])
        }
        "and" | "or" | "xor" | "add" | "sub" | "mul" | "shl" | "lshr" => {
            let rest = strip_words(inst, opcode, &["nuw", "nsw", "disjoint", "exact"])?;
            let (_, rest) = rest.split_once(' ')?;
            Some(strip_metadata(rest).split(", ").map(str::trim).collect())
        }
        _ => None,
    }
}

/// The operands of `inst` when it computes an integer from them alone: those of
/// [`remat_operands`], of an `icmp`, of a `select` and of a call to an integer `min`/`max`
/// intrinsic (`llvm.umin.i32`, ...). No memory, no side effect: the same operands give the
/// same value wherever and whenever it is computed.
pub(crate) fn pure_operands(inst: &str) -> Option<Vec<&str>> {
    /// The last word of each operand (its type before it).
    fn values(list: &str) -> Vec<&str> {
        list.split(", ")
            .map(|o| o.trim().rsplit(' ').next().unwrap_or(""))
            .collect()
    }
    if let Some(operands) = remat_operands(inst) {
        return Some(operands);
    }
    let inst = strip_metadata(inst);
    if let Some(rest) = strip_words(inst, "icmp", &["samesign"]) {
        let (_, operands) = rest.split_once(' ')?;
        let (ty, operands) = operands.split_once(' ')?;
        return ty.starts_with('i').then(|| values(operands));
    }
    if let Some(rest) = inst.strip_prefix("select i1 ") {
        let operands = values(rest);
        return (operands.len() == 3).then_some(operands);
    }
    let call = inst
        .strip_prefix("tail ")
        .unwrap_or(inst)
        .strip_prefix("call i")?;
    let (_, callee) = call.split_once(" @llvm.")?;
    let (name, rest) = callee.split_once('(')?;
    let (op, ty) = name.split_once('.')?;
    let integer = ty
        .strip_prefix('i')
        .is_some_and(|w| w.parse::<u32>().is_ok());
    let operands = values(rest.strip_suffix(')')?);
    (["umin", "umax", "smin", "smax"].contains(&op) && integer && operands.len() == 2)
        .then_some(operands)
}

/// `(value, predecessor label)` of each incoming entry of a phi.
pub(crate) fn phi_incoming(inst: &str) -> Vec<(String, String)> {
    inst.split('[')
        .skip(1)
        .filter_map(|entry| {
            let entry = entry.split(']').next()?;
            let (v, label) = entry.split_once(", ")?;
            Some((
                v.trim().to_string(),
                label.trim().strip_prefix('%')?.to_string(),
            ))
        })
        .collect()
}

/// Whether `inst` calls inline assembly whose template is one PTX comment (`// ...` without a
/// line break or any other escaped character): it executes nothing, whatever its constraints
/// say it may read or keep. `#[kernel]` gives each `&mut [T]` pointer to one
/// (`device/src/backend/gpu/sync.rs`); the empty template is the other assembly that runs
/// nothing.
pub(crate) fn is_comment_asm(inst: &str) -> bool {
    let call = inst.strip_prefix("tail ").unwrap_or(inst);
    let Some(rest) = call.strip_prefix("call void asm sideeffect \"") else {
        return false;
    };
    let template = rest.split('"').next().unwrap_or("");
    template.is_empty() || (template.starts_with("//") && !template.contains('\\'))
}

#[cfg(test)]
mod comment_asm_tests {
    use super::is_comment_asm;

    #[test]
    fn only_a_comment_or_nothing_executes_nothing() {
        assert!(is_comment_asm(
            "call void asm sideeffect \"// $0 is shared with other threads\", \"l,~{memory}\"(ptr %p)"
        ));
        assert!(is_comment_asm(
            "call void asm sideeffect \"\", \"r\"(i32 %x)"
        ));
        // A line break ends the comment: what follows it runs.
        assert!(!is_comment_asm(
            "call void asm sideeffect \"// note\\0Ald.shared.u64 $0, [tok];\", \"=l\"()"
        ));
        assert!(!is_comment_asm(
            "call void asm sideeffect \"membar.gl;\", \"~{memory}\"()"
        ));
        assert!(!is_comment_asm("call void @f(ptr %p)"));
    }
}
