//! Removes function pointers that can never be called.
//!
//! Core's panic paths build `fmt::Arguments` holding pointers to formatting functions
//! (`<usize as Display>::fmt`, ...). The device panic handler never formats, so nothing calls
//! them, but ptxas counts the registers of every function whose address is taken in code a
//! kernel can reach: one bounds check raised a vecadd kernel from 14 to 56 registers, halving
//! its occupancy. When no function a kernel can reach through direct calls makes an indirect
//! call, no function pointer can ever be called, so every use of a function's address other
//! than as a direct callee is replaced by `null`, and the formatting code drops out of the
//! module.

use std::collections::{HashMap, HashSet};

/// The rewritten module, or `None` when code reachable from a kernel calls through a pointer
/// (then nothing is safe to change) or no function's address is taken.
pub(crate) fn strip(ir: &str) -> Option<String> {
    let bodies = function_bodies(ir);
    let functions: Vec<&str> = ir
        .lines()
        .filter(|l| l.starts_with("define ") || l.starts_with("declare "))
        .filter_map(function_name)
        .collect();
    // Roots: every function visible outside the module (the kernel entries).
    let mut reachable: HashSet<&str> = HashSet::new();
    let mut stack: Vec<&str> = ir
        .lines()
        .filter(|l| {
            l.starts_with("define ") && !l.contains(" internal ") && !l.contains(" private ")
        })
        .filter_map(function_name)
        .collect();
    while let Some(name) = stack.pop() {
        if !reachable.insert(name) {
            continue;
        }
        for line in bodies.get(name).into_iter().flatten() {
            if is_indirect_call(line) {
                return None;
            }
            stack.extend(direct_callees(line, &functions));
        }
    }
    let mut changed = false;
    let mut out = String::with_capacity(ir.len());
    for line in ir.split_inclusive('\n') {
        if line.starts_with("define ") || line.starts_with("declare ") || !line.contains('@') {
            out.push_str(line);
            continue;
        }
        let rewritten = replace_address_uses(line, &functions);
        changed |= rewritten != line;
        out.push_str(&rewritten);
    }
    changed.then_some(out)
}

/// The instruction lines of every defined function, by name.
fn function_bodies(ir: &str) -> HashMap<&str, Vec<&str>> {
    let mut bodies = HashMap::new();
    let mut current: Option<(&str, Vec<&str>)> = None;
    for line in ir.lines() {
        if line.starts_with("define ") {
            current = function_name(line).map(|name| (name, Vec::new()));
        } else if line.starts_with('}') {
            if let Some((name, body)) = current.take() {
                bodies.insert(name, body);
            }
        } else if let Some((_, body)) = current.as_mut() {
            body.push(line);
        }
    }
    bodies
}

/// The functions a line calls directly (`@NAME(`).
fn direct_callees<'a>(line: &str, functions: &[&'a str]) -> Vec<&'a str> {
    let mut callees = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find('@') {
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !is_name_char(c))
            .unwrap_or(after.len());
        if after[len..].starts_with('(')
            && let Some(f) = functions.iter().find(|f| **f == &after[..len])
        {
            callees.push(*f);
        }
        rest = &after[len..];
    }
    callees
}

/// The name of the function a `define`/`declare` line introduces (`@NAME(`).
fn function_name(line: &str) -> Option<&str> {
    let at = line.find('@')?;
    let rest = &line[at + 1..];
    let end = rest.find('(')?;
    let name = &rest[..end];
    (!name.is_empty() && name.chars().all(is_name_char)).then_some(name)
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')
}

/// Whether an instruction line calls through a pointer (`call void %5(...)`).
fn is_indirect_call(line: &str) -> bool {
    let line = line.trim_start();
    let Some(pos) = line
        .find("call ")
        .filter(|&p| p == 0 || line[..p].ends_with(' '))
    else {
        return false;
    };
    let after = &line[pos + "call ".len()..];
    if after.contains(" asm ") || after.starts_with("asm ") {
        return false;
    }
    let Some(paren) = after.find('(') else {
        return false;
    };
    let callee = after[..paren].split_whitespace().last().unwrap_or("");
    callee.starts_with('%')
}

/// Replaces `@NAME` (a function) by `null` wherever it is not directly followed by `(`.
fn replace_address_uses(line: &str, functions: &[&str]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('@') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !is_name_char(c))
            .unwrap_or(after.len());
        let name = &after[..len];
        let next = after[len..].chars().next();
        if next != Some('(') && functions.contains(&name) {
            out.push_str("null");
        } else {
            out.push('@');
            out.push_str(name);
        }
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = "define void @kernel(ptr %p) {\n  store ptr @fmt, ptr %p, align 8\n  call void @panic(ptr @msg)\n  ret void\n}\n@table = internal constant [1 x ptr] [ptr @fmt]\ndefine internal i1 @fmt(ptr %x) {\n  %r = call i1 %x(ptr null)\n  ret i1 %r\n}\ndeclare void @panic(ptr)\n";

    #[test]
    fn replaces_function_addresses_but_not_calls() {
        let out = strip(MODULE).expect("rewritten");
        assert!(out.contains("store ptr null, ptr %p"), "{out}");
        assert!(out.contains("[1 x ptr] [ptr null]"), "{out}");
        assert!(out.contains("call void @panic(ptr @msg)"), "{out}");
        assert!(out.contains("define internal i1 @fmt(ptr %x)"), "{out}");
    }

    #[test]
    fn leaves_modules_alone_when_a_kernel_reaches_an_indirect_call() {
        let module = format!(
            "{MODULE}define void @dyn_kernel(ptr %f) {{\n  call void @helper(ptr %f)\n  ret void\n}}\ndefine internal void @helper(ptr %f) {{\n  %r = call i1 %f(ptr null)\n  ret void\n}}\n"
        );
        assert!(strip(&module).is_none());
    }

    #[test]
    fn inline_asm_is_not_an_indirect_call() {
        assert!(!is_indirect_call(
            "  call void asm sideeffect \"exit;\", \"\"()"
        ));
        assert!(!is_indirect_call(
            "  %3 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()"
        ));
        assert!(is_indirect_call("  %3 = tail call noundef i1 %2(ptr %1)"));
    }
}
