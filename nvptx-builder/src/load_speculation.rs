//! Link-time hoisting of loads above the bounds checks that guard them.
//!
//! A checked index (`x[i]`, `tile[r][c]`, `values[k]`) compiles to a compare and a branch to a
//! cold panic call, then the load. LLVM cannot move the load above the branch, since it does not
//! know the address is readable when the check fails, and `ptxas` does not either: every check
//! splits the code, so a loop body like sparse matrix-vector's `values[k] * x[columns[k]]`,
//! unrolled four times, keeps one load in flight where CUDA C's unchecked code keeps eight.
//!
//! This pass runs on the optimised module, before `llc`. It finds *chains*: a block ending in a
//! check (a conditional branch one of whose targets is a panic block: a call followed by
//! `unreachable`) whose other target has that branch as its only predecessor, no phis and only
//! instructions that may run early (arithmetic, comparisons, casts, address arithmetic, pure
//! intrinsics and plain loads), and so on while the next block ends in a check too. The bodies of
//! the chain's blocks move, in order, to the end of its first block; each moved load reads from
//! `select(all earlier checks passed, its address, a safe address)`, the safe address being a
//! 64-byte zeroed constant in global memory ([`PAD`]), or the start of the shared or constant
//! array the address points into, so that the state space of the access does not change. The
//! branches stay where they were, in their order, now one after another: a thread whose checks
//! pass loads exactly what it loaded before, and one whose check fails still takes the first
//! failing branch, with the same operands (they were computed from values loaded before that
//! check), so the panic report (file, line, index, length, block, thread) is unchanged. Loads
//! behind a failed check read the safe address, so no access leaves the buffers the kernel was
//! given (compute-sanitizer sees none); what they read is not used.
//!
//! A store to a shared array in a chain's block stays where it is, behind its check, and the
//! lines after it may still move; a load among them only if it reads global or constant memory
//! (through a kernel's pointer argument, which the runtime points at device buffers, or a
//! global outside the shared state space), which no store to shared memory can change. This is
//! HotSpot's `tile_a[t] = a[i]; tile_b[t] = b[i]`: without the pass the check of `b[i]`, behind
//! the first store, holds the second load until the first has arrived; with it both loads are in
//! flight together.
//!
//! A chain moves only when that pays: when a later check tests a value loaded in the chain, or
//! when a load moves above a store. When every check depends on indices alone and nothing is
//! stored between the loads, `llc` already puts the checks first and the loads together after
//! them, and the moved form only adds its selects and registers.
//!
//! Chains that would move no load are left alone, as are other stores, atomics, barriers, calls
//! other than pure intrinsics, volatile and atomic loads, divisions (division by zero), and
//! loads wider than the safe address (64 bytes) or aligned to more than 16 bytes. A function that
//! changes has its numbered values renamed (`%12` becomes `%fc.12`): LLVM's text format wants
//! numbered values defined in increasing order, which moving code out of order would break.

use crate::ir_syntax::{block_label, is_debug_record, split_top_level, type_len};
use std::collections::{HashMap, HashSet};

/// The global holding [`PAD_BYTES`] zero bytes that loads behind a failed check read instead.
pub(crate) const PAD: &str = "ferrocuda_speculation_pad";
/// Size of [`PAD`]; wider loads are not moved.
const PAD_BYTES: u64 = 64;
/// Alignment of [`PAD`]; loads aligned to more are not moved.
const PAD_ALIGN: u64 = 16;
/// Prefix of the names this pass gives to numbered values and to its own values.
const PREFIX: &str = "fc.";

/// The module with loads hoisted above their checks, or `None` when no chain moved a load.
pub(crate) fn apply(ir: &str) -> Option<String> {
    let globals = array_globals(ir);
    let mut out = String::with_capacity(ir.len() + 4096);
    let mut changed = false;
    let mut lines = ir.split_inclusive('\n');
    while let Some(line) = lines.next() {
        if !(line.starts_with("define ") && line.trim_end().ends_with('{')) {
            out.push_str(line);
            continue;
        }
        let mut body = Vec::new();
        let mut close = "}\n";
        for l in lines.by_ref() {
            if l.starts_with('}') {
                close = l;
                break;
            }
            body.push(l);
        }
        let kernel = line.starts_with("define ptx_kernel ");
        match Function::parse(&body).and_then(|f| f.hoisted(&globals, kernel)) {
            Some(new_body) => {
                let (header, body) = renumbered(line, &new_body);
                out.push_str(&header);
                out.push_str(&body);
                changed = true;
            }
            None => {
                out.push_str(line);
                body.iter().for_each(|l| out.push_str(l));
            }
        }
        out.push_str(close);
    }
    if !changed {
        return None;
    }
    out.push_str(&format!(
        "\n@{PAD} = internal addrspace(1) constant [{PAD_BYTES} x i8] zeroinitializer, align {PAD_ALIGN}\n"
    ));
    Some(out)
}

