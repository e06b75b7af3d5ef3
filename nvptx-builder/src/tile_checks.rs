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
//! For a check `idx < len` left in a fast copy of [`crate::check_versioning`], the pass
//! evaluates `idx` over intervals: a thread index (`zext` of `tid.x`, `tid.y`, `tid.z`) spans
//! what the facts at the check bound it to (constants: `max_block(16, 16)` assumes it below
//! 16), else `[0, ntid - 1]`; within constants, the facts that bound it by a value the block
//! shares narrow it further, those of the guards the check is under included, even where a
//! `phi` carries them past a join ([`crate::compare_narrowing::Analysis::phi_facts`]:
//! HotSpot's store, under `if computed` after its loop, is made only by threads with
//! `valid_x_min <= tx <= valid_x_max`, which keeps the edge blocks' stores inside the grid
//! though their tiles overhang it); a value the arguments, the block indices and the block's size
//! alone determine is one point, recomputed in the fast copy's entry block (from the low
//! halves of its operands where it fits in 32 bits); `add`, `sub`, `or disjoint`, `shl` by a
//! constant and `mul` by a non-negative such value combine the ends, in 32 bits where the
//! result fits and in 64 from sign-extended operands (one `mul.wide.s32`) where it does not.
//! Each value's interval is also computed from the range analysis of
//! [`crate::compare_narrowing`] (with the entry test's limits), and the check is taken only
//! when every interval lies in `(-2^62, 2^62)`: no 64-bit step then wraps, for any thread, so
//! each thread's `idx` lies between the ends the block computes. The entry block then also
//! tests `0 <= lo` and `hi < len`, uniformly for the block, and a block that fails runs the
//! checked copy; in the fast copy the check becomes `br i1 true` after an `llvm.assume` of
//! `idx < len` (what it established, read by [`crate::compare_narrowing`]). A copy left
//! without any way to panic then also loses the launch token's store and barrier
//! ([`crate::check_versioning::without_launch_token`]).
//!
//! The test runs in every thread before its first loads (HotSpot: about a dozen instructions,
//! a 6% cost on the H100 when it still read the block's size), where the check it replaces
//! runs once: it is made only when it leaves the copy without a panic, or takes a check out of
//! a loop. Its lines also go to the host's note ([`TileTests`], [`crate::entry_test`]) when the
//! program language has each of them: the runtime evaluates the note for every block of the
//! launch's grid, and where it holds the kernel's bit skips the tiles' test with the rest.

use crate::check_versioning::{
    ASSUMED_BLOCK, Fact, PREFIX, TEST_BLOCK, TILES_BLOCK, argument_names, bounds_panic,
    branch_targets, check_branch, pure_operands, remat_operands, without_launch_token,
};
use crate::compare_narrowing::{Analysis, block_register, thread_axis};
use crate::offset_checks::{strip_metadata, strip_words, terminator, unsigned_less_than};
use std::collections::{HashMap, HashSet};

/// Prefix of the values the entry block computes for the tiles' tests.
const TILE_PREFIX: &str = "ferrocuda.tile.";

/// How large (in magnitude) a value's interval may be: far enough from 2^63 that no step of
/// the index arithmetic, nor of its ends' computation, wraps.
const SAFE: i128 = 1 << 62;

/// How deep the interval evaluation follows an index's operands.
const MAX_DEPTH: usize = 12;

/// The versioned function `body` (the text [`crate::check_versioning`] wrote) with the
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

/// The ends of a value over a block's threads, and its interval over all blocks.
struct Ends {
    lo: String,
    hi: String,
    /// The interval of the value for every thread of every block.
    range: (i128, i128),
    /// The width of `lo` and `hi` (32: they are the low halves, the value fitting in 32 bits).
    bits: u32,
}

impl Ends {
    /// One value for the whole block.
    fn point(value: String, range: (i128, i128), bits: u32) -> Self {
        Ends {
            lo: value.clone(),
            hi: value,
            range,
            bits,
        }
    }
}

/// Whether the interval lies in `[-2^31, 2^31)`.
fn fits32((lo, hi): (i128, i128)) -> bool {
    lo >= -(1 << 31) && hi < 1 << 31
}

/// The lines the entry block gains for the tiles' tests.
struct Tiles<'a> {
    lines: Vec<String>,
    /// The fast copy's values already recomputed in the entry block (by their new names).
    defined: HashSet<String>,
    args: &'a HashSet<String>,
    counter: usize,
}

