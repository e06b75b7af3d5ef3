//! Link-time versioning of a kernel on the bounds checks its own guards already decide.
//!
//! A kernel indexes an image the way every CUDA programmer does: `if ix < width && iy <
//! height { image[iy * width + ix] }`. The guard bounds the index by `height * width`, so
//! the bounds check of `image` can fail only when the slice is shorter than `height *
//! width`: a property of the launch's arguments, the same for every thread. Yet each check
//! is a branch to the panic path inside the guarded code, and `ptxas` cannot predicate a
//! guarded load with a branch inside: a 7x7 convolution's 49 taps each stay a branchy
//! diamond (0.505x its CUDA C twin on the H100), where CUDA C issues predicated loads.
//!
//! This pass proves, for each bounds check `idx < len` of a kernel, from the conditions of
//! the branches that lead to it (the single-predecessor chain above its block, as in
//! [`crate::offset_checks`]), that `idx < b` or `idx < b * w` for values `b`, `w` below 2^32
//! that the kernel's arguments alone determine:
//!
//! - `idx < b` when a guard says `idx < b` (unsigned, or signed with both sides known
//!   non-negative); a passed check of the same index against another slice is such a guard
//!   (SpMV's `columns[k]` after `values[k]`: `b` is `values.len()`);
//! - `idx = a * w + y` (an `add` or `or disjoint` of a `mul`, either operand order) when
//!   guards say `a < b` and `y < w`: then `idx <= (b - 1) w + w - 1 < b w`, without
//!   wrapping, since `b` and `w` are below 2^32; and so on for more dimensions (`(z ny + y) nx
//!   + x < nz ny nx`, [`radix`]);
//! - a neighbour `idx ± p` of such an index, `p` the place value of one of its digits (1, `w`,
//!   `w w'`), when the guards say that digit is not at its last value (for `+`) or not 0 (for
//!   `-`): a 3-D stencil's interior reads ([`prove_step`]). A check another pass rewrote (the
//!   32-bit `1 < len - i` of [`crate::offset_checks`]) is read through the index and length
//!   its failed side reports.
//!
//! When a proved check lies in a loop, or when every bounds check of the kernel is proved (its
//! second copy then cannot panic at all), the pass versions the kernel; a lone check outside
//! loops is not worth a second copy (versioning HotSpot for its two tile loads raised it from
//! 32 to 38 registers and made it 5% slower). A new entry block computes, from the arguments,
//! whether `b <= len` (or `b * w <= len`, and for more factors each partial product, in
//! `mul.wide.u32` steps that cannot wrap) holds for every proved check, and branches to one of
//! two copies of the body: the original (its checks and their exact reports stay), or a copy
//! whose proved checks are `br i1 true` (`llc` removes them and their panic blocks), each
//! preceded by an `llvm.assume` of what it established, which [`crate::compare_narrowing`]
//! reads. The test is uniform across the grid, so no warp diverges on
//! it. In the fast copy, loops that held a proved check get `llvm.loop.unroll.disable`
//! (`.pragma "nounroll"` in the PTX): with the checks gone the guarded taps are predicated,
//! and `ptxas` unrolling the convolution's row loop to 49 predicated taps ran out of
//! predicate registers (800 SASS instructions, 0.57 ms) where the rolled loop runs 224
//! instructions in 0.37 ms (CUDA C: 0.26 ms), measured on the H100
//! (`bench/results/h100-2026-11-24-d-versioning.md`).
//!
//! Static allocas move to the new entry block (so both copies keep a static frame). Both
//! copies' local names get a prefix ([`SLOW_PREFIX`], [`PREFIX`]; numbered values could not
//! stay in order behind the new entry); arguments, globals, types, metadata and string
//! literals are left alone.

use crate::entry_test;
use crate::ir_syntax::{block_label, name_len, skip_string};
use crate::offset_checks::{
    Block, bound_of, definition, definitions, narrow_operand, split_blocks, strip_metadata,
    strip_words, terminator, trailing_metadata, unsigned_less_than,
};
use std::collections::{HashMap, HashSet};

/// Prefix of every local name of the fast copy and of the values the new entry computes.
pub(crate) const PREFIX: &str = "ferrocuda.fast.";

/// Prefix of every local name of the original body once versioned.
const SLOW_PREFIX: &str = "ferrocuda.checked.";

/// Prefix of the values the new entry block computes for its test.
const VERSION_PREFIX: &str = "ferrocuda.version.";

/// Prefix of the fast copy's assumed copies of the test's factor limits.
const ASSUMED_PREFIX: &str = "ferrocuda.assumed.";

/// The block computing the entry test.
pub(crate) const TEST_BLOCK: &str = "ferrocuda.entry.test";

/// The block entering the fast copy (its assumptions).
pub(crate) const ASSUMED_BLOCK: &str = "ferrocuda.entry.assumed";

/// Label of the block after the test that tests the block's indices against their limits: the
/// host's bit skips it with the test, having tested the whole grid.
pub(crate) const BLOCKS_BLOCK: &str = "ferrocuda.entry.blocks";

/// Label of the block before the assumed block where [`crate::tile_checks`] tests the block's
/// tiles (a branch to the assumed block until then). The tests also join the note when the
/// program language has them, and the host's bit then goes past this block to the assumed
/// one; otherwise the bit leads here.
pub(crate) const TILES_BLOCK: &str = "ferrocuda.entry.tiles";

/// Prefix of the values [`BLOCKS_BLOCK`] computes.
const BLOCKS_PREFIX: &str = "ferrocuda.blocks.";

/// The test the runtime makes on the host for a launch (the note, [`entry_test`]): `(name,
/// instruction)` lines over the entry's parameters and block indices, and the name of the one
/// whose value is the test's.
#[derive(Debug, Clone)]
struct HostTest {
    lines: Vec<(String, String)>,
    result: String,
}

impl HostTest {
    /// The test and `value` (a line's name, 1 bit), as a new last line.
    fn and(&mut self, value: &str) {
        let name = format!("%{VERSION_PREFIX}host{}", self.lines.len());
        self.lines
            .push((name.clone(), format!("and i1 {}, {value}", self.result)));
        self.result = name;
    }

    /// The note's program, or `None` when a line is not one the program language has.
    fn program(&self, define: &str) -> Option<String> {
        entry_test::program(define, &self.lines, &self.result)
    }
}

/// The fast copy is taken only when each factor widened from a 32-bit argument is below this
/// (2^30): sums and differences of such values and small offsets then fit in 32 bits.
const FACTOR_LIMIT: u64 = 1 << 30;

/// How many single-predecessor blocks the walk for a check's guards crosses at most.
const MAX_WALK: usize = 32;

/// The limits (as powers of two) tried for the arguments and block indices of a kernel
/// versioned for its 32-bit arithmetic alone, the largest first.
const NARROWING_LIMITS: [u32; 8] = [30, 24, 20, 16, 15, 14, 13, 12];

/// How many compares and addresses a fast copy versioned for its arithmetic alone must make
/// 32-bit to be worth a second copy of the kernel.
const NARROWING_WORTH: usize = 8;

/// How deep a proof or a rematerialised argument expression may nest.
const MAX_DEPTH: usize = 6;

/// The module text with its kernels versioned, or `None` when no check was proved.
pub(crate) fn apply(ir: &str) -> Option<Versioned> {
    let lines: Vec<&str> = ir.split_inclusive('\n').collect();
    let types = type_names(&lines);
    let mut next_metadata = lines
        .iter()
        .filter_map(|l| l.strip_prefix('!'))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .max()
        .map_or(0, |m| m + 1);
    let mut metadata = String::new();
    let mut unroll_disable: Option<usize> = None;
    let mut notes = Vec::new();
    let mut out = crate::ir_syntax::rewrite_bodies(ir, |define, body| {
        let mut loops = LoopMetadata {
            next: &mut next_metadata,
            unroll_disable: &mut unroll_disable,
            nodes: &mut metadata,
        };
        let (text, note) = version_function(define, body, &types, &mut loops)?;
        if let (Some(program), Some(entry)) = (note, entry_name(define)) {
            notes.push((entry, program));
        }
        Some(text)
    })?;
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if !out.contains("declare void @llvm.assume(") {
        out.push_str("declare void @llvm.assume(i1 noundef)\n");
    }
    // The tiles' tests clamp thread bounds with them ([`crate::tile_checks`]).
    crate::compare_narrowing::declare_min_max(&mut out);
    out.push_str(&metadata);
    Some(Versioned { text: out, notes })
}

/// A module with versioned kernels.
#[derive(Debug, PartialEq)]
pub(crate) struct Versioned {
    /// The module's text.
    pub(crate) text: String,
    /// `(entry, program)`: the entry tests the runtime may evaluate on the host
    /// ([`crate::entry_test`]).
    pub(crate) notes: Vec<(String, String)>,
}

/// The name of the function `define` defines (`@name(` without the `@`).
fn entry_name(define: &str) -> Option<String> {
    let at = define.find('@')?;
    let rest = &define[at + 1..];
    Some(rest[..rest.find('(')?].to_string())
}

/// The metadata nodes the fast copies' loops get, appended to the module.
struct LoopMetadata<'a> {
    /// The next free metadata number.
    next: &'a mut usize,
    /// The number of `!{!"llvm.loop.unroll.disable"}`, once emitted.
    unroll_disable: &'a mut Option<usize>,
    /// The node definitions emitted so far.
    nodes: &'a mut String,
}

impl LoopMetadata<'_> {
    /// A new distinct loop ID that disables unrolling.
    fn nounroll_loop(&mut self) -> usize {
        let disable = match *self.unroll_disable {
            Some(n) => n,
            None => {
                let n = *self.next;
                *self.next += 1;
                self.nodes
                    .push_str(&format!("!{n} = !{{!\"llvm.loop.unroll.disable\"}}\n"));
                *self.unroll_disable = Some(n);
                n
            }
        };
        let id = *self.next;
        *self.next += 1;
        self.nodes
            .push_str(&format!("!{id} = distinct !{{!{id}, !{disable}}}\n"));
        id
    }
}

