//! Link-time narrowing of 64-bit loop counters that a 32-bit trip count bounds.
//!
//! `for i in 0..n as usize` with a `u32` `n` counts in `i64` on nvptx64: every compare of the
//! counter is two instructions (`ISETP` and `ISETP.EX`), every increment two (`IADD3` and
//! `IADD3.X`), and the counter's high word takes a register. LLVM widens induction variables but
//! never narrows them, and `llc` does not either. In PathFinder's row loop this is 4 of the 39
//! SASS instructions per iteration, and 0.7-1.1% of its time on the H100
//! (`bench/results/h100-2026-11-24-c-pathfinder.md`).
//!
//! This pass runs on the optimised module, before the load speculation and `llc`. It looks for a
//! loop header phi `%a = phi i64 [ C, %pre ], [ %b, %latch ]` with `C` 0 or 1 and
//! `%b = add i64 %a, 1` used only by that phi, whose loop leaves when
//! `icmp eq i64 %a, %n` holds, `%n` being `zext i32 %x to i64`. The counter then never exceeds
//! `%x`, so it fits in 32 bits, provided that
//! * the header's only predecessors are the preheader and the latch (one back edge),
//! * the block of the exit test lies in the loop, dominates the latch (no path from the header
//!   to the latch avoids it) and its true edge leaves the loop, so every value the counter takes
//!   is tested before the next increment, and
//! * the counter starts at most at `%x`: `C` is 0, or `C` is 1 and the preheader's only
//!   predecessor enters it only when `%x != 0` (`br (icmp eq i32 %x, 0), %skip, %pre`, the guard
//!   rustc's range loop gets after rotation).
//!
//! The phi and the add become `i32` in place (so numbered values keep their order); phis of the
//! header that carry the counter's previous value (`phi i64 [ K, %pre ], [ %a, %latch ]`, `K`
//! below 2^32) become `i32` too. The exit test and every compare of a narrowed value with a
//! constant below 2^32, a `zext` from `i32` or another narrowed value become `i32` compares (a
//! signed predicate becomes the unsigned one: both sides are non-negative). Every other use
//! reads `%counter64.<name> = zext i32 %<name> to i64`, inserted after the header's phis, which
//! equals the old value. Debug records of the add are dropped (the builder keeps line tables
//! only).

use crate::ir::syntax::{block_label, is_debug_record, name_len};
use std::collections::{HashMap, HashSet};

/// Prefix of the 64-bit copies of narrowed values.
const WIDE_PREFIX: &str = "counter64.";

/// The module with the loop counters narrowed, or `None` when no loop matched.
pub(crate) fn apply(ir: &str) -> Option<String> {
    if ir.contains(&format!("%{WIDE_PREFIX}")) {
        return None;
    }
    let mut out = String::with_capacity(ir.len() + 1024);
    let mut changed = false;
    let mut body: Option<Vec<String>> = None;
    for line in ir.lines() {
        match &mut body {
            Some(lines) if line == "}" => {
                let mut lines = std::mem::take(lines);
                while let Some(narrowed) = narrow_one(&lines) {
                    lines = narrowed;
                    changed = true;
                }
                for l in &lines {
                    out.push_str(l);
                    out.push('\n');
                }
                out.push_str("}\n");
                body = None;
            }
            Some(lines) => lines.push(line.to_string()),
            None => {
                out.push_str(line);
                out.push('\n');
                if line.starts_with("define ") && line.ends_with('{') {
                    body = Some(Vec::new());
                }
            }
        }
    }
    changed.then_some(out)
}

/// A basic block: its label (empty for the entry block), its lines and its successors.
struct Block {
    label: String,
    lines: std::ops::Range<usize>,
    successors: Vec<String>,
}

