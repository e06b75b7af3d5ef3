//! The bounds checks of a body as versioning reads them (the branch, the panic block and what
//! it reports), the kernel's parameters, and the launch token a copy that cannot panic drops.

use super::entry_test;
use crate::ir::blocks::{Block, split_blocks, terminator};
use crate::ir::instructions::{is_comment_asm, strip_metadata, trailing_metadata};
use crate::ir::syntax::block_label;
use std::collections::{HashMap, HashSet};

/// The names of the function's parameters (`%0`, `%len`, `%"a b"`), as the body uses them.
pub(crate) fn argument_names(define: &str) -> HashSet<String> {
    entry_test::parameters(define)
        .into_iter()
        .map(|(_, name)| name)
        .collect()
}

/// `(condition, failed target)` of `br i1 %c, label %ok, label %fail`.
pub(crate) fn check_branch(terminator: &str) -> Option<(&str, &str)> {
    let rest = strip_metadata(terminator.strip_prefix("br i1 ")?);
    let mut parts = rest.split(", ");
    let condition = parts.next()?.trim();
    parts.next()?.trim().strip_prefix("label %")?;
    let fail = parts.next()?.trim().strip_prefix("label %")?;
    condition.starts_with('%').then_some((condition, fail))
}

/// Whether block `label` calls `panic_bounds_check` (the failed side of a slice index), and
/// if so the index and length it reports, when they read as two plain values.
pub(crate) fn bounds_panic<'a>(
    blocks: &[Block],
    body: &[&'a str],
    label: &str,
) -> Option<Option<(&'a str, &'a str)>> {
    let block = blocks.iter().find(|b| b.label.as_deref() == Some(label))?;
    let call = body[block.lines.clone()]
        .iter()
        .find(|l| l.contains("call ") && l.contains("panic_bounds_check("))?;
    let open = call.find("panic_bounds_check(")? + "panic_bounds_check".len();
    let close = crate::ir::syntax::matching_paren(&call[open..])?;
    let args = &call[open + 1..open + close];
    let operand = |arg: &'a str| {
        let value = arg.trim().rsplit(' ').next()?;
        (arg.trim_start().starts_with("i64 ") && value.starts_with('%')).then_some(value)
    };
    let mut parts = crate::ir::syntax::split_top_level(args).into_iter();
    let reported = (|| Some((operand(parts.next()?)?, operand(parts.next()?)?)))();
    Some(reported)
}

/// The fast copy without its launch-token store and the barrier after it, when nothing the
/// copy can reach reads the token: no call leaves it (the panic paths are cut by its `br i1
/// true` branches) and no other instruction names the token. The token exists for the panic
/// handler (and the cooperative-launch test); a copy that can neither panic nor ask spends a
/// store and a block-wide barrier on it for nothing.
pub(crate) fn without_launch_token(copy: &str) -> Option<String> {
    let lines: Vec<&str> = copy.split_inclusive('\n').collect();
    let blocks = split_blocks(&lines);
    let index: HashMap<&str, usize> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((b.label.as_deref()?, i)))
        .collect();
    let first = blocks.iter().position(|b| b.label.is_some())?;
    let mut reached = vec![false; blocks.len()];
    let mut stack = vec![first];
    while let Some(b) = stack.pop() {
        if std::mem::replace(&mut reached[b], true) {
            continue;
        }
        let term = strip_metadata(terminator(&blocks[b], &lines));
        let targets: Vec<&str> = term.split("label %").skip(1).collect();
        let targets = match term {
            t if t.starts_with("br i1 true,") => &targets[..1],
            t if t.starts_with("br i1 false,") => &targets[1..],
            _ => &targets[..],
        };
        for t in targets {
            if let Some(&s) = index.get(t.split([',', ' ', ']']).next()?.trim()) {
                stack.push(s);
            }
        }
    }
    let mut store = None;
    for (b, block) in blocks.iter().enumerate().filter(|&(b, _)| reached[b]) {
        for i in block.lines.clone() {
            let line = strip_debug(lines[i].trim());
            // An empty `asm` (the anchor [`crate::passes::load_speculation`] gives a speculated
            // load) or one that is only a comment (what `#[kernel]` gives each `&mut [T]`) reads
            // nothing.
            let runs_nothing = is_comment_asm(line);
            let calls_out = line.contains("call ") && !line.contains("@llvm.") && !runs_nothing;
            let token = line.contains("LAUNCH_TOKEN");
            if token && line.starts_with("store volatile i64 ") && store.is_none() {
                store = Some((b, i));
            } else if calls_out || token {
                return None;
            }
        }
    }
    let (block, store) = store?;
    let join = strip_metadata(terminator(&blocks[block], &lines)).strip_prefix("br label %")?;
    let join = &blocks[*index.get(join.trim())?];
    let barrier = join.lines.clone().find(|&i| {
        let l = lines[i].trim();
        !l.is_empty() && !crate::ir::syntax::is_debug_record(l) && block_label(lines[i]).is_none()
    })?;
    if !lines[barrier].contains("call void @llvm.nvvm.barrier") {
        return None;
    }
    Some(
        lines
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != store && i != barrier)
            .map(|(_, l)| *l)
            .collect(),
    )
}

/// An instruction without its `!dbg` and other attachments (the new entry has no location).
pub(super) fn strip_debug(inst: &str) -> &str {
    let tail = trailing_metadata(inst);
    &inst[..inst.len() - tail.len()]
}