/// The names of the module's identified struct types (`%T = type ...`), which share the `%`
/// sigil with local values and must not be renamed.
fn type_names(lines: &[&str]) -> HashSet<String> {
    lines
        .iter()
        .filter_map(|l| {
            let rest = l.strip_prefix('%')?;
            let n = name_len(rest);
            rest[n..]
                .starts_with(" = type ")
                .then(|| rest[..n].to_string())
        })
        .collect()
}

/// A check `idx < len` proved to pass whenever `product(factors) <= len`.
struct Proof {
    /// The block whose terminator is the check's branch.
    block: usize,
    /// Values below 2^32 whose product bounds the index (outermost first).
    factors: Vec<String>,
    /// The index the check tests (as its failed side reports it).
    index: String,
    /// The length operand of the check.
    len: String,
    /// The check's compare, when the same proof holds throughout the block that computes it:
    /// the fast copy computes it as `true`, so that its other uses (the address `select`s of
    /// [`crate::load_speculation`]) go too.
    compare: Option<String>,
}

/// A compare known to hold at a check: `a pred b`.
#[derive(Clone, PartialEq)]
pub(crate) struct Fact {
    /// The predicate, as [`canonical`] names it.
    pub(crate) pred: &'static str,
    /// The left operand.
    pub(crate) a: String,
    /// The right operand.
    pub(crate) b: String,
    /// Whether the compare carried `samesign`.
    pub(crate) samesign: bool,
}

/// The versioned body (new entry, original, fast copy) and the entry test's note program, or
/// `None` when no check is proved.
fn version_function(
    define: &str,
    body: &[&str],
    types: &HashSet<String>,
    loops: &mut LoopMetadata<'_>,
) -> Option<(String, Option<String>)> {
    let args = argument_names(define);
    let mut blocks = split_blocks(body);
    if blocks.len() > 1 && blocks[0].lines.is_empty() {
        // The body starts with a label: that block is the entry.
        blocks.remove(0);
    }
    let defs = definitions(body);
    // A body whose control flow is not modelled is left as it is (see [`crate::cfg`]).
    let succ = crate::cfg::successors(&blocks, body)?;
    let idom = immediate_dominators(&succ);
    let mut proofs = Vec::new();
    let mut checks = 0;
    for (index, block) in blocks.iter().enumerate() {
        let Some((condition, fail)) = check_branch(terminator(block, body)) else {
            continue;
        };
        let Some(failed) = bounds_panic(&blocks, body, fail) else {
            continue;
        };
        checks += 1;
        let facts = facts_at(&blocks, body, &defs, &succ, &idom, index);
        // The compare itself when it reads `idx < len`; otherwise (a check another pass
        // rewrote, such as `1 < len - base` for `base + 1`) the index and length the failed
        // side reports: that side runs exactly when `index < len` fails.
        let compared = defs
            .get(condition)
            .and_then(|inst| unsigned_less_than(inst))
            .and_then(|(idx, len)| Some((prove(idx, &facts, &defs, &args)?, idx, len)));
        let reported = || {
            let (idx, len) = failed?;
            let factors = prove(idx, &facts, &defs, &args)
                .or_else(|| prove_step(idx, &facts, &defs, &args))?;
            Some((factors, idx, len))
        };
        let Some((factors, idx, len)) = compared.or_else(reported) else {
            continue;
        };
        if remat(len, &defs, &args, 0).is_some() {
            // The compare holds throughout the block computing it when the check is proved
            // there (that block dominates the check's, so its facts hold at the check too,
            // and its proof serves for both).
            let mut factors = factors;
            let mut compare = None;
            if defs
                .get(condition)
                .and_then(|inst| unsigned_less_than(inst))
                .is_some_and(|(i, l)| i == idx && l == len)
            {
                let home = blocks.iter().position(|b| {
                    body[b.lines.clone()]
                        .iter()
                        .any(|l| definition(l).is_some_and(|(n, _)| n == condition))
                });
                let facts = home.map(|home| facts_at(&blocks, body, &defs, &succ, &idom, home));
                if home == Some(index) {
                    compare = Some(condition.to_string());
                } else if let Some(there) = facts.and_then(|f| prove(idx, &f, &defs, &args)) {
                    factors = there;
                    compare = Some(condition.to_string());
                }
            }
            proofs.push(Proof {
                block: index,
                factors,
                index: idx.to_string(),
                len: len.to_string(),
                compare,
            });
        }
    }
    // A check outside every loop runs once per thread: versioning for it alone doubles the
    // code for little (HotSpot's tile loads, with its neighbours' checks left: 32 -> 38
    // registers and 5% slower on the H100). A kernel whose every check is proved is another
    // matter: its fast copy cannot panic, so it also loses the launch token's store and
    // barrier (see [`without_launch_token`]), and is the code CUDA C compiles to.
    let cyclic = natural_loops(&succ, &idom);
    let nounroll: HashSet<usize> = cyclic
        .iter()
        .filter(|(_, body)| proofs.iter().any(|p| body.contains(&p.block)))
        .map(|&(latch, _)| latch)
        .collect();
    let all_proved = checks > 0 && proofs.len() == checks;
    // The fast copy's checks that pass for whole blocks go too, tested per block.
    // The tiles' tests join the note when the program language has their every step: the
    // host then makes them for the whole grid, and the bit goes past them to the assumed block.
    let tiled = |(text, host): (String, Option<HostTest>)| {
        let Some(tiles) = crate::tile_checks::apply(define, &text) else {
            return (text, host.and_then(|h| h.program(define)));
        };
        let with_tiles = host.as_ref().and_then(|h| {
            let mut joined = h.clone();
            joined.lines.extend(tiles.host.lines.iter().cloned());
            for passed in &tiles.host.passed {
                joined.and(passed);
            }
            joined.program(define)
        });
        match with_tiles {
            Some(program) => {
                let to_tiles = format!("i1 %{VERSION_PREFIX}vouched, label %{TILES_BLOCK},");
                let to_assumed = format!("i1 %{VERSION_PREFIX}vouched, label %{ASSUMED_BLOCK},");
                (
                    tiles.text.replacen(&to_tiles, &to_assumed, 1),
                    Some(program),
                )
            }
            None => (tiles.text, host.and_then(|h| h.program(define))),
        }
    };
    if !nounroll.is_empty() || all_proved {
        return Some(tiled(emit(
            define, body, &blocks, &defs, &args, types, &proofs, &nounroll, loops, None,
        )));
    }
    if proofs.is_empty() {
        return None;
    }
    // Proved checks outside loops, and some left: a fast copy is worth it for the 32-bit
    // arithmetic it allows, when its arguments and block indices are small. The largest
    // limit under which the most compares and addresses narrow is taken.
    // The smallest limit narrows the most (its ranges are the tightest), so it says whether
    // the copy is worth it and how many a larger limit must reach.
    let mut version = |bits: u32| {
        let versioned = emit(
            define,
            body,
            &blocks,
            &defs,
            &args,
            types,
            &proofs,
            &nounroll,
            loops,
            Some(1 << bits),
        );
        (crate::compare_narrowing::narrowed(&versioned.0), versioned)
    };
    let smallest = NARROWING_LIMITS[NARROWING_LIMITS.len() - 1];
    let (most, tightest) = version(smallest);
    if most < NARROWING_WORTH {
        return None;
    }
    for &bits in &NARROWING_LIMITS[..NARROWING_LIMITS.len() - 1] {
        let (count, versioned) = version(bits);
        if count >= most {
            return Some(tiled(versioned));
        }
    }
    Some(tiled(tightest))
}

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
    let close = crate::ir_syntax::matching_paren(&call[open..])?;
    let args = &call[open + 1..open + close];
    let operand = |arg: &'a str| {
        let value = arg.trim().rsplit(' ').next()?;
        (arg.trim_start().starts_with("i64 ") && value.starts_with('%')).then_some(value)
    };
    let mut parts = crate::ir_syntax::split_top_level(args).into_iter();
    let reported = (|| Some((operand(parts.next()?)?, operand(parts.next()?)?)))();
    Some(reported)
}

/// The immediate dominator of each block reachable from the entry (block 0), by the
/// iterative algorithm of Cooper, Harvey and Kennedy over the reverse postorder.
pub(crate) fn immediate_dominators(succ: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = succ.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    let mut stack = vec![(0usize, 0usize)];
    seen[0] = true;
    while let Some(&mut (node, ref mut next)) = stack.last_mut() {
        if let Some(&s) = succ[node].get(*next) {
            *next += 1;
            if !seen[s] {
                seen[s] = true;
                stack.push((s, 0));
            }
        } else {
            order.push(node);
            stack.pop();
        }
    }
    order.reverse();
    let mut rank = vec![usize::MAX; n];
    for (r, &b) in order.iter().enumerate() {
        rank[b] = r;
    }
    let mut preds = vec![Vec::new(); n];
    for (b, ss) in succ.iter().enumerate() {
        for &s in ss {
            preds[s].push(b);
        }
    }
    let mut idom: Vec<Option<usize>> = vec![None; n];
    idom[0] = Some(0);
    let mut changed = true;
    while changed {
        changed = false;
        for &b in order.iter().skip(1) {
            let mut new: Option<usize> = None;
            for &p in &preds[b] {
                if idom[p].is_none() {
                    continue;
                }
                new = Some(match new {
                    None => p,
                    Some(mut x) => {
                        let mut y = p;
                        while x != y {
                            while rank[x] > rank[y] {
                                x = idom[x].unwrap_or(0);
                            }
                            while rank[y] > rank[x] {
                                y = idom[y].unwrap_or(0);
                            }
                        }
                        x
                    }
                });
            }
            if new.is_some() && idom[b] != new {
                idom[b] = new;
                changed = true;
            }
        }
    }
    idom
}

