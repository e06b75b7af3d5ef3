//! Link-time combining of the bounds checks of a straight run of code into one branch.
//!
//! A checked index is a compare and a branch to a cold panic block (a call, then `unreachable`).
//! A kernel that reads seven neighbours (`input[i - 1]`, `input[i + nx]`, ...) has seven such
//! branches one after the other, and one that sums 49 filter taps, each under the user's own
//! `if` (the tap lies inside the image), has a branch to a panic inside each of 49 diamonds,
//! which `ptxas` cannot predicate. When the checks test indices alone, all of them can be
//! decided before any of the code they guard runs.
//!
//! This pass runs on the optimised module, before [`crate::load_speculation`] and `llc`. From a
//! head block it follows a *region*, a run of segments each of which is either
//! - a check: the block ends in a branch to a panic block and to a block with one predecessor
//!   and no phis, where the run goes on; or
//! - a guarded check: the block ends in `br i1 %g` to a check block and to a join block; the
//!   check block (one predecessor, no phis) continues to a block that ends in `br label` to the
//!   join, whose only predecessors are these two;
//!
//! as long as the blocks it passes through have no side effects (no stores, atomics, barriers,
//! calls other than pure intrinsics, volatile loads), and as long as each check's condition, its
//! guard and the operands of its panic block are computed from values known at the head by
//! arithmetic alone (no loads, phis or divisions). Those computations move to the head, which
//! then evaluates, in program order, whether any check fails (`select`s, so that a value a
//! passed check made meaningful is only looked at behind it), and branches once: on the hot
//! path every check branch becomes an unconditional one (so a guarded check is a plain diamond
//! again, which `ptxas` predicates, and the loads of a run share one block); on the cold path a
//! dispatch block per check re-tests the checks in program order and enters the panic block of
//! the first that fails, with the operands it had (file, line, index, length, block, thread:
//! the report is the same). A region needs two checks; one that runs into a check of a loaded
//! value (`x[columns[k]]`) is left to [`crate::load_speculation`]. A function that changes has
//! its numbered values renamed as that pass does.

use crate::load_speculation::{
    Block, Check, Function, PURE_INTRINSICS, PURE_OPCODES, defined_name, instruction, is_call,
    is_debug_record, is_load, is_phi, label_references, renumbered, value_names,
};
use std::collections::{HashMap, HashSet};

/// Prefix of the names this pass gives to its values and blocks.
const PREFIX: &str = "cc.";

