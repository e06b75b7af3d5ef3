//! Link-time removal, from a versioned kernel's fast copy, of the bounds checks that pass for
//! every thread of a block whenever they pass for the block's corner threads: full tiles run
//! without the check, the blocks at the grid's edges run the checked copy.
//!
//! A check's index is often a block's origin plus the thread's offset in it, `(by * 12 - 2 +
//! ty) * cols + bx * 12 - 2 + tx` in HotSpot: what bounds it for one thread is the grid the
//! launch chose, which no guard of the kernel states (a grid with more blocks than tiles would
//! fail it). But such an index is an interval over the block's threads, whose ends the block
//! can compute once from its own indices: every thread's index is in `[0, len)` when the
//! interval is. CUB's full tiles and partial tiles make the same split by hand.
//!
//! For a check `idx < len` left in a fast copy of [`crate::passes::check_versioning`], the pass
//! evaluates `idx` over intervals: a thread index (`zext` of `tid.x`, `tid.y`, `tid.z`) spans
//! what the facts at the check bound it to (constants: `max_block(16, 16)` assumes it below
//! 16), else `[0, ntid - 1]`; within constants, the facts that bound it by a value the block
//! shares narrow it further, those of the guards the check is under included, even where a
//! `phi` carries them past a join ([`crate::analysis::ranges::Analysis::phi_facts`]:
//! HotSpot's store, under `if computed` after its loop, is made only by threads with
//! `valid_x_min <= tx <= valid_x_max`, which keeps the edge blocks' stores inside the grid
//! though their tiles overhang it); a value the arguments, the block indices and the block's size
//! alone determine is one point, recomputed in the fast copy's entry block (from the low
//! halves of its operands where it fits in 32 bits); `add`, `sub`, `or disjoint`, `shl` by a
//! constant and `mul` by a non-negative such value combine the ends, in 32 bits where the
//! result fits and in 64 from sign-extended operands (one `mul.wide.s32`) where it does not.
//! Each value's interval is also computed from the range analysis of
//! [`crate::passes::compare_narrowing`] (with the entry test's limits), and the check is taken only
//! when every interval lies in `(-2^62, 2^62)`: no 64-bit step then wraps, for any thread, so
//! each thread's `idx` lies between the ends the block computes. The entry block then also
//! tests `0 <= lo` and `hi < len`, uniformly for the block, and a block that fails runs the
//! checked copy; in the fast copy the check becomes `br i1 true` after an `llvm.assume` of
//! `idx < len` (what it established, read by [`crate::passes::compare_narrowing`]). A copy left
//! without any way to panic then also loses the launch token's store and barrier
//! ([`crate::passes::check_versioning::checks::without_launch_token`]).
//!
//! The test runs in every thread before its first loads (HotSpot: about a dozen instructions,
//! a 6% cost on the H100 when it still read the block's size), where the check it replaces
//! runs once: it is made only when it leaves the copy without a panic, or takes a check out of
//! a loop. Its lines also go to the host's note ([`TileTests`], [`crate::passes::check_versioning::entry_test`]) when the
//! program language has each of them: the runtime evaluates the note for every block of the
//! launch's grid, and where it holds the kernel's bit skips the tiles' test with the rest.

mod tiles;

use self::tiles::{TILE_PREFIX, Tiles};
use super::checks::{argument_names, bounds_panic, check_branch, without_launch_token};
use super::names::{ASSUMED_BLOCK, TEST_BLOCK, TILES_BLOCK};
use crate::analysis::fast_copy::PREFIX;
use crate::analysis::ranges::Analysis;
use crate::ir::blocks::{branch_targets, terminator};
use crate::ir::instructions::{strip_metadata, unsigned_less_than};
use std::collections::{HashMap, HashSet};