/// The compares that hold when block `start`'s terminator runs: for `start` and each of its
/// dominators entered by a single edge from a conditional branch, that branch's condition
/// (or its negation), conjunctions split. A value a dominating edge decided cannot have been
/// recomputed before `start` without passing that edge again.
pub(crate) fn facts_at(
    blocks: &[Block],
    body: &[&str],
    defs: &HashMap<&str, &str>,
    succ: &[Vec<usize>],
    idom: &[Option<usize>],
    start: usize,
) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut current = start;
    for _ in 0..MAX_WALK {
        if let Some(label) = blocks[current].label.as_deref() {
            let preds: Vec<usize> = (0..succ.len())
                .filter(|&p| succ[p].contains(&current))
                .collect();
            if let [pred] = preds[..] {
                add_edge_facts(terminator(&blocks[pred], body), label, defs, &mut facts);
            }
        }
        match idom[current] {
            Some(d) if d != current => current = d,
            _ => break,
        }
        // A dominator ran to its end before `start`: what its assumptions say holds.
        for &i in body[blocks[current].lines.clone()].iter() {
            let call = strip_metadata(i.trim());
            if let Some(condition) = call
                .strip_prefix("call void @llvm.assume(i1 ")
                .or_else(|| call.strip_prefix("tail call void @llvm.assume(i1 "))
                .and_then(|c| c.strip_suffix(')'))
            {
                add_facts(condition.trim(), true, defs, &mut facts, 0);
            }
        }
    }
    facts
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

/// Adds what the edge of the branch `terminator` into the block labelled `to` says: its
/// condition, or its negation, when only one side goes there.
pub(crate) fn add_edge_facts(
    terminator: &str,
    to: &str,
    defs: &HashMap<&str, &str>,
    facts: &mut Vec<Fact>,
) {
    let Some((condition, taken, not_taken)) = branch_targets(terminator) else {
        return;
    };
    if taken == to && not_taken != to {
        add_facts(condition, true, defs, facts, 0);
    } else if not_taken == to && taken != to {
        add_facts(condition, false, defs, facts, 0);
    }
}

/// Adds what `condition == holds` says: the compare itself, or both sides of an `and` that
/// holds (`and i1`, `select i1 a, i1 b, i1 false`) or of an `or` that fails.
pub(crate) fn add_facts(
    condition: &str,
    holds: bool,
    defs: &HashMap<&str, &str>,
    facts: &mut Vec<Fact>,
    depth: usize,
) {
    let Some(inst) = defs.get(condition) else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(rest) = strip_words(inst, "icmp", &["samesign"]) {
        let samesign = inst.starts_with("icmp samesign ");
        let Some((pred, rest)) = rest.split_once(' ') else {
            return;
        };
        let operands = strip_metadata(rest);
        let Some(operands) = operands
            .strip_prefix("i64 ")
            .or_else(|| operands.strip_prefix("i32 "))
        else {
            return;
        };
        let Some((a, b)) = operands.split_once(", ") else {
            return;
        };
        let pred = if holds { pred } else { inverse(pred) };
        if let Some(pred) = canonical(pred) {
            facts.push(Fact {
                pred,
                a: a.trim().to_string(),
                b: b.trim().to_string(),
                samesign,
            });
        }
        return;
    }
    let both = |a: &str, b: &str, facts: &mut Vec<Fact>| {
        add_facts(a, holds, defs, facts, depth + 1);
        add_facts(b, holds, defs, facts, depth + 1);
    };
    if let Some(rest) = strip_words(inst, "and", &[]).filter(|_| holds) {
        if let Some((a, b)) =
            strip_metadata(rest.strip_prefix("i1 ").unwrap_or("")).split_once(", ")
        {
            both(a.trim(), b.trim(), facts);
        }
    } else if let Some(rest) = strip_words(inst, "or", &["disjoint"]).filter(|_| !holds) {
        if let Some((a, b)) =
            strip_metadata(rest.strip_prefix("i1 ").unwrap_or("")).split_once(", ")
        {
            both(a.trim(), b.trim(), facts);
        }
    } else if let Some(rest) = inst.strip_prefix("select i1 ") {
        let parts: Vec<&str> = strip_metadata(rest).split(", ").map(str::trim).collect();
        if let [a, b, c] = parts[..] {
            // `select a, b, false` is `a && b`; `select a, true, c` is `a || c`.
            let other = match (holds, b, c) {
                (true, b, "i1 false") => b.strip_prefix("i1 "),
                (false, "i1 true", c) => c.strip_prefix("i1 "),
                _ => None,
            };
            if let Some(other) = other {
                both(a, other, facts);
            }
        }
    }
}

/// The predicate that holds when `pred` fails.
pub(crate) fn inverse(pred: &str) -> &str {
    match pred {
        "ult" => "uge",
        "uge" => "ult",
        "ugt" => "ule",
        "ule" => "ugt",
        "slt" => "sge",
        "sge" => "slt",
        "sgt" => "sle",
        "sle" => "sgt",
        "eq" => "ne",
        "ne" => "eq",
        other => other,
    }
}

/// An integer compare's predicate as a `'static` name (`None` for anything else).
pub(crate) fn canonical(pred: &str) -> Option<&'static str> {
    [
        "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
    ]
    .into_iter()
    .find(|&p| p == pred)
}

/// The factors (values below 2^32, computable from the arguments, outermost first) whose
/// product bounds `idx`, when the facts prove one: the widths of [`radix`]'s digits.
fn prove(
    idx: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
) -> Option<Vec<String>> {
    let digits = radix(idx, facts, defs, args, 0, true)?;
    Some(digits.into_iter().rev().map(|(_, width)| width).collect())
}

/// `value` as a mixed-radix number, innermost digit first: `(digit, width)` pairs with each
/// digit proved below its width, and `value = ((d_n w_{n-1} + ...) w_2 + d_2) w_1 + d_1`,
/// written as nested `add`s of a `mul` (either operand order), as a 2-D or 3-D row-major
/// index is. The outermost digit is any value a fact bounds; every width is below 2^32 and
/// computable from the arguments, so `value < w_1 ... w_n` once that product is known not
/// to wrap (the entry test). With `whole`, a fact bounding `value` itself ends the search (one
/// digit); without, `value` must split into at least two digits if it can.
fn radix(
    value: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
    depth: usize,
    whole: bool,
) -> Option<Vec<(String, String)>> {
    let usable = |b: &str| {
        bound_of(b, defs, 0).is_some_and(|m| m < 1u128 << 32) && remat(b, defs, args, 0).is_some()
    };
    let leaf = || {
        let b = upper_bounds(value, facts, defs)
            .into_iter()
            .find(|b| usable(b))?;
        Some(vec![(value.to_string(), b)])
    };
    if whole && let Some(digits) = leaf() {
        return Some(digits);
    }
    if depth > MAX_DEPTH {
        return if whole { None } else { leaf() };
    }
    let Some((x, y)) = operands(value, "add", defs) else {
        return if whole { None } else { leaf() };
    };
    for (product, column) in [(&x, &y), (&y, &x)] {
        let Some((p, q)) = operands(product, "mul", defs) else {
            continue;
        };
        for (row, width) in [(&p, &q), (&q, &p)] {
            if !usable(width) || !upper_bounds(column, facts, defs).contains(width) {
                continue;
            }
            if let Some(mut digits) = radix(row, facts, defs, args, depth + 1, true) {
                digits.insert(0, (column.clone(), width.clone()));
                return Some(digits);
            }
        }
    }
    if whole { None } else { leaf() }
}

/// The factors bounding `idx` when it is a neighbour of a [`radix`] index: `base ± p` where
/// `p` is the place value of digit `j` (1, `w_1`, `w_1 w_2`, ...) and the facts say that digit
/// is not its last value (`d_j != w_j - 1`, for `+`) or not 0 (for `-`). Then the neighbour
/// has the same digits but `d_j ± 1`, still below `w_j`: a 3-D stencil's `input[i + nx]` in
/// the interior, where `y != ny - 1`. Its bound is the base's.
fn prove_step(
    idx: &str,
    facts: &[Fact],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
) -> Option<Vec<String>> {
    for (base, step, up) in steps_of(idx, defs) {
        let Some(digits) = radix(&base, facts, defs, args, 0, false) else {
            continue;
        };
        for j in 0..digits.len() {
            if !is_place_value(&step, &digits[..j], defs) {
                continue;
            }
            let (digit, width) = &digits[j];
            let room = if up {
                below_last(digit, width, facts, defs)
            } else {
                nonzero(digit, facts, defs)
            };
            if room {
                return Some(digits.into_iter().rev().map(|(_, width)| width).collect());
            }
        }
    }
    None
}

/// The readings `(base, step, up)` of `idx` as `base + step` (`up`) or `base - step`: an
/// `add` (either operand the base), a `sub`, or an `add` of the constant -1 (`base - 1`).
fn steps_of(idx: &str, defs: &HashMap<&str, &str>) -> Vec<(String, String, bool)> {
    if let Some((a, b)) = operands(idx, "add", defs) {
        if b == "-1" {
            return vec![(a, "1".to_string(), false)];
        }
        return vec![(a.clone(), b.clone(), true), (b, a, true)];
    }
    operands(idx, "sub", defs)
        .map(|(a, b)| (a, b, false))
        .into_iter()
        .collect()
}

/// Whether `step` is the place value of the digit after `inner`: 1 for the first digit, else
/// the product of `inner`'s widths (as a tree of `mul`s in any order).
fn is_place_value(step: &str, inner: &[(String, String)], defs: &HashMap<&str, &str>) -> bool {
    if inner.is_empty() {
        return step == "1";
    }
    let mut want: Vec<&str> = inner.iter().map(|(_, w)| source(w, defs)).collect();
    let mut have = Vec::new();
    let mut stack = vec![step.to_string()];
    while let Some(v) = stack.pop() {
        if have.len() > inner.len() {
            return false;
        }
        match operands(&v, "mul", defs) {
            Some((a, b)) => stack.extend([a, b]),
            None => have.push(source(&v, defs).to_string()),
        }
    }
    want.sort_unstable();
    have.sort_unstable();
    want == have
}

/// The 32-bit value a widened `value` came from, else `value`: a fact may compare either.
fn source<'a>(value: &'a str, defs: &HashMap<&str, &'a str>) -> &'a str {
    narrow_operand(value, defs).unwrap_or(value)
}

