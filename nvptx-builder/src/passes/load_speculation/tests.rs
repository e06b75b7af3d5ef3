//! Tests of load speculation: which chains move, and what their loads read.

use super::renumbering::renamed_line;
use super::speculated::type_size;
use super::*;

/// Two checked loads in a row, the second's index loaded by the first (`x[columns[k]]`),
/// then a store: the shape of a sparse matrix-vector product's inner step. Both loads move
/// above both checks; the store stays behind them. The second load's address depends only on
/// its own check (its base and length are arguments), so only that check guards it.
const GATHER: &str = "\
define void @gather(ptr %0, i64 %1, ptr %2, i64 %3, ptr %4) {
  %6 = icmp ult i64 %3, %1
  br i1 %6, label %7, label %12

7:                                                ; preds = %5
  %8 = getelementptr inbounds i32, ptr %0, i64 %3
  %9 = load i32, ptr %8, align 4, !noundef !1
  %10 = zext i32 %9 to i64
  %11 = icmp ult i64 %10, %3
  br i1 %11, label %13, label %14

12:                                               ; preds = %5
  tail call void @panic_bounds(i64 %3, i64 %1)
  unreachable

13:                                               ; preds = %7
  %15 = getelementptr inbounds float, ptr %2, i64 %10, !dbg !7
  %16 = load float, ptr %15, align 4, !dbg !7
  store float %16, ptr %4, align 4
  ret void

14:                                               ; preds = %7
  tail call void @panic_bounds(i64 %10, i64 %3)
  unreachable
}
";

#[test]
fn loads_move_above_their_checks_with_safe_addresses() {
    let out = apply(GATHER).expect("a chain moves loads");
    let expected = "\
define void @gather(ptr %fc.0, i64 %fc.1, ptr %fc.2, i64 %fc.3, ptr %fc.4) {
fc.5:
  %fc.6 = icmp ult i64 %fc.3, %fc.1
  %fc.8 = getelementptr inbounds i32, ptr %fc.0, i64 %fc.3
  %fc.spec1 = select i1 %fc.6, ptr %fc.8, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %fc.9 = load i32, ptr %fc.spec1, align 4
  call void asm sideeffect \"\", \"r\"(i32 %fc.9)
  %fc.10 = zext i32 %fc.9 to i64
  %fc.11 = icmp ult i64 %fc.10, %fc.3
  %fc.ok2 = select i1 %fc.6, i1 %fc.11, i1 false
  %fc.15 = getelementptr inbounds float, ptr %fc.2, i64 %fc.10, !dbg !7
  %fc.spec3 = select i1 %fc.11, ptr %fc.15, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %fc.16 = load float, ptr %fc.spec3, align 4, !dbg !7
  call void asm sideeffect \"\", \"f\"(float %fc.16)
  br i1 %fc.6, label %fc.7, label %fc.12

fc.7:                                                ; preds = %fc.5
  br i1 %fc.11, label %fc.13, label %fc.14

fc.12:                                               ; preds = %fc.5
  tail call void @panic_bounds(i64 %fc.3, i64 %fc.1)
  unreachable

fc.13:                                               ; preds = %fc.7
  store float %fc.16, ptr %fc.4, align 4
  ret void

fc.14:                                               ; preds = %fc.7
  tail call void @panic_bounds(i64 %fc.10, i64 %fc.3)
  unreachable

}

@ferrocuda_speculation_pad = internal addrspace(1) constant [64 x i8] zeroinitializer, align 16
";
    assert_eq!(out, expected);
}

/// HotSpot's tile loads: `tile_a[t] = a[i]; tile_b[t] = b[i]` in a kernel, each global load
/// behind its own check, a store to a shared array between them. `SECOND` is the second
/// load's base.
fn staged(define: &str, second: &str) -> String {
    format!(
        "@tile = internal addrspace(3) global [256 x float] undef, align 4

{define} void @stage(ptr %a, i64 %alen, ptr %b, i64 %blen, i64 %i) {{
start:
  %ca = icmp ult i64 %i, %alen
  br i1 %ca, label %la, label %pa

la:
  %pa_ = getelementptr inbounds float, ptr %a, i64 %i
  %va = load float, ptr %pa_, align 4
  %sa = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 %i
  store float %va, ptr %sa, align 4
  %cb = icmp ult i64 %i, %blen
  br i1 %cb, label %lb, label %pb

lb:
  %pb_ = getelementptr inbounds float, ptr {second}, i64 %i
  %vb = load float, ptr %pb_, align 4
  store float %vb, ptr %sa, align 4
  ret void

pa:
  tail call void @panic_bounds(i64 %i, i64 %alen)
  unreachable

pb:
  tail call void @panic_bounds(i64 %i, i64 %blen)
  unreachable
}}
"
    )
}

