//! Tests of compare narrowing, most on the fast copies of [`crate::passes::check_versioning`].

use super::*;

/// The compare `pred` of two values given as their signed and unsigned readings.
fn compare<S: Ord, U: Ord>(pred: &str, (sa, ua): (S, U), (sb, ub): (S, U)) -> bool {
    match pred {
        "eq" => ua == ub,
        "ne" => ua != ub,
        "ult" => ua < ub,
        "ule" => ua <= ub,
        "ugt" => ua > ub,
        "uge" => ua >= ub,
        "slt" => sa < sb,
        "sle" => sa <= sb,
        "sgt" => sa > sb,
        _ => sa >= sb,
    }
}

/// The 64-bit compare `pred` of `a` and `b`.
fn compare64(pred: &str, a: i64, b: i64) -> bool {
    compare(pred, (a, a as u64), (b, b as u64))
}

/// The 32-bit compare `pred` of the low halves of `a` and `b`.
fn compare32(pred: &str, a: i64, b: i64) -> bool {
    let (a, b) = (a as i32, b as i32);
    compare(pred, (a, a as u32), (b, b as u32))
}

const PREDICATES: [&str; 10] = [
    "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
];

#[test]
fn a_narrowed_compare_decides_what_the_wide_one_did() {
    // Ranges around every boundary the rules use, and values at and next to their ends.
    let edges = [
        -(1i128 << 40),
        -(1i128 << 32),
        -(1i128 << 31) - 1,
        -(1i128 << 31),
        -3,
        0,
        5,
        (1 << 31) - 1,
        1 << 31,
        (1 << 32) - 1,
        1 << 32,
        1 << 40,
    ];
    let mut ranges = Vec::new();
    for &lo in &edges {
        for &hi in &edges {
            if lo <= hi {
                ranges.push(Range::new(lo, hi));
            }
        }
    }
    let samples = |r: Range| {
        let mut v = vec![
            r.lo,
            r.hi,
            r.lo + (r.hi - r.lo) / 2,
            r.lo + (r.hi - r.lo) / 3,
        ];
        for &e in &edges {
            for d in [-1, 0, 1] {
                if (r.lo..=r.hi).contains(&(e + d)) {
                    v.push(e + d);
                }
            }
        }
        v
    };
    let mut narrowed = 0;
    for &ra in &ranges {
        for &rb in &ranges {
            for pred in PREDICATES {
                let Some(new) = narrowed_predicate(pred, ra, rb) else {
                    continue;
                };
                narrowed += 1;
                for a in samples(ra) {
                    for b in samples(rb) {
                        let (a, b) = (a as i64, b as i64);
                        assert_eq!(
                            compare64(pred, a, b),
                            compare32(new, a, b),
                            "{pred} -> {new}, a = {a} in {ra:?}, b = {b} in {rb:?}"
                        );
                    }
                }
            }
        }
    }
    // The rules narrow something (and refuse mixed ranges).
    assert!(narrowed > 1000, "{narrowed}");
    let wide = Range::new(0, 1 << 32);
    assert_eq!(narrowed_predicate("ult", wide, Range::new(0, 10)), None);
    let mixed = (Range::new(-3, 10), Range::new((1 << 31) + 1, (1 << 31) + 2));
    assert_eq!(narrowed_predicate("slt", mixed.0, mixed.1), None);
    assert_eq!(narrowed_predicate("eq", mixed.0, mixed.1), Some("eq"));
}

fn narrowed(ir: &str) -> String {
    let versioned = crate::passes::check_versioning::apply(ir, false)
        .expect("versioned")
        .text;
    apply(&versioned).expect("narrowed")
}

#[test]
fn narrows_the_fast_copys_guards_and_loop_counter() {
    let out = narrowed(crate::passes::check_versioning::tests::TAPS);
    let has = |line: &str| out.lines().any(|l| l.trim() == line);
    // The loop counter gets a 32-bit twin, and the row guards read it.
    assert!(
        has(
            "%ferrocuda.narrow.1 = phi i32 [ 0, %ferrocuda.fast.pre ], [ %ferrocuda.narrow.2, %ferrocuda.fast.30 ]"
        ),
        "{out}"
    );
    assert!(
        has("%ferrocuda.fast.19 = icmp ugt i32 %ferrocuda.narrow.4, 2"),
        "{out}"
    );
    assert!(
        has("%ferrocuda.fast.20 = icmp slt i32 %ferrocuda.narrow.5, %5"),
        "{out}"
    );
    assert!(has(
        "%ferrocuda.narrow.4 = add i32 %ferrocuda.narrow.1, %ferrocuda.narrow.3"
    ));
    assert!(has("%ferrocuda.narrow.2 = add i32 %ferrocuda.narrow.1, 1"));
    assert!(
        has("%ferrocuda.fast.33 = icmp ult i32 %ferrocuda.narrow.2, 7"),
        "{out}"
    );
    // The row argument is 64-bit: its low half is taken at the top of the entry block.
    assert!(has("%ferrocuda.narrow.3 = trunc i64 %6 to i32"), "{out}");
    // The original body is left as it was; the fast copy's proved check is `true`.
    assert!(has(
        "%ferrocuda.checked.19 = icmp samesign ugt i64 %ferrocuda.checked.17, 2"
    ));
    assert!(has(
        "%ferrocuda.checked.20 = icmp slt i64 %ferrocuda.checked.18, %ferrocuda.checked.11"
    ));
    assert!(has("%ferrocuda.fast.25 = and i1 true, true"), "{out}");
}