/// Whether the facts say `digit != width - 1` (or `digit < width - 1`).
fn below_last(digit: &str, width: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> bool {
    let is_digit = |v: &str| source(v, defs) == source(digit, defs);
    let is_last = |v: &str| {
        operands(v, "add", defs)
            .or_else(|| operands32(v, defs))
            .is_some_and(|(w, minus)| minus == "-1" && source(&w, defs) == source(width, defs))
    };
    facts.iter().any(|f| match f.pred {
        "ne" => (is_digit(&f.a) && is_last(&f.b)) || (is_last(&f.a) && is_digit(&f.b)),
        "ult" => is_digit(&f.a) && is_last(&f.b),
        "ugt" => is_last(&f.a) && is_digit(&f.b),
        _ => false,
    })
}

/// The operands of a 32-bit `add` (flags ignored).
fn operands32(value: &str, defs: &HashMap<&str, &str>) -> Option<(String, String)> {
    let rest = strip_words(defs.get(value)?, "add", &["nuw", "nsw"])?;
    let (a, b) = strip_metadata(rest.strip_prefix("i32 ")?).split_once(", ")?;
    Some((a.trim().to_string(), b.trim().to_string()))
}

/// Whether the facts say `digit != 0` (or `digit > 0`).
fn nonzero(digit: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> bool {
    let is_digit = |v: &str| source(v, defs) == source(digit, defs);
    facts.iter().any(|f| match f.pred {
        "ne" => (is_digit(&f.a) && f.b == "0") || (f.a == "0" && is_digit(&f.b)),
        "ugt" => is_digit(&f.a) && f.b == "0",
        "ult" => f.a == "0" && is_digit(&f.b),
        _ => false,
    })
}

/// The operands of `value` as a 64-bit `add` (or `or disjoint`) or `mul`, flags ignored (the
/// proofs bound the operands, so nothing wraps): the instruction itself, or the value of an
/// overflow-checked `llvm.uadd.with.overflow` / `llvm.umul.with.overflow` (builds with
/// overflow checks).
fn operands(value: &str, opcode: &str, defs: &HashMap<&str, &str>) -> Option<(String, String)> {
    let inst = defs.get(value)?;
    let pair = |list: &str| {
        let (a, b) = strip_metadata(list).split_once(", ")?;
        Some((a.trim().to_string(), b.trim().to_string()))
    };
    if let Some(rest) = strip_words(inst, opcode, &["nuw", "nsw"]) {
        return pair(rest.strip_prefix("i64 ")?);
    }
    if opcode == "add" && inst.starts_with("or disjoint i64 ") {
        return pair(&inst["or disjoint i64 ".len()..]);
    }
    let aggregate = strip_metadata(inst)
        .strip_prefix("extractvalue { i64, i1 } ")?
        .strip_suffix(", 0")?;
    let call = defs.get(aggregate)?;
    let intrinsic = format!("@llvm.u{opcode}.with.overflow.i64(");
    let args = &call[call.find(&intrinsic)? + intrinsic.len()..];
    let args = &args[..args.find(')')?];
    let (a, b) = pair(args)?;
    Some((
        a.strip_prefix("i64 ")?.to_string(),
        b.strip_prefix("i64 ")?.to_string(),
    ))
}

/// The values `b` the facts prove `value < b` (unsigned) for.
fn upper_bounds(value: &str, facts: &[Fact], defs: &HashMap<&str, &str>) -> Vec<String> {
    let mut bounds = Vec::new();
    for f in facts {
        let (lesser, greater, signed) = match f.pred {
            "ult" => (&f.a, &f.b, false),
            "ugt" => (&f.b, &f.a, false),
            "slt" => (&f.a, &f.b, true),
            "sgt" => (&f.b, &f.a, true),
            _ => continue,
        };
        if lesser != value {
            continue;
        }
        // `value <s b` with both non-negative is `value <u b`.
        if signed && !(non_negative(value, facts, defs, 0) && non_negative(greater, facts, defs, 0))
        {
            continue;
        }
        bounds.push(greater.clone());
    }
    // `zext x < zext y` when `x < y` as `i32` values (unsigned).
    if let Some(narrow) = narrow_operand(value, defs) {
        for f in facts {
            let (lesser, greater) = match f.pred {
                "ult" => (&f.a, &f.b),
                "ugt" => (&f.b, &f.a),
                _ => continue,
            };
            if lesser == narrow {
                bounds.extend(
                    defs.keys()
                        .filter(|d| narrow_operand(d, defs) == Some(greater.as_str()))
                        .map(|d| d.to_string()),
                );
            }
        }
    }
    bounds
}

/// Whether `value` is known to be at least 0 as a signed 64-bit integer.
fn non_negative(value: &str, facts: &[Fact], defs: &HashMap<&str, &str>, depth: usize) -> bool {
    if let Ok(c) = value.parse::<i128>() {
        return (0..1i128 << 63).contains(&c);
    }
    if bound_of(value, defs, 0).is_some_and(|m| m < 1u128 << 63) {
        return true;
    }
    if depth > MAX_DEPTH {
        return false;
    }
    let stated = facts.iter().any(|f| {
        f.a == value
            && ((f.pred == "sgt" && f.b.parse::<i128>().is_ok_and(|c| c >= -1))
                || (f.pred == "sge" && f.b.parse::<i128>().is_ok_and(|c| c >= 0)))
    });
    if stated {
        return true;
    }
    // `value = x + (-c)` with `x >= c` and `x` non-negative: `value` is in `[0, 2^63 - c)`.
    let Some(inst) = defs.get(value) else {
        return false;
    };
    let Some(rest) = strip_words(inst, "add", &["nuw", "nsw"]) else {
        return false;
    };
    let Some((x, c)) = strip_metadata(rest.strip_prefix("i64 ").unwrap_or("")).split_once(", ")
    else {
        return false;
    };
    let (x, Ok(c)) = (x.trim(), c.trim().parse::<i128>()) else {
        return false;
    };
    if c >= 0 {
        // `x + c` with both non-negative stays non-negative only without signed wrap.
        let no_signed_wrap = inst.starts_with("add nuw nsw ") || inst.starts_with("add nsw ");
        return no_signed_wrap && non_negative(x, facts, defs, depth + 1);
    }
    facts.iter().any(|f| {
        let Ok(k) = f.b.parse::<i128>() else {
            return false;
        };
        // `x >u k` means `x >= k + 1`; `samesign` with `k >= 0` says `x` is non-negative.
        let at_least = match f.pred {
            "ugt" => k + 1,
            "uge" => k,
            _ => return false,
        };
        f.a == x
            && k >= 0
            && at_least >= -c
            && (f.samesign || non_negative(x, facts, defs, depth + 1))
    })
}

/// The instructions (in order, as `(name, instruction)`) that compute `value` from the
/// function's arguments and constants alone, or `None` when it depends on anything else.
fn remat<'a>(
    value: &str,
    defs: &HashMap<&'a str, &'a str>,
    args: &HashSet<String>,
    depth: usize,
) -> Option<Vec<(&'a str, &'a str)>> {
    if !value.starts_with('%') || args.contains(value) {
        return Some(Vec::new());
    }
    if depth > MAX_DEPTH {
        return None;
    }
    let (&name, &inst) = defs.get_key_value(value)?;
    let operands = remat_operands(inst)?;
    let mut out = Vec::new();
    for operand in operands {
        for def in remat(operand, defs, args, depth + 1)? {
            if !out.contains(&def) {
                out.push(def);
            }
        }
    }
    out.push((name, inst));
    Some(out)
}

/// The operands of an instruction [`remat`] can recompute: a cast (`zext`, `sext`, `trunc`)
/// or two-operand integer arithmetic; `None` for anything else.
pub(crate) fn remat_operands(inst: &str) -> Option<Vec<&str>> {
    let opcode = inst.split(' ').next()?;
    match opcode {
        "zext" | "sext" | "trunc" => {
            let rest = strip_words(inst, opcode, &["nneg", "nuw", "nsw"])?;
            let (_, rest) = rest.split_once(' ')?;
            Some(vec![rest.split(" to ").next()?.trim()])
        }
        "and" | "or" | "xor" | "add" | "sub" | "mul" | "shl" | "lshr" => {
            let rest = strip_words(inst, opcode, &["nuw", "nsw", "disjoint", "exact"])?;
            let (_, rest) = rest.split_once(' ')?;
            Some(strip_metadata(rest).split(", ").map(str::trim).collect())
        }
        _ => None,
    }
}

/// The operands of `inst` when it computes an integer from them alone: those of
/// [`remat_operands`], of an `icmp`, of a `select` and of a call to an integer `min`/`max`
/// intrinsic (`llvm.umin.i32`, ...). No memory, no side effect: the same operands give the
/// same value wherever and whenever it is computed.
pub(crate) fn pure_operands(inst: &str) -> Option<Vec<&str>> {
    /// The last word of each operand (its type before it).
    fn values(list: &str) -> Vec<&str> {
        list.split(", ")
            .map(|o| o.trim().rsplit(' ').next().unwrap_or(""))
            .collect()
    }
    if let Some(operands) = remat_operands(inst) {
        return Some(operands);
    }
    let inst = strip_metadata(inst);
    if let Some(rest) = strip_words(inst, "icmp", &["samesign"]) {
        let (_, operands) = rest.split_once(' ')?;
        let (ty, operands) = operands.split_once(' ')?;
        return ty.starts_with('i').then(|| values(operands));
    }
    if let Some(rest) = inst.strip_prefix("select i1 ") {
        let operands = values(rest);
        return (operands.len() == 3).then_some(operands);
    }
    let call = inst
        .strip_prefix("tail ")
        .unwrap_or(inst)
        .strip_prefix("call i")?;
    let (_, callee) = call.split_once(" @llvm.")?;
    let (name, rest) = callee.split_once('(')?;
    let (op, ty) = name.split_once('.')?;
    let integer = ty
        .strip_prefix('i')
        .is_some_and(|w| w.parse::<u32>().is_ok());
    let operands = values(rest.strip_suffix(')')?);
    (["umin", "umax", "smin", "smax"].contains(&op) && integer && operands.len() == 2)
        .then_some(operands)
}

/// The versioned body: the new entry, the original body and the fast copy, each with its
/// local names prefixed (so that neither keeps numbered values out of order).
#[allow(clippy::too_many_arguments)]
fn emit(
    define: &str,
    body: &[&str],
    blocks: &[Block],
    defs: &HashMap<&str, &str>,
    args: &HashSet<String>,
    types: &HashSet<String>,
    proofs: &[Proof],
    nounroll: &HashSet<usize>,
    loops: &mut LoopMetadata<'_>,
    narrowing: Option<u64>,
) -> (String, Option<HostTest>) {
    let entry_label = blocks[0]
        .label
        .clone()
        .unwrap_or_else(|| entry_number(define).to_string());
    let is_alloca = |i: usize| {
        blocks[0].lines.contains(&i)
            && definition(body[i]).is_some_and(|(_, inst)| inst.starts_with("alloca "))
    };
    let fast = |text: &str| rename(text, PREFIX, args, types);
    let slow = |text: &str| rename(text, SLOW_PREFIX, args, types);
    let test_value = |text: &str| rename(text, VERSION_PREFIX, args, types);
    let mut out = String::new();
    // The new entry: the allocas of both copies, the test, the branch.
    for (i, line) in body.iter().enumerate() {
        if is_alloca(i) {
            out.push_str(&slow(line));
            out.push_str(&fast(line));
        }
    }
    // The test, as `(name, instruction)` lines (also the runtime's note, [`entry_test`]).
    let mut test: Vec<(String, String)> = Vec::new();
    let mut seen = Vec::new();
    let mut tests = Vec::new();
    for proof in proofs {
        let key = (proof.factors.clone(), proof.len.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        for value in proof.factors.iter().chain(std::iter::once(&proof.len)) {
            for (name, inst) in remat(value, defs, args, 0).unwrap_or_default() {
                let name = test_value(name);
                if !test.iter().any(|(n, _)| *n == name) {
                    test.push((name, test_value(strip_debug(inst))));
                }
            }
        }
        // The product in steps, each partial product tested too: the first multiplies two
        // values below 2^32; each later one multiplies the low half of a partial product,
        // which is the whole of it when the partial product is below 2^32. That is tested
        // (`partial <= len` alone does not give it: a length may pass 2^32, with
        // `large_buffers` or for a slice the kernel derives, such as `as_flattened`), and
        // when a test fails the result does not matter. Every step is one `mul.wide.u32`, and
        // the test is exact for every length.
        let n = tests.len();
        let len = test_value(&proof.len);
        let mut product = test_value(&proof.factors[0]);
        for (k, width) in proof.factors.iter().enumerate().skip(1) {
            if k > 1 {
                let partial = format!("%{VERSION_PREFIX}fits{n}.{k}");
                let narrow = format!("%{VERSION_PREFIX}narrow{n}.{k}");
                let low = format!("%{VERSION_PREFIX}low{n}.{k}");
                test.push((partial.clone(), format!("icmp ule i64 {product}, {len}")));
                test.push((
                    narrow.clone(),
                    format!("icmp ult i64 {product}, 4294967296"),
                ));
                test.push((low.clone(), format!("trunc i64 {product} to i32")));
                test.push((format!("{low}.wide"), format!("zext i32 {low} to i64")));
                tests.push(partial);
                tests.push(narrow);
                product = format!("{low}.wide");
            }
            let name = match k {
                1 => format!("%{VERSION_PREFIX}product{n}"),
                _ => format!("%{VERSION_PREFIX}product{n}.{k}"),
            };
            test.push((
                name.clone(),
                format!("mul nuw i64 {product}, {}", test_value(width)),
            ));
            product = name;
        }
        let fits = format!("%{VERSION_PREFIX}fits{n}");
        test.push((fits.clone(), format!("icmp ule i64 {product}, {len}")));
        tests.push(fits);
    }
    // Factors widened from a 32-bit argument also get a limit, so that the fast copy's index
    // arithmetic around them provably fits in 32 bits ([`crate::compare_narrowing`]).
    let mut limited: Vec<&str> = Vec::new();
    let mut limits: Vec<String> = Vec::new();
    for proof in proofs {
        for factor in &proof.factors {
            let Some(arg) = narrow_operand(factor, defs).filter(|a| args.contains(*a)) else {
                continue;
            };
            if limited.contains(&arg) {
                continue;
            }
            let small = format!("%{VERSION_PREFIX}small{}", limited.len());
            limited.push(arg);
            test.push((small.clone(), format!("icmp ult i32 {arg}, {FACTOR_LIMIT}")));
            tests.push(small.clone());
            limits.push(small);
        }
    }
    // With narrowing limits, the 32-bit arguments the index arithmetic widens get one too
    // (HotSpot's `iteration` and borders, whose products with block indices must fit), and
    // the block indices the kernel reads are tested per block in the assumed block below.
    if let Some(limit) = narrowing {
        for arg in widened_arguments(define, body) {
            if limited.contains(&arg.as_str()) {
                continue;
            }
            let small = format!("%{VERSION_PREFIX}small{}", limits.len());
            test.push((small.clone(), format!("icmp ult i32 {arg}, {limit}")));
            tests.push(small.clone());
            limits.push(small);
        }
    }
    let mut all = tests[0].clone();
    for (n, next) in tests.iter().enumerate().skip(1) {
        let name = format!("%{VERSION_PREFIX}all{n}");
        test.push((name.clone(), format!("and i1 {all}, {next}")));
        all = name;
    }
    let lines: String = test
        .iter()
        .map(|(name, inst)| format!("  {name} = {inst}\n"))
        .collect();
    // With narrowing limits the block indices the kernel reads are limited too: each block
    // tests its own in the blocks' block below, and the host tests them for the whole grid
    // (at its last block) as part of the note.
    let mut blocks_test: Vec<(String, String)> = Vec::new();
    let mut block_limits = Vec::new();
    if let Some(limit) = narrowing {
        for axis in ["x", "y", "z"] {
            let register = format!("@llvm.nvvm.read.ptx.sreg.ctaid.{axis}()");
            if !body.iter().any(|l| l.contains(&register)) {
                continue;
            }
            let name = format!("%{BLOCKS_PREFIX}ctaid.{axis}");
            blocks_test.push((format!("{name}.value"), format!("call i32 {register}")));
            blocks_test.push((name.clone(), format!("icmp ult i32 {name}.value, {limit}")));
            block_limits.push((axis, register, name));
        }
    }
    // The note: the entry test and the block-index limits, written only for an entry with a
    // launch token (which carries the runtime's answer).
    let mut host = HostTest {
        lines: test.iter().chain(&blocks_test).cloned().collect(),
        result: all.clone(),
    };
    for (_, _, name) in &block_limits {
        host.and(name);
    }
    let host = entry_test::launch_token(define, body)
        .filter(|_| host.program(define).is_some())
        .map(|token| (token, host));
    // The entry: with a launch token, its bit [`entry_test::ENTRY_TEST_TOKEN_BIT`] says the
    // runtime found the note's test true on the host for every block, and the kernel goes
    // straight to its tiles' tests, if any, and the fast copy; otherwise the kernel computes
    // the test.
    match &host {
        Some((token, _)) => out.push_str(&format!(
            "  %{VERSION_PREFIX}vouched.bit = and i64 {token}, {bit}\n  \
             %{VERSION_PREFIX}vouched = icmp ne i64 %{VERSION_PREFIX}vouched.bit, 0\n  \
             br i1 %{VERSION_PREFIX}vouched, label %{TILES_BLOCK}, label %{TEST_BLOCK}\n",
            bit = entry_test::ENTRY_TEST_TOKEN_BIT
        )),
        None => out.push_str(&format!("  br label %{TEST_BLOCK}\n")),
    }
    let entry = format!("%{entry_label}");
    out.push_str(&format!(
        "\n{TEST_BLOCK}:\n{lines}  br i1 {all}, label %{BLOCKS_BLOCK}, label {}\n",
        slow(&entry)
    ));
    // The block's own tests (its indices' limits, then [`crate::tile_checks`]' tiles), made
    // by every thread of the block alike: a block that fails runs the checked copy.
    let mut blocks_block = format!("\n{BLOCKS_BLOCK}:\n");
    let mut passed = "true".to_string();
    for (name, inst) in &blocks_test {
        blocks_block.push_str(&format!("  {name} = {inst}\n"));
        if inst.starts_with("icmp ") {
            let joined = format!("{name}.all");
            blocks_block.push_str(&format!("  {joined} = and i1 {passed}, {name}\n"));
            passed = joined;
        }
    }
    blocks_block.push_str(&if passed == "true" {
        format!("  br label %{TILES_BLOCK}\n")
    } else {
        format!(
            "  br i1 {passed}, label %{TILES_BLOCK}, label {}\n",
            slow(&entry)
        )
    });
    blocks_block.push_str(&format!("\n{TILES_BLOCK}:\n  br label %{ASSUMED_BLOCK}\n"));
    // The fast copy is entered through a block that assumes the factors' and block indices'
    // limits: the facts the passes after this one read ([`crate::compare_narrowing`]) hold on
    // every way in (the host vouched for them, or the blocks before tested them). The limits
    // compare arguments and block indices with constants, so the block costs `llc` no register
    // and no instruction; recomputing the whole test there (products and all) took the
    // convolution from 32 to 35 registers in the driver's JIT and from 1.02x to 0.95x its CUDA
    // C twin. Written just before the fast copy, which keeps `llc`'s layout of the blocks as it
    // was with the test in the entry (the checked copy first).
    let mut assumptions: String = limits
        .iter()
        .map(|small| {
            let (_, inst) = test
                .iter()
                .find(|(name, _)| name == small)
                .expect("a limit");
            let name = small.replacen(VERSION_PREFIX, ASSUMED_PREFIX, 1);
            format!("  {name} = {inst}\n  call void @llvm.assume(i1 {name})\n")
        })
        .collect();
    if let Some(limit) = narrowing {
        for (axis, register, _) in &block_limits {
            let name = format!("%{ASSUMED_PREFIX}ctaid.{axis}");
            assumptions.push_str(&format!(
                "  {name}.value = call i32 {register}\n  \
                 {name} = icmp ult i32 {name}.value, {limit}\n  \
                 call void @llvm.assume(i1 {name})\n"
            ));
        }
    }
    let assumed_block = format!(
        "{blocks_block}\n{ASSUMED_BLOCK}:\n{assumptions}  br label {}\n",
        fast(&entry)
    );
    // The original body, then the fast copy without its proved checks.
    let mut whole = out;
    let proved: HashMap<usize, &Proof> = proofs.iter().map(|p| (p.block, p)).collect();
    for prefix in [SLOW_PREFIX, PREFIX] {
        let mut out = String::new();
        if prefix == PREFIX {
            whole.push_str(&assumed_block);
        }
        let copy = |text: &str| rename(text, prefix, args, types);
        for (index, block) in blocks.iter().enumerate() {
            let label = block.label.as_deref().unwrap_or(&entry_label);
            out.push_str(&format!("\n{}:\n", &copy(&format!("%{label}"))[1..]));
            let last = block
                .lines
                .clone()
                .rev()
                .find(|&i| body[i].trim() == terminator(block, body));
            for i in block.lines.clone() {
                let line = body[i];
                if is_alloca(i) || block_label(line).is_some() || line.trim().is_empty() {
                    continue;
                }
                let mut text = copy(line);
                let proved_compare = definition(line)
                    .map(|(name, _)| name)
                    .filter(|&name| proofs.iter().any(|p| p.compare.as_deref() == Some(name)));
                if let Some(name) = proved_compare.filter(|_| prefix == PREFIX) {
                    text = format!("  {} = and i1 true, true\n", copy(name));
                }
                if Some(i) == last && prefix == PREFIX {
                    let decided = proved
                        .get(&index)
                        .and_then(|p| Some((p, check_branch(line.trim())?)));
                    if let Some((proof, (condition, _))) = decided {
                        // The check goes; what it established stays for the passes after
                        // this one ([`crate::compare_narrowing`] reads it as a fact).
                        let holds = format!("%{PREFIX}holds.{index}");
                        out.push_str(&format!(
                            "  {holds} = icmp ult i64 {}, {}\n  call void @llvm.assume(i1 {holds})\n",
                            fast(&proof.index),
                            fast(&proof.len)
                        ));
                        text =
                            text.replacen(&format!("br i1 {},", fast(condition)), "br i1 true,", 1);
                    }
                    if nounroll.contains(&index) {
                        text = disable_unrolling(&text, loops);
                    }
                }
                out.push_str(&text);
            }
        }
        if prefix == PREFIX {
            out = without_launch_token(&out).unwrap_or(out);
        }
        whole.push_str(&out);
    }
    (whole, host.map(|(_, host)| host))
}

/// The 32-bit parameters of `define` that `body` widens to 64 bits (`zext`/`sext i32 %n to
/// i64`), in parameter order.
fn widened_arguments(define: &str, body: &[&str]) -> Vec<String> {
    entry_test::parameters(define)
        .into_iter()
        .filter(|(ty, name)| {
            ty == "i32"
                && body.iter().any(|l| {
                    definition(l).is_some_and(|(_, inst)| {
                        let inst = strip_metadata(inst);
                        ["zext", "sext"].iter().any(|op| {
                            strip_words(inst, op, &["nneg"])
                                .is_some_and(|r| r == format!("i32 {name} to i64"))
                        })
                    })
                })
        })
        .map(|(_, name)| name)
        .collect()
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
            // An empty `asm` (the anchor [`crate::load_speculation`] gives a speculated load)
            // reads nothing.
            let empty_asm = line.starts_with("call void asm sideeffect \"\", ");
            let calls_out = line.contains("call ") && !line.contains("@llvm.") && !empty_asm;
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
        !l.is_empty() && !crate::ir_syntax::is_debug_record(l) && block_label(lines[i]).is_none()
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

/// The number the unlabelled entry block takes: one past the numbered parameters.
fn entry_number(define: &str) -> usize {
    argument_names(define)
        .iter()
        .filter_map(|a| a.strip_prefix('%')?.parse::<usize>().ok())
        .max()
        .map_or(0, |m| m + 1)
}

/// The terminator `text` with a new loop ID that disables unrolling (replacing any it had).
fn disable_unrolling(text: &str, loops: &mut LoopMetadata<'_>) -> String {
    let id = loops.nounroll_loop();
    let body = text.trim_end();
    let kept: String = match body.find(", !llvm.loop !") {
        Some(at) => {
            let after = &body[at + ", !llvm.loop !".len()..];
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            format!("{}{}", &body[..at], &after[digits..])
        }
        None => body.to_string(),
    };
    format!("{kept}, !llvm.loop !{id}\n")
}

/// The natural loops: for each back edge `latch -> header` (the header dominates the latch),
/// the latch and the blocks of the loop (those that reach the latch without the header).
pub(crate) fn natural_loops(
    succ: &[Vec<usize>],
    idom: &[Option<usize>],
) -> Vec<(usize, HashSet<usize>)> {
    let dominates = |a: usize, b: usize| dominates(idom, a, b);
    let mut loops = Vec::new();
    for (latch, targets) in succ.iter().enumerate() {
        if idom[latch].is_none() {
            continue;
        }
        for &header in targets {
            if !dominates(header, latch) {
                continue;
            }
            let mut body: HashSet<usize> = [header, latch].into_iter().collect();
            let mut stack = vec![latch];
            while let Some(b) = stack.pop() {
                if b == header {
                    continue;
                }
                for (p, ss) in succ.iter().enumerate() {
                    if ss.contains(&b) && idom[p].is_some() && body.insert(p) {
                        stack.push(p);
                    }
                }
            }
            loops.push((latch, body));
        }
    }
    loops
}

/// Whether block `a` dominates block `b` (each block dominates itself), by the immediate
/// dominators [`immediate_dominators`] gives.
pub(crate) fn dominates(idom: &[Option<usize>], a: usize, mut b: usize) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b] {
            Some(d) if d != b => b = d,
            _ => return false,
        }
    }
}