/// A shared or constant array: its address space, size in bytes and alignment.
#[derive(Debug, Clone, Copy)]
struct ArrayGlobal {
    addrspace: u32,
    bytes: u64,
    align: u64,
}

/// The module's globals in the shared (3) and constant (4) state spaces, by name.
fn array_globals(ir: &str) -> HashMap<String, ArrayGlobal> {
    ir.lines()
        .filter(|l| l.starts_with('@'))
        .filter_map(|l| {
            let g = crate::ir_syntax::GlobalLine::parse(l)?;
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

/// One basic block: its label (as referenced after `%`, `None` for an unnamed entry block), the
/// label line, the instruction lines (a multi-line `switch` is one) and the terminator.
struct Block<'a> {
    label: Option<String>,
    label_line: Option<&'a str>,
    body: Vec<String>,
    terminator: String,
}

/// A function body split into blocks.
struct Function<'a> {
    blocks: Vec<Block<'a>>,
}

impl<'a> Function<'a> {
    /// Splits `body` (the lines between `define ... {` and `}`) into blocks; `None` when a block
    /// has no terminator (text this pass does not understand).
    fn parse(body: &[&'a str]) -> Option<Function<'a>> {
        let mut blocks: Vec<Block<'a>> = Vec::new();
        let mut current: Option<(Option<String>, Option<&'a str>, Vec<String>)> = None;
        let mut pending: Option<String> = None;
        for &line in body {
            let trimmed = line.trim_end_matches('\n');
            if let Some(open) = pending.as_mut() {
                open.push('\n');
                open.push_str(trimmed);
                if trimmed.trim() == "]" {
                    let done = pending.take()?;
                    current.as_mut()?.2.push(done);
                }
                continue;
            }
            if trimmed.trim().is_empty() || trimmed.trim_start().starts_with(';') {
                continue;
            }
            if !trimmed.starts_with(' ') {
                let label = block_label(trimmed)?;
                if let Some(done) = current.take() {
                    blocks.push(Block::finish(done)?);
                }
                current = Some((Some(label), Some(line), Vec::new()));
                continue;
            }
            let cur = current.get_or_insert((None, None, Vec::new()));
            if trimmed.trim_end().ends_with('[') {
                pending = Some(trimmed.to_string());
            } else {
                cur.2.push(trimmed.to_string());
            }
        }
        if pending.is_some() {
            return None;
        }
        if let Some(done) = current.take() {
            blocks.push(Block::finish(done)?);
        }
        Some(Function { blocks })
    }

    /// The new body text when at least one chain moves a load. `kernel`: the function is a
    /// kernel entry, whose pointer arguments point into global memory.
    fn hoisted(&self, globals: &HashMap<String, ArrayGlobal>, kernel: bool) -> Option<Vec<String>> {
        let index: HashMap<&str, usize> = self
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((b.label.as_deref()?, i)))
            .collect();
        let mut preds: HashMap<String, usize> = HashMap::new();
        for b in &self.blocks {
            for target in label_references(&b.terminator) {
                *preds.entry(target).or_default() += 1;
            }
        }
        let panics: Vec<bool> = self.blocks.iter().map(Block::is_panic).collect();
        let defs = definitions(&self.blocks);
        let scope = Scope {
            defs: &defs,
            globals,
            kernel,
        };
        let mut next: HashMap<usize, (usize, Check)> = HashMap::new();
        for (i, b) in self.blocks.iter().enumerate() {
            let Some(check) = b.check(&index, &panics) else {
                continue;
            };
            let Some(&k) = index.get(check.cont.as_str()) else {
                continue;
            };
            let candidate = &self.blocks[k];
            if k == i
                || panics[k]
                || preds.get(check.cont.as_str()) != Some(&1)
                || candidate.body.iter().any(|l| is_phi(l))
            {
                continue;
            }
            next.insert(i, (k, check));
        }
        let members: HashSet<usize> = next.values().map(|(k, _)| *k).collect();
        let mut chains: HashMap<usize, Vec<Member>> = HashMap::new();
        for &head in next.keys() {
            if members.contains(&head) {
                continue;
            }
            let mut chain: Vec<Member> = Vec::new();
            let mut seen = HashSet::from([head]);
            let mut cur = head;
            let mut stored = false;
            while let Some((k, check)) = next.get(&cur) {
                if !seen.insert(*k) {
                    break;
                }
                let Some(member) = Member::of(&self.blocks[*k], *k, check, stored, &scope) else {
                    break;
                };
                stored = member.stored;
                let whole = member.whole;
                chain.push(member);
                if !whole {
                    break;
                }
                cur = *k;
            }
            if self.waits_on_its_loads(&chain) || chain.iter().any(|m| m.crossed) {
                chains.insert(head, chain);
            }
        }
        if chains.is_empty() {
            return None;
        }
        let moved: HashMap<usize, &[bool]> = chains
            .values()
            .flatten()
            .map(|m| (m.block, m.moves.as_slice()))
            .collect();
        let mut counter = 0usize;
        let mut out = Vec::new();
        for (i, b) in self.blocks.iter().enumerate() {
            if let Some(l) = b.label_line {
                out.push(l.trim_end_matches('\n').to_string());
            }
            let moves = moved.get(&i).copied().unwrap_or(&[]);
            out.extend(
                b.body
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| !moves.get(*j).copied().unwrap_or(false))
                    .map(|(_, l)| l.clone()),
            );
            if let Some(chain) = chains.get(&i) {
                let mut guard = String::new();
                let moved_defs: HashSet<&str> = chain
                    .iter()
                    .flat_map(|m| m.moved_lines(&self.blocks[m.block]))
                    .filter_map(|l| defined_name(l))
                    .collect();
                for m in chain {
                    let ok = m.check.passed(&mut out, &mut counter);
                    guard = if guard.is_empty() {
                        ok.clone()
                    } else {
                        counter += 1;
                        let name = format!("%{PREFIX}ok{counter}");
                        out.push(format!("  {name} = select i1 {guard}, i1 {ok}, i1 false"));
                        name
                    };
                    let bound = m.check.bound(&defs);
                    for line in m.moved_lines(&self.blocks[m.block]) {
                        // A load of `base[idx]` right behind `idx < len`, with `base` and
                        // `len` computed before the chain, is in bounds when that check alone
                        // passes: it need not wait for the loads behind the earlier checks.
                        let own = bound.as_ref().is_some_and(|(idx, len)| {
                            !moved_defs.contains(len.as_str())
                                && indexed_load(line, &defs).is_some_and(|(base, i)| {
                                    i == *idx && !moved_defs.contains(base.as_str())
                                })
                        });
                        let g = if own { &ok } else { &guard };
                        out.extend(speculated(line, g, &defs, globals, &mut counter)?);
                    }
                }
            }
            out.push(b.terminator.clone());
            out.push(String::new());
        }
        Some(out)
    }
}

impl Function<'_> {
    /// Whether a check of `chain` tests a value loaded earlier in the chain (`x[columns[k]]`).
    /// Then moving the loads pays; when every check depends on indices alone and no store sits
    /// between the loads, `llc` already puts all the checks first and the loads together after
    /// them, and the moved form would only add its selects and registers.
    fn waits_on_its_loads(&self, chain: &[Member]) -> bool {
        let mut loaded: HashSet<&str> = HashSet::new();
        for m in chain {
            if loaded.contains(m.check.cond.as_str()) {
                return true;
            }
            for line in m.moved_lines(&self.blocks[m.block]) {
                let Some(name) = defined_name(line) else {
                    continue;
                };
                if is_load(line) || value_names(instruction(line)).any(|v| loaded.contains(v)) {
                    loaded.insert(name);
                }
            }
        }
        false
    }
}

/// What the pass knows of the function it rewrites.
struct Scope<'a> {
    defs: &'a HashMap<String, String>,
    globals: &'a HashMap<String, ArrayGlobal>,
    kernel: bool,
}

