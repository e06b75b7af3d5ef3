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
//! [`crate::passes::offset_checks`]), that `idx < b` or `idx < b * w` for values `b`, `w` below 2^32
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
//!   32-bit `1 < len - i` of [`crate::passes::offset_checks`]) is read through the index and length
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
//! preceded by an `llvm.assume` of what it established, which [`crate::passes::compare_narrowing`]
//! reads. The test is uniform across the grid, so no warp diverges on
//! it. In the fast copy, loops that held a proved check get `llvm.loop.unroll.disable`
//! (`.pragma "nounroll"` in the PTX): with the checks gone the guarded taps are predicated,
//! and `ptxas` unrolling the convolution's row loop to 49 predicated taps ran out of
//! predicate registers (800 SASS instructions, 0.57 ms) where the rolled loop runs 224
//! instructions in 0.37 ms (CUDA C: 0.26 ms), measured on the H100
//! (`bench/results/h100-2026-11-24-d-versioning.md`).
//!
//! Static allocas move to the new entry block (so both copies keep a static frame). Both
//! copies' local names get a prefix ([`SLOW_PREFIX`](names::SLOW_PREFIX), [`PREFIX`](crate::analysis::fast_copy::PREFIX); numbered values could not
//! stay in order behind the new entry); arguments, globals, types, metadata and string
//! literals are left alone.

mod checks;
mod emit;
pub(crate) mod entry_test;
mod equality_checks;
#[cfg(test)]
mod equality_tests;
mod host_test;
mod loop_metadata;
mod names;
mod proof;
pub(crate) mod tile_checks;

use self::checks::{argument_names, bounds_panic, check_branch};
use self::emit::emit;
use self::host_test::HostTest;
use self::loop_metadata::LoopMetadata;
use self::names::{ASSUMED_BLOCK, TILES_BLOCK, VERSION_PREFIX};
use self::proof::{Proof, prove, prove_step, remat};
use crate::analysis::bounds::bound_of;
use crate::analysis::dominance::{immediate_dominators, natural_loops};
use crate::analysis::facts::facts_at;
use crate::ir::blocks::{split_blocks, terminator};
use crate::ir::instructions::{definition, definitions, unsigned_less_than};
use crate::ir::syntax::name_len;
use std::collections::HashSet;

/// The limits (as powers of two) tried for the arguments and block indices of a kernel
/// versioned for its 32-bit arithmetic alone, the largest first.
const NARROWING_LIMITS: [u32; 8] = [30, 24, 20, 16, 15, 14, 13, 12];

/// How many compares and addresses a fast copy versioned for its arithmetic alone must make
/// 32-bit to be worth a second copy of the kernel.
const NARROWING_WORTH: usize = 8;

/// The module text with its kernels versioned, or `None` when no check was proved.
///
/// With `unrolls_late` (the pipeline's `late_unroll`, [`crate::pipeline`]) LLVM's unroller
/// runs after this pass and decides the fast copies' loops itself (it marks what it unrolled
/// `llvm.loop.unroll.disable`, so `ptxas` does not unroll it again): their loops are not
/// marked here.
pub(crate) fn apply(ir: &str, unrolls_late: bool) -> Option<Versioned> {
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
    let mut out = crate::ir::syntax::rewrite_bodies(ir, |define, body| {
        let mut loops = LoopMetadata {
            next: &mut next_metadata,
            unroll_disable: &mut unroll_disable,
            nodes: &mut metadata,
        };
        let (text, note) = version_function(define, body, &types, &mut loops, unrolls_late)?;
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
    // The tiles' tests clamp thread bounds with them ([`crate::passes::check_versioning::tile_checks`]).
    crate::ir::min_max::declare_min_max(&mut out);
    out.push_str(&metadata);
    Some(Versioned { text: out, notes })
}

/// A module with versioned kernels.
#[derive(Debug, PartialEq)]
pub(crate) struct Versioned {
    /// The module's text.
    pub(crate) text: String,
    /// `(entry, program)`: the entry tests the runtime may evaluate on the host
    /// ([`crate::passes::check_versioning::entry_test`]).
    pub(crate) notes: Vec<(String, String)>,
}

/// The name of the function `define` defines (`@name(` without the `@`).
fn entry_name(define: &str) -> Option<String> {
    let at = define.find('@')?;
    let rest = &define[at + 1..];
    Some(rest[..rest.find('(')?].to_string())
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

/// The versioned body (new entry, original, fast copy) and the entry test's note program, or
/// `None` when no check is proved.
fn version_function(
    define: &str,
    body: &[&str],
    types: &HashSet<String>,
    loops: &mut LoopMetadata<'_>,
    unrolls_late: bool,
) -> Option<(String, Option<String>)> {
    let args = argument_names(define);
    let mut blocks = split_blocks(body);
    if blocks.len() > 1 && blocks[0].lines.is_empty() {
        // The body starts with a label: that block is the entry.
        blocks.remove(0);
    }
    let defs = definitions(body);
    // A body whose control flow is not modelled is left as it is (see [`crate::ir::cfg`]).
    let succ = crate::ir::cfg::successors(&blocks, body)?;
    let idom = immediate_dominators(&succ);
    let mut proofs = Vec::new();
    let mut checks = 0;
    let usable = |b: &str| {
        bound_of(b, &defs, 0).is_some_and(|m| m < 1u128 << 32)
            && remat(b, &defs, &args, 0).is_some()
    };
    for (index, block) in blocks.iter().enumerate() {
        // A check LLVM made an equality, failing on its true side; one left undecided is not
        // counted (its copy keeps it, and a copy that can still panic keeps its launch token).
        let equality = equality_checks::equality_branch(terminator(block, body), &defs)
            .filter(|&(_, fail)| bounds_panic(&blocks, body, fail).is_some());
        if let Some((condition, _)) = equality {
            let facts = facts_at(&blocks, body, &defs, &succ, &idom, index);
            if let Some(decided) = equality_checks::prove(condition, &facts, &defs, &usable) {
                checks += 1;
                proofs.push(Proof {
                    block: index,
                    factors: vec![decided.bound],
                    index: decided.x.clone(),
                    len: decided.len,
                    compare: None,
                    equality: Some((decided.x, decided.y)),
                });
            }
            continue;
        }
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
                equality: None,
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
    // The loops the fast copy marks `nounroll` (see [`apply`]).
    let marked = if !unrolls_late {
        nounroll.clone()
    } else {
        HashSet::new()
    };
    // The fast copy's checks that pass for whole blocks go too, tested per block.
    // The tiles' tests join the note when the program language has their every step: the
    // host then makes them for the whole grid, and the bit goes past them to the assumed block.
    let tiled = |(text, host): (String, Option<HostTest>)| {
        let Some(tiles) = crate::passes::check_versioning::tile_checks::apply(define, &text) else {
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
            define, body, &blocks, &defs, &args, types, &proofs, &marked, loops, None,
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
            &marked,
            loops,
            Some(1 << bits),
        );
        (
            crate::passes::compare_narrowing::narrowed(&versioned.0),
            versioned,
        )
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

#[cfg(test)]
pub(crate) mod tests;