/// An instruction without its `!dbg` and other attachments (the new entry has no location).
fn strip_debug(inst: &str) -> &str {
    let tail = trailing_metadata(inst);
    &inst[..inst.len() - tail.len()]
}

/// `text` with every local name that is not a parameter or a type given `prefix`.
fn rename(text: &str, prefix: &str, args: &HashSet<String>, types: &HashSet<String>) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 64);
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b';' => break,
            b'%' => {
                let n = name_len(&text[i + 1..]);
                let name = &text[i + 1..i + 1 + n];
                if n > 0 && !args.contains(&text[i..i + 1 + n]) && !types.contains(name) {
                    out.push_str(&text[copied..=i]);
                    match name.strip_prefix('"') {
                        Some(inner) => out.push_str(&format!("\"{prefix}{inner}")),
                        None => out.push_str(&format!("{prefix}{name}")),
                    }
                    copied = i + 1 + n;
                }
                i += 1 + n;
            }
            _ => i += 1,
        }
    }
    out.push_str(&text[copied..]);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A convolution's row loop as `opt` leaves it: the guard `0 <= iy < h && x < w` around
    /// the checked read of `image[iy * w + x]` (`iy >= 0` written `iy + 3 >u 2` with
    /// `samesign`), a checked store after the loop.
    /// A convolution row loop: a 2-D guarded read in a loop of seven, as rustc writes it.
    pub(crate) const TAPS: &str = "\
%T = type { i64 }