/// A block of a chain, behind the check `check`: which of its lines move above the chain's
/// checks (`moves`, one flag per body line); the others stay, in order.
struct Member {
    block: usize,
    check: Check,
    moves: Vec<bool>,
    /// Every line moves or is a store that stays: the chain may go on past this block.
    whole: bool,
    /// A store stays in this block or in an earlier one of the chain.
    stored: bool,
    /// A load moves above a store that stays (`shared[t] = a[i]; shared[u] = b[i]`): the case
    /// where the check between the two loads would hold the second until the first is stored.
    crossed: bool,
}

impl Member {
    /// The lines of `block` (the block behind `check`) that may move: from the start, every
    /// line [`speculated`] accepts, except that a store to shared memory (not volatile, not
    /// atomic) stays where it is and the lines after it may still move, a load among them only
    /// if it reads global or constant memory (a kernel's pointer argument, or a global outside
    /// the shared state space), which no store to shared memory can change. At the first other
    /// line the rest stays. `None` when no line moves. `stored`: a store stayed earlier in the
    /// chain.
    fn of(
        block: &Block<'_>,
        k: usize,
        check: &Check,
        stored: bool,
        scope: &Scope<'_>,
    ) -> Option<Member> {
        let mut moves = vec![false; block.body.len()];
        let (mut stored, mut crossed, mut whole) = (stored, false, true);
        for (j, line) in block.body.iter().enumerate() {
            if shared_store(line, scope) {
                stored = true;
                continue;
            }
            let speculates = speculated(line, "true", scope.defs, scope.globals, &mut 0).is_some();
            let load = is_load(line);
            if !speculates || (load && stored && !reads_global(line, scope)) {
                whole = false;
                break;
            }
            moves[j] = true;
            crossed |= load && stored;
        }
        moves.contains(&true).then_some(Member {
            block: k,
            check: check.clone(),
            moves,
            whole,
            stored,
            crossed,
        })
    }

