//! Tests of the tiles' tests: what the entry computes, and that it passes exactly when every thread of the block is in bounds.

use super::*;
use crate::ir::instructions::strip_words;

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
                let idx =
                    (by as i64 * 14 - 1 + ty as i64) * cols as i64 + bx as i64 * 14 - 1 + tx as i64;
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
        crate::passes::check_versioning::entry_test::program(&define, &host.lines, &host.passed[0])
            .is_some(),
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
