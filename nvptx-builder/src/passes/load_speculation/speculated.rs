//! The speculated form of a line: a load through `select(guard, its address, a safe address)`,
//! the safe address being [`PAD`] or the start of the shared or constant array the address
//! points into; the instructions that may run early as they are.

use super::lines::{defined_name, instruction, is_call, is_gep_flag};
use super::renumbering::PREFIX;
use crate::ir::syntax::{is_debug_record, split_top_level, type_len};
use std::collections::HashMap;

/// The global holding [`PAD_BYTES`] zero bytes that loads behind a failed check read instead.
pub(crate) const PAD: &str = "ferrocuda_speculation_pad";
/// Size of [`PAD`]; wider loads are not moved.
pub(super) const PAD_BYTES: u64 = 64;
/// Alignment of [`PAD`]; loads aligned to more are not moved.
pub(super) const PAD_ALIGN: u64 = 16;

/// A shared or constant array: its address space, size in bytes and alignment.
#[derive(Debug, Clone, Copy)]
pub(super) struct ArrayGlobal {
    pub(super) addrspace: u32,
    pub(super) bytes: u64,
    pub(super) align: u64,
}

/// The module's globals in the shared (3) and constant (4) state spaces, by name.
pub(super) fn array_globals(ir: &str) -> HashMap<String, ArrayGlobal> {
    ir.lines()
        .filter(|l| l.starts_with('@'))
        .filter_map(|l| {
            let g = crate::ir::syntax::GlobalLine::parse(l)?;
            let addrspace = g.addrspace();
            if addrspace != 3 && addrspace != 4 {
                return None;
            }
            let align = g
                .attrs
                .iter()
                .find_map(|a| a.strip_prefix("align ")?.trim().parse().ok())
                .unwrap_or(1);
            let bytes = type_size(g.ty)?;
            Some((
                g.name.to_string(),
                ArrayGlobal {
                    addrspace,
                    bytes,
                    align,
                },
            ))
        })
        .collect()
}

/// Intrinsics that only compute a value from their operands.
const PURE_INTRINSICS: &[&str] = &[
    "llvm.fmuladd.",
    "llvm.fma.",
    "llvm.umax.",
    "llvm.umin.",
    "llvm.smax.",
    "llvm.smin.",
    "llvm.abs.",
    "llvm.fabs.",
    "llvm.minnum.",
    "llvm.maxnum.",
    "llvm.minimum.",
    "llvm.maximum.",
    "llvm.copysign.",
    "llvm.ctpop.",
    "llvm.ctlz.",
    "llvm.cttz.",
    "llvm.bswap.",
    "llvm.bitreverse.",
    "llvm.fshl.",
    "llvm.fshr.",
    "llvm.sqrt.",
    "llvm.floor.",
    "llvm.ceil.",
    "llvm.trunc.",
    "llvm.rint.",
    "llvm.nearbyint.",
    "llvm.round.",
    "llvm.roundeven.",
    "llvm.uadd.with.overflow.",
    "llvm.sadd.with.overflow.",
    "llvm.usub.with.overflow.",
    "llvm.ssub.with.overflow.",
    "llvm.umul.with.overflow.",
    "llvm.smul.with.overflow.",
    "llvm.nvvm.read.ptx.sreg.",
    "llvm.experimental.noalias.scope.decl",
    "llvm.dbg.",
];

/// Opcodes that compute a value and cannot fault.
const PURE_OPCODES: &[&str] = &[
    "add",
    "sub",
    "mul",
    "shl",
    "lshr",
    "ashr",
    "and",
    "or",
    "xor",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frem",
    "fneg",
    "icmp",
    "fcmp",
    "select",
    "freeze",
    "trunc",
    "zext",
    "sext",
    "fptrunc",
    "fpext",
    "fptoui",
    "fptosi",
    "uitofp",
    "sitofp",
    "ptrtoint",
    "inttoptr",
    "bitcast",
    "addrspacecast",
    "getelementptr",
    "extractelement",
    "insertelement",
    "shufflevector",
    "extractvalue",
    "insertvalue",
];