    /// The lines of `block` (this member's) that move.
    fn moved_lines<'b>(&'b self, block: &'b Block<'_>) -> impl Iterator<Item = &'b String> + 'b {
        block
            .body
            .iter()
            .zip(&self.moves)
            .filter(|(_, m)| **m)
            .map(|(l, _)| l)
    }
}

/// What the pointer operand of `line` points into ([`base_root`]) when `line` is a plain (not
/// volatile, not atomic) access with the given opcode (`"load "` or `"store "`).
fn access_root(line: &str, opcode: &str, defs: &HashMap<String, String>) -> Option<String> {
    let rest = instruction(line).strip_prefix(opcode)?;
    if rest.starts_with("volatile ") || rest.starts_with("atomic ") {
        return None;
    }
    let pointer = *split_top_level(rest).get(1)?;
    let n = type_len(pointer)?;
    base_root(pointer[n..].trim(), defs, 0)
}

/// Whether `root` (from [`base_root`]) is a global in the shared state space.
fn is_shared_global(root: &str, scope: &Scope<'_>) -> bool {
    root.strip_prefix('@')
        .and_then(|name| scope.globals.get(name))
        .is_some_and(|g| g.addrspace == 3)
}

/// Whether `line` is a plain store (not volatile, not atomic) into a shared array.
fn shared_store(line: &str, scope: &Scope<'_>) -> bool {
    access_root(line, "store ", scope.defs).is_some_and(|root| is_shared_global(&root, scope))
}

/// Whether the load `line` reads global or constant memory: its address derives from a pointer
/// argument of a kernel (the runtime passes device buffers) or from a global outside the
/// shared state space.
fn reads_global(line: &str, scope: &Scope<'_>) -> bool {
    match access_root(line, "load ", scope.defs) {
        Some(root) if root.starts_with('@') => !is_shared_global(&root, scope),
        Some(root) => scope.kernel && !scope.defs.contains_key(&root),
        None => false,
    }
}

/// The local values (`%name`) an instruction mentions.
fn value_names(inst: &str) -> impl Iterator<Item = &str> {
    inst.match_indices('%').filter_map(move |(i, _)| {
        let n = crate::ir_syntax::name_len(&inst[i + 1..]);
        (n > 0).then(|| &inst[i..i + 1 + n])
    })
}

impl<'a> Block<'a> {
    /// The block from its parts; `None` without a terminator.
    fn finish(
        (label, label_line, mut lines): (Option<String>, Option<&'a str>, Vec<String>),
    ) -> Option<Block<'a>> {
        let at = lines.iter().rposition(|l| !is_debug_record(l))?;
        let terminator = lines.remove(at);
        let first = instruction(&terminator).split([' ', ',']).next()?;
        if !matches!(
            first,
            "br" | "ret" | "switch" | "unreachable" | "indirectbr" | "callbr" | "resume"
        ) {
            return None;
        }
        Some(Block {
            label,
            label_line,
            body: lines,
            terminator,
        })
    }

    /// A call followed by `unreachable`: where a failed check goes.
    fn is_panic(&self) -> bool {
        instruction(&self.terminator).split([' ', ',']).next() == Some("unreachable")
            && self
                .body
                .iter()
                .rev()
                .find(|l| !is_debug_record(l))
                .is_some_and(|l| is_call(instruction(l)))
    }

    /// The check this block ends in: a conditional branch to a panic block and another block.
    fn check(&self, index: &HashMap<&str, usize>, panics: &[bool]) -> Option<Check> {
        let rest = self.terminator.trim().strip_prefix("br i1 ")?;
        let parts = split_top_level(rest);
        let cond = parts.first()?.to_string();
        if !cond.starts_with('%') {
            return None;
        }
        let target =
            |p: Option<&&str>| -> Option<String> { Some(p?.strip_prefix("label %")?.to_string()) };
        let (on_true, on_false) = (target(parts.get(1))?, target(parts.get(2))?);
        let panic = |l: &str| index.get(l).is_some_and(|&i| panics[i]);
        match (panic(&on_true), panic(&on_false)) {
            (false, true) => Some(Check {
                cond,
                cont: on_true,
                cont_on_true: true,
            }),
            (true, false) => Some(Check {
                cond,
                cont: on_false,
                cont_on_true: false,
            }),
            _ => None,
        }
    }
}

/// A check at the end of a block: its condition, the block taken when it passes, and whether
/// that block is the `true` target.
#[derive(Clone)]
struct Check {
    cond: String,
    cont: String,
    cont_on_true: bool,
}

impl Check {
    /// `(idx, len)` when the check passes exactly when `idx < len` (unsigned).
    fn bound(&self, defs: &HashMap<String, String>) -> Option<(String, String)> {
        let rest = defs.get(&self.cond)?.strip_prefix("icmp ")?;
        let rest = rest.strip_prefix("samesign ").unwrap_or(rest);
        let (pred, rest) = rest.split_once(' ')?;
        let parts = split_top_level(rest);
        let a = parts.first()?.split_whitespace().last()?.to_string();
        let b = parts.get(1)?.trim().to_string();
        match (pred, self.cont_on_true) {
            ("ult", true) | ("uge", false) => Some((a, b)),
            ("ugt", true) | ("ule", false) => Some((b, a)),
            _ => None,
        }
    }

