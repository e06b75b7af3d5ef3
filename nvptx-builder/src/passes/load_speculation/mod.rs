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

mod lines;
mod renumbering;
mod speculated;

use self::lines::{
    defined_name, indexed_load, instruction, is_call, is_load, is_phi, label_references,
};
use self::renumbering::{PREFIX, renumbered};
use self::speculated::{
    ArrayGlobal, PAD, PAD_ALIGN, PAD_BYTES, array_globals, base_root, speculated,
};
use crate::ir::syntax::{block_label, is_debug_record, split_top_level, type_len};
use std::collections::{HashMap, HashSet};

/// The module with loads hoisted above their checks, or `None` when no chain moved a load.
pub(crate) fn apply(ir: &str) -> Option<String> {
    apply_to(ir, false)
}

/// [`apply`] on the functions without a loop only (with `loop_free`): the pipeline's
/// `late_unroll` runs the pass on those before LLVM's unroller, and on every function after it
/// (`crate::pipeline`), since it reads a loop's checked iterations as the unroller lays them
/// out.
pub(crate) fn apply_to(ir: &str, loop_free: bool) -> Option<String> {
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
        let skipped = loop_free && branches_back(&body);
        let hoisted = (!skipped)
            .then(|| Function::parse(&body).and_then(|f| f.hoisted(&globals, kernel)))
            .flatten();
        match hoisted {
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
    // A second run (the pipeline's `late_unroll`) finds the pad there already.
    if !ir.contains(&format!("\n@{PAD} = ")) {
        out.push_str(&format!(
            "\n@{PAD} = internal addrspace(1) constant [{PAD_BYTES} x i8] zeroinitializer, align {PAD_ALIGN}\n"
        ));
    }
    Some(out)
}

/// Whether `body` has a loop (a natural loop of its control-flow graph), or control flow the
/// graph does not model.
fn branches_back(body: &[&str]) -> bool {
    let mut blocks = crate::ir::blocks::split_blocks(body);
    if blocks.len() > 1 && blocks[0].lines.is_empty() {
        blocks.remove(0);
    }
    let Some(succ) = crate::ir::cfg::successors(&blocks, body) else {
        return true;
    };
    let idom = crate::analysis::dominance::immediate_dominators(&succ);
    !crate::analysis::dominance::natural_loops(&succ, &idom).is_empty()
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
    /// line [`speculated`](fn@speculated) accepts, except that a store to shared memory (not volatile, not
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
        let n = crate::ir::syntax::name_len(&inst[i + 1..]);
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

#[cfg(test)]
mod tests;