/// The module with the checks of each region combined, or `None` when no region has two.
pub(crate) fn apply(ir: &str) -> Option<String> {
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
        match Function::parse(&body).and_then(|f| combined(&f)) {
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
    changed.then_some(out)
}

/// One check of a region: the block that ends in it, the check, its panic block, and the
/// guard (`%g`, and whether the check runs when `%g` is true) of a guarded check.
struct RegionCheck {
    block: usize,
    check: Check,
    panic: usize,
    guard: Option<(String, bool)>,
}

/// A region: its head, its checks in program order, and its blocks after the head (the
/// last being where it ends, which keeps its code).
struct Region {
    head: usize,
    checks: Vec<RegionCheck>,
    blocks: Vec<usize>,
}

/// The function's blocks with lookups by label.
struct Graph<'f, 'a> {
    f: &'f Function<'a>,
    index: HashMap<&'f str, usize>,
    preds: HashMap<String, usize>,
    panics: Vec<bool>,
    /// Each local value's defining block and instruction.
    defs: HashMap<String, (usize, String)>,
}

impl<'f, 'a> Graph<'f, 'a> {
    fn new(f: &'f Function<'a>) -> Self {
        let index = f
            .blocks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((b.label.as_deref()?, i)))
            .collect();
        let mut preds: HashMap<String, usize> = HashMap::new();
        for b in &f.blocks {
            for target in label_references(&b.terminator) {
                *preds.entry(target).or_default() += 1;
            }
        }
        let panics = f.blocks.iter().map(Block::is_panic).collect();
        let mut defs = HashMap::new();
        for (i, b) in f.blocks.iter().enumerate() {
            for l in &b.body {
                if let Some(name) = defined_name(l) {
                    defs.insert(name.to_string(), (i, instruction(l).to_string()));
                }
            }
        }
        Graph {
            f,
            index,
            preds,
            panics,
            defs,
        }
    }

    fn block(&self, label: &str) -> Option<usize> {
        self.index.get(label).copied()
    }

    /// A block with one predecessor, no phis, and not a panic block.
    fn plain(&self, k: usize) -> bool {
        let b = &self.f.blocks[k];
        !self.panics[k]
            && b.label
                .as_ref()
                .is_some_and(|l| self.preds.get(l) == Some(&1))
            && !b.body.iter().any(|l| is_phi(l))
    }

    /// Whether block `k`'s body may be skipped when a check fails: no side effects.
    fn effect_free(&self, k: usize) -> bool {
        self.f.blocks[k].body.iter().all(|l| skippable(l))
    }

    /// The check block `k` ends in, with its panic block.
    fn check(&self, k: usize) -> Option<(Check, usize)> {
        let check = self.f.blocks[k].check(&self.index, &self.panics)?;
        let rest = self.f.blocks[k].terminator.trim().strip_prefix("br i1 ")?;
        let panic = label_references(rest)
            .into_iter()
            .find(|l| *l != check.cont)?;
        Some((check, self.block(&panic)?))
    }

    /// The segment that starts at block `k`: its check and the block where the run goes on,
    /// with the blocks it passes through (after `k`).
    fn segment(&self, k: usize) -> Option<(RegionCheck, usize, Vec<usize>)> {
        if let Some((check, panic)) = self.check(k) {
            let next = self.block(&check.cont)?;
            return self.plain(next).then(|| {
                (
                    RegionCheck {
                        block: k,
                        check,
                        panic,
                        guard: None,
                    },
                    next,
                    vec![next],
                )
            });
        }
        let rest = self.f.blocks[k].terminator.trim().strip_prefix("br i1 ")?;
        let guard = crate::ir_syntax::split_top_level(rest).first()?.to_string();
        if !guard.starts_with('%') {
            return None;
        }
        let targets = label_references(rest);
        let [on_true, on_false] = targets.as_slice() else {
            return None;
        };
        for (c, join, runs_on_true) in [(on_true, on_false, true), (on_false, on_true, false)] {
            let (Some(c), Some(join)) = (self.block(c), self.block(join)) else {
                continue;
            };
            if !self.plain(c) || join == k {
                continue;
            }
            let Some((check, panic)) = self.check(c) else {
                continue;
            };
            let Some(l) = self.block(&check.cont) else {
                continue;
            };
            let join_label = self.f.blocks[join].label.as_deref()?;
            let ends_in_join = self.f.blocks[l].terminator.trim().split(',').next()
                == Some(&format!("br label %{join_label}"));
            if !self.plain(l)
                || !ends_in_join
                || self.preds.get(join_label) != Some(&2)
                || !self.effect_free(c)
                || !self.effect_free(l)
            {
                continue;
            }
            return Some((
                RegionCheck {
                    block: c,
                    check,
                    panic,
                    guard: Some((guard, runs_on_true)),
                },
                join,
                vec![c, l, join],
            ));
        }
        None
    }

    /// The region that starts at block `head`, when it has two checks or more and none of
    /// its checks depends on a value it cannot compute at the head.
    fn region(&self, head: usize, taken: &HashSet<usize>) -> Option<Region> {
        let mut region = Region {
            head,
            checks: Vec::new(),
            blocks: Vec::new(),
        };
        let mut seen = HashSet::from([head]);
        let mut cur = head;
        loop {
            if cur != head && !self.effect_free(cur) {
                break;
            }
            let Some((check, next, blocks)) = self.segment(cur) else {
                break;
            };
            if blocks.iter().any(|b| !seen.insert(*b) || taken.contains(b)) {
                break;
            }
            region.blocks.extend(blocks);
            let inner: HashSet<usize> = region.blocks[..region.blocks.len() - 1]
                .iter()
                .copied()
                .collect();
            if self.hoisted(&region, &check, &inner).is_none() {
                // A check of a loaded value: [`crate::load_speculation`]'s case.
                return None;
            }
            region.checks.push(check);
            cur = next;
        }
        (region.checks.len() >= 2).then_some(region)
    }

    /// The values, defined in the blocks `inner` of a region, that `check` needs computed at
    /// the head (its condition, guard and panic operands), in an order where each follows its
    /// operands; `None` when one of them cannot move there.
    fn hoisted(
        &self,
        region: &Region,
        check: &RegionCheck,
        inner: &HashSet<usize>,
    ) -> Option<Vec<String>> {
        let mut wanted: Vec<String> = vec![check.check.cond.clone()];
        if let Some((g, _)) = &check.guard {
            wanted.push(g.clone());
        }
        let from = self.f.blocks[check.block].label.as_deref()?;
        for line in &self.f.blocks[check.panic].body {
            if is_phi(line) {
                let incoming = format!(", %{from} ]");
                let at = line.find(&incoming)?;
                let open = line[..at].rfind('[')?;
                wanted.extend(value_names(&line[open + 1..at]).map(str::to_string));
            } else {
                wanted.extend(value_names(instruction(line)).map(str::to_string));
            }
        }
        let mut order = Vec::new();
        let mut done = HashSet::new();
        for v in wanted {
            self.hoist(&v, region.head, inner, &mut done, &mut order, 0)?;
        }
        Some(order)
    }

    fn hoist(
        &self,
        value: &str,
        head: usize,
        inner: &HashSet<usize>,
        done: &mut HashSet<String>,
        order: &mut Vec<String>,
        depth: usize,
    ) -> Option<()> {
        let Some((block, inst)) = self.defs.get(value) else {
            return Some(()); // an argument or a global
        };
        if !inner.contains(block) || done.contains(value) {
            return Some(());
        }
        if depth > 64 || !computable(inst) {
            return None;
        }
        for operand in value_names(inst) {
            self.hoist(operand, head, inner, done, order, depth + 1)?;
        }
        done.insert(value.to_string());
        order.push(value.to_string());
        Some(())
    }
}

