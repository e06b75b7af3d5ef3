//! The text of a versioned function: the new entry block with the entry test, the original
//! body and the fast copy, each with its local names prefixed.

use super::checks::{argument_names, check_branch, strip_debug, without_launch_token};
use super::entry_test;
use super::equality_checks::equality_branch;
use super::host_test::HostTest;
use super::loop_metadata::{LoopMetadata, disable_unrolling};
use super::names::{
    ASSUMED_BLOCK, ASSUMED_PREFIX, BLOCKS_BLOCK, BLOCKS_PREFIX, SLOW_PREFIX, TEST_BLOCK,
    TILES_BLOCK, VERSION_PREFIX,
};
use super::proof::{Proof, remat};
use crate::analysis::bounds::narrow_operand;
use crate::analysis::fast_copy::PREFIX;
use crate::ir::blocks::{Block, terminator};
use crate::ir::instructions::{definition, strip_metadata, strip_words};
use crate::ir::syntax::{block_label, name_len, skip_string};
use std::collections::{HashMap, HashSet};

/// The fast copy is taken only when each factor widened from a 32-bit argument is below this
/// (2^30): sums and differences of such values and small offsets then fit in 32 bits.
const FACTOR_LIMIT: u64 = 1 << 30;

/// The versioned body: the new entry, the original body and the fast copy, each with its
/// local names prefixed (so that neither keeps numbered values out of order).
#[allow(clippy::too_many_arguments)]
pub(super) fn emit(
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
    // arithmetic around them provably fits in 32 bits ([`crate::passes::compare_narrowing`]).
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
    // The block's own tests (its indices' limits, then [`crate::passes::check_versioning::tile_checks`]' tiles), made
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
    // limits: the facts the passes after this one read ([`crate::passes::compare_narrowing`]) hold on
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
                    let equality = proved.get(&index).and_then(|p| {
                        let (x, y) = p.equality.as_ref()?;
                        let (condition, _) = equality_branch(line.trim(), defs)?;
                        Some((x, y, condition))
                    });
                    if let Some((x, y, condition)) = equality {
                        // The equality cannot hold: its panic side goes, and `x < y` stays.
                        let holds = format!("%{PREFIX}holds.{index}");
                        out.push_str(&format!(
                            "  {holds} = icmp ult i64 {}, {}\n  call void @llvm.assume(i1 {holds})\n",
                            fast(x),
                            fast(y)
                        ));
                        text = text.replacen(
                            &format!("br i1 {},", fast(condition)),
                            "br i1 false,",
                            1,
                        );
                    }
                    let decided = proved
                        .get(&index)
                        .filter(|p| p.equality.is_none())
                        .and_then(|p| Some((p, check_branch(line.trim())?)));
                    if let Some((proof, (condition, _))) = decided {
                        // The check goes; what it established stays for the passes after
                        // this one ([`crate::passes::compare_narrowing`] reads it as a fact).
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

/// The number the unlabelled entry block takes: one past the numbered parameters.
fn entry_number(define: &str) -> usize {
    argument_names(define)
        .iter()
        .filter_map(|a| a.strip_prefix('%')?.parse::<usize>().ok())
        .max()
        .map_or(0, |m| m + 1)
}

/// `text` with every local name that is not a parameter or a type given `prefix`.
pub(super) fn rename(
    text: &str,
    prefix: &str,
    args: &HashSet<String>,
    types: &HashSet<String>,
) -> String {
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