/// The versioned function `body` (the text [`crate::passes::check_versioning`] wrote) with the
/// checks of its fast copy that full tiles pass removed and tested per block, or `None` when
/// there is none.
pub(crate) fn apply(define: &str, body: &str) -> Option<Tiled> {
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let args = argument_names(define);
    let mut analysis = Analysis::new(&lines)?;
    let labels: Vec<Option<String>> = analysis.blocks.iter().map(|b| b.label.clone()).collect();
    let find = |label: &str| labels.iter().position(|l| l.as_deref() == Some(label));
    let assumed = find(ASSUMED_BLOCK)?;
    let tiles_block = find(TILES_BLOCK)?;
    let test = find(TEST_BLOCK)?;
    let assumed_term = terminator(&analysis.blocks[assumed], &lines).trim();
    let fast_label = match branch_targets(assumed_term) {
        Some((_, taken, _)) => taken,
        None => strip_metadata(assumed_term).strip_prefix("br label %")?,
    }
    .to_string();
    let fast_entry = find(&fast_label)?;
    let entry_facts = analysis.facts(fast_entry);
    let mut tiles = Tiles {
        lines: Vec::new(),
        defined: HashSet::new(),
        args: &args,
        counter: 0,
    };
    let mut passed = Vec::new();
    let mut checks: HashMap<usize, (String, String)> = HashMap::new();
    for (index, label) in labels.iter().enumerate() {
        if !label.as_deref().is_some_and(|l| l.starts_with(PREFIX)) {
            continue;
        }
        let block = &analysis.blocks[index];
        let Some((condition, fail)) = check_branch(terminator(block, &lines)) else {
            continue;
        };
        if bounds_panic(&analysis.blocks, &lines, fail).is_none() {
            continue;
        }
        let Some((idx, len)) = analysis
            .definition_of(condition)
            .and_then(unsigned_less_than)
            .map(|(i, l)| (i.to_string(), l.to_string()))
        else {
            continue;
        };
        let mark = tiles.lines.len();
        let (saved, counter) = (tiles.defined.clone(), tiles.counter);
        let tested = (|| {
            let mut threads = analysis.facts(index);
            threads.extend(analysis.phi_facts(index));
            let ends = tiles.interval(&mut analysis, &idx, &entry_facts, &threads, 0)?;
            let wide =
                |tiles: &mut Tiles<'_>, v: &str| tiles.op("add", (v, ends.bits), ("0", 64), 64);
            let (lo, hi) = (wide(&mut tiles, &ends.lo), wide(&mut tiles, &ends.hi));
            // The length is only compared (unsigned): any value the block shares will do.
            if !tiles.uniform(&analysis, &len, 0) {
                return None;
            }
            let len = tiles.recompute(&analysis, &len);
            Some(tiles.test(&lo, &hi, &len))
        })();
        match tested {
            Some(ok) => {
                passed.push(ok);
                checks.insert(index, (idx, len));
            }
            None => {
                tiles.lines.truncate(mark);
                tiles.defined = saved;
                tiles.counter = counter;
            }
        }
    }
    if passed.is_empty() {
        return None;
    }
    // The tests go in the tiles' block, whose branch to the assumed block they decide. It
    // follows the block-index limits' test (on the device or on the host), so the ends'
    // arithmetic is within the limits it was proved under.
    let slow = {
        let (_, _, not_taken) = branch_targets(terminator(&analysis.blocks[test], &lines))?;
        not_taken.to_string()
    };
    let tiles_term = terminator(&analysis.blocks[tiles_block], &lines).trim();
    let mut all = "true".to_string();
    let mut added = tiles.lines.concat();
    for (n, ok) in passed.iter().enumerate() {
        let name = format!("%{TILE_PREFIX}all{n}");
        added.push_str(&format!("  {name} = and i1 {all}, {ok}\n"));
        all = name;
    }
    added.push_str(&format!(
        "  br i1 {all}, label %{ASSUMED_BLOCK}, label %{slow}\n"
    ));
    let last_line = |block: usize, term: &str| {
        analysis.blocks[block]
            .lines
            .clone()
            .rev()
            .find(|&i| lines[i].trim() == term)
    };
    let tiles_last = last_line(tiles_block, tiles_term)?;
    let assumed_last = last_line(assumed, assumed_term)?;
    let mut out = String::new();
    let mut fast_copy = String::new();
    for (i, line) in lines.iter().enumerate() {
        let target = if i > assumed_last {
            &mut fast_copy
        } else {
            &mut out
        };
        if i == tiles_last {
            target.push_str(&added);
            continue;
        }
        let block = analysis.blocks.iter().position(|b| b.lines.contains(&i));
        let check = block.and_then(|b| {
            let last = analysis.blocks[b]
                .lines
                .clone()
                .rev()
                .find(|&l| lines[l].trim() == terminator(&analysis.blocks[b], &lines).trim())?;
            (last == i).then(|| Some((b, checks.get(&b)?)))?
        });
        match check {
            Some((b, (idx, len))) => {
                let (condition, _) = check_branch(line.trim())?;
                let holds = format!("%{PREFIX}holds.tile{b}");
                target.push_str(&format!(
                    "  {holds} = icmp ult i64 {idx}, {len}\n  call void @llvm.assume(i1 {holds})\n"
                ));
                target.push_str(&line.replacen(&format!("br i1 {condition},"), "br i1 true,", 1));
            }
            None => target.push_str(line),
        }
    }
    // A check outside loops runs once per thread, as the block's test does, which costs more
    // (PathFinder's one tiled check: 0.975x to 0.966x its CUDA C twin on the H100): the test
    // pays where it leaves the copy without a panic (so without the launch token's store and
    // barrier) or takes a check out of a loop.
    let in_loops = analysis.loop_blocks();
    match without_launch_token(&fast_copy) {
        Some(unpanicking) => out.push_str(&unpanicking),
        None if checks.keys().any(|b| in_loops.contains(b)) => out.push_str(&fast_copy),
        None => return None,
    }
    let lines = tiles
        .lines
        .iter()
        .flat_map(|text| text.lines())
        .filter_map(|line| {
            let (name, inst) = line.trim().split_once(" = ")?;
            Some((name.to_string(), inst.to_string()))
        })
        .collect();
    Some(Tiled {
        text: out,
        host: TileTests { lines, passed },
    })
}

/// What [`apply`] made of a versioned function.
pub(crate) struct Tiled {
    /// The function with its tiles' tests in [`TILES_BLOCK`] and their checks gone.
    pub(crate) text: String,
    /// The tests, for the host's note.
    pub(crate) host: TileTests,
}

/// The tiles' tests as the lines of [`TILES_BLOCK`] compute them: `(name, instruction)` over
/// the parameters and block indices, in order, and the names of their one-bit results, each
/// true when the block's tile passes. The runtime can make them for every block of a launch
/// (`runtime/src/vocabulary/entry_test/` evaluates the note over the whole grid), and then
/// the kernel's bit skips them with the rest of its test.
pub(crate) struct TileTests {
    pub(crate) lines: Vec<(String, String)>,
    pub(crate) passed: Vec<String>,
}

#[cfg(test)]
mod tests;
