//! The entry test of a versioned kernel, written for the runtime to evaluate on the host.
//!
//! [`crate::passes::check_versioning`] gives a kernel a fast copy without the bounds checks its guards
//! decide, chosen by a test of the kernel's integer parameters (`nz * ny * nx <= input.len()`,
//! each factor below 2^30, ...). Every thread computes that test: about 14 SASS instructions
//! for the 3-D stencil, whose interior thread runs about 60 more, and that was the whole of its
//! gap to CUDA C on the H100 (0.926x with the test, 0.993x without it, the same fast copy; see
//! `bench/results/`). The test depends on nothing a thread knows that the launcher does not,
//! so the launcher can compute it once per launch instead.
//!
//! The builder writes the test as a small program in a comment line at the top of the PTX,
//! `// ferrocuda entry test: <entry> <program>` ([`ENTRY_TEST_NOTE_PREFIX`]), and the kernel's
//! new entry first looks at bit 62 of its launch token ([`ENTRY_TEST_TOKEN_BIT`], the hidden
//! last parameter `#[kernel]` adds): when set, the runtime evaluated the program on this
//! launch's parameters and it held, and the kernel goes straight to the fast copy; when clear
//! (the test failed, a graph replay, a launcher that does not know the note), the kernel
//! computes the test itself as before. So the note is an optimisation the runtime may ignore,
//! never something the kernel's correctness depends on a launcher it cannot see.
//!
//! The program: ops separated by `;`; op `i` defines `%i`; each op is
//! `<opcode>[.<flag>]* <width> <operand> [<operand>]`, the width being the result's (an
//! `icmp`'s: its operands'); an operand is `%n`, `$n:w` (entry parameter `n` read as a `w`-bit
//! unsigned integer), `^x`, `^y`, `^z` (the block index, 32 bits) or a decimal constant. A
//! program that reads block indices holds for a launch when it holds in every block of the
//! launch's grid, which the runtime decides soundly for any program (over boxes of blocks,
//! `runtime/src/vocabulary/entry_test/`): the builder writes the block indices' limits and
//! the tiles' tests of [`crate::passes::check_versioning::tile_checks`] there, and the kernel's bit then skips them too.
//! Opcodes and flags are LLVM's (`zext.nneg`, `trunc.nuw`, `add.nuw.nsw`, `or.disjoint`,
//! `icmp.ule`, `icmp.ult.samesign`, ...), with LLVM's meaning: a flag whose promise fails makes
//! the value poison, and the runtime then leaves the bit clear; `select <w> <c> <a> <b>` and
//! `umin`, `umax`, `smin`, `smax` are written for `select` and the intrinsics' calls. The
//! program's value is its last op's, one bit.

use crate::ir::instructions::strip_metadata;
use std::collections::HashMap;

/// What starts an entry-test note line of the PTX (read back by the runtime).
pub const ENTRY_TEST_NOTE_PREFIX: &str = "// ferrocuda entry test: ";

/// The launch-token bit the runtime sets when the entry test held on the host (`1 << 62`;
/// `ferrocuda_device::panic::ENTRY_TEST_TOKEN_BIT` on the device side).
pub const ENTRY_TEST_TOKEN_BIT: u64 = 1 << 62;

/// The function's parameters in order, `(type, name)`: `i32 noundef %0` is `("i32", "%0")`.
pub(crate) fn parameters(define: &str) -> Vec<(String, String)> {
    let Some(open) = define.find('(') else {
        return Vec::new();
    };
    let params = &define[open + 1..];
    let close = crate::ir::syntax::matching_paren(&define[open..]).map_or(params.len(), |c| c - 1);
    crate::ir::syntax::split_top_level(&params[..close])
        .into_iter()
        .filter_map(|p| {
            let p = p.trim();
            let ty = p.split(' ').next()?;
            let name = p.rsplit(' ').next()?;
            name.starts_with('%')
                .then(|| (ty.to_string(), name.to_string()))
        })
        .collect()
}

/// The parameter holding the launch token: the `i64` the entry stores to the panic handler's
/// `LAUNCH_TOKEN` (the first statement of every `#[kernel]` entry), which must be the entry's
/// last parameter: the runtime sets [`ENTRY_TEST_TOKEN_BIT`] in the last parameter of the
/// launch, so an entry whose token is elsewhere gets no bit test (it computes its test).
pub(crate) fn launch_token(define: &str, body: &[&str]) -> Option<String> {
    let params = parameters(define);
    let (ty, last) = params.last()?;
    if ty != "i64" {
        return None;
    }
    body.iter().find_map(|line| {
        let rest = line.trim().strip_prefix("store volatile i64 ")?;
        let (value, target) = rest.split_once(", ")?;
        (target.contains("LAUNCH_TOKEN") && value == last).then(|| value.to_string())
    })
}

