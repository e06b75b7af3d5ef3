//! The control-flow graph of a function body, read from every terminator LLVM prints.
//!
//! Every optimising pass that reasons about which branches dominate a block (the facts of
//! [`crate::analysis::facts::facts_at`], the ranges of [`crate::analysis::ranges::Analysis`]
//! and the passes built on them) reads its edges here, so that one way into a block cannot be
//! missed. A missed edge is unsound, not merely weak: a block with two ways in whose second
//! way is invisible looks as if it had one predecessor, and the condition of that one branch
//! is then taken to hold on both ways in, so a bounds check under it is deleted. LLVM prints a
//! `switch` on several lines (`switch i32 %v, label %d [`, one line per case, `]`), and turns
//! `if i < n || sel == 3 || sel == 7 { .. }` into one, so reading only a block's last line
//! loses every edge of a switch.
//!
//! The terminators modelled are `ret`, `br` (both forms), `switch` and `unreachable`. A body
//! with any other terminator (`indirectbr`, `invoke`, `callbr`, `resume`, `catchswitch`,
//! `catchret`, `cleanupret`, or a last line this reader does not recognise) has no graph:
//! [`successors`] answers `None` and the passes leave the function as it is.

use crate::ir::blocks::Block;
use crate::ir::instructions::strip_metadata;
use crate::ir::syntax::is_debug_record;
use std::collections::HashMap;

/// The successors of each block by block index, read from each block's whole terminator
/// (all the lines of a `switch`), or `None` when some block ends in a terminator that is not
/// modelled (see the module's doc). A target may repeat (two cases of one switch). The empty
/// unlabelled block that [`split_blocks`] puts before a body's first label has none.
///
/// [`split_blocks`]: crate::ir::blocks::split_blocks
pub(crate) fn successors(blocks: &[Block], body: &[&str]) -> Option<Vec<Vec<usize>>> {
    let index: HashMap<&str, usize> = blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((b.label.as_deref()?, i)))
        .collect();
    blocks
        .iter()
        .map(|block| {
            if block.label.is_none() && block.lines.is_empty() {
                // What [`split_blocks`] puts before a body's first label: no block at all.
                return Some(Vec::new());
            }
            let lines = terminator_lines(&body[block.lines.clone()])?;
            let mut targets = Vec::new();
            for line in lines {
                let mut rest = strip_metadata(line.trim());
                while let Some(at) = rest.find("label %") {
                    rest = &rest[at + "label %".len()..];
                    let name = label_name(rest);
                    targets.push(*index.get(name)?);
                    rest = &rest[name.len()..];
                }
            }
            Some(targets)
        })
        .collect()
}

/// Whether every block of `body` ends in a terminator this module models.
pub(crate) fn is_modelled(blocks: &[Block], body: &[&str]) -> bool {
    successors(blocks, body).is_some()
}

/// The lines of a block's terminator (one, or all of a multi-line `switch`), or `None` when the
/// block's last instruction is not a modelled terminator.
fn terminator_lines<'a, 'b>(lines: &'b [&'a str]) -> Option<&'b [&'a str]> {
    let instructions: Vec<usize> = (0..lines.len())
        .filter(|&i| {
            let l = lines[i].trim();
            !l.is_empty() && !l.starts_with(';') && !is_debug_record(l)
        })
        .collect();
    let last = *instructions.last()?;
    let opcode = |line: &str| {
        let inst = line.trim();
        // `%r = invoke ...`: the opcode follows the result's name.
        let inst = inst.split_once(" = ").map_or(inst, |(_, rhs)| rhs);
        inst.split([' ', ',']).next().unwrap_or("").to_string()
    };
    if strip_metadata(lines[last].trim()) == "]" {
        // A multi-line switch: its first line is the last one that opens it.
        let start = instructions
            .iter()
            .rev()
            .copied()
            .find(|&i| opcode(lines[i]) == "switch")?;
        return lines[start]
            .trim_end()
            .ends_with('[')
            .then(|| &lines[start..=last]);
    }
    match opcode(lines[last]).as_str() {
        "ret" | "br" | "unreachable" => Some(&lines[last..=last]),
        // A switch with no case prints on one line (`switch i32 %v, label %d [\n ]` is two,
        // handled above; LLVM never prints `[]` on one line, but read it if it does).
        "switch" if lines[last].trim_end().ends_with(']') => Some(&lines[last..=last]),
        _ => None,
    }
}

/// The label at the start of `rest` (after `label %`): a quoted name whole, else the longest
/// run of the characters an unquoted LLVM name may hold.
fn label_name(rest: &str) -> &str {
    if let Some(quoted) = rest.strip_prefix('"') {
        return quoted.find('"').map_or(rest, |end| &rest[..end + 2]);
    }
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '$' | '-')))
        .unwrap_or(rest.len());
    &rest[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::blocks::split_blocks;

    fn graph(body: &str) -> Option<Vec<Vec<usize>>> {
        let lines: Vec<&str> = body.lines().collect();
        let mut blocks = split_blocks(&lines);
        if blocks.len() > 1 && blocks[0].lines.is_empty() {
            blocks.remove(0);
        }
        successors(&blocks, &lines)
    }

    #[test]
    fn a_switch_has_every_case_and_its_default_as_successors() {
        let body = "start:\n  %c = icmp ult i64 %i, %n\n  br i1 %c, label %then, label %sw\n\
                    sw:\n  switch i32 %sel, label %exit [\n    i32 3, label %then\n    \
                    i32 7, label %then\n    i32 12, label %other\n  ], !dbg !4\n\
                    then:\n  br label %exit\nother:\n  br label %exit\nexit:\n  ret void\n";
        assert_eq!(
            graph(body),
            Some(vec![vec![2, 1], vec![4, 2, 2, 3], vec![4], vec![4], vec![]])
        );
    }

    #[test]
    fn branches_returns_and_unreachable_are_read() {
        let body = "start:\n  br i1 %c, label %a, label %b\na:\n    #dbg_value(i32 0, !1, \
                    !DIExpression(), !2)\n  br label %b\nb:\n  call void @f()\n  unreachable\n";
        assert_eq!(graph(body), Some(vec![vec![1, 2], vec![2], vec![]]));
    }

    #[test]
    fn unmodelled_terminators_leave_no_graph() {
        for term in [
            "indirectbr ptr %p, [label %a]",
            "%r = invoke i32 @f() to label %a unwind label %a",
            "callbr void asm \"\", \"!i\"() to label %a [label %a]",
            "resume { ptr, i32 } %e",
            "call void @f()",
        ] {
            let body = format!("start:\n  {term}\na:\n  ret void\n");
            assert_eq!(graph(&body), None, "{term}");
        }
    }

    #[test]
    fn a_target_that_is_not_a_block_leaves_no_graph() {
        assert_eq!(graph("start:\n  br label %nowhere\n"), None);
    }
}