impl Tiles<'_> {
    fn fresh(&mut self, what: &str) -> String {
        self.counter += 1;
        format!("%{TILE_PREFIX}{what}{}", self.counter)
    }

    /// The ends of the 64-bit `value` over the block's threads, as operands valid in the
    /// entry block (with the lines computing them added), and its interval over every block
    /// and thread; `None` when the value depends on anything but the thread, block and
    /// arguments in the ways the module documentation lists, or may be too large.
    fn interval(
        &mut self,
        analysis: &mut Analysis<'_>,
        value: &str,
        facts: &[Fact],
        threads: &[Fact],
        depth: usize,
    ) -> Option<Ends> {
        if let Ok(c) = value.parse::<i128>() {
            return (c.abs() < SAFE).then(|| Ends::point(value.to_string(), (c, c), 64));
        }
        if depth > MAX_DEPTH {
            return None;
        }
        if self.args.contains(value) || self.uniform(analysis, value, 0) {
            let (lo, hi) = analysis.signed_range(value, 64, facts)?;
            if lo <= -SAFE || hi >= SAFE {
                return None;
            }
            // A value that fits in 32 bits is computed from the low halves of its operands
            // (exact, as for [`crate::compare_narrowing`]), so the ends' arithmetic is 32-bit
            // or one `mul.wide.s32` where it can be.
            return Some(if fits32((lo, hi)) {
                Ends::point(self.low(analysis, value), (lo, hi), 32)
            } else {
                Ends::point(self.recompute(analysis, value), (lo, hi), 64)
            });
        }
        let inst = strip_metadata(analysis.definition_of(value)?);
        let opcode = inst.split(' ').next()?;
        if opcode == "zext" || opcode == "sext" {
            // A thread index, widened.
            let rest = strip_words(inst, opcode, &["nneg"])?.strip_prefix("i32 ")?;
            let (operand, ty) = rest.split_once(" to ")?;
            if ty.trim() != "i64" {
                return None;
            }
            let operand = operand.trim();
            let axis = thread_axis(analysis.definition_of(operand)?)?;
            // Where the check is, the facts may bound the index (a kernel's `max_block`
            // assumes `tid.x < 16` at its entry): every thread that runs the check is then
            // within constants, which cost the block's test nothing to read.
            let (lo, hi) = analysis.signed_range(operand, 32, threads)?;
            if lo >= 0 && hi < 1023 {
                let (low, high) =
                    self.guarded(analysis, (operand, value), (facts, threads), (lo, hi));
                return Some(Ends {
                    lo: low,
                    hi: high,
                    range: (lo, hi),
                    bits: 32,
                });
            }
            let size = self.fresh("ntid.");
            let last = self.fresh("last.");
            self.lines.push(format!(
                "  {size} = call i32 @llvm.nvvm.read.ptx.sreg.ntid.{axis}()\n  \
                 {last} = sub i32 {size}, 1\n"
            ));
            return Some(Ends {
                lo: "0".to_string(),
                hi: last,
                range: (0, 1023),
                bits: 32,
            });
        }
        let rest = strip_words(inst, opcode, &["nuw", "nsw", "disjoint"])?;
        let (a, b) = rest.strip_prefix("i64 ")?.split_once(", ")?;
        let (a, b) = (a.trim(), b.trim());
        let disjoint = inst.starts_with("or disjoint ");
        let x = self.interval(analysis, a, facts, threads, depth + 1)?;
        let y = self.interval(analysis, b, facts, threads, depth + 1)?;
        let (sa, sb) = (x.range, y.range);
        // Which ends combine: `(x end, y end)` for the low end, then for the high end.
        let (opcode, ends, range) = match opcode {
            "add" => (
                "add",
                [(&x.lo, &y.lo), (&x.hi, &y.hi)],
                (sa.0 + sb.0, sa.1 + sb.1),
            ),
            "or" if disjoint => (
                "add",
                [(&x.lo, &y.lo), (&x.hi, &y.hi)],
                (sa.0 + sb.0, sa.1 + sb.1),
            ),
            "sub" => (
                "sub",
                [(&x.lo, &y.hi), (&x.hi, &y.lo)],
                (sa.0 - sb.1, sa.1 - sb.0),
            ),
            "shl" => {
                let shift = u32::try_from(b.parse::<i128>().ok()?).ok()?;
                if shift >= 62 {
                    return None;
                }
                (
                    "shl",
                    [(&x.lo, &y.lo), (&x.hi, &y.hi)],
                    (sa.0 << shift, sa.1 << shift),
                )
            }
            "mul" => {
                // One side one point per block and non-negative: the ends scale.
                let (t, u) = if x.lo == x.hi {
                    (&y, &x)
                } else if y.lo == y.hi {
                    (&x, &y)
                } else {
                    return None;
                };
                if u.range.0 < 0 {
                    return None;
                }
                let (s, su) = (t.range, u.range);
                let corners = [s.0 * su.0, s.0 * su.1, s.1 * su.0, s.1 * su.1];
                let range = (*corners.iter().min()?, *corners.iter().max()?);
                ("mul", [(&t.lo, &u.lo), (&t.hi, &u.lo)], range)
            }
            _ => return None,
        };
        if range.0 <= -SAFE || range.1 >= SAFE {
            return None;
        }
        let bits = if fits32(range) { 32 } else { 64 };
        let (x_bits, y_bits) = if opcode == "mul" && x.lo == x.hi {
            (y.bits, x.bits)
        } else {
            (x.bits, y.bits)
        };
        let [(a_lo, b_lo), (a_hi, b_hi)] = ends.map(|(a, b)| (a.clone(), b.clone()));
        let lo = self.op(opcode, (&a_lo, x_bits), (&b_lo, y_bits), bits);
        let hi = if (&a_lo, &b_lo) == (&a_hi, &b_hi) {
            lo.clone()
        } else {
            self.op(opcode, (&a_hi, x_bits), (&b_hi, y_bits), bits)
        };
        Some(Ends {
            lo,
            hi,
            range,
            bits,
        })
    }

    /// The ends of the thread index `tid` (32 bits, widened to `wide`; in `[lo, hi]` where
    /// the check is) over the threads that reach the check: `lo` and `hi`, narrowed by the
    /// facts there that bound either by a value the block shares and the host can compute
    /// (from the arguments and block indices: HotSpot's `valid_x_min <= tx <= valid_x_max`,
    /// which keep its edge blocks' stores inside the grid). A thread that reaches the check is
    /// within every such bound, so the largest lower bound and the smallest upper one are its
    /// ends; where they cross, no thread reaches the check. Each bound is clamped to `[lo,
    /// hi]` (in its own width, then truncated), the range the ends' arithmetic was proved for.
    fn guarded(
        &mut self,
        analysis: &mut Analysis<'_>,
        (tid, wide): (&str, &str),
        (facts, threads): (&[Fact], &[Fact]),
        (lo, hi): (i128, i128),
    ) -> (String, String) {
        let (mut low, mut high) = (lo.to_string(), hi.to_string());
        for fact in threads {
            let bits = if fact.a == tid || fact.b == tid {
                32
            } else {
                64
            };
            let index = if bits == 32 { tid } else { wide };
            // `(bound, whether it bounds from above, whether strictly)`.
            let (bound, upper, strict) = match (fact.a == index, fact.b == index, fact.pred) {
                (true, false, "uge") => (&fact.b, false, false),
                (true, false, "ugt") => (&fact.b, false, true),
                (true, false, "ule") => (&fact.b, true, false),
                (true, false, "ult") => (&fact.b, true, true),
                (false, true, "ule") => (&fact.a, false, false),
                (false, true, "ult") => (&fact.a, false, true),
                (false, true, "uge") => (&fact.a, true, false),
                (false, true, "ugt") => (&fact.a, true, true),
                _ => continue,
            };
            if bound.parse::<i128>().is_ok()
                || !self.uniform(analysis, bound, 0)
                || reads_block_size(analysis, bound, 0)
            {
                continue;
            }
            // A 64-bit bound in `[-2^31, 2^31)` compares with the index as its low half does
            // (a negative one is above every index in both widths).
            let (mut value, bits) = match analysis.signed_range(bound, bits, facts) {
                Some(range) if bits == 64 && fits32(range) => (self.low(analysis, bound), 32),
                _ => (self.recompute(analysis, bound), bits),
            };
            if strict {
                // Wraps only where no thread satisfies the fact (`tid < 0`, `tid > max`).
                let op = if upper { "sub" } else { "add" };
                value = self.op(op, (&value, bits), ("1", bits), bits);
            }
            // In `[0, hi]`: exact in 32 bits.
            let mut clamped = self.min_max("umin", bits, &value, &hi.to_string());
            if bits == 64 {
                clamped = self.op("add", (&clamped, 64), ("0", 32), 32);
            }
            if upper {
                high = self.min_max("umin", 32, &high, &clamped);
            } else {
                low = self.min_max("umax", 32, &low, &clamped);
            }
        }
        if lo != 0 {
            high = self.min_max("umax", 32, &high, &lo.to_string());
        }
        (low, high)
    }

    /// `op(a, b)` of two `bits`-bit values, `op` one of `umin`, `umax`, as a new line (or
    /// the answer, where both are constants).
    fn min_max(&mut self, op: &str, bits: u32, a: &str, b: &str) -> String {
        if let (Ok(x), Ok(y)) = (a.parse::<u64>(), b.parse::<u64>()) {
            return if op == "umin" { x.min(y) } else { x.max(y) }.to_string();
        }
        if op == "umax" && (a == "0" || b == "0") {
            return if a == "0" { b } else { a }.to_string();
        }
        let name = self.fresh("bound.");
        self.lines.push(format!(
            "  {name} = call i{bits} @llvm.{op}.i{bits}(i{bits} {a}, i{bits} {b})\n"
        ));
        name
    }

    /// `a op b` in `bits` bits (32: the low halves, exact when the result fits; 64: the
    /// operands sign-extended, which fit where they are 32-bit), as a new line.
    fn op(
        &mut self,
        opcode: &str,
        (a, a_bits): (&str, u32),
        (b, b_bits): (&str, u32),
        bits: u32,
    ) -> String {
        let mut operand = |v: &str, from: u32| -> String {
            if v.parse::<i128>().is_ok() || from == bits {
                return v.to_string();
            }
            let name = self.fresh("cast.");
            let cast = if bits == 64 {
                format!("sext i32 {v} to i64")
            } else {
                format!("trunc i64 {v} to i32")
            };
            self.lines.push(format!("  {name} = {cast}\n"));
            name
        };
        let (a, b) = (operand(a, a_bits), operand(b, b_bits));
        match (opcode, a.as_str(), b.as_str()) {
            ("add" | "sub" | "shl", a, "0") => return a.to_string(),
            ("add", "0", b) => return b.to_string(),
            _ => {}
        }
        let name = self.fresh("end.");
        self.lines
            .push(format!("  {name} = {opcode} i{bits} {a}, {b}\n"));
        name
    }

    /// The low 32 bits of the uniform 64-bit `value`, computed in the entry block from the
    /// low halves of its operands where the operation allows (`add`, `sub`, `mul`, `shl` by
    /// less than 32, bitwise operations, widening of a 32-bit value), else truncated.
    fn low(&mut self, analysis: &Analysis<'_>, value: &str) -> String {
        if let Ok(c) = value.parse::<i128>() {
            return ((c as i64) as i32).to_string();
        }
        let renamed = value.replacen(&format!("%{PREFIX}"), &format!("%{TILE_PREFIX}low."), 1);
        let renamed = if renamed == value {
            format!("%{TILE_PREFIX}low.{}", value.trim_start_matches('%'))
        } else {
            renamed
        };
        if self.defined.contains(&renamed) {
            return renamed;
        }
        let inst = strip_metadata(analysis.definition_of(value).unwrap_or(""));
        let opcode = inst.split(' ').next().unwrap_or("");
        let text = match (opcode, remat_operands(inst)) {
            ("zext" | "sext", Some(ops)) if inst.contains(" i32 ") && inst.ends_with(" to i64") => {
                let narrow = ops[0];
                if narrow.starts_with('%') && !self.args.contains(narrow) {
                    return self.recompute(analysis, narrow);
                }
                return narrow.to_string();
            }
            ("add" | "sub" | "mul" | "and" | "or" | "xor" | "shl", Some(ops))
                if inst.contains(" i64 ")
                    && (opcode != "shl" || ops[1].parse::<u32>().is_ok_and(|s| s < 32)) =>
            {
                let a = self.low(analysis, ops[0]);
                let b = self.low(analysis, ops[1]);
                format!("{opcode} i32 {a}, {b}")
            }
            _ => {
                let wide = self.recompute(analysis, value);
                format!("trunc i64 {wide} to i32")
            }
        };
        self.defined.insert(renamed.clone());
        self.lines.push(format!("  {renamed} = {text}\n"));
        renamed
    }

    /// `lo >= 0 && hi < len`, as a new line's name.
    fn test(&mut self, lo: &str, hi: &str, len: &str) -> String {
        let from = self.fresh("from.");
        let to = self.fresh("to.");
        let ok = self.fresh("ok.");
        self.lines.push(format!(
            "  {from} = icmp sge i64 {lo}, 0\n  {to} = icmp ult i64 {hi}, {len}\n  \
             {ok} = and i1 {from}, {to}\n"
        ));
        ok
    }

    /// Whether `value` is computed from the arguments, constants and the block's indices,
    /// size and the grid's size alone (the same for every thread of a block).
    fn uniform(&self, analysis: &Analysis<'_>, value: &str, depth: usize) -> bool {
        if !value.starts_with('%') || self.args.contains(value) {
            return true;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        let Some(inst) = analysis.definition_of(value) else {
            return false;
        };
        let inst = strip_metadata(inst);
        if block_register(inst) {
            return true;
        }
        pure_operands(inst)
            .is_some_and(|ops| ops.iter().all(|o| self.uniform(analysis, o, depth + 1)))
    }

    /// The name of `value` (uniform) recomputed in the entry block, adding its lines.
    fn recompute(&mut self, analysis: &Analysis<'_>, value: &str) -> String {
        if !value.starts_with('%') || self.args.contains(value) {
            return value.to_string();
        }
        // The fast copy's names, and those the passes before gave it (`%ferrocuda.narrow.3`).
        let renamed = match value.strip_prefix(&format!("%{PREFIX}")) {
            Some(name) => format!("%{TILE_PREFIX}v.{name}"),
            None => format!("%{TILE_PREFIX}v.{}", value.trim_start_matches('%')),
        };
        if !self.defined.insert(renamed.clone()) {
            return renamed;
        }
        let inst = strip_metadata(analysis.definition_of(value).unwrap_or(""));
        let mut text = inst.to_string();
        if !block_register(inst) {
            for operand in pure_operands(inst).unwrap_or_default() {
                let new = self.recompute(analysis, operand);
                text = replace_operand(&text, operand, &new);
            }
        }
        self.lines.push(format!("  {renamed} = {text}\n"));
        renamed
    }
}