define ptx_kernel void @taps(ptr %0, i64 %1, ptr %2, i64 %3, i32 %4, i32 %5, i64 %6) {
  %8 = and i64 %1, 4294967295
  %9 = and i64 %3, 4294967295
  %10 = zext i32 %4 to i64
  %11 = zext i32 %5 to i64
  %12 = zext i32 %4 to i64
  %13 = icmp ult i64 %6, %10
  br i1 %13, label %pre, label %40

pre:                                              ; preds = %7
  br label %14

14:                                               ; preds = %pre, %30
  %15 = phi i64 [ 0, %pre ], [ %31, %30 ]
  %16 = phi float [ 0.0, %pre ], [ %32, %30 ]
  %17 = add nuw nsw i64 %15, %6
  %18 = add nsw i64 %17, -3
  %19 = icmp samesign ugt i64 %17, 2
  %20 = icmp slt i64 %18, %11
  %21 = select i1 %19, i1 %20, i1 false, !dbg !5
  br i1 %21, label %22, label %30

22:                                               ; preds = %14
  %23 = mul nuw nsw i64 %18, %10
  %24 = add nuw nsw i64 %23, %6
  %25 = icmp ult i64 %24, %8, !dbg !6
  br i1 %25, label %26, label %29, !dbg !6

26:                                               ; preds = %22
  %27 = getelementptr inbounds float, ptr %0, i64 %24
  %28 = load float, ptr %27, align 4
  br label %30

29:                                               ; preds = %22
  call void @panic_bounds_check(i64 %24, i64 %8)
  unreachable

30:                                               ; preds = %26, %14
  %32 = phi float [ %28, %26 ], [ %16, %14 ]
  %31 = add nuw nsw i64 %15, 1
  %33 = icmp ult i64 %31, 7
  br i1 %33, label %14, label %34, !llvm.loop !7

34:                                               ; preds = %30
  %35 = mul nuw nsw i64 %6, %12
  %36 = icmp ult i64 %35, %9
  br i1 %36, label %37, label %39

37:                                               ; preds = %34
  %38 = getelementptr inbounds float, ptr %2, i64 %35
  store float %32, ptr %38, align 4
  br label %40

39:                                               ; preds = %34
  call void @panic_bounds_check(i64 %35, i64 %9)
  unreachable

40:
  ret void
}

!5 = !{}
!6 = !{}
!7 = distinct !{!7}
";

    /// A 3-D 7-point stencil as rustc and the earlier passes leave it: `i = (z ny + y) nx + x`
    /// under `x < nx`, `y < ny`, `z < nz`, the interior test (no coordinate 0 or last), then
    /// the checks of `i`, `i - 1` and `i + 1` (in the forms [`crate::offset_checks`] gives
    /// them), `i + nx ny`, `i - nx`, and the output's `i`. No loop.
    pub(crate) const STENCIL: &str = "\
define ptx_kernel void @stencil(ptr %0, i64 %1, ptr %2, i64 %3, i32 %4, i32 %5, i32 %6, i32 %7, i32 %8, i32 %9) {
  %11 = and i64 %1, 4294967295
  %12 = and i64 %3, 4294967295
  %13 = icmp ult i32 %7, %4
  %14 = icmp ult i32 %8, %5
  %15 = and i1 %13, %14
  %16 = icmp ult i32 %9, %6
  %17 = and i1 %15, %16
  br i1 %17, label %guarded, label %done

