//! Tests of check versioning: which kernels get a fast copy, and what the copies and the entry test say.

use super::emit::rename;
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
/// the checks of `i`, `i - 1` and `i + 1` (in the forms [`crate::passes::offset_checks`] gives
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
    let versioned = apply(&taps_with_token(false), false).expect("versioned");
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
    apply(ir, false).expect("versioned").text
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
    assert_eq!(apply(TAPS, false).unwrap().notes, []);
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
    assert!(
        out.contains(
            "br i1 %ferrocuda.fast.36, label %ferrocuda.fast.37, label %ferrocuda.fast.39"
        )
    );
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
    assert_eq!(apply(&once, false), None);
}

#[test]
fn needs_the_column_guard() {
    // Without `x < w` the column may spill into the next row: nothing is proved.
    let unguarded = TAPS.replace("%13 = icmp ult i64 %6, %10", "%13 = icmp ult i64 %6, %11");
    assert_eq!(apply(&unguarded, false), None);
}

#[test]
fn needs_non_negative_rows_for_a_signed_guard() {
    // Without `samesign`, `iy + 3 >u 2` does not say `iy >= 0`, and `iy < h` is signed.
    let signed = TAPS.replace("icmp samesign ugt i64 %17, 2", "icmp ugt i64 %17, 2");
    assert_eq!(apply(&signed, false), None);
}

#[test]
fn a_sum_may_wrap_into_the_negatives_without_nsw() {
    // `iy = t + 0` after `t` is known non-negative: without `nsw` the sum proves nothing.
    let shifted = TAPS.replace(
        "%18 = add nsw i64 %17, -3",
        "%r = add nsw i64 %17, -3\n  %18 = add i64 %r, 0",
    );
    assert_eq!(apply(&shifted, false), None);
    let kept = shifted.replace("%18 = add i64 %r, 0", "%18 = add nsw i64 %r, 0");
    assert!(apply(&kept, false).is_some());
}

#[test]
fn needs_factors_below_2_32_computed_from_the_arguments() {
    // A 64-bit width could make `h * w` wrap.
    let wide = TAPS
        .replace("i32 %4, i32 %5, i64 %6", "i64 %4, i32 %5, i64 %6")
        .replace("%10 = zext i32 %4 to i64", "%10 = add i64 %4, 0")
        .replace("%12 = zext i32 %4 to i64", "%12 = add i64 %4, 0");
    assert_eq!(apply(&wide, false), None);
    // A bound read from memory cannot be tested before the body runs.
    let loaded = TAPS.replace(
        "%11 = zext i32 %5 to i64",
        "%11 = load i64, ptr %2, align 8, !range !5",
    );
    assert_eq!(apply(&loaded, false), None);
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
    let test = lines[..lines.iter().position(|l| l.starts_with("br i1")).unwrap() + 1].join("\n");
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
    assert_eq!(apply(&top, false), None);
    assert_eq!(apply(&left, false), None);
    assert_eq!(apply(&skewed, false), None);
}

#[test]
fn assumptions_of_dominators_are_facts() {
    let ir = "define void @f(i64 %0, i64 %1) {\n  %a = icmp ult i64 %0, %1\n  call void @llvm.assume(i1 %a)\n  br label %next\n\nnext:\n  %b = icmp ult i64 %1, 7\n  call void @llvm.assume(i1 %b)\n  ret void\n}\n";
    let lines: Vec<&str> = ir.split_inclusive('\n').skip(1).collect();
    let body = &lines[..lines.len() - 1];
    let blocks = split_blocks(body);
    let defs = definitions(body);
    let succ = crate::ir::cfg::successors(&blocks, body).expect("modelled");
    let idom = immediate_dominators(&succ);
    let facts = facts_at(&blocks, body, &defs, &succ, &idom, 1);
    // The entry's assumption holds in `next`; `next`'s own does not hold before it.
    assert_eq!(facts.len(), 1);
    assert_eq!(
        (facts[0].a.as_str(), facts[0].pred, facts[0].b.as_str()),
        ("%0", "ult", "%1")
    );
}
