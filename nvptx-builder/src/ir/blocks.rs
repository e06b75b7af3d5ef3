//! The basic blocks of a function body: where each starts and ends, its last instruction, and
//! the two targets of a conditional branch.

use crate::ir::instructions::strip_metadata;
use crate::ir::syntax::{block_label, is_debug_record};

/// One basic block: its label (`None` for the entry block) and the indices of its lines.
pub(crate) struct Block {
    /// The label, as `label %...` references name it.
    pub(crate) label: Option<String>,
    /// The indices of the block's lines in the body (its label line first).
    pub(crate) lines: std::ops::Range<usize>,
}

/// The block's last instruction line (debug records and blank lines skipped).
pub(crate) fn terminator<'a>(block: &Block, body: &[&'a str]) -> &'a str {
    body[block.lines.clone()]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty() && !is_debug_record(l) && !l.starts_with(';'))
        .unwrap_or("")
}

/// Splits a function body into blocks at label lines (`NAME:` at the start of a line).
pub(crate) fn split_blocks(body: &[&str]) -> Vec<Block> {
    let mut blocks = vec![Block {
        label: None,
        lines: 0..0,
    }];
    for (index, line) in body.iter().enumerate() {
        if let Some(label) = block_label(line) {
            blocks.last_mut().expect("one block").lines.end = index;
            blocks.push(Block {
                label: Some(label),
                lines: index..index,
            });
        }
    }
    blocks.last_mut().expect("one block").lines.end = body.len();
    blocks
}

/// `(condition, taken, not taken)` of `br i1 %c, label %taken, label %other`, the labels
/// without their `%`.
pub(crate) fn branch_targets(terminator: &str) -> Option<(&str, &str, &str)> {
    let rest = strip_metadata(terminator.strip_prefix("br i1 ")?);
    let parts: Vec<&str> = rest.split(", ").map(str::trim).collect();
    let [condition, taken, not_taken] = parts[..] else {
        return None;
    };
    Some((
        condition,
        taken.strip_prefix("label %")?,
        not_taken.strip_prefix("label %")?,
    ))
}