/// Whether `line` may be skipped: it computes or reads without side effects.
fn skippable(line: &str) -> bool {
    if is_debug_record(line) || is_phi(line) {
        return true;
    }
    let inst = instruction(line);
    if let Some(rest) = inst.strip_prefix("load ") {
        return !rest.starts_with("volatile ") && !rest.starts_with("atomic ");
    }
    if is_call(inst) {
        return inst.find('@').is_some_and(|at| {
            let callee = &inst[at + 1..];
            callee.starts_with("llvm.assume(")
                || PURE_INTRINSICS.iter().any(|p| callee.starts_with(p))
        });
    }
    let opcode = inst.split_whitespace().next().unwrap_or("");
    PURE_OPCODES.contains(&opcode) || matches!(opcode, "udiv" | "sdiv" | "urem" | "srem")
}

/// Whether the instruction `inst` computes its value from its operands alone, so that it may
/// run earlier (no loads, phis, divisions or calls other than pure intrinsics).
fn computable(inst: &str) -> bool {
    if is_load(inst) || inst.starts_with("phi ") {
        return false;
    }
    if is_call(inst) {
        return inst.find('@').is_some_and(|at| {
            let callee = &inst[at + 1..];
            PURE_INTRINSICS.iter().any(|p| callee.starts_with(p))
                && !callee.starts_with("llvm.experimental.")
                && !callee.starts_with("llvm.dbg.")
        });
    }
    let opcode = inst.split_whitespace().next().unwrap_or("");
    PURE_OPCODES.contains(&opcode)
}