#[test]
fn computes_addresses_outside_loops_from_32_bit_indices() {
    let out = narrowed(crate::passes::check_versioning::tests::STENCIL);
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let at = |prefix: &str| {
        lines
            .iter()
            .position(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("{prefix}\n{out}"))
    };
    // The output's index `(z ny + y) nx + x`, below `len` by the assumption its check left:
    // computed in 32 bits and widened once, for the address only.
    let write = at("%ferrocuda.fast.p = getelementptr");
    let wide = lines[write - 1];
    assert!(
        wide.starts_with("%ferrocuda.narrow.") && wide.contains(" = zext i32 %ferrocuda.narrow."),
        "{out}"
    );
    let wide_name = wide.split(' ').next().unwrap();
    assert_eq!(
        lines[write],
        format!("%ferrocuda.fast.p = getelementptr inbounds float, ptr %2, i64 {wide_name}")
    );
    for line in [
        "%ferrocuda.narrow.4 = mul i32 %5, %9",
        "%ferrocuda.narrow.5 = add i32 %ferrocuda.narrow.4, %8",
        "%ferrocuda.narrow.6 = mul i32 %ferrocuda.narrow.5, %4",
        "%ferrocuda.narrow.7 = add i32 %ferrocuda.narrow.6, %7",
    ] {
        assert!(lines.contains(&line), "{line}\n{out}");
    }
    assert_eq!(
        wide,
        format!("{wide_name} = zext i32 %ferrocuda.narrow.7 to i64")
    );
    // `i - 1`: the 32-bit `i` widened, the -1 kept as the address's constant offset.
    let read = at("%ferrocuda.fast.q = getelementptr");
    assert_eq!(
        lines[read],
        format!(
            "%ferrocuda.fast.q = getelementptr float, ptr {}, i64 -1",
            lines[read - 1].split(' ').next().unwrap()
        )
    );
    assert!(
        lines[read - 1].contains(" = getelementptr float, ptr %0, i64 %ferrocuda.narrow."),
        "{out}"
    );
    // The checked copy keeps its 64-bit addresses.
    assert!(lines.contains(
        &"%ferrocuda.checked.p = getelementptr inbounds float, ptr %2, i64 %ferrocuda.checked.i"
    ));
    assert!(lines.contains(
        &"%ferrocuda.checked.q = getelementptr inbounds float, ptr %0, i64 %ferrocuda.checked.im1"
    ));
    // An address in a loop stays 64-bit (`llc` steps a pointer through it).
    let taps = narrowed(crate::passes::check_versioning::tests::TAPS);
    assert!(
        taps.contains(
            "  %ferrocuda.fast.27 = getelementptr inbounds float, ptr %0, i64 %ferrocuda.fast.24\n"
        ),
        "{taps}"
    );
}

#[test]
fn leaves_compares_that_may_need_64_bits() {
    // Without the fast copy's limit the row may be close to 2^32: `row + 6 - 3` can pass
    // 2^32, and nothing is narrowed.
    let versioned =
        crate::passes::check_versioning::apply(crate::passes::check_versioning::tests::TAPS, false)
            .expect("versioned")
            .text
            .replace("icmp ult i32 %5, 1073741824", "icmp ult i32 %5, -1")
            .replace("icmp ult i32 %4, 1073741824", "icmp ult i32 %4, -1");
    let out = apply(&versioned).unwrap_or(versioned);
    let has = |line: &str| out.lines().any(|l| l.trim() == line);
    assert!(
        has("%ferrocuda.fast.19 = icmp samesign ugt i64 %ferrocuda.fast.17, 2"),
        "{out}"
    );
    assert!(has(
        "%ferrocuda.fast.20 = icmp slt i64 %ferrocuda.fast.18, %ferrocuda.fast.11"
    ));
    // The loop counter, bounded by its own exit test, is narrowed all the same.
    assert!(
        has("%ferrocuda.fast.33 = icmp ult i32 %ferrocuda.narrow.2, 7"),
        "{out}"
    );
    assert_eq!(out.matches("= add i32 ").count(), 1, "{out}");
}