guarded:
  %nx = zext i32 %4 to i64
  %ny = zext i32 %5 to i64
  %nz = zext i32 %6 to i64
  %x = zext i32 %7 to i64
  %y = zext nneg i32 %8 to i64
  %z = zext nneg i32 %9 to i64
  %zy = mul nuw nsw i64 %ny, %z
  %row = add nuw nsw i64 %zy, %y
  %rowx = mul i64 %row, %nx
  %i = add i64 %rowx, %x
  %e1 = icmp eq i32 %7, 0
  %e2 = icmp eq i32 %8, 0
  %o1 = or i1 %e1, %e2
  %e3 = icmp eq i32 %9, 0
  %o2 = or i1 %e3, %o1
  %nx1 = add nsw i64 %nx, -1
  %e4 = icmp eq i64 %nx1, %x
  %o3 = or i1 %o2, %e4
  %ny1 = add nsw i64 %ny, -1
  %e5 = icmp eq i64 %ny1, %y
  %o4 = or i1 %o3, %e5
  %nz1 = add nsw i64 %nz, -1
  %e6 = icmp eq i64 %nz1, %z
  %o5 = or i1 %o4, %e6
  br i1 %o5, label %done, label %interior

interior:
  %c0 = icmp ult i64 %i, %11
  br i1 %c0, label %left, label %fail0

fail0:
  call void @panic_bounds_check(i64 %i, i64 noundef range(i64 0, 4294967296) %11)
  unreachable

left:
  %im1 = add nsw i64 %i, -1
  %b1 = trunc i64 %i to i32
  %c1 = icmp ule i32 1, %b1
  br i1 %c1, label %right, label %fail1

fail1:
  call void @panic_bounds_check(i64 %im1, i64 %11)
  unreachable

right:
  %q = getelementptr inbounds float, ptr %0, i64 %im1
  %v = load float, ptr %q, align 4
  %ip1 = add nuw nsw i64 %i, 1
  %b2 = trunc i64 %i to i32
  %l2 = trunc i64 %11 to i32
  %room = sub nuw i32 %l2, %b2
  %c2 = icmp ult i32 1, %room
  br i1 %c2, label %up, label %fail2

fail2:
  call void @panic_bounds_check(i64 %ip1, i64 %11)
  unreachable

up:
  %plane = mul nuw i64 %nx, %ny
  %ipl = add nuw i64 %i, %plane
  %c3 = icmp ult i64 %ipl, %11
  br i1 %c3, label %down, label %fail3

fail3:
  call void @panic_bounds_check(i64 %ipl, i64 %11)
  unreachable

down:
  %imn = sub nsw i64 %i, %nx
  %c4 = icmp ule i64 %nx, %i
  br i1 %c4, label %store, label %fail4

fail4:
  call void @panic_bounds_check(i64 %imn, i64 %11)
  unreachable

store:
  %c5 = icmp ult i64 %i, %12
  br i1 %c5, label %write, label %fail5

fail5:
  call void @panic_bounds_check(i64 %i, i64 %12)
  unreachable

write:
  %p = getelementptr inbounds float, ptr %2, i64 %i
  store float 0.0, ptr %p, align 4
  br label %done