/// The blocks of a function body, or `None` when its control flow has a form not followed
/// here (indirect branches, block addresses, `callbr`, `invoke`).
fn blocks(lines: &[String]) -> Option<Vec<Block>> {
    let mut blocks = vec![Block {
        label: String::new(),
        lines: 0..0,
        successors: Vec::new(),
    }];
    for (i, line) in lines.iter().enumerate() {
        if line.contains("indirectbr")
            || line.contains("blockaddress")
            || line.contains("callbr")
            || line.contains(" invoke ")
            || line.contains("%\"")
            || line.starts_with('"')
        {
            return None;
        }
        if let Some(label) = block_label(line) {
            blocks.last_mut()?.lines.end = i;
            blocks.push(Block {
                label,
                lines: i + 1..i + 1,
                successors: Vec::new(),
            });
            continue;
        }
        let block = blocks.last_mut()?;
        block.lines.end = i + 1;
        let mut rest = line.as_str();
        while let Some(at) = rest.find("label %") {
            rest = &rest[at + "label ".len()..];
            let name = &rest[..value_len(rest)];
            block.successors.push(name[1..].to_string());
        }
    }
    Some(blocks)
}

/// Whether `c` may appear in an unquoted LLVM value name.
fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '-')
}

/// Length of the value name at the start of `s` (`%` included).
fn value_len(s: &str) -> usize {
    s.strip_prefix('%').map_or(0, |rest| 1 + name_len(rest))
}

/// The instruction without its trailing metadata (`, !dbg !12`) and indentation.
fn instruction(line: &str) -> &str {
    let line = line.trim();
    match line.find(", !") {
        Some(at) => &line[..at],
        None => line,
    }
}

/// The value a line defines and the instruction's right-hand side.
fn definition(line: &str) -> Option<(&str, &str)> {
    let inst = instruction(line);
    let (name, rhs) = inst.split_once(" = ")?;
    (name.starts_with('%') && value_len(name) == name.len()).then_some((name, rhs))
}

/// Whether `line` mentions the value `name` (`%12` does not mention `%1`).
fn mentions(line: &str, name: &str) -> bool {
    token_positions(line, name).next().is_some()
}

/// Where `name` occurs in `line` as a whole value name.
fn token_positions<'a>(line: &'a str, name: &'a str) -> impl Iterator<Item = usize> + 'a {
    line.match_indices(name)
        .map(|(at, _)| at)
        .filter(move |&at| !line[at + name.len()..].starts_with(is_name_char))
}

/// `line` with every whole occurrence of the value `from` replaced by `to`.
fn replace_value(line: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(line.len() + to.len());
    let mut last = 0;
    for at in token_positions(line, from).collect::<Vec<_>>() {
        out.push_str(&line[last..at]);
        out.push_str(to);
        last = at + from.len();
    }
    out.push_str(&line[last..]);
    out
}

/// The two incoming `(value, block)` pairs of an `i64` phi's right-hand side.
fn phi_i64(rhs: &str) -> Option<[(&str, &str); 2]> {
    let list = rhs.strip_prefix("phi i64 ")?;
    let items = crate::ir::syntax::split_top_level(list);
    let [first, second] = items.as_slice() else {
        return None;
    };
    fn pair(item: &str) -> Option<(&str, &str)> {
        let inner = item.trim().strip_prefix('[')?.strip_suffix(']')?;
        let (value, block) = inner.split_once(", ")?;
        Some((value.trim(), block.trim().strip_prefix('%')?))
    }
    Some([pair(first)?, pair(second)?])
}

/// A constant integer below `limit`.
fn small_constant(value: &str, limit: u64) -> Option<u64> {
    value.parse::<u64>().ok().filter(|&v| v < limit)
}

/// The `i32` value `%x` that `name` is `zext i32 %x to i64` of.
fn zext_source<'a>(name: &str, defs: &HashMap<&str, &'a str>) -> Option<&'a str> {
    let rhs = defs.get(name)?;
    let rest = rhs
        .strip_prefix("zext nneg i32 ")
        .or_else(|| rhs.strip_prefix("zext i32 "))?;
    rest.strip_suffix(" to i64")
}