#[test]
fn a_loop_counter_is_bounded_by_its_back_edge() {
    let body = "\
define void @f(i64 %n) {
entry:
  br label %loop

loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %next = add i64 %i, 1
  %more = icmp ult i64 %next, 100
  br i1 %more, label %loop, label %exit

exit:
  ret void
}
";
    let lines: Vec<&str> = body.split_inclusive('\n').skip(1).collect();
    let mut analysis = Analysis::new(&lines[..lines.len() - 1]).expect("modelled");
    assert_eq!(analysis.range("%i", 64, &[], 0), Range::new(0, 99));
    assert_eq!(analysis.range("%next", 64, &[], 0), Range::new(1, 100));
    // Counting down leaves the loop at once (`0 - 1` wraps past 100): still bounded.
    let down = body.replace("add i64 %i, 1", "add i64 %i, -1");
    let lines: Vec<&str> = down.split_inclusive('\n').skip(1).collect();
    let mut analysis = Analysis::new(&lines[..lines.len() - 1]).expect("modelled");
    assert_eq!(analysis.range("%i", 64, &[], 0), Range::new(0, 99));
    // Counting down until `!= 100`: it wraps, and nothing bounds it.
    let down = down.replace("icmp ult i64 %next, 100", "icmp ne i64 %next, 100");
    let lines: Vec<&str> = down.split_inclusive('\n').skip(1).collect();
    let mut analysis = Analysis::new(&lines[..lines.len() - 1]).expect("modelled");
    assert_eq!(analysis.range("%i", 64, &[], 0), Range::full(64));
}

/// The range analysis of a body given as text, and the facts at the block labelled
/// `block`.
fn decided(body: &str, block: &str, value: &str) -> Option<bool> {
    // The body's lines: without a `define` line and its `}` where the text has them.
    let lines: Vec<&str> = body
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("define ") && l.trim() != "}")
        .collect();
    let mut analysis = Analysis::new(&lines).expect("modelled");
    let index = analysis
        .blocks
        .iter()
        .position(|b| b.label.as_deref() == Some(block))
        .expect("block");
    let facts = analysis.facts(index);
    analysis.decide(value, &facts)
}

/// A loop `for k in 1..=n` (rotated: `k == n` leaves) with `n < 100` assumed, and compares
/// of `k`, `min`/`max`/`saturating_sub` of it, and `!k`, in its body.
const COUNTED: &str = "start:
  %limit = icmp ult i32 %n, 100
  call void @llvm.assume(i1 %limit)
  br label %entry

entry:
  %none = icmp eq i32 %n, 0
  br i1 %none, label %exit, label %loop

loop:
  %k = phi i32 [ 1, %entry ], [ %step, %loop ]
  %below = icmp ult i32 %k, 100
  %at_most = icmp ugt i32 %k, 99
  %some = icmp ne i32 %k, 0
  %wide = zext i32 %k to i64
  %low = tail call i64 @llvm.umin.i64(i64 %wide, i64 7)
  %low_fits = icmp ule i64 %low, 7
  %high = tail call i64 @llvm.umax.i64(i64 %wide, i64 200)
  %high_is = icmp uge i64 %high, 200
  %high_max = icmp ult i64 %high, 201
  %sat = tail call i64 @llvm.usub.sat.i64(i64 %wide, i64 500)
  %sat_zero = icmp eq i64 %sat, 0
  %not = xor i64 %wide, -1
  %negative = icmp slt i64 %not, -1
  %smax = tail call i64 @llvm.smax.i64(i64 %not, i64 -50)
  %smax_low = icmp sge i64 %smax, -50
  %done = icmp eq i32 %k, %n
  %step = add nuw i32 %k, 1
  br i1 %done, label %exit, label %loop

exit:
  ret void
";

#[test]
fn bounds_a_counter_by_its_exit_test() {
    // `k` runs from 1 to `n`, at most 99: below 100, never 0.
    assert_eq!(decided(COUNTED, "loop", "%below"), Some(true));
    assert_eq!(decided(COUNTED, "loop", "%at_most"), Some(false));
    assert_eq!(decided(COUNTED, "loop", "%some"), Some(true));
    // Without the limit on `n`, `k` may be any `u32` but 0.
    let any = COUNTED.replace("call void @llvm.assume(i1 %limit)", "");
    assert_eq!(decided(&any, "loop", "%below"), None);
    // Without the `n != 0` test in front, the first `k` (1) may pass `n` (0): `k` wraps.
    let unguarded = COUNTED.replace("br i1 %none, label %exit, label %loop", "br label %loop");
    assert_eq!(decided(&unguarded, "loop", "%below"), None);
    // Stepping by 2 from 1 may step over `n`.
    let by_two = COUNTED.replace("%step = add nuw i32 %k, 1", "%step = add nuw i32 %k, 2");
    assert_eq!(decided(&by_two, "loop", "%below"), None);
}