done:
  ret void
}
";

    /// [`TAPS`] with the entry's launch-token store (thread 0) and its barrier in front.
    fn taps_with_token(loop_call: bool) -> String {
        let mut ir = TAPS.replace(
            "define ptx_kernel void @taps(ptr %0, i64 %1, ptr %2, i64 %3, i32 %4, i32 %5, i64 %6) {\n",
            "@LAUNCH_TOKEN = internal addrspace(3) global i64 undef\n\n\
             define ptx_kernel void @taps(ptr %0, i64 %1, ptr %2, i64 %3, i32 %4, i32 %5, i64 %6) {\n\
             \x20 %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n\
             \x20 %first = icmp eq i32 %tid, 0\n\
             \x20 br i1 %first, label %token, label %join\n\n\
             token:\n\
             \x20 store volatile i64 %6, ptr addrspacecast (ptr addrspace(3) @LAUNCH_TOKEN to ptr), align 8\n\
             \x20 br label %join\n\n\
             join:\n\
             \x20 call void @llvm.nvvm.barrier0()\n",
        );
        // The output check proved too: it tests the guarded row itself.
        ir = ir.replace("%36 = icmp ult i64 %35, %9", "%36 = icmp ult i64 %6, %9");
        if loop_call {
            ir = ir.replace(
                "  %28 = load float, ptr %27, align 4\n",
                "  %28 = call float @external(ptr %27)\n",
            );
        }
        ir
    }

    #[test]
    fn a_fast_copy_that_cannot_panic_drops_the_launch_token() {
        let out = versioned(&taps_with_token(false));
        let fast = &out[out.find("ferrocuda.fast.7:").expect("fast copy")..];
        let checked = &out[..out.find("ferrocuda.fast.7:").unwrap()];
        assert!(
            checked.contains("  store volatile i64 %6, ptr addrspacecast"),
            "{out}"
        );
        assert!(checked.contains("  call void @llvm.nvvm.barrier0()"));
        assert!(!fast.contains("store volatile"), "{out}");
        assert!(!fast.contains("@llvm.nvvm.barrier0"), "{out}");
        // A call the fast copy can still make might panic: the token stays.
        let out = versioned(&taps_with_token(true));
        let fast = &out[out.find("ferrocuda.fast.7:").expect("fast copy")..];
        assert!(fast.contains("store volatile i64 %6"), "{out}");
        assert!(fast.contains("  call void @llvm.nvvm.barrier0()"), "{out}");
    }

    #[test]
    fn a_kernel_with_a_launch_token_takes_the_fast_copy_on_its_bit() {
        let versioned = apply(&taps_with_token(false)).expect("versioned");
        let out = &versioned.text;
        let entry = &out[out.find("define ").unwrap()..out.find("ferrocuda.entry.test:").unwrap()];
        assert!(
            entry.contains(&format!(
                "  %ferrocuda.version.vouched.bit = and i64 %6, {}\n  \
                 %ferrocuda.version.vouched = icmp ne i64 %ferrocuda.version.vouched.bit, 0\n  \
                 br i1 %ferrocuda.version.vouched, label %ferrocuda.entry.tiles, label %ferrocuda.entry.test\n",
                1u64 << 62
            )),
            "{entry}"
        );
        assert_eq!(versioned.notes.len(), 1);
        assert_eq!(versioned.notes[0].0, "taps");
        // The note: the same test over the parameters (`%1` is `$1:64`, `%4` and `%5` are
        // `$4:32` and `$5:32`): `h * w <= len(input)`, `w <= len(output)` (the output check
        // bounds the row itself), both factors below 2^30, their conjunction.
        assert_eq!(
            versioned.notes[0].1,
            "zext 64 $5:32;zext 64 $4:32;and 64 $1:64 4294967295;mul.nuw 64 %0 %1;\
             icmp.ule 64 %3 %2;and 64 $3:64 4294967295;icmp.ule 64 %1 %5;\
             icmp.ult 32 $5:32 1073741824;icmp.ult 32 $4:32 1073741824;and 1 %4 %6;\
             and 1 %9 %7;and 1 %10 %8"
        );
    }

    fn versioned(ir: &str) -> String {
        apply(ir).expect("versioned").text
    }

    #[test]
    fn versions_a_loop_of_guarded_2d_reads() {
        let out = versioned(TAPS);
        // The test: `h * w <= len` from the arguments alone, before anything else (no launch
        // token in this kernel: the entry goes straight to the test's block).
        let body = &out[out.find("define ").unwrap()..];
        let all: Vec<&str> = body.lines().map(str::trim).collect();
        assert_eq!(all[1], "br label %ferrocuda.entry.test");
        assert_eq!(all[3], "ferrocuda.entry.test:");
        let lines: Vec<&str> = all[..1].iter().chain(&all[4..]).copied().collect();
        assert_eq!(lines[1], "%ferrocuda.version.11 = zext i32 %5 to i64");
        assert_eq!(lines[2], "%ferrocuda.version.10 = zext i32 %4 to i64");
        assert_eq!(lines[3], "%ferrocuda.version.8 = and i64 %1, 4294967295");
        assert_eq!(
            lines[4],
            "%ferrocuda.version.product0 = mul nuw i64 %ferrocuda.version.11, %ferrocuda.version.10"
        );
        assert_eq!(
            lines[5],
            "%ferrocuda.version.fits0 = icmp ule i64 %ferrocuda.version.product0, %ferrocuda.version.8"
        );
        // Both 32-bit factors below 2^30, for the fast copy's narrowed compares.
        assert_eq!(
            lines[6],
            "%ferrocuda.version.small0 = icmp ult i32 %5, 1073741824"
        );
        assert_eq!(
            lines[7],
            "%ferrocuda.version.small1 = icmp ult i32 %4, 1073741824"
        );
        assert_eq!(
            lines[8],
            "%ferrocuda.version.all1 = and i1 %ferrocuda.version.fits0, %ferrocuda.version.small0"
        );
        assert_eq!(
            lines[9],
            "%ferrocuda.version.all2 = and i1 %ferrocuda.version.all1, %ferrocuda.version.small1"
        );
        assert_eq!(
            lines[10],
            "br i1 %ferrocuda.version.all2, label %ferrocuda.entry.blocks, label %ferrocuda.checked.7"
        );
        assert_eq!(apply(TAPS).unwrap().notes, []);
        // The checked copy keeps its check; the fast copy's is decided, its loop not unrolled.
        assert!(out.contains("  br i1 %ferrocuda.checked.25, label %ferrocuda.checked.26, label %ferrocuda.checked.29, !dbg !6\n"));
        assert!(out.contains(
            "  %ferrocuda.fast.holds.3 = icmp ult i64 %ferrocuda.fast.24, %ferrocuda.fast.8\n  \
             call void @llvm.assume(i1 %ferrocuda.fast.holds.3)\n  \
             br i1 true, label %ferrocuda.fast.26, label %ferrocuda.fast.29, !dbg !6\n"
        ));
        assert!(out.contains("declare void @llvm.assume(i1 noundef)\n"));
        assert!(out.contains("br i1 %ferrocuda.fast.33, label %ferrocuda.fast.14, label %ferrocuda.fast.34, !llvm.loop !9\n"));
        assert!(out.contains("br i1 %ferrocuda.checked.33, label %ferrocuda.checked.14, label %ferrocuda.checked.34, !llvm.loop !7\n"));
        assert!(out.ends_with("!8 = !{!\"llvm.loop.unroll.disable\"}\n!9 = distinct !{!9, !8}\n"));
        // The store after the loop writes `x * w` (not `y * w + x`): left checked in both.
        assert!(out.contains(
            "br i1 %ferrocuda.fast.36, label %ferrocuda.fast.37, label %ferrocuda.fast.39"
        ));
    }

    #[test]
    fn renames_locals_but_not_parameters_types_or_strings() {
        let args: HashSet<String> = ["%0".to_string(), "%len".to_string()].into_iter().collect();
        let types: HashSet<String> = ["T".to_string(), "\"a b\"".to_string()]
            .into_iter()
            .collect();
        let line = "  %x = call %T @f(ptr %0, i64 %len, i64 %\"q r\", %\"a b\" %7) ; %y\n";
        assert_eq!(
            rename(line, "p.", &args, &types),
            "  %p.x = call %T @f(ptr %0, i64 %len, i64 %\"p.q r\", %\"a b\" %p.7) ; %y\n"
        );
        let asm = "  call void asm \"mov.u32 %0, %1;\", \"=r\"(i32 %v)\n";
        assert_eq!(
            rename(asm, "p.", &args, &types),
            "  call void asm \"mov.u32 %0, %1;\", \"=r\"(i32 %p.v)\n"
        );
    }

    #[test]
    fn leaves_checks_outside_loops() {
        // Without the back edge the proved check runs once per thread.
        let once = TAPS.replace(
            "br i1 %33, label %14, label %34, !llvm.loop !7",
            "br label %34",
        );
        assert_eq!(apply(&once), None);
    }

    #[test]
    fn needs_the_column_guard() {
        // Without `x < w` the column may spill into the next row: nothing is proved.
        let unguarded = TAPS.replace("%13 = icmp ult i64 %6, %10", "%13 = icmp ult i64 %6, %11");
        assert_eq!(apply(&unguarded), None);
    }

    #[test]
    fn needs_non_negative_rows_for_a_signed_guard() {
        // Without `samesign`, `iy + 3 >u 2` does not say `iy >= 0`, and `iy < h` is signed.
        let signed = TAPS.replace("icmp samesign ugt i64 %17, 2", "icmp ugt i64 %17, 2");
        assert_eq!(apply(&signed), None);
    }

    #[test]
    fn a_sum_may_wrap_into_the_negatives_without_nsw() {
        // `iy = t + 0` after `t` is known non-negative: without `nsw` the sum proves nothing.
        let shifted = TAPS.replace(
            "%18 = add nsw i64 %17, -3",
            "%r = add nsw i64 %17, -3\n  %18 = add i64 %r, 0",
        );
        assert_eq!(apply(&shifted), None);
        let kept = shifted.replace("%18 = add i64 %r, 0", "%18 = add nsw i64 %r, 0");
        assert!(apply(&kept).is_some());
    }

    #[test]
    fn needs_factors_below_2_32_computed_from_the_arguments() {
        // A 64-bit width could make `h * w` wrap.
        let wide = TAPS
            .replace("i32 %4, i32 %5, i64 %6", "i64 %4, i32 %5, i64 %6")
            .replace("%10 = zext i32 %4 to i64", "%10 = add i64 %4, 0")
            .replace("%12 = zext i32 %4 to i64", "%12 = add i64 %4, 0");
        assert_eq!(apply(&wide), None);
        // A bound read from memory cannot be tested before the body runs.
        let loaded = TAPS.replace(
            "%11 = zext i32 %5 to i64",
            "%11 = load i64, ptr %2, align 8, !range !5",
        );
        assert_eq!(apply(&loaded), None);
    }

    #[test]
    fn reads_overflow_checked_arithmetic() {
        // Builds with overflow checks compute the index through the checked intrinsics.
        let checked = TAPS.replace(
            "  %23 = mul nuw nsw i64 %18, %10\n  %24 = add nuw nsw i64 %23, %6\n",
            "  %m = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %18, i64 %10)\n  \
                 %23 = extractvalue { i64, i1 } %m, 0\n  \
                 %a = call { i64, i1 } @llvm.uadd.with.overflow.i64(i64 %23, i64 %6)\n  \
                 %24 = extractvalue { i64, i1 } %a, 0\n",
        );
        let out = versioned(&checked);
        assert!(out.contains("br i1 true, label %ferrocuda.fast.26, label %ferrocuda.fast.29"));
    }

    #[test]
    fn versions_a_kernel_whose_every_check_is_proved() {
        let out = versioned(STENCIL);
        let body = &out[out.find("define ").unwrap()..];
        let lines: Vec<&str> = body.lines().map(str::trim).collect();
        // `nz ny nx <= len` in steps: `nz ny <= len`, then the low half of `nz ny` times `nx`.
        let test =
            lines[..lines.iter().position(|l| l.starts_with("br i1")).unwrap() + 1].join("\n");
        for expected in [
            "%ferrocuda.version.product0 = mul nuw i64 %ferrocuda.version.nz, %ferrocuda.version.ny",
            "%ferrocuda.version.fits0.2 = icmp ule i64 %ferrocuda.version.product0, %ferrocuda.version.11",
            "%ferrocuda.version.low0.2 = trunc i64 %ferrocuda.version.product0 to i32",
            "%ferrocuda.version.low0.2.wide = zext i32 %ferrocuda.version.low0.2 to i64",
            "%ferrocuda.version.product0.2 = mul nuw i64 %ferrocuda.version.low0.2.wide, %ferrocuda.version.nx",
            "%ferrocuda.version.fits0 = icmp ule i64 %ferrocuda.version.product0.2, %ferrocuda.version.11",
        ] {
            assert!(test.contains(expected), "{expected}\n{test}");
        }
        assert!(
            test.ends_with(", label %ferrocuda.entry.blocks, label %ferrocuda.checked.10"),
            "{test}"
        );
        // The fast copy is entered through a block assuming the factors' limits, and only
        // them: no product of the test is recomputed there.
        let assumed = &body[body.find("ferrocuda.entry.assumed:").unwrap()..];
        let assumed = &assumed[..assumed.find("br label %ferrocuda.fast.10\n").unwrap()];
        for (k, arg) in ["%6", "%5", "%4"].iter().enumerate() {
            assert!(
                assumed.contains(&format!(
                    "  %ferrocuda.assumed.small{k} = icmp ult i32 {arg}, 1073741824\n  \
                     call void @llvm.assume(i1 %ferrocuda.assumed.small{k})\n"
                )),
                "{assumed}"
            );
        }
        assert_eq!(assumed.matches(" = ").count(), 3, "{assumed}");
        // Every check of the fast copy is decided, each with what it proved assumed; the
        // original keeps them all.
        for (check, ok, fail) in [
            ("c0", "left", "fail0"),
            ("c1", "right", "fail1"),
            ("c2", "up", "fail2"),
            ("c3", "down", "fail3"),
            ("c4", "store", "fail4"),
            ("c5", "write", "fail5"),
        ] {
            assert!(
                out.contains(&format!(
                    "  br i1 true, label %ferrocuda.fast.{ok}, label %ferrocuda.fast.{fail}\n"
                )),
                "{check}\n{out}"
            );
            assert!(out.contains(&format!(
                "  br i1 %ferrocuda.checked.{check}, label %ferrocuda.checked.{ok}, label %ferrocuda.checked.{fail}\n"
            )));
        }
        assert!(
            out.contains(
                "  %ferrocuda.fast.holds.8 = icmp ult i64 %ferrocuda.fast.ipl, %ferrocuda.fast.11\n"
            ),
            "{out}"
        );
        assert!(out.contains(
            "  %ferrocuda.fast.holds.10 = icmp ult i64 %ferrocuda.fast.imn, %ferrocuda.fast.11\n"
        ));
    }

    #[test]
    fn a_neighbour_needs_its_digit_off_the_edge() {
        // Without `z != nz - 1`, `i + nx ny` may pass the end; without `x != 0`, `i - 1` may
        // wrap. Either leaves a check, and a straight-line kernel with a check left is not
        // worth two copies, unless its arithmetic narrows enough (not here).
        let top = STENCIL.replace("%o5 = or i1 %o4, %e6", "%o5 = or i1 %o4, false");
        let left = STENCIL.replace("%o1 = or i1 %e1, %e2", "%o1 = or i1 false, %e2");
        // A step that is not a place value (`i + ny` with the digits of `i` below `nx`)
        // proves nothing either.
        let skewed = STENCIL.replace("%imn = sub nsw i64 %i, %nx", "%imn = sub nsw i64 %i, %ny");
        assert_eq!(apply(&top), None);
        assert_eq!(apply(&left), None);
        assert_eq!(apply(&skewed), None);
    }

    #[test]
    fn assumptions_of_dominators_are_facts() {
        let ir = "define void @f(i64 %0, i64 %1) {\n  %a = icmp ult i64 %0, %1\n  call void @llvm.assume(i1 %a)\n  br label %next\n\nnext:\n  %b = icmp ult i64 %1, 7\n  call void @llvm.assume(i1 %b)\n  ret void\n}\n";
        let lines: Vec<&str> = ir.split_inclusive('\n').skip(1).collect();
        let body = &lines[..lines.len() - 1];
        let blocks = split_blocks(body);
        let defs = definitions(body);
        let succ = crate::cfg::successors(&blocks, body).expect("modelled");
        let idom = immediate_dominators(&succ);
        let facts = facts_at(&blocks, body, &defs, &succ, &idom, 1);
        // The entry's assumption holds in `next`; `next`'s own does not hold before it.
        assert_eq!(facts.len(), 1);
        assert_eq!(
            (facts[0].a.as_str(), facts[0].pred, facts[0].b.as_str()),
            ("%0", "ult", "%1")
        );
    }
}