/// The lines that replace `line` when it runs before the checks `guard` stands for, or `None`
/// when it may not: a load reads from `select(guard, its address, a safe address)`, an
/// `llvm.assume` goes (what it states may not hold on the speculated path).
pub(super) fn speculated(
    line: &str,
    guard: &str,
    defs: &HashMap<String, String>,
    globals: &HashMap<String, ArrayGlobal>,
    counter: &mut usize,
) -> Option<Vec<String>> {
    if is_debug_record(line) {
        return Some(vec![line.to_string()]);
    }
    let inst = instruction(line);
    if let Some(rest) = inst.strip_prefix("load ") {
        return speculated_load(line, rest, guard, defs, globals, counter);
    }
    if is_call(inst) {
        let at = inst.find('@')?;
        let callee = &inst[at + 1..];
        if callee.starts_with("llvm.assume(") {
            return Some(Vec::new());
        }
        return PURE_INTRINSICS
            .iter()
            .any(|p| callee.starts_with(p))
            .then(|| vec![line.to_string()]);
    }
    let opcode = inst.split_whitespace().next()?;
    PURE_OPCODES
        .contains(&opcode)
        .then(|| vec![line.to_string()])
}

/// [`speculated`] for a load (`rest` follows `load `).
fn speculated_load(
    line: &str,
    rest: &str,
    guard: &str,
    defs: &HashMap<String, String>,
    globals: &HashMap<String, ArrayGlobal>,
    counter: &mut usize,
) -> Option<Vec<String>> {
    if rest.starts_with("volatile ") || rest.starts_with("atomic ") {
        return None;
    }
    let parts = split_top_level(rest);
    let ty = *parts.first()?;
    let pointer = *parts.get(1)?;
    let align: u64 = parts.get(2)?.strip_prefix("align ")?.trim().parse().ok()?;
    let bytes = type_size(ty)?;
    if bytes > PAD_BYTES || align > PAD_ALIGN {
        return None;
    }
    let pty_len = type_len(pointer)?;
    let (pty, address) = (&pointer[..pty_len], pointer[pty_len..].trim());
    let safe = safe_address(pty, address, bytes, align, defs, globals)?;
    *counter += 1;
    let name = format!("%{PREFIX}spec{counter}");
    let indent = &line[..line.len() - line.trim_start().len()];
    let value = defined_name(line);
    let def = value.map(|v| format!("{v} = ")).unwrap_or_default();
    // Metadata that states facts about the loaded value would be false for the safe address.
    let kept: Vec<&str> = parts[3..]
        .iter()
        .copied()
        .filter(|m| {
            ![
                "!range ",
                "!nonnull ",
                "!noundef ",
                "!align ",
                "!dereferenceable",
            ]
            .iter()
            .any(|p| m.starts_with(p))
        })
        .collect();
    let mut load = format!("{indent}{def}load {ty}, {pty} {name}, align {align}");
    for m in kept {
        load.push_str(", ");
        load.push_str(m);
    }
    let mut lines = vec![
        format!("{indent}{name} = select i1 {guard}, {pty} {address}, {pty} {safe}"),
        load,
    ];
    // An empty `asm` that takes the value keeps the load in this block: without it, `llc`'s
    // machine sinking moves a load whose value is only used behind the checks back there.
    // The statement emits no PTX instruction.
    if let (Some(constraint), Some(value)) = (asm_constraint(ty), value) {
        lines.push(format!(
            "{indent}call void asm sideeffect \"\", \"{constraint}\"({ty} {value})"
        ));
    }
    Some(lines)
}

/// The NVPTX inline-assembly register constraint for a value of type `ty`.
fn asm_constraint(ty: &str) -> Option<&'static str> {
    Some(match ty {
        "i1" => "b",
        "i8" => "c",
        "i16" | "half" | "bfloat" => "h",
        "i32" => "r",
        "i64" | "ptr" => "l",
        "float" => "f",
        "double" => "d",
        _ => return None,
    })
}