#[test]
fn reads_min_max_saturating_sub_and_not() {
    for (value, expected) in [
        ("%low_fits", true),
        ("%high_is", true),
        ("%high_max", true),
        ("%sat_zero", true),
        ("%negative", true),
        ("%smax_low", true),
    ] {
        assert_eq!(decided(COUNTED, "loop", value), Some(expected), "{value}");
    }
}

/// A fast copy's clamped neighbour, `tx.saturating_sub(1).max(valid_min)` with
/// `valid_min = if origin < 0 { -origin } else { 0 }`, compared with the tile's edge.
const CLAMPED: &str = "define ptx_kernel void @k(i32 %origin) {
start:
  %limit = icmp sgt i32 %origin, -1000
  call void @llvm.assume(i1 %limit)
  br label %ferrocuda.fast.0

ferrocuda.fast.0:
  %t = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %tw = zext i32 %t to i64
  %ow = sext i32 %origin to i64
  %negative = icmp slt i64 %ow, 0
  %minus = sub i64 0, %ow
  %valid_min = select i1 %negative, i64 %minus, i64 0
  %west_sat = tail call i64 @llvm.usub.sat.i64(i64 %tw, i64 1)
  %west = tail call i64 @llvm.umax.i64(i64 %valid_min, i64 %west_sat)
  %inside = icmp ult i64 %west, 16
  br i1 %inside, label %ferrocuda.fast.1, label %ferrocuda.fast.2

ferrocuda.fast.1:
  br label %ferrocuda.fast.2

ferrocuda.fast.2:
  ret void
}
";

#[test]
fn reads_each_select_arm_where_it_is_chosen() {
    // `-origin` is chosen only where `origin < 0`: positive, at most 2^31.
    let body = CLAMPED.replace(
        "%inside = icmp ult i64 %west, 16",
        "%inside = icmp slt i64 %valid_min, 0",
    );
    assert_eq!(decided(&body, "ferrocuda.fast.0", "%inside"), Some(false));
    // Both arms read under all the block's facts, `-origin` could be negative.
    let both = body.replace(
        "%valid_min = select i1 %negative,",
        "%valid_min = select i1 true,",
    );
    assert_eq!(decided(&both, "ferrocuda.fast.0", "%inside"), None);
}

#[test]
fn a_saturated_subtract_under_a_max_is_a_signed_max_of_the_difference() {
    let out = apply(CLAMPED).expect("narrowed");
    let lines: Vec<&str> = out.lines().map(str::trim).collect();
    let at = |needle: &str| {
        lines
            .iter()
            .position(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}\n{out}"))
    };
    let difference = at(" = sub i32 %t, 1");
    let max = at("call i32 @llvm.smax.i32(");
    assert!(difference < max, "{out}");
    let name = lines[difference].split(' ').next().unwrap();
    assert!(lines[max].contains(&format!("(i32 {name}, i32 ")), "{out}");
    assert!(!out.contains("usub.sat.i32"), "{out}");
    // Without the assumption `-origin` may be 2^31, past a signed 32-bit max: the
    // saturating form stays.
    let unbounded = CLAMPED.replace(
        "icmp sgt i32 %origin, -1000",
        "icmp sge i32 %origin, -2147483648",
    );
    let kept = apply(&unbounded).unwrap_or(unbounded);
    assert!(!kept.contains("@llvm.smax.i32("), "{kept}");
    // The identity itself, over the edges of its domain.
    let values = [0i64, 1, 2, 15, 16, 1000, (1 << 31) - 2, (1 << 31) - 1];
    for v in values {
        for c in values {
            for w in values {
                let saturating = (v - c).max(0).max(w);
                let signed = i64::from((v as i32).wrapping_sub(c as i32).max(w as i32));
                assert_eq!(saturating, signed, "v {v} c {c} w {w}");
            }
        }
    }
}

/// `i` lags `j` by one: `j = phi [1], [j + 1]`, `i = phi [0], [j]`, the loop's `if`
/// bounding `j` by 15.
#[test]
fn a_lagging_counter_follows_its_leader() {
    let body = "entry:
  br label %loop

loop:
  %j = phi i32 [ 1, %entry ], [ %next, %latch ]
  %i = phi i32 [ 0, %entry ], [ %j, %latch ]
  %in = icmp ult i32 %j, 16
  br i1 %in, label %body, label %latch

body:
  %fits = icmp ult i32 %i, 15
  br label %latch

latch:
  %next = add nuw i32 %j, 1
  br label %loop
";
    assert_eq!(decided(body, "body", "%fits"), Some(true));
    // Started at 5 instead of 0, `i` is not `j - 1`.
    let apart = body.replace("[ 0, %entry ]", "[ 5, %entry ]");
    assert_eq!(decided(&apart, "body", "%fits"), None);
}