/// The note program of a test computed by `lines` (`(name, instruction)` in order, each
/// operand a parameter of `define`, an earlier line's name or a constant), whose value is
/// `result`; `None` when an instruction is not one the program language has.
pub(crate) fn program(define: &str, lines: &[(String, String)], result: &str) -> Option<String> {
    let params: HashMap<String, (usize, u32)> = parameters(define)
        .into_iter()
        .enumerate()
        .filter_map(|(i, (ty, name))| Some((name, (i, width(&ty)?))))
        .collect();
    let mut values: HashMap<&str, (usize, u32)> = HashMap::new();
    let mut blocks: HashMap<&str, &str> = HashMap::new();
    let mut ops = Vec::new();
    for (name, inst) in lines {
        let inst = strip_metadata(inst.trim());
        // A block-index read is no op: its value is the operand `^x`.
        if let Some(axis) = block_index(inst) {
            blocks.insert(name, axis);
            continue;
        }
        let (op, w) = op(inst, &params, &values, &blocks)?;
        values.insert(name, (ops.len(), w));
        ops.push(op);
    }
    let &(last, w) = values.get(result)?;
    if w != 1 {
        return None;
    }
    if last + 1 != ops.len() {
        ops.push(format!("and 1 %{last} %{last}"));
    }
    Some(ops.join(";"))
}

/// The width of an integer type (`i32` is 32).
fn width(ty: &str) -> Option<u32> {
    ty.strip_prefix('i')?.parse().ok()
}

/// The operand (`^x`, `^y`, `^z`) of a block-index read, `[tail ]call i32
/// @llvm.nvvm.read.ptx.sreg.ctaid.<axis>()`.
fn block_index(inst: &str) -> Option<&'static str> {
    let call = inst.strip_prefix("tail ").unwrap_or(inst);
    let axis = call.strip_prefix("call i32 @llvm.nvvm.read.ptx.sreg.ctaid.")?;
    ["x", "y", "z"]
        .into_iter()
        .zip(["^x", "^y", "^z"])
        .find_map(|(a, operand)| (axis == format!("{a}()")).then_some(operand))
}

/// One instruction as a program op, with its result width (`blocks`: the names of block-index
/// reads, with their operands).
fn op(
    inst: &str,
    params: &HashMap<String, (usize, u32)>,
    values: &HashMap<&str, (usize, u32)>,
    blocks: &HashMap<&str, &str>,
) -> Option<(String, u32)> {
    let operand = |v: &str, w: u32| -> Option<String> {
        if let Some(&block) = blocks.get(v) {
            return (w == 32).then(|| block.to_string());
        }
        if let Some(&(i, vw)) = values.get(v) {
            return (vw == w).then(|| format!("%{i}"));
        }
        if let Some(&(i, pw)) = params.get(v) {
            return (pw == w && (w == 32 || w == 64)).then(|| format!("${i}:{w}"));
        }
        match v {
            "true" if w == 1 => Some("1".to_string()),
            "false" if w == 1 => Some("0".to_string()),
            _ => v.parse::<i128>().ok().map(|c| c.to_string()),
        }
    };
    // `select i1 %c, i32 %a, i32 %b`
    if let Some(rest) = inst.strip_prefix("select i1 ") {
        let parts: Vec<&str> = rest.split(", ").map(str::trim).collect();
        let [c, a, b] = parts[..] else {
            return None;
        };
        let (ty, a) = a.split_once(' ')?;
        let (ty_b, b) = b.split_once(' ')?;
        let w = width(ty).filter(|_| ty == ty_b)?;
        let (c, a, b) = (operand(c, 1)?, operand(a, w)?, operand(b, w)?);
        return Some((format!("select {w} {c} {a} {b}"), w));
    }
    // `[tail ]call i32 @llvm.umin.i32(i32 %a, i32 %b)`, `umax`, `smin`, `smax`
    if let Some(call) = inst
        .strip_prefix("tail ")
        .unwrap_or(inst)
        .strip_prefix("call ")
    {
        let (ty, callee) = call.split_once(" @llvm.")?;
        let (name, args) = callee.split_once('(')?;
        let (op, suffix) = name.split_once('.')?;
        let w = width(ty).filter(|_| suffix == ty)?;
        if !["umin", "umax", "smin", "smax"].contains(&op) {
            return None;
        }
        let (a, b) = args.strip_suffix(')')?.split_once(", ")?;
        let a = operand(a.trim().strip_prefix(ty)?.trim(), w)?;
        let b = operand(b.trim().strip_prefix(ty)?.trim(), w)?;
        return Some((format!("{op} {w} {a} {b}"), w));
    }
    let mut words = inst.split(' ');
    let opcode = words.next()?;
    let mut flags = Vec::new();
    let mut rest: Vec<&str> = words.collect();
    let allowed: &[&str] = match opcode {
        "zext" => &["nneg"],
        "trunc" | "add" | "sub" | "mul" | "shl" => &["nuw", "nsw"],
        "lshr" => &["exact"],
        "or" => &["disjoint"],
        "icmp" => &["samesign"],
        "sext" | "and" | "xor" => &[],
        _ => return None,
    };
    while let Some(&w) = rest.first() {
        if !allowed.contains(&w) {
            break;
        }
        flags.push(w);
        rest.remove(0);
    }
    let mut name = opcode.to_string();
    if opcode == "icmp" {
        let pred = crate::analysis::facts::canonical(rest.first()?)?;
        rest.remove(0);
        name = format!("icmp.{pred}");
    }
    for f in &flags {
        name.push('.');
        name.push_str(f);
    }
    let rest = rest.join(" ");
    if matches!(opcode, "zext" | "sext" | "trunc") {
        // `zext i32 %x to i64`
        let (from, to) = rest.split_once(" to ")?;
        let (from_ty, value) = from.split_once(' ')?;
        let (from_w, to_w) = (width(from_ty)?, width(to.trim())?);
        let value = operand(value.trim(), from_w)?;
        return Some((format!("{name} {to_w} {value}"), to_w));
    }
    // `add i64 %a, %b`, `icmp ult i32 %a, 7`
    let (ty, operands) = rest.split_once(' ')?;
    let w = width(ty)?;
    let (a, b) = operands.split_once(", ")?;
    let (a, b) = (operand(a.trim(), w)?, operand(b.trim(), w)?);
    let result = if opcode == "icmp" { 1 } else { w };
    Some((format!("{name} {w} {a} {b}"), result))
}