/// The loop a header phi counts in, with everything the rewrite needs.
struct Counter<'a> {
    phi_line: usize,
    add_line: usize,
    exit_line: usize,
    counter: &'a str,
    next: &'a str,
    bound: &'a str,
    previous: Vec<(usize, &'a str)>,
}

/// Narrows the first counter of the function that qualifies; `None` when none does.
fn narrow_one(lines: &[String]) -> Option<Vec<String>> {
    let blocks = blocks(lines)?;
    let index: HashMap<&str, usize> = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| (b.label.as_str(), i))
        .collect();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for (i, block) in blocks.iter().enumerate() {
        for s in &block.successors {
            let &j = index.get(s.as_str())?;
            if !predecessors[j].contains(&i) {
                predecessors[j].push(i);
            }
        }
    }
    let defs: HashMap<&str, &str> = lines.iter().filter_map(|l| definition(l)).collect();
    let def_line: HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .filter_map(|(i, l)| definition(l).map(|(n, _)| (n, i)))
        .collect();
    let block_of = |line: usize| blocks.iter().position(|b| b.lines.contains(&line));
    let cfg = Cfg {
        blocks: &blocks,
        index: &index,
        predecessors: &predecessors,
    };
    for (header, block) in blocks.iter().enumerate() {
        for phi_line in block.lines.clone() {
            let Some((counter, rhs)) = definition(&lines[phi_line]) else {
                continue;
            };
            let Some(found) = qualifying(
                lines, &cfg, &defs, &def_line, &block_of, header, phi_line, counter, rhs,
            ) else {
                continue;
            };
            return Some(rewrite(lines, &defs, &found));
        }
    }
    None
}

/// The control-flow graph of a function.
struct Cfg<'a> {
    blocks: &'a [Block],
    index: &'a HashMap<&'a str, usize>,
    predecessors: &'a [Vec<usize>],
}

impl Cfg<'_> {
    /// The blocks of the natural loop of the back edge `latch` -> `header`.
    fn natural_loop(&self, header: usize, latch: usize) -> HashSet<usize> {
        let mut body: HashSet<usize> = [header, latch].into();
        let mut work = vec![latch];
        while let Some(b) = work.pop() {
            if b == header {
                continue;
            }
            for &p in &self.predecessors[b] {
                if body.insert(p) {
                    work.push(p);
                }
            }
        }
        body
    }

    /// Whether every path inside `body` from `header` to `latch` passes `through`.
    fn dominates_in(
        &self,
        body: &HashSet<usize>,
        header: usize,
        through: usize,
        latch: usize,
    ) -> bool {
        if through == header || through == latch {
            return true;
        }
        let mut seen: HashSet<usize> = [header].into();
        let mut work = vec![header];
        while let Some(b) = work.pop() {
            if b == latch {
                return false;
            }
            for s in &self.blocks[b].successors {
                let Some(&j) = self.index.get(s.as_str()) else {
                    return false;
                };
                if j != through && body.contains(&j) && seen.insert(j) {
                    work.push(j);
                }
            }
        }
        true
    }
}