/// The new body of `f` when at least one region combines its checks.
fn combined(f: &Function<'_>) -> Option<Vec<String>> {
    let g = Graph::new(f);
    let mut taken: HashSet<usize> = HashSet::new();
    let mut regions = Vec::new();
    for head in 0..f.blocks.len() {
        if taken.contains(&head) || g.panics[head] {
            continue;
        }
        if let Some(r) = g.region(head, &taken) {
            taken.insert(head);
            taken.extend(r.blocks.iter().copied());
            regions.push(r);
        }
    }
    if regions.is_empty() {
        return None;
    }
    // Per block: lines that move to a head, terminators that change, phi labels renamed.
    let mut moved: HashSet<String> = HashSet::new();
    let mut head_code: HashMap<usize, (Vec<String>, String, String)> = HashMap::new();
    let mut new_terminator: HashMap<usize, String> = HashMap::new();
    // (block, old label, new label) for phis.
    let mut relabel: Vec<(usize, String, String)> = Vec::new();
    let mut dispatch: Vec<String> = Vec::new();
    for (n, r) in regions.iter().enumerate() {
        let n = n + 1;
        let inner: HashSet<usize> = r.blocks[..r.blocks.len() - 1].iter().copied().collect();
        let mut lines = Vec::new();
        let mut hoisted: Vec<String> = Vec::new();
        for c in &r.checks {
            for v in g.hoisted(r, c, &inner)? {
                if !hoisted.contains(&v) {
                    hoisted.push(v);
                }
            }
        }
        // Keep the function's order among the moved lines: each follows its operands.
        for &k in &r.blocks {
            for l in &f.blocks[k].body {
                if defined_name(l).is_some_and(|d| hoisted.iter().any(|h| h == d)) {
                    lines.push(l.clone());
                    moved.insert(l.clone());
                }
            }
        }
        let mut any: Option<String> = None;
        for (k, c) in r.checks.iter().enumerate() {
            let fail = if c.check.cont_on_true {
                let name = format!("%{PREFIX}fail{n}.{k}");
                lines.push(format!("  {name} = xor i1 {}, true", c.check.cond));
                name
            } else {
                c.check.cond.clone()
            };
            let fail = match &c.guard {
                None => fail,
                Some((guard, on_true)) => {
                    let name = format!("%{PREFIX}guarded{n}.{k}");
                    let (a, b) = if *on_true {
                        (fail.as_str(), "false")
                    } else {
                        ("false", fail.as_str())
                    };
                    lines.push(format!("  {name} = select i1 {guard}, i1 {a}, i1 {b}"));
                    name
                }
            };
            any = Some(match any {
                None => fail.clone(),
                Some(prev) => {
                    let name = format!("%{PREFIX}any{n}.{k}");
                    lines.push(format!("  {name} = select i1 {prev}, i1 true, i1 {fail}"));
                    name
                }
            });
        }
        let head = &f.blocks[r.head];
        let head_label = head.label.clone()?;
        let fast = format!("{PREFIX}fast{n}");
        let first_dispatch = format!("{PREFIX}d{n}.0");
        let branch = format!(
            "  br i1 {}, label %{first_dispatch}, label %{fast}",
            any.as_deref()?
        );
        head_code.insert(r.head, (lines, branch, fast.clone()));
        for (k, c) in r.checks.iter().enumerate() {
            new_terminator.insert(c.block, format!("  br label %{}", c.check.cont));
            let from = f.blocks[c.block].label.clone()?;
            let here = format!("{PREFIX}d{n}.{k}");
            relabel.push((c.panic, from, here.clone()));
            let panic_label = f.blocks[c.panic].label.clone()?;
            let next = format!("{PREFIX}d{n}.{}", k + 1);
            dispatch.push(format!("{here}:"));
            let fail = retested(&g, c, &format!("{n}.{k}"), &mut dispatch);
            dispatch.push(format!(
                "  br i1 {fail}, label %{panic_label}, label %{next}"
            ));
            dispatch.push(String::new());
        }
        // The head's other successors now come from the fast block (after the panic blocks'
        // phis above took the dispatch blocks' labels).
        for target in label_references(&head.terminator) {
            if let Some(t) = g.block(&target) {
                relabel.push((t, head_label.clone(), fast.clone()));
            }
        }
        dispatch.push(format!("{PREFIX}d{n}.{}:", r.checks.len()));
        dispatch.push("  unreachable".to_string());
        dispatch.push(String::new());
    }
    let mut out = Vec::new();
    for (i, b) in f.blocks.iter().enumerate() {
        match (&b.label_line, &b.label) {
            (Some(l), _) => out.push(l.trim_end_matches('\n').to_string()),
            (None, _) if head_code.contains_key(&i) => return None,
            _ => {}
        }
        for l in &b.body {
            if moved.contains(l) {
                continue;
            }
            let mut l = l.clone();
            if is_phi(&l) {
                for (block, old, new) in &relabel {
                    if *block == i {
                        l = l.replace(&format!(", %{old} ]"), &format!(", %{new} ]"));
                    }
                }
            }
            out.push(l);
        }
        let terminator = new_terminator
            .get(&i)
            .cloned()
            .unwrap_or_else(|| b.terminator.clone());
        match head_code.get(&i) {
            Some((lines, branch, fast)) => {
                out.extend(lines.iter().cloned());
                out.push(branch.clone());
                out.push(String::new());
                out.push(format!("{fast}:"));
                out.push(terminator);
            }
            None => out.push(terminator),
        }
        out.push(String::new());
    }
    out.extend(dispatch);
    Some(out)
}