/// An address of pointer type `pty` that a load of `bytes` bytes aligned to `align` may read
/// whatever happens, in the state space `address` points into: the start of the shared or
/// constant array it points into, or [`PAD`] for global memory. `None` when neither is known.
fn safe_address(
    pty: &str,
    address: &str,
    bytes: u64,
    align: u64,
    defs: &HashMap<String, String>,
    globals: &HashMap<String, ArrayGlobal>,
) -> Option<String> {
    let array = base_global(address, defs, 0)
        .and_then(|name| Some((globals.get(&name)?, name)))
        .filter(|(g, _)| g.bytes >= bytes && g.align >= align);
    match pty {
        "ptr" => Some(match array {
            Some((g, name)) => format!(
                "addrspacecast (ptr addrspace({}) @{name} to ptr)",
                g.addrspace
            ),
            None => format!("addrspacecast (ptr addrspace(1) @{PAD} to ptr)"),
        }),
        "ptr addrspace(1)" => Some(format!("@{PAD}")),
        _ => {
            let (g, name) = array?;
            (pty == format!("ptr addrspace({})", g.addrspace)).then(|| format!("@{name}"))
        }
    }
}

/// The global that `value` points into, followed through `getelementptr`s and address-space
/// casts (instructions or constant expressions).
fn base_global(value: &str, defs: &HashMap<String, String>, depth: usize) -> Option<String> {
    base_root(value, defs, depth)?
        .strip_prefix('@')
        .map(str::to_string)
}

/// What `value` points into, followed through `getelementptr`s and address-space casts
/// (instructions or constant expressions): a global (`@name`) or a value this function does not
/// define by an instruction (`%name`: an argument).
pub(super) fn base_root(
    value: &str,
    defs: &HashMap<String, String>,
    depth: usize,
) -> Option<String> {
    if depth > 16 {
        return None;
    }
    let value = value.trim();
    if let Some(name) = value.strip_prefix('@') {
        return Some(format!("@{}", &name[..crate::ir::syntax::name_len(name)]));
    }
    if let Some(rest) = value.strip_prefix('%') {
        let name = &value[..1 + crate::ir::syntax::name_len(rest)];
        return match defs.get(name) {
            Some(def) => base_root(def, defs, depth + 1),
            None => Some(name.to_string()),
        };
    }
    // `getelementptr [flags] T, PTY BASE, ...` or `addrspacecast (PTY BASE to ptr)`, as an
    // instruction or as a constant expression (whose operands are in parentheses).
    let operand = if let Some(rest) = value.strip_prefix("getelementptr ") {
        let rest = rest.trim_start();
        let operands = match rest.find('(') {
            Some(p) if rest[..p].split_whitespace().all(is_gep_flag) => {
                &rest[p + 1..rest.rfind(')')?]
            }
            _ => rest,
        };
        split_top_level(operands).get(1).copied()?
    } else if let Some(rest) = value.strip_prefix("addrspacecast ") {
        let rest = rest.trim_start();
        rest.strip_prefix('(')
            .unwrap_or(rest)
            .split(" to ")
            .next()?
    } else {
        return None;
    };
    let n = type_len(operand.trim())?;
    base_root(&operand.trim()[n..], defs, depth + 1)
}

/// Size in bytes of a first-class LLVM type, when this pass knows it (integers, floating point,
/// pointers, arrays and vectors of those).
pub(super) fn type_size(ty: &str) -> Option<u64> {
    let ty = ty.trim();
    if let Some(bits) = ty.strip_prefix('i') {
        let bits: u64 = bits.parse().ok()?;
        return Some(bits.div_ceil(8));
    }
    match ty {
        "half" | "bfloat" => return Some(2),
        "float" => return Some(4),
        "double" => return Some(8),
        "ptr" => return Some(8),
        _ => {}
    }
    if ty.starts_with("ptr addrspace(") {
        return Some(8);
    }
    let inner = ty
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .or_else(|| ty.strip_prefix('<').and_then(|s| s.strip_suffix('>')))?;
    let (count, elem) = inner.split_once(" x ")?;
    Some(count.trim().parse::<u64>().ok()? * type_size(elem)?)
}