/// `ptx` with a [`ENTRY_TEST_NOTE_PREFIX`] line for each `(entry, program)` before its
/// `.version` line.
pub(crate) fn ptx_note(ptx: &str, notes: &[(String, String)]) -> String {
    crate::ir::ptx_notes::ptx_notes(ptx, ENTRY_TEST_NOTE_PREFIX, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEFINE: &str = "define ptx_kernel void @k(ptr noundef %a, i64 noundef range(i64 0, 4294967296) %len, i32 noundef %nx, i32 %ny, i64 noundef %token) #0 {";

    fn lines(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, i)| (n.to_string(), i.to_string()))
            .collect()
    }

    #[test]
    fn reads_parameters_in_order_with_their_types() {
        let p = parameters(DEFINE);
        let names: Vec<(&str, &str)> = p.iter().map(|(t, n)| (t.as_str(), n.as_str())).collect();
        assert_eq!(
            names,
            [
                ("ptr", "%a"),
                ("i64", "%len"),
                ("i32", "%nx"),
                ("i32", "%ny"),
                ("i64", "%token")
            ]
        );
    }

    #[test]
    fn finds_the_token_by_its_store() {
        let body = [
            "  %t = and i64 %len, 3\n",
            "  store volatile i64 %token, ptr addrspacecast (ptr addrspace(3) @_RNv5panic12LAUNCH_TOKEN to ptr), align 8, !dbg !4\n",
        ];
        assert_eq!(launch_token(DEFINE, &body).as_deref(), Some("%token"));
        // A store of something else, or no store: no token.
        let other = ["  store volatile i64 %len, ptr @x, align 8\n"];
        assert_eq!(launch_token(DEFINE, &other), None);
        // The runtime sets the bit in the launch's last parameter: a token stored from any
        // other parameter is not one the bit can reach.
        let len = ["  store volatile i64 %len, ptr @LAUNCH_TOKEN, align 8\n"];
        assert_eq!(launch_token(DEFINE, &len), None);
        let moved = "define ptx_kernel void @k(i64 noundef %token, i64 noundef %len) #0 {";
        let token = ["  store volatile i64 %token, ptr @LAUNCH_TOKEN, align 8\n"];
        assert_eq!(launch_token(moved, &token), None);
    }

    #[test]
    fn writes_a_product_test_as_a_program() {
        let test = lines(&[
            ("%v.x", "zext i32 %nx to i64, !dbg !7"),
            ("%v.y", "zext nneg i32 %ny to i64"),
            ("%v.p", "mul nuw i64 %v.x, %v.y"),
            ("%v.fits", "icmp ule i64 %v.p, %len"),
            ("%v.small", "icmp ult i32 %nx, 1073741824"),
            ("%v.all", "and i1 %v.fits, %v.small"),
        ]);
        assert_eq!(
            program(DEFINE, &test, "%v.all").as_deref(),
            Some(
                "zext 64 $2:32;zext.nneg 64 $3:32;mul.nuw 64 %0 %1;icmp.ule 64 %2 $1:64;\
                 icmp.ult 32 $2:32 1073741824;and 1 %3 %4"
            )
        );
        // A result that is not the last line is repeated at the end.
        assert_eq!(
            program(DEFINE, &test, "%v.fits")
                .as_deref()
                .map(|p| p.rsplit(';').next()),
            Some(Some("and 1 %3 %3"))
        );
    }

    #[test]
    fn writes_block_index_reads_as_operands() {
        let test = lines(&[
            ("%bx", "call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()"),
            ("%by", "tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.y()"),
            ("%row", "mul i32 %by, %nx"),
            ("%at", "add i32 %row, %bx"),
            ("%ok", "icmp ult i32 %at, %ny"),
            ("%lim", "icmp ult i32 %bx, 32768"),
            ("%all", "and i1 %ok, %lim"),
        ]);
        assert_eq!(
            program(DEFINE, &test, "%all").as_deref(),
            Some(
                "mul 32 ^y $2:32;add 32 %0 ^x;icmp.ult 32 %1 $3:32;icmp.ult 32 ^x 32768;and 1 %2 %3"
            )
        );
        // A block index is 32 bits; other special registers are not in the language.
        let wide = lines(&[
            ("%bx", "call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()"),
            ("%c", "icmp ult i64 %bx, 3"),
        ]);
        assert_eq!(program(DEFINE, &wide, "%c"), None);
        let size = lines(&[
            ("%n", "call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()"),
            ("%c", "icmp ult i32 %n, 3"),
        ]);
        assert_eq!(program(DEFINE, &size, "%c"), None);
    }

    #[test]
    fn writes_selects_and_min_max_calls() {
        let test = lines(&[
            ("%neg", "icmp slt i32 %nx, 0"),
            ("%minus", "sub i32 0, %nx"),
            ("%v", "select i1 %neg, i32 %minus, i32 0"),
            ("%lo", "call i32 @llvm.umin.i32(i32 %v, i32 15)"),
            ("%hi", "tail call i32 @llvm.smax.i32(i32 %lo, i32 %ny)"),
            ("%ok", "icmp ult i32 %hi, 7"),
        ]);
        assert_eq!(
            program(DEFINE, &test, "%ok").as_deref(),
            Some(
                "icmp.slt 32 $2:32 0;sub 32 0 $2:32;select 32 %0 %1 0;umin 32 %2 15;\
                 smax 32 %3 $3:32;icmp.ult 32 %4 7"
            )
        );
        // Arms of another width than the select's, a call of another intrinsic or with
        // operands of another type are not in the language.
        for bad in [
            "select i1 %neg, i32 %nx, i64 0",
            "call i32 @llvm.abs.i32(i32 %nx, i1 false)",
            "call i32 @llvm.umin.i32(i64 %nx, i32 15)",
            "call i64 @llvm.umin.i32(i32 %nx, i32 15)",
        ] {
            let test = lines(&[("%neg", "icmp slt i32 %nx, 0"), ("%v", bad)]);
            assert_eq!(program(DEFINE, &test, "%neg"), None, "{bad}");
        }
    }

    #[test]
    fn refuses_what_the_language_lacks() {
        let cases: [&[(&str, &str)]; 5] = [
            // An instruction outside the language.
            &[("%v", "udiv i64 %len, 3"), ("%c", "icmp eq i64 %v, 0")],
            // An operand of the wrong width (the 64-bit length as an i32).
            &[("%c", "icmp ult i32 %len, 7")],
            // A pointer parameter.
            &[("%c", "icmp eq i64 %a, 0")],
            // An unknown value.
            &[("%c", "icmp eq i64 %elsewhere, 0")],
            // A result that is not one bit.
            &[("%c", "add i64 %len, 1")],
        ];
        for case in cases {
            let test = lines(case);
            let result = test.last().unwrap().0.clone();
            assert_eq!(program(DEFINE, &test, &result), None, "{case:?}");
        }
    }

    #[test]
    fn notes_go_before_the_version_line() {
        let ptx = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.8\n.target sm_90\n";
        let out = ptx_note(ptx, &[("k".into(), "icmp.eq 64 $1:64 0".into())]);
        assert!(
            out.contains("//\n\n// ferrocuda entry test: k icmp.eq 64 $1:64 0\n.version 7.8\n")
        );
    }
}