/// The counter `phi_line` defines, when it qualifies (see the module documentation).
#[expect(
    clippy::too_many_arguments,
    reason = "the function's tables, built once by narrow_one, are passed down as they are"
)]
fn qualifying<'a>(
    lines: &'a [String],
    cfg: &Cfg<'_>,
    defs: &HashMap<&'a str, &'a str>,
    def_line: &HashMap<&'a str, usize>,
    block_of: &dyn Fn(usize) -> Option<usize>,
    header: usize,
    phi_line: usize,
    counter: &'a str,
    rhs: &'a str,
) -> Option<Counter<'a>> {
    let incoming = phi_i64(rhs)?;
    let (start, pre, next, latch) = match incoming {
        [(c, p), (n, l)] | [(n, l), (c, p)] if small_constant(c, 2).is_some() => (c, p, n, l),
        _ => return None,
    };
    let start = small_constant(start, 2)?;
    let &pre = cfg.index.get(pre)?;
    let &latch = cfg.index.get(latch)?;
    let mut header_predecessors = cfg.predecessors[header].clone();
    header_predecessors.sort_unstable();
    let mut expected = vec![pre, latch];
    expected.sort_unstable();
    if pre == latch || header_predecessors != expected {
        return None;
    }
    // The increment, used by the phi alone (debug records aside).
    let add_line = *def_line.get(next)?;
    let add = defs.get(next)?;
    let operands = add
        .strip_prefix("add ")?
        .trim_start_matches("nuw ")
        .trim_start_matches("nsw ")
        .strip_prefix("i64 ")?;
    if operands != format!("{counter}, 1") {
        return None;
    }
    let uses = lines
        .iter()
        .enumerate()
        .filter(|&(i, l)| i != add_line && !is_debug_record(l) && mentions(l, next))
        .count();
    if uses != 1 {
        return None;
    }
    // The exit test.
    let body = cfg.natural_loop(header, latch);
    let (exit_line, bound) = lines.iter().enumerate().find_map(|(i, l)| {
        let (test, rhs) = definition(l)?;
        let operands = rhs.strip_prefix("icmp eq i64 ")?;
        let (x, y) = operands.split_once(", ")?;
        let n = if x == counter {
            y
        } else if y == counter {
            x
        } else {
            return None;
        };
        let bound = zext_source(n, defs)?;
        let b = block_of(i)?;
        let terminator = terminator(lines, &cfg.blocks[b])?;
        let exit = instruction(&lines[terminator])
            .strip_prefix(&format!("br i1 {test}, label %"))?
            .split(',')
            .next()?;
        let &exit = cfg.index.get(exit)?;
        (body.contains(&b) && !body.contains(&exit) && cfg.dominates_in(&body, header, b, latch))
            .then_some((i, bound))
    })?;
    if start == 1 && !entered_only_when_nonzero(lines, cfg, defs, pre, bound) {
        return None;
    }
    let previous = cfg.blocks[header]
        .lines
        .clone()
        .filter_map(|i| {
            let (name, rhs) = definition(&lines[i])?;
            let incoming = phi_i64(rhs)?;
            let ok = incoming
                .iter()
                .any(|&(v, b)| v == counter && cfg.index.get(b) == Some(&latch))
                && incoming.iter().any(|&(v, b)| {
                    small_constant(v, 1 << 32).is_some() && cfg.index.get(b) == Some(&pre)
                });
            ok.then_some((i, name))
        })
        .collect();
    Some(Counter {
        phi_line,
        add_line,
        exit_line,
        counter,
        next,
        bound,
        previous,
    })
}

/// Whether the preheader's only predecessor branches to it only when `bound` is not 0.
fn entered_only_when_nonzero(
    lines: &[String],
    cfg: &Cfg<'_>,
    defs: &HashMap<&str, &str>,
    pre: usize,
    bound: &str,
) -> bool {
    let [guard] = cfg.predecessors[pre].as_slice() else {
        return false;
    };
    let Some(terminator) = terminator(lines, &cfg.blocks[*guard]) else {
        return false;
    };
    let Some(rest) = instruction(&lines[terminator]).strip_prefix("br i1 ") else {
        return false;
    };
    let Some((condition, targets)) = rest.split_once(", label %") else {
        return false;
    };
    let Some((if_true, if_false)) = targets.split_once(", label %") else {
        return false;
    };
    let label = &cfg.blocks[pre].label;
    match defs.get(condition) {
        Some(test) if *test == format!("icmp eq i32 {bound}, 0") => {
            if_false == label && if_true != label
        }
        Some(test) if *test == format!("icmp ne i32 {bound}, 0") => {
            if_true == label && if_false != label
        }
        _ => false,
    }
}

/// The line of a block's terminator: its last instruction.
fn terminator(lines: &[String], block: &Block) -> Option<usize> {
    block
        .lines
        .clone()
        .rev()
        .find(|&j| !lines[j].trim().is_empty() && !is_debug_record(&lines[j]))
}