/// `inst` with the operand `old` (a whole name, not a prefix of a longer one) renamed.
fn replace_operand(inst: &str, old: &str, new: &str) -> String {
    let mut out = String::new();
    let mut rest = inst;
    while let Some(at) = rest.find(old) {
        let end = at + old.len();
        let next = rest[end..].chars().next();
        out.push_str(&rest[..at]);
        if next.is_some_and(|c| c.is_alphanumeric() || c == '.' || c == '_') {
            out.push_str(old);
        } else {
            out.push_str(new);
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// Whether `value` is computed from the block's or the grid's size (`ntid`, `nctaid`), which
/// the host's test does not read.
fn reads_block_size(analysis: &Analysis<'_>, value: &str, depth: usize) -> bool {
    let Some(inst) = analysis.definition_of(value) else {
        return false;
    };
    let inst = strip_metadata(inst);
    if inst.contains("@llvm.nvvm.read.ptx.sreg.ntid.")
        || inst.contains("@llvm.nvvm.read.ptx.sreg.nctaid.")
    {
        return true;
    }
    depth > MAX_DEPTH
        || pure_operands(inst)
            .unwrap_or_default()
            .iter()
            .any(|o| reads_block_size(analysis, o, depth + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A versioned kernel whose fast copy stores to `out[(by * 14 - 1 + ty) * cols + bx * 14
    /// - 1 + tx]` unguarded (the assumed block already tests the block indices).
    const TILED: &str = "define ptx_kernel void @k(ptr %out, i64 %len, i32 %cols, i64 %token) {
  br label %ferrocuda.entry.test

ferrocuda.entry.test:
  %ferrocuda.version.small0 = icmp ult i32 %cols, 16384
  br i1 %ferrocuda.version.small0, label %ferrocuda.entry.blocks, label %ferrocuda.checked.start

ferrocuda.checked.start:
  ret void

ferrocuda.entry.blocks:
  %ferrocuda.blocks.ctaid.x.value = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ferrocuda.blocks.ctaid.x = icmp ult i32 %ferrocuda.blocks.ctaid.x.value, 16384
  %ferrocuda.blocks.ctaid.x.all = and i1 true, %ferrocuda.blocks.ctaid.x
  %ferrocuda.blocks.ctaid.y.value = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ferrocuda.blocks.ctaid.y = icmp ult i32 %ferrocuda.blocks.ctaid.y.value, 16384
  %ferrocuda.blocks.ctaid.y.all = and i1 %ferrocuda.blocks.ctaid.x.all, %ferrocuda.blocks.ctaid.y
  br i1 %ferrocuda.blocks.ctaid.y.all, label %ferrocuda.entry.tiles, label %ferrocuda.checked.start

ferrocuda.entry.tiles:
  br label %ferrocuda.entry.assumed

ferrocuda.entry.assumed:
  %ferrocuda.assumed.small0 = icmp ult i32 %cols, 16384
  call void @llvm.assume(i1 %ferrocuda.assumed.small0)
  %ferrocuda.assumed.ctaid.x.value = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ferrocuda.assumed.ctaid.x = icmp ult i32 %ferrocuda.assumed.ctaid.x.value, 16384
  call void @llvm.assume(i1 %ferrocuda.assumed.ctaid.x)
  %ferrocuda.assumed.ctaid.y.value = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ferrocuda.assumed.ctaid.y = icmp ult i32 %ferrocuda.assumed.ctaid.y.value, 16384
  call void @llvm.assume(i1 %ferrocuda.assumed.ctaid.y)
  br label %ferrocuda.fast.start

ferrocuda.fast.start:
  %ferrocuda.fast.tx = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %ferrocuda.fast.ty = tail call range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  %ferrocuda.fast.bx = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ferrocuda.fast.by = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()
  %ferrocuda.fast.first = icmp eq i32 %ferrocuda.fast.tx, 0
  br i1 %ferrocuda.fast.first, label %ferrocuda.fast.token, label %ferrocuda.fast.join

ferrocuda.fast.token:
  store volatile i64 %token, ptr addrspacecast (ptr addrspace(3) @LAUNCH_TOKEN to ptr), align 8
  br label %ferrocuda.fast.join

ferrocuda.fast.join:
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %ferrocuda.fast.tx64 = zext nneg i32 %ferrocuda.fast.tx to i64
  %ferrocuda.fast.ty64 = zext nneg i32 %ferrocuda.fast.ty to i64
  %ferrocuda.fast.bx64 = zext nneg i32 %ferrocuda.fast.bx to i64
  %ferrocuda.fast.by64 = zext nneg i32 %ferrocuda.fast.by to i64
  %ferrocuda.fast.cols = zext i32 %cols to i64
  %ferrocuda.fast.ox = mul nuw nsw i64 %ferrocuda.fast.bx64, 14
  %ferrocuda.fast.oy = mul nuw nsw i64 %ferrocuda.fast.by64, 14
  %ferrocuda.fast.x0 = add nsw i64 %ferrocuda.fast.ox, -1
  %ferrocuda.fast.y0 = add nsw i64 %ferrocuda.fast.oy, -1
  %ferrocuda.fast.x = add nsw i64 %ferrocuda.fast.x0, %ferrocuda.fast.tx64
  %ferrocuda.fast.y = add nsw i64 %ferrocuda.fast.y0, %ferrocuda.fast.ty64
  %ferrocuda.fast.row = mul i64 %ferrocuda.fast.y, %ferrocuda.fast.cols
  %ferrocuda.fast.idx = add i64 %ferrocuda.fast.row, %ferrocuda.fast.x
  %ferrocuda.fast.ok = icmp ult i64 %ferrocuda.fast.idx, %len
  br i1 %ferrocuda.fast.ok, label %ferrocuda.fast.store, label %ferrocuda.fast.panic

ferrocuda.fast.store:
  %ferrocuda.fast.p = getelementptr inbounds float, ptr %out, i64 %ferrocuda.fast.idx
  store float 1.0, ptr %ferrocuda.fast.p, align 4
  ret void

ferrocuda.fast.panic:
  tail call void @panic_bounds_check(i64 %ferrocuda.fast.idx, i64 %len, ptr null)
  unreachable
}
";

    fn tiled(ir: &str) -> Option<String> {
        let define = ir.lines().next().unwrap();
        let body: String = ir
            .split_inclusive('\n')
            .skip(1)
            .filter(|l| !l.starts_with('}'))
            .collect();
        apply(define, &body).map(|t| t.text)
    }

    #[test]
    fn tests_the_blocks_corners_and_drops_the_check() {
        let out = tiled(TILED).expect("the store's check is tiled");
        // The fast copy cannot panic any more: the launch token's store and barrier go.
        assert!(!out.contains("LAUNCH_TOKEN"), "{out}");
        assert!(!out.contains("barrier"), "{out}");
        // The fast copy's check is gone, its fact stays.
        assert!(
            out.contains("br i1 true, label %ferrocuda.fast.store"),
            "{out}"
        );
        assert!(out.contains("icmp ult i64 %ferrocuda.fast.idx, %len\n  call void @llvm.assume"));
        // The assumed block computes both ends from the block's indices and size.
        let assumed = out
            .split("ferrocuda.entry.tiles:\n")
            .nth(1)
            .and_then(|s| s.split("\n\n").next())
            .unwrap();
        assert!(
            assumed.contains("@llvm.nvvm.read.ptx.sreg.ntid.x()"),
            "{assumed}"
        );
        assert!(
            assumed.contains("@llvm.nvvm.read.ptx.sreg.ntid.y()"),
            "{assumed}"
        );
        assert!(assumed.contains("icmp sge i64"), "{assumed}");
        assert!(assumed.contains(", %len\n"), "{assumed}");
        // Computed from the block's own values, not the fast copy's (which it precedes).
        assert!(
            assumed
                .lines()
                .filter(|l| !l.trim_start().starts_with("br "))
                .all(|l| !l.contains("%ferrocuda.fast.")),
            "{assumed}"
        );
        assert!(
            assumed
                .trim_end()
                .ends_with("label %ferrocuda.entry.assumed, label %ferrocuda.checked.start"),
            "{assumed}"
        );
    }

    /// The test as a function of the block, its size and the arguments, evaluated by
    /// interpreting the assumed block's lines: it must pass exactly when every thread's index
    /// is in bounds.
    #[test]
    fn the_test_passes_exactly_when_every_thread_is_in_bounds() {
        let out = tiled(TILED).unwrap();
        let assumed: Vec<&str> = out
            .split("ferrocuda.entry.tiles:\n")
            .nth(1)
            .and_then(|s| s.split("\n\n").next())
            .unwrap()
            .lines()
            .collect();
        for (bx, by, ntid, cols, len) in [
            (0u32, 1u32, (16u32, 16u32), 100u32, 10_000i64),
            (1, 1, (16, 16), 100, 10_000),
            (3, 5, (16, 16), 100, 10_000),
            (6, 6, (16, 16), 100, 10_000),
            (7, 7, (16, 16), 100, 10_000),
            (1, 1, (1, 1), 100, 10_000),
            (2, 3, (14, 3), 50, 200),
            (2, 3, (14, 3), 50, 6000),
            (0, 0, (16, 16), 100, 10_000),
            // Indices past 2^31 (the row's product is 64-bit): just in, just out.
            (1000, 16000, (16, 16), 16383, 3_670_035_377),
            (1000, 16000, (16, 16), 16383, 3_670_035_376),
            (16383, 16383, (16, 16), 16383, 1 << 40),
        ] {
            let mut every = true;
            for tx in 0..ntid.0 {
                for ty in 0..ntid.1 {
                    let idx = (by as i64 * 14 - 1 + ty as i64) * cols as i64 + bx as i64 * 14 - 1
                        + tx as i64;
                    every &= (0..len).contains(&idx);
                }
            }
            let got = run(&assumed, bx, by, ntid, cols, len);
            assert_eq!(
                got, every,
                "block ({bx}, {by}) of {ntid:?}, cols {cols}, len {len}"
            );
        }
    }

    /// Interprets the assumed block's lines (the instructions this pass and the fixture
    /// use), returning the value of its branch's condition.
    fn run(lines: &[&str], bx: u32, by: u32, ntid: (u32, u32), cols: u32, len: i64) -> bool {
        run_with(
            lines,
            bx,
            by,
            ntid,
            &[("%cols", cols as i128), ("%len", len as i128)],
        )
    }

    /// [`run`] with the arguments `args`.
    fn run_with(lines: &[&str], bx: u32, by: u32, ntid: (u32, u32), args: &[(&str, i128)]) -> bool {
        let mut env: HashMap<String, i128> = HashMap::new();
        for &(name, value) in args {
            env.insert(name.into(), value);
        }
        let get = |env: &HashMap<String, i128>, v: &str| -> i128 {
            match v {
                "true" => 1,
                "false" => 0,
                _ => v.parse().unwrap_or_else(|_| env[v]),
            }
        };
        for line in lines {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("br i1 ") {
                return get(&env, rest.split(',').next().unwrap()) != 0;
            }
            let Some((name, inst)) = line.split_once(" = ") else {
                continue;
            };
            let inst = strip_words(inst, "tail", &[]).unwrap_or(inst);
            let unsigned32 = |v: i128| v.rem_euclid(1 << 32);
            let value = if let Some(call) = inst.strip_prefix("call i32 @llvm.u") {
                // `umin`/`umax` of two 32-bit values.
                let (op, rest) = call.split_once(".i32(i32 ").unwrap();
                let (a, b) = rest.trim_end_matches(')').split_once(", i32 ").unwrap();
                let (a, b) = (unsigned32(get(&env, a)), unsigned32(get(&env, b)));
                let r = if op == "min" { a.min(b) } else { a.max(b) };
                if r >= 1 << 31 { r - (1 << 32) } else { r }
            } else if let Some(rest) = inst.strip_prefix("select i1 ") {
                let parts: Vec<&str> = rest.split(", ").collect();
                let pick = if get(&env, parts[0]) != 0 {
                    parts[1]
                } else {
                    parts[2]
                };
                get(&env, pick.split(' ').nth(1).unwrap())
            } else if inst.contains("sreg.") {
                match inst
                    .split("sreg.")
                    .nth(1)
                    .unwrap()
                    .split('(')
                    .next()
                    .unwrap()
                {
                    "ctaid.x" => bx as i128,
                    "ctaid.y" => by as i128,
                    "ntid.x" => ntid.0 as i128,
                    "ntid.y" => ntid.1 as i128,
                    other => panic!("{other}"),
                }
            } else {
                let opcode = inst.split(' ').next().unwrap();
                let words = ["nuw", "nsw", "nneg", "samesign", "disjoint"];
                let rest = strip_words(inst, opcode, &words).unwrap();
                // Values are kept as signed readings of their width; `wrap` reduces a result.
                let wrap = |v: i128, bits: u32| {
                    let m = 1i128 << bits;
                    let r = v.rem_euclid(m);
                    if r >= m / 2 { r - m } else { r }
                };
                match opcode {
                    "zext" | "sext" | "trunc" => {
                        let (from, rest) = rest.split_once(' ').unwrap();
                        let (operand, to) = rest.split_once(" to ").unwrap();
                        let v = get(&env, operand);
                        match (opcode, from, to) {
                            ("zext", "i32", "i64") => v.rem_euclid(1 << 32),
                            ("sext", "i32", "i64") => v,
                            ("trunc", "i64", "i32") => wrap(v, 32),
                            other => panic!("{other:?}"),
                        }
                    }
                    "icmp" => {
                        let (pred, rest) = rest.split_once(' ').unwrap();
                        let (ty, rest) = rest.split_once(' ').unwrap();
                        let (a, b) = rest.split_once(", ").unwrap();
                        let (a, b) = (get(&env, a), get(&env, b));
                        let bits = if ty == "i32" { 32 } else { 64 };
                        let unsigned = |v: i128| v.rem_euclid(1 << bits);
                        i128::from(match pred {
                            "ult" => unsigned(a) < unsigned(b),
                            "ugt" => unsigned(a) > unsigned(b),
                            "slt" => a < b,
                            "sge" => a >= b,
                            other => panic!("{other}"),
                        })
                    }
                    "call" => continue,
                    _ => {
                        let (ty, rest) = rest.split_once(' ').unwrap();
                        let (a, b) = rest.split_once(", ").unwrap();
                        let (a, b) = (get(&env, a), get(&env, b));
                        let bits = match ty {
                            "i1" => 1,
                            "i32" => 32,
                            _ => 64,
                        };
                        let v = match opcode {
                            "add" => a + b,
                            "sub" => a - b,
                            "mul" => a * b,
                            "shl" => a << b,
                            "and" => a & b,
                            "or" => a | b,
                            "xor" => a ^ b,
                            other => panic!("{other}"),
                        };
                        if bits == 1 { v & 1 } else { wrap(v, bits) }
                    }
                }
            };
            env.insert(name.to_string(), value);
        }
        panic!("no branch")
    }

    /// `ir` ([`TILED`] or a variant) with both thread indices assumed below 16 after the
    /// barrier, as `max_block(16, 16)` has the entry assume them.
    fn with_max_block(ir: &str) -> String {
        ir.replace(
            "  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n",
            "  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)\n  \
             %ferrocuda.fast.tx16 = icmp ult i32 %ferrocuda.fast.tx, 16\n  \
             call void @llvm.assume(i1 %ferrocuda.fast.tx16)\n  \
             %ferrocuda.fast.ty16 = icmp ult i32 %ferrocuda.fast.ty, 16\n  \
             call void @llvm.assume(i1 %ferrocuda.fast.ty16)\n  \
             br label %ferrocuda.fast.body\n\nferrocuda.fast.body:\n",
        )
    }

    /// [`TILED`] with a `rows` argument, 16x16 threads (`max_block`), and its store under
    /// HotSpot's guards: a thread computes only where its cell is in the grid (`vmin <= t <=
    /// vmax` on each axis, `vmin`, `vmax` the tile's part inside the grid), and stores after
    /// a join, where a `phi` remembers whether it computed.
    fn guarded() -> String {
        with_max_block(TILED)
            .replace("i32 %cols, i64 %token", "i32 %cols, i32 %rows, i64 %token")
            .replace(
                "  %ferrocuda.fast.ok = icmp ult i64 %ferrocuda.fast.idx, %len\n",
                "  %ferrocuda.fast.rows = zext i32 %rows to i64\n\
                 GUARD_x_cols\
                 GUARD_y_rows\
                 \x20 %ferrocuda.fast.outx = or i1 %ferrocuda.fast.belowx, %ferrocuda.fast.abovex\n  \
                 %ferrocuda.fast.outy = or i1 %ferrocuda.fast.belowy, %ferrocuda.fast.abovey\n  \
                 %ferrocuda.fast.out = or i1 %ferrocuda.fast.outx, %ferrocuda.fast.outy\n  \
                 br i1 %ferrocuda.fast.out, label %ferrocuda.fast.merge, label %ferrocuda.fast.compute\n\n\
                 ferrocuda.fast.compute:\n  br label %ferrocuda.fast.merge\n\n\
                 ferrocuda.fast.merge:\n  \
                 %ferrocuda.fast.computed = phi i1 [ true, %ferrocuda.fast.compute ], [ false, %ferrocuda.fast.body ]\n  \
                 br i1 %ferrocuda.fast.computed, label %ferrocuda.fast.check, label %ferrocuda.fast.done\n\n\
                 ferrocuda.fast.done:\n  ret void\n\n\
                 ferrocuda.fast.check:\n  \
                 %ferrocuda.fast.ok = icmp ult i64 %ferrocuda.fast.idx, %len\n",
            )
            .replace("GUARD_x_cols", &guard("x", "cols"))
            .replace("GUARD_y_rows", &guard("y", "rows"))
    }

    /// The lines computing `below<axis>` (`t < vmin`) and `above<axis>` (`t > vmax`) for
    /// [`guarded`], `vmin = origin < 0 ? -origin : 0`, `vmax = origin + 15 < size ? 15 : size
    /// - 1 - origin`, as HotSpot computes them.
    fn guard(axis: &str, size: &str) -> String {
        let f = |name: &str| format!("%ferrocuda.fast.{name}");
        let (t, origin, size) = (f(&format!("t{axis}64")), f(&format!("{axis}0")), f(size));
        let v = |name: &str| f(&format!("{name}{axis}"));
        format!(
            "  {neg} = icmp slt i64 {origin}, 0\n  \
             {minus} = sub nsw i64 0, {origin}\n  \
             {vmin} = select i1 {neg}, i64 {minus}, i64 0\n  \
             {end} = add nsw i64 {origin}, 15\n  \
             {fits} = icmp slt i64 {end}, {size}\n  \
             {flip} = xor i64 {origin}, -1\n  \
             {rest} = add nsw i64 {flip}, {size}\n  \
             {vmax} = select i1 {fits}, i64 15, i64 {rest}\n  \
             {below} = icmp ult i64 {t}, {vmin}\n  \
             {above} = icmp ugt i64 {t}, {vmax}\n",
            neg = v("neg"),
            minus = v("minus"),
            vmin = v("vmin"),
            end = v("end"),
            fits = v("fits"),
            flip = v("flip"),
            rest = v("rest"),
            vmax = v("vmax"),
            below = v("below"),
            above = v("above"),
        )
    }

    /// The tiles' block of `out`, as lines.
    fn tiles_block(out: &str) -> Vec<&str> {
        out.split("ferrocuda.entry.tiles:\n")
            .nth(1)
            .and_then(|s| s.split("\n\n").next())
            .unwrap()
            .lines()
            .collect()
    }

    #[test]
    fn bounds_the_threads_by_the_guards_the_check_is_under() {
        let out = tiled(&guarded()).expect("the store's check is tiled");
        let tiles = tiles_block(&out);
        assert!(
            tiles.iter().any(|l| l.contains("@llvm.umin.i32")),
            "{}",
            tiles.join("\n")
        );
        // The host's copy of the test has the same lines.
        let define = guarded().lines().next().unwrap().to_string();
        let body: String = guarded()
            .split_inclusive('\n')
            .skip(1)
            .filter(|l| !l.starts_with('}'))
            .collect();
        let host = apply(&define, &body).unwrap().host;
        assert_eq!(host.passed.len(), 1);
        assert!(
            crate::entry_test::program(&define, &host.lines, &host.passed[0]).is_some(),
            "{:?}",
            host.lines
        );
        // Every block of a grid the tiles cover passes (the edge blocks too: their threads
        // past the grid do not reach the store), and a test that passes is right: every thread
        // that reaches the store, by the guards, is in bounds.
        let mut passed_edges = 0;
        for (cols, rows) in [(40u32, 30u32), (14, 14), (15, 29), (1, 1), (100, 3)] {
            let (gx, gy) = (cols.div_ceil(14), rows.div_ceil(14));
            for len in [i64::from(rows * cols), i64::from(rows * cols) - 1] {
                // One block past the grid on each axis too.
                for bx in 0..=gx {
                    for by in 0..=gy {
                        let args = [
                            ("%cols", i128::from(cols)),
                            ("%rows", i128::from(rows)),
                            ("%len", i128::from(len)),
                        ];
                        let got = run_with(&tiles, bx, by, (16, 16), &args);
                        let inside = bx < gx && by < gy;
                        let reaching = reaching_in_bounds(bx, by, cols, rows, len);
                        if got {
                            assert!(reaching, "block ({bx}, {by}), {cols}x{rows}, len {len}");
                        }
                        if inside && len == i64::from(rows * cols) {
                            assert!(got, "block ({bx}, {by}) of {cols}x{rows} fails");
                            passed_edges += usize::from(bx + 1 == gx || by + 1 == gy);
                        }
                    }
                }
            }
        }
        assert!(passed_edges > 10, "{passed_edges}");
    }

    /// Whether every thread of block `(bx, by)` of [`guarded`] that reaches the store (by the
    /// guards, in 64-bit unsigned compares as the kernel makes them) has its index in `[0,
    /// len)`.
    fn reaching_in_bounds(bx: u32, by: u32, cols: u32, rows: u32, len: i64) -> bool {
        let range = |origin: i64, size: i64| {
            let vmin = if origin < 0 { -origin } else { 0 } as u64;
            let vmax = if origin + 15 < size {
                15
            } else {
                size - 1 - origin
            } as u64;
            (0..16u64).filter(move |&t| t >= vmin && t <= vmax)
        };
        let (x0, y0) = (i64::from(bx) * 14 - 1, i64::from(by) * 14 - 1);
        range(y0, i64::from(rows)).all(|ty| {
            range(x0, i64::from(cols)).all(|tx| {
                let idx = (y0 + ty as i64) * i64::from(cols) + x0 + tx as i64;
                (0..len).contains(&idx)
            })
        })
    }

    #[test]
    fn a_guard_on_a_loaded_value_bounds_nothing() {
        // The bound read from memory may differ where the check is from where the guard
        // compared it: the tile test falls back to the tile's columns from -1, which the
        // top-left block then fails.
        let ir = guarded().replace(
            "%ferrocuda.fast.vminx = select i1 %ferrocuda.fast.negx, i64 %ferrocuda.fast.minusx, i64 0",
            "%ferrocuda.fast.vminx = load i64, ptr %out, align 8",
        );
        let out = tiled(&ir).expect("still tiled, by the whole tile");
        let tiles = tiles_block(&out);
        let args = [("%cols", 40), ("%rows", 30), ("%len", 1200)];
        assert!(!run_with(&tiles, 0, 0, (16, 16), &args));
        assert!(run_with(&tiles, 1, 1, (16, 16), &args));
        let good = tiled(&guarded()).unwrap();
        assert!(run_with(&tiles_block(&good), 0, 0, (16, 16), &args));
    }

    #[test]
    fn reads_the_threads_bounds_from_the_facts_at_the_check() {
        // `max_block(16, 16)`: the entry assumes both thread indices below 16, so the ends use
        // 15 rather than the block's size.
        let ir = with_max_block(TILED);
        let out = tiled(&ir).expect("tiled");
        assert!(!out.contains("sreg.ntid"), "{out}");
        assert!(out.contains(", 15\n"), "{out}");
    }

    #[test]
    fn leaves_a_check_outside_loops_when_another_stays() {
        // Another panic stays in the copy (so does the token): a test per block would cost
        // more than the one check it removes.
        let ir = TILED.replace(
            "  store float 1.0, ptr %ferrocuda.fast.p, align 4\n",
            "  store float 1.0, ptr %ferrocuda.fast.p, align 4\n  \
             tail call void @panic_bounds_check(i64 0, i64 0, ptr null)\n",
        );
        assert_eq!(tiled(&ir), None);
    }

    #[test]
    fn leaves_an_index_that_depends_on_a_load() {
        let ir = TILED.replace(
            "%ferrocuda.fast.cols = zext i32 %cols to i64",
            "%ferrocuda.fast.c32 = load i32, ptr %out, align 4\n  \
             %ferrocuda.fast.cols = zext i32 %ferrocuda.fast.c32 to i64",
        );
        assert_eq!(tiled(&ir), None);
    }

    #[test]
    fn leaves_a_product_of_two_thread_indices() {
        let ir = TILED.replace(
            "%ferrocuda.fast.row = mul i64 %ferrocuda.fast.y, %ferrocuda.fast.cols",
            "%ferrocuda.fast.row = mul i64 %ferrocuda.fast.y, %ferrocuda.fast.tx64",
        );
        assert_eq!(tiled(&ir), None);
    }

    #[test]
    fn leaves_an_index_that_may_wrap() {
        // Without the entry's limit on the block indices, `ctaid.x * 2^40` may not fit.
        let ir = TILED.replace(
            "%ferrocuda.fast.ox = mul nuw nsw i64 %ferrocuda.fast.bx64, 14",
            "%ferrocuda.fast.ox = shl i64 %ferrocuda.fast.bx64, 50",
        );
        assert_eq!(tiled(&ir), None);
    }
}