    /// The `i1` value that is true when the check passes, pushing its computation if needed.
    fn passed(&self, out: &mut Vec<String>, counter: &mut usize) -> String {
        if self.cont_on_true {
            return self.cond.clone();
        }
        *counter += 1;
        let name = format!("%{PREFIX}ok{counter}");
        out.push(format!("  {name} = xor i1 {}, true", self.cond));
        name
    }
}

/// The targets named by `label %X` in a terminator.
fn label_references(terminator: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = terminator;
    while let Some(at) = rest.find("label %") {
        let after = &rest[at + "label %".len()..];
        let n = crate::ir_syntax::name_len(after);
        out.push(after[..n].to_string());
        rest = &after[n..];
    }
    out
}

/// The instruction of a line without its `%name = ` part.
fn instruction(line: &str) -> &str {
    let t = line.trim();
    match (t.starts_with('%'), t.find(" = ")) {
        (true, Some(eq)) => &t[eq + 3..],
        _ => t,
    }
}

/// A call of any kind.
fn is_call(inst: &str) -> bool {
    ["call ", "tail call ", "notail call ", "musttail call "]
        .iter()
        .any(|p| inst.starts_with(p))
}

fn is_phi(line: &str) -> bool {
    instruction(line).starts_with("phi ")
}

fn is_load(line: &str) -> bool {
    instruction(line).starts_with("load ")
}

/// The name a line defines (`%x` of `%x = ...`).
fn defined_name(line: &str) -> Option<&str> {
    let t = line.trim();
    t.starts_with('%').then(|| t.split(" = ").next()).flatten()
}