/// The 32-bit form of a compare of narrowed values, or `None` when it has another operand.
fn narrowed_compare(
    rhs: &str,
    narrowed: &HashSet<&str>,
    defs: &HashMap<&str, &str>,
) -> Option<String> {
    let rest = rhs.strip_prefix("icmp ")?;
    let rest = rest.strip_prefix("samesign ").unwrap_or(rest);
    let (predicate, operands) = rest.split_once(' ')?;
    let predicate = match predicate {
        "eq" | "ne" | "ult" | "ule" | "ugt" | "uge" => predicate,
        "slt" => "ult",
        "sle" => "ule",
        "sgt" => "ugt",
        "sge" => "uge",
        _ => return None,
    };
    let (x, y) = operands.strip_prefix("i64 ")?.split_once(", ")?;
    if !narrowed.contains(x) && !narrowed.contains(y) {
        return None;
    }
    let narrow = |v: &str| -> Option<String> {
        if narrowed.contains(v) || small_constant(v, 1 << 32).is_some() {
            Some(v.to_string())
        } else {
            zext_source(v, defs).map(str::to_string)
        }
    };
    Some(format!(
        "icmp {predicate} i32 {}, {}",
        narrow(x)?,
        narrow(y)?
    ))
}

/// The function with `found`'s counter narrowed.
fn rewrite(lines: &[String], defs: &HashMap<&str, &str>, found: &Counter<'_>) -> Vec<String> {
    let mut narrowed: HashSet<&str> = [found.counter].into();
    narrowed.extend(found.previous.iter().map(|&(_, n)| n));
    let phi_lines: HashSet<usize> = std::iter::once(found.phi_line)
        .chain(found.previous.iter().map(|&(i, _)| i))
        .collect();
    let wide = |name: &str| format!("%{WIDE_PREFIX}{}", &name[1..]);
    let last_phi = found.header_last_phi(lines);
    let mut out = Vec::with_capacity(lines.len() + narrowed.len());
    for (i, line) in lines.iter().enumerate() {
        if phi_lines.contains(&i) {
            out.push(line.replacen("phi i64 ", "phi i32 ", 1));
        } else if i == found.add_line {
            let tail = &line.trim_start()[instruction(line).len()..];
            out.push(format!(
                "  {} = add nuw i32 {}, 1{tail}",
                found.next, found.counter
            ));
        } else if i == found.exit_line {
            let (test, _) = definition(line).expect("the exit test defines a value");
            let tail = &line.trim_start()[instruction(line).len()..];
            out.push(format!(
                "  {test} = icmp eq i32 {}, {}{tail}",
                found.counter, found.bound
            ));
        } else if is_debug_record(line) && mentions(line, found.next) {
            continue;
        } else if let Some((name, rhs)) = definition(line)
            && let Some(compare) = narrowed_compare(rhs, &narrowed, defs)
        {
            let tail = &line.trim_start()[instruction(line).len()..];
            out.push(format!("  {name} = {compare}{tail}"));
        } else {
            let mut renamed = line.clone();
            for name in &narrowed {
                renamed = replace_value(&renamed, name, &wide(name));
            }
            out.push(renamed);
        }
        // After the header's last phi: the 64-bit copies.
        if Some(i) == last_phi {
            let mut names: Vec<&str> = narrowed.iter().copied().collect();
            names.sort_unstable();
            for name in names {
                out.push(format!("  {} = zext i32 {name} to i64", wide(name)));
            }
        }
    }
    out
}

impl Counter<'_> {
    /// The line of the last phi of the header block.
    fn header_last_phi(&self, lines: &[String]) -> Option<usize> {
        let mut last = None;
        let mut i = self.phi_line;
        while i > 0 && lines[i - 1].trim_start().contains(" = phi ") {
            i -= 1;
        }
        while i < lines.len() && (lines[i].contains(" = phi ") || is_debug_record(&lines[i])) {
            if lines[i].contains(" = phi ") {
                last = Some(i);
            }
            i += 1;
        }
        last
    }
}

#[cfg(test)]
mod tests;