#[test]
fn loads_of_a_kernel_move_above_stores_to_shared_memory() {
    let out = apply(&staged("define ptx_kernel", "%b")).expect("the loads move");
    let body = &out[out.find("start:").unwrap()..out.find("la:").unwrap()];
    // Both loads, each behind its own check only, before the first branch; the stores stay
    // behind their checks.
    let expected = "\
start:
  %ca = icmp ult i64 %i, %alen
  %pa_ = getelementptr inbounds float, ptr %a, i64 %i
  %fc.spec1 = select i1 %ca, ptr %pa_, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %va = load float, ptr %fc.spec1, align 4
  call void asm sideeffect \"\", \"f\"(float %va)
  %sa = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 %i
  %cb = icmp ult i64 %i, %blen
  %fc.ok2 = select i1 %ca, i1 %cb, i1 false
  %pb_ = getelementptr inbounds float, ptr %b, i64 %i
  %fc.spec3 = select i1 %cb, ptr %pb_, ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)
  %vb = load float, ptr %fc.spec3, align 4
  call void asm sideeffect \"\", \"f\"(float %vb)
  br i1 %ca, label %la, label %pa

";
    assert_eq!(body, expected);
    assert!(
        out.contains("la:\n  store float %va, ptr %sa, align 4\n  br i1 %cb"),
        "{out}"
    );
    assert!(
        out.contains("lb:\n  store float %vb, ptr %sa, align 4\n  ret void"),
        "{out}"
    );
}

#[test]
fn loads_that_a_shared_store_may_change_stay_behind_it() {
    // The second load reads the shared array the first store wrote.
    let shared = "addrspacecast (ptr addrspace(3) @tile to ptr)";
    assert_eq!(apply(&staged("define ptx_kernel", shared)), None);
    // Outside a kernel a pointer argument may point to shared memory.
    assert_eq!(apply(&staged("define", "%b")), None);
    // A volatile store is not moved across.
    let volatile = staged("define ptx_kernel", "%b").replace(
        "store float %va, ptr %sa",
        "store volatile float %va, ptr %sa",
    );
    assert_eq!(apply(&volatile), None);
}

/// A function whose block `ok` runs behind two checks, the second testing a loaded value
/// (`%idx`, loaded from `%q`), with `body` as the block's instructions before `ret void`.
fn behind_a_loaded_check(body: &str) -> String {
    format!(
        "define void @f(ptr %q, i64 %i) {{
start:
  %a = icmp ult i64 %i, 4
  br i1 %a, label %first, label %fail

first:
  %idx32 = load i32, ptr %q, align 4
  %idx = zext i32 %idx32 to i64
  %b = icmp ult i64 %idx, 8
  br i1 %b, label %ok, label %fail

ok:
{body}
  ret void

fail:
  call void @panic()
  unreachable
}}
"
    )
}

#[test]
fn each_load_waits_for_every_earlier_check_unless_its_own_suffices() {
    let out = apply(&behind_a_loaded_check(
        "  %x = getelementptr inbounds float, ptr %q, i64 %idx
  %v = load float, ptr %x, align 4, !range !3
  %y = getelementptr inbounds float, ptr %x, i64 %i
  %w = load float, ptr %y, align 4
  %s = fadd float %v, %w
  store float %s, ptr %q, align 4",
    ))
    .expect("moved");
    // `first`'s load waits for `%a`; `q[idx]` for `%b` alone (`q` and the length 8 are
    // known before the chain); `x[i]`, whose base is computed in the chain, for both.
    let pad = "ptr addrspacecast (ptr addrspace(1) @ferrocuda_speculation_pad to ptr)";
    for expected in [
        format!(
            "  %fc.spec1 = select i1 %a, ptr %q, {pad}\n  %idx32 = load i32, ptr %fc.spec1, align 4\n"
        ),
        "  %fc.ok2 = select i1 %a, i1 %b, i1 false\n".to_string(),
        format!(
            "  %fc.spec3 = select i1 %b, ptr %x, {pad}\n  %v = load float, ptr %fc.spec3, align 4\n"
        ),
        format!(
            "  %fc.spec4 = select i1 %fc.ok2, ptr %y, {pad}\n  %w = load float, ptr %fc.spec4, align 4\n"
        ),
    ] {
        assert!(out.contains(&expected), "{expected}\n{out}");
    }
    // The range metadata went; the store stays behind both checks, which keep their order.
    assert!(!out.contains("!range"), "{out}");
    let branch_a = out.find("br i1 %a, label %first, label %fail").unwrap();
    let branch_b = out.find("br i1 %b, label %ok, label %fail").unwrap();
    let store = out.find("store float").unwrap();
    assert!(
        out.find("%s = fadd").unwrap() < branch_a && branch_a < branch_b && branch_b < store,
        "{out}"
    );
}

#[test]
fn checks_of_indices_alone_leave_the_loads_where_they_are() {
    // Two checks that test no loaded value: `llc` already orders them best.
    let ir = "\
define void @f(ptr %q, i64 %i, i64 %j) {
start:
  %a = icmp ult i64 %i, 4
  br i1 %a, label %one, label %fail

one:
  %x = getelementptr inbounds float, ptr %q, i64 %i
  %v = load float, ptr %x, align 4
  %b = icmp ult i64 %j, 4
  br i1 %b, label %two, label %fail

two:
  %y = getelementptr inbounds float, ptr %q, i64 %j
  %w = load float, ptr %y, align 4
  ret void

fail:
  call void @panic()
  unreachable
}
";
    assert_eq!(apply(ir), None);
}