/// `(base, idx)` when `line` loads `base[idx]` through a one-index `getelementptr` of the
/// loaded type.
fn indexed_load(line: &str, defs: &HashMap<String, String>) -> Option<(String, String)> {
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

/// Pointer definitions of the function (`%name` -> its instruction), for finding what an
/// address points into.
fn definitions(blocks: &[Block<'_>]) -> HashMap<String, String> {
    blocks
        .iter()
        .flat_map(|b| b.body.iter())
        .filter_map(|l| {
            let t = l.trim();
            let eq = t.find(" = ")?;
            t.starts_with('%')
                .then(|| (t[..eq].to_string(), t[eq + 3..].to_string()))
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
fn speculated(
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
fn base_root(value: &str, defs: &HashMap<String, String>, depth: usize) -> Option<String> {
    if depth > 16 {
        return None;
    }
    let value = value.trim();
    if let Some(name) = value.strip_prefix('@') {
        return Some(format!("@{}", &name[..crate::ir_syntax::name_len(name)]));
    }
    if let Some(rest) = value.strip_prefix('%') {
        let name = &value[..1 + crate::ir_syntax::name_len(rest)];
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

/// A `getelementptr` flag.
fn is_gep_flag(word: &str) -> bool {
    matches!(word, "inbounds" | "nuw" | "nusw") || word.starts_with("inrange")
}

/// Size in bytes of a first-class LLVM type, when this pass knows it (integers, floating point,
/// pointers, arrays and vectors of those).
fn type_size(ty: &str) -> Option<u64> {
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

/// The function header and body with every numbered value `%N` renamed `%fc.N` (and an explicit
/// label on an unnamed entry block), so that moved definitions need not be in numbered order.
fn renumbered(header: &str, body: &[String]) -> (String, String) {
    let unnamed_params = header
        .find('(')
        .map(|open| {
            let close = open + crate::ir_syntax::matching_paren(&header[open..]).unwrap_or(0);
            split_top_level(&header[open + 1..close])
                .iter()
                .filter(|p| {
                    p.split_whitespace().last().is_some_and(|v| {
                        v.strip_prefix('%')
                            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                    })
                })
                .count()
        })
        .unwrap_or(0);
    let mut text = String::new();
    let entry_unnamed = body
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.starts_with(' '));
    if entry_unnamed {
        text.push_str(&format!("{PREFIX}{unnamed_params}:\n"));
    }
    for line in body {
        text.push_str(&renamed_line(line));
        text.push('\n');
    }
    (renamed_line(header), text)
}

/// `line` with `%N` renamed `%fc.N` outside string literals, and a numbered label line `N:`
/// renamed `fc.N:`.
fn renamed_line(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len() + 16);
    let digits_at = |i: usize| b.get(i).is_some_and(|c| c.is_ascii_digit());
    let mut i = 0;
    if digits_at(0) {
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        if b.get(n) == Some(&b':') {
            out.push_str(PREFIX);
        }
    }
    while i < b.len() {
        match b[i] {
            b'"' => {
                let end = crate::ir_syntax::skip_string(b, i);
                out.push_str(&line[i..end]);
                i = end;
            }
            b'%' if digits_at(i + 1) => {
                out.push('%');
                out.push_str(PREFIX);
                i += 1;
            }
            _ => {
                let start = i;
                i += 1;
                while i < b.len() && !matches!(b[i], b'"' | b'%') {
                    i += 1;
                }
                out.push_str(&line[start..i]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two checked loads in a row, the second's index loaded by the first (`x[columns[k]]`),
    /// then a store: the shape of a sparse matrix-vector product's inner step. Both loads move
    /// above both checks; the store stays behind them. The second load's address depends only on
    /// its own check (its base and length are arguments), so only that check guards it.
    const GATHER: &str = "\
define void @gather(ptr %0, i64 %1, ptr %2, i64 %3, ptr %4) {
  %6 = icmp ult i64 %3, %1
  br i1 %6, label %7, label %12

7:                                                ; preds = %5
  %8 = getelementptr inbounds i32, ptr %0, i64 %3
  %9 = load i32, ptr %8, align 4, !noundef !1
  %10 = zext i32 %9 to i64
  %11 = icmp ult i64 %10, %3
  br i1 %11, label %13, label %14

12:                                               ; preds = %5
  tail call void @panic_bounds(i64 %3, i64 %1)
  unreachable

13:                                               ; preds = %7
  %15 = getelementptr inbounds float, ptr %2, i64 %10, !dbg !7
  %16 = load float, ptr %15, align 4, !dbg !7
  store float %16, ptr %4, align 4
  ret void

14:                                               ; preds = %7
  tail call void @panic_bounds(i64 %10, i64 %3)
  unreachable
}
";

    #[test]
    fn loads_move_above_their_checks_with_safe_addresses() {
        let out = apply(GATHER).expect("a chain moves loads");
        let expected = "\
define void @gather(ptr %fc.0, i64 %fc.1, ptr %fc.2, i64 %fc.3, ptr %fc.4) {
fc.5:
  %fc.6 = icmp ult i64 %fc.3, %fc.1
  %fc.8 = getelementptr inbounds i32, ptr %fc.0, i64 %fc.3
  %fc.spec1 = select i1 %fc.6, ptr %fc.8, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %fc.9 = load i32, ptr %fc.spec1, align 4
  call void asm sideeffect \"\", \"r\"(i32 %fc.9)
  %fc.10 = zext i32 %fc.9 to i64
  %fc.11 = icmp ult i64 %fc.10, %fc.3
  %fc.ok2 = select i1 %fc.6, i1 %fc.11, i1 false
  %fc.15 = getelementptr inbounds float, ptr %fc.2, i64 %fc.10, !dbg !7
  %fc.spec3 = select i1 %fc.11, ptr %fc.15, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %fc.16 = load float, ptr %fc.spec3, align 4, !dbg !7
  call void asm sideeffect \"\", \"f\"(float %fc.16)
  br i1 %fc.6, label %fc.7, label %fc.12

fc.7:                                                ; preds = %fc.5
  br i1 %fc.11, label %fc.13, label %fc.14

fc.12:                                               ; preds = %fc.5
  tail call void @panic_bounds(i64 %fc.3, i64 %fc.1)
  unreachable

fc.13:                                               ; preds = %fc.7
  store float %fc.16, ptr %fc.4, align 4
  ret void

fc.14:                                               ; preds = %fc.7
  tail call void @panic_bounds(i64 %fc.10, i64 %fc.3)
  unreachable

}

@ferrocuda_speculation_pad = internal addrspace(1) constant [64 x i8] zeroinitializer, align 16
";
        assert_eq!(out, expected);
    }

    /// HotSpot's tile loads: `tile_a[t] = a[i]; tile_b[t] = b[i]` in a kernel, each global load
    /// behind its own check, a store to a shared array between them. `SECOND` is the second
    /// load's base.
    fn staged(define: &str, second: &str) -> String {
        format!(
            "@tile = internal addrspace(3) global [256 x float] undef, align 4

{define} void @stage(ptr %a, i64 %alen, ptr %b, i64 %blen, i64 %i) {{
start:
  %ca = icmp ult i64 %i, %alen
  br i1 %ca, label %la, label %pa

la:
  %pa_ = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa_, align 4
  %sa = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 %i
  store float %va, ptr %sa, align 4
  %cb = icmp ult i64 %i, %blen
  br i1 %cb, label %lb, label %pb

lb:
  %pb_ = getelementptr inbounds float, ptr {second}, i64 %i
  %vb = load float, ptr %pb_, align 4
  store float %vb, ptr %sa, align 4
  ret void

pa:
  tail call void @panic_bounds(i64 %i, i64 %alen)
  unreachable

pb:
  tail call void @panic_bounds(i64 %i, i64 %blen)
  unreachable
}}
"
        )
    }

    #[test]
    fn loads_of_a_kernel_move_above_stores_to_shared_memory() {
        let out = apply(&staged("define ptx_kernel", "%b")).expect("the loads move");
        let body = &out[out.find("start:").unwrap()..out.find("la:").unwrap()];
        // Both loads, each behind its own check only, before the first branch; the stores stay
        // behind their checks.
        let expected = "\
start:
  %ca = icmp ult i64 %i, %alen
  %pa_ = getelementptr inbounds float, ptr %a, i64 %i
  %fc.spec1 = select i1 %ca, ptr %pa_, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %va = load float, ptr %fc.spec1, align 4
  call void asm sideeffect \"\", \"f\"(float %va)
  %sa = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 %i
  %cb = icmp ult i64 %i, %blen
  %fc.ok2 = select i1 %ca, i1 %cb, i1 false
  %pb_ = getelementptr inbounds float, ptr %b, i64 %i
  %fc.spec3 = select i1 %cb, ptr %pb_, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %vb = load float, ptr %fc.spec3, align 4
  call void asm sideeffect \"\", \"f\"(float %vb)
  br i1 %ca, label %la, label %pa

";
        assert_eq!(body, expected);
        assert!(
            out.contains("la:\n  store float %va, ptr %sa, align 4\n  br i1 %cb"),
            "{out}"
        );
        assert!(
            out.contains("lb:\n  store float %vb, ptr %sa, align 4\n  ret void"),
            "{out}"
        );
    }

    #[test]
    fn loads_that_a_shared_store_may_change_stay_behind_it() {
        // The second load reads the shared array the first store wrote.
        let shared = "addrspacecast (ptr addrspace(3) @tile to ptr)";
        assert_eq!(apply(&staged("define ptx_kernel", shared)), None);
        // Outside a kernel a pointer argument may point to shared memory.
        assert_eq!(apply(&staged("define", "%b")), None);
        // A volatile store is not moved across.
        let volatile = staged("define ptx_kernel", "%b").replace(
            "store float %va, ptr %sa",
            "store volatile float %va, ptr %sa",
        );
        assert_eq!(apply(&volatile), None);
    }

    /// A function whose block `ok` runs behind two checks, the second testing a loaded value
    /// (`%idx`, loaded from `%q`), with `body` as the block's instructions before `ret void`.
    fn behind_a_loaded_check(body: &str) -> String {
        format!(
            "define void @f(ptr %q, i64 %i) {{
start:
  %a = icmp ult i64 %i, 4
  br i1 %a, label %first, label %fail

first:
  %idx32 = load i32, ptr %q, align 4
  %idx = zext i32 %idx32 to i64
  %b = icmp ult i64 %idx, 8
  br i1 %b, label %ok, label %fail

ok:
{body}
  ret void

fail:
  call void @panic()
  unreachable
}}
"
        )
    }

    #[test]
    fn each_load_waits_for_every_earlier_check_unless_its_own_suffices() {
        let out = apply(&behind_a_loaded_check(
            "  %x = getelementptr inbounds float, ptr %q, i64 %idx
  %v = load float, ptr %x, align 4, !range !3
  %y = getelementptr inbounds float, ptr %x, i64 %i
  %w = load float, ptr %y, align 4
  %s = fadd float %v, %w
  store float %s, ptr %q, align 4",
        ))
        .expect("moved");
        // `first`'s load waits for `%a`; `q[idx]` for `%b` alone (`q` and the length 8 are
        // known before the chain); `x[i]`, whose base is computed in the chain, for both.
        let pad = "ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)";
        for expected in [
            format!(
                "  %fc.spec1 = select i1 %a, ptr %q, {pad}\n  %idx32 = load i32, ptr %fc.spec1, align 4\n"
            ),
            "  %fc.ok2 = select i1 %a, i1 %b, i1 false\n".to_string(),
            format!(
                "  %fc.spec3 = select i1 %b, ptr %x, {pad}\n  %v = load float, ptr %fc.spec3, align 4\n"
            ),
            format!(
                "  %fc.spec4 = select i1 %fc.ok2, ptr %y, {pad}\n  %w = load float, ptr %fc.spec4, align 4\n"
            ),
        ] {
            assert!(out.contains(&expected), "{expected}\n{out}");
        }
        // The range metadata went; the store stays behind both checks, which keep their order.
        assert!(!out.contains("!range"), "{out}");
        let branch_a = out.find("br i1 %a, label %first, label %fail").unwrap();
        let branch_b = out.find("br i1 %b, label %ok, label %fail").unwrap();
        let store = out.find("store float").unwrap();
        assert!(
            out.find("%s = fadd").unwrap() < branch_a && branch_a < branch_b && branch_b < store,
            "{out}"
        );
    }

    #[test]
    fn checks_of_indices_alone_leave_the_loads_where_they_are() {
        // Two checks that test no loaded value: `llc` already orders them best.
        let ir = "\
define void @f(ptr %q, i64 %i, i64 %j) {
start:
  %a = icmp ult i64 %i, 4
  br i1 %a, label %one, label %fail

one:
  %x = getelementptr inbounds float, ptr %q, i64 %i
  %v = load float, ptr %x, align 4
  %b = icmp ult i64 %j, 4
  br i1 %b, label %two, label %fail

two:
  %y = getelementptr inbounds float, ptr %q, i64 %j
  %w = load float, ptr %y, align 4
  ret void

fail:
  call void @panic()
  unreachable
}
";
        assert_eq!(apply(ir), None);
    }

    #[test]
    fn bounds_read_from_either_side_of_the_compare() {
        let check = |cond: &str, cont_on_true| {
            let defs = HashMap::from([("%c".to_string(), cond.to_string())]);
            Check {
                cond: "%c".into(),
                cont: "ok".into(),
                cont_on_true,
            }
            .bound(&defs)
        };
        let bound = Some(("%i".to_string(), "%n".to_string()));
        assert_eq!(check("icmp ult i64 %i, %n", true), bound);
        assert_eq!(check("icmp samesign ugt i64 %n, %i", true), bound);
        assert_eq!(check("icmp uge i64 %i, %n", false), bound);
        assert_eq!(check("icmp ule i64 %n, %i", false), bound);
        assert_eq!(check("icmp ult i64 %i, %n", false), None);
        assert_eq!(check("icmp slt i64 %i, %n", true), None);
    }

    #[test]
    fn shared_loads_fall_back_to_their_array() {
        let ir = format!(
            "@tile = internal addrspace(3) global [1024 x i8] undef, align 16\n\n{}",
            behind_a_loaded_check(
                "  %x = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 %i
  %v = load float, ptr %x, align 4
  %y = getelementptr inbounds nuw float, ptr addrspace(3) @tile, i64 %i
  %w = load float, ptr addrspace(3) %y, align 4"
            )
        );
        let out = apply(&ir).expect("moved");
        assert!(
            out.contains(
                "select i1 %fc.ok2, ptr %x, ptr addrspacecast (ptr addrspace(3) @tile to ptr)"
            ),
            "{out}"
        );
        assert!(
            out.contains("select i1 %fc.ok2, ptr addrspace(3) %y, ptr addrspace(3) @tile"),
            "{out}"
        );
    }

    #[test]
    fn side_effects_and_what_follows_them_stay_behind_the_check() {
        for inner in [
            "store float 0.0, ptr %q, align 4",
            "%c = call float @user(float 1.0)",
            "%d = udiv i64 %i, %i",
            "%e = load volatile float, ptr %q, align 4",
            "call void @llvm.nvvm.barrier0()",
        ] {
            let out = apply(&behind_a_loaded_check(&format!(
                "  %u = load float, ptr %q, align 4\n  {inner}\n  %w = load float, ptr %q, align 4"
            )))
            .expect("the first load moves");
            let branch = out.find("br i1 %b").unwrap();
            assert!(
                out.find("%u = load float, ptr %fc.spec").unwrap() < branch,
                "{out}"
            );
            assert!(out.find(inner).unwrap() > branch, "{out}");
            assert!(
                out.find("%w = load float, ptr %q").unwrap() > branch,
                "{out}"
            );
        }
    }

    #[test]
    fn assumptions_are_dropped_and_pure_intrinsics_kept() {
        let out = apply(&behind_a_loaded_check(
            "  %u = load float, ptr %q, align 4
  %c = icmp ult i64 %idx, 2
  call void @llvm.assume(i1 %c)
  %m = call float @llvm.fmuladd.f32(float %u, float %u, float 1.0)",
        ))
        .expect("moved");
        assert!(!out.contains("llvm.assume"), "{out}");
        assert!(
            out.find("@llvm.fmuladd.f32").unwrap() < out.find("br i1 %b").unwrap(),
            "{out}"
        );
    }

    #[test]
    fn wide_or_unknown_loads_and_checks_without_loads_are_left_alone() {
        let wide = GATHER.replace("load float, ptr %15", "load <32 x float>, ptr %15");
        // The first chain link still moves its i32 load; the 128-byte load stays (not in a chain).
        assert!(apply(&wide).is_some_and(|o| o.contains("load <32 x float>, ptr %fc.15")));
        let no_load = "\
define void @f(i64 %i) {
start:
  %a = icmp ult i64 %i, 4
  br i1 %a, label %ok, label %fail

ok:
  %b = add i64 %i, 1
  ret void

fail:
  call void @panic()
  unreachable
}
";
        assert_eq!(apply(no_load), None);
    }

    #[test]
    fn renaming_leaves_strings_alone() {
        assert_eq!(
            renamed_line("  %3 = call i32 asm \"mov.u32 $0, %1;\", \"=r\"(i32 %2)"),
            "  %fc.3 = call i32 asm \"mov.u32 $0, %1;\", \"=r\"(i32 %fc.2)"
        );
        assert_eq!(
            renamed_line("12:   ; preds = %4"),
            "fc.12:   ; preds = %fc.4"
        );
    }

    #[test]
    fn type_sizes() {
        assert_eq!(type_size("i1"), Some(1));
        assert_eq!(type_size("<4 x float>"), Some(16));
        assert_eq!(type_size("[3 x i64]"), Some(24));
        assert_eq!(type_size("{ i32, i32 }"), None);
    }
}