/// The `i1` that is true when `c` fails, computed again in its dispatch block (lines pushed to
/// `out`, names suffixed `tag`). When the check's condition is an `icmp`, its first local
/// operand goes through an empty `mov` first: otherwise `llc` would reuse the compare computed
/// at the head, and every check's outcome would stay live on the hot path for the dispatch.
fn retested(g: &Graph<'_, '_>, c: &RegionCheck, tag: &str, out: &mut Vec<String>) -> String {
    let mut cond = c.check.cond.clone();
    if let Some(copy) = g
        .defs
        .get(&cond)
        .and_then(|(_, inst)| opaque_compare(inst, &format!("%{PREFIX}cmp{tag}"), out))
    {
        cond = copy;
    }
    let fail = if c.check.cont_on_true {
        let name = format!("%{PREFIX}retest{tag}");
        out.push(format!("  {name} = xor i1 {cond}, true"));
        name
    } else {
        cond
    };
    match &c.guard {
        None => fail,
        Some((guard, on_true)) => {
            let name = format!("%{PREFIX}reguard{tag}");
            let (a, b) = if *on_true {
                (fail.as_str(), "false")
            } else {
                ("false", fail.as_str())
            };
            out.push(format!("  {name} = select i1 {guard}, i1 {a}, i1 {b}"));
            name
        }
    }
}

/// `inst` (an `icmp`) again as `name`, its first local operand copied through an empty `mov`
/// that `llc` cannot see through; `None` when `inst` is no such compare.
fn opaque_compare(inst: &str, name: &str, out: &mut Vec<String>) -> Option<String> {
    let rest = inst.strip_prefix("icmp ")?;
    let (flags, rest) = match rest.strip_prefix("samesign ") {
        Some(r) => ("samesign ", r),
        None => ("", rest),
    };
    let (pred, rest) = rest.split_once(' ')?;
    let parts = crate::ir_syntax::split_top_level(rest);
    let mut first = parts.first()?.split_whitespace();
    let ty = first.next()?;
    let a = first.next()?;
    let b = parts.get(1)?.trim();
    let (constraint, bits) = match ty {
        "i64" => ("l", 64),
        "i32" => ("r", 32),
        "i16" => ("h", 16),
        _ => return None,
    };
    let (a, b) = match (a.starts_with('%'), b.starts_with('%')) {
        (true, _) => (format!("{name}.op"), b.to_string()),
        (false, true) => (a.to_string(), format!("{name}.op")),
        _ => return None,
    };
    let operand = if a == format!("{name}.op") {
        first_operand(&parts)?
    } else {
        parts.get(1)?.trim().to_string()
    };
    out.push(format!(
        "  {name}.op = call {ty} asm \"mov.b{bits} $0, $1;\", \"={constraint},{constraint}\"({ty} {operand})"
    ));
    out.push(format!("  {name} = icmp {flags}{pred} {ty} {a}, {b}"));
    Some(name.to_string())
}

/// The first operand of an `icmp`'s operand list (`ty a`, `b`), without its type.
fn first_operand(parts: &[&str]) -> Option<String> {
    Some(parts.first()?.split_whitespace().nth(1)?.to_string())
}