#[test]
fn bounds_read_from_either_side_of_the_compare() {
    let check = |cond: &str, cont_on_true| {
        let defs = HashMap::from([("%c".to_string(), cond.to_string())]);
        Check {
            cond: "%c".into(),
            cont: "ok".into(),
            cont_on_true,
        }
        .bound(&defs)
    };
    let bound = Some(("%i".to_string(), "%n".to_string()));
    assert_eq!(check("icmp ult i64 %i, %n", true), bound);
    assert_eq!(check("icmp samesign ugt i64 %n, %i", true), bound);
    assert_eq!(check("icmp uge i64 %i, %n", false), bound);
    assert_eq!(check("icmp ule i64 %n, %i", false), bound);
    assert_eq!(check("icmp ult i64 %i, %n", false), None);
    assert_eq!(check("icmp slt i64 %i, %n", true), None);
}

#[test]
fn shared_loads_fall_back_to_their_array() {
    let ir = format!(
            "@tile = internal addrspace(3) global [1024 x i8] undef, align 16\n\n{}",
            behind_a_loaded_check(
                "  %x = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @tile to ptr), i64 %i
  %v = load float, ptr %x, align 4
  %y = getelementptr inbounds nuw float, ptr addrspace(3) @tile, i64 %i
  %w = load float, ptr addrspace(3) %y, align 4"
            )
        );
    let out = apply(&ir).expect("moved");
    assert!(
        out.contains(
            "select i1 %fc.ok2, ptr %x, ptr addrspacecast (ptr addrspace(3) @tile to ptr)"
        ),
        "{out}"
    );
    assert!(
        out.contains("select i1 %fc.ok2, ptr addrspace(3) %y, ptr addrspace(3) @tile"),
        "{out}"
    );
}

#[test]
fn side_effects_and_what_follows_them_stay_behind_the_check() {
    for inner in [
        "store float 0.0, ptr %q, align 4",
        "%c = call float @user(float 1.0)",
        "%d = udiv i64 %i, %i",
        "%e = load volatile float, ptr %q, align 4",
        "call void @llvm.nvvm.barrier0()",
    ] {
        let out = apply(&behind_a_loaded_check(&format!(
            "  %u = load float, ptr %q, align 4\n  {inner}\n  %w = load float, ptr %q, align 4"
        )))
        .expect("the first load moves");
        let branch = out.find("br i1 %b").unwrap();
        assert!(
            out.find("%u = load float, ptr %fc.spec").unwrap() < branch,
            "{out}"
        );
        assert!(out.find(inner).unwrap() > branch, "{out}");
        assert!(
            out.find("%w = load float, ptr %q").unwrap() > branch,
            "{out}"
        );
    }
}

#[test]
fn assumptions_are_dropped_and_pure_intrinsics_kept() {
    let out = apply(&behind_a_loaded_check(
        "  %u = load float, ptr %q, align 4
  %c = icmp ult i64 %idx, 2
  call void @llvm.assume(i1 %c)
  %m = call float @llvm.fmuladd.f32(float %u, float %u, float 1.0)",
    ))
    .expect("moved");
    assert!(!out.contains("llvm.assume"), "{out}");
    assert!(
        out.find("@llvm.fmuladd.f32").unwrap() < out.find("br i1 %b").unwrap(),
        "{out}"
    );
}

#[test]
fn wide_or_unknown_loads_and_checks_without_loads_are_left_alone() {
    let wide = GATHER.replace("load float, ptr %15", "load <32 x float>, ptr %15");
    // The first chain link still moves its i32 load; the 128-byte load stays (not in a chain).
    assert!(apply(&wide).is_some_and(|o| o.contains("load <32 x float>, ptr %fc.15")));
    let no_load = "\
define void @f(i64 %i) {
start:
  %a = icmp ult i64 %i, 4
  br i1 %a, label %ok, label %fail

ok:
  %b = add i64 %i, 1
  ret void

fail:
  call void @panic()
  unreachable
}
";
    assert_eq!(apply(no_load), None);
}

#[test]
fn renaming_leaves_strings_alone() {
    assert_eq!(
        renamed_line("  %3 = call i32 asm \"mov.u32 $0, %1;\", \"=r\"(i32 %2)"),
        "  %fc.3 = call i32 asm \"mov.u32 $0, %1;\", \"=r\"(i32 %fc.2)"
    );
    assert_eq!(
        renamed_line("12:   ; preds = %4"),
        "fc.12:   ; preds = %fc.4"
    );
}

#[test]
fn type_sizes() {
    assert_eq!(type_size("i1"), Some(1));
    assert_eq!(type_size("<4 x float>"), Some(16));
    assert_eq!(type_size("[3 x i64]"), Some(24));
    assert_eq!(type_size("{ i32, i32 }"), None);
}
