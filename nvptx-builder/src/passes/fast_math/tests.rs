//! Tests of fast math: the flags each option adds, the markers of single kernels, and the PTX notes.

use super::*;

#[test]
fn parse_and_display_round_trip() {
    assert_eq!(FastMath::parse("off"), Ok(FastMath::OFF));
    assert_eq!(FastMath::parse(" 0 "), Ok(FastMath::OFF));
    assert_eq!(FastMath::parse("contract"), Ok(FastMath::CONTRACT));
    assert_eq!(FastMath::parse("all"), Ok(FastMath::ALL));
    assert_eq!(
        FastMath::parse("approx-sqrt, contract"),
        Ok(FastMath {
            contract: true,
            approx_div: false,
            approx_sqrt: true
        })
    );
    for f in [FastMath::OFF, FastMath::CONTRACT, FastMath::ALL] {
        assert_eq!(FastMath::parse(&f.to_string()), Ok(f), "{f}");
    }
    assert_eq!(FastMath::ALL.to_string(), "contract,approx-div,approx-sqrt");
    let e = FastMath::parse("contract,fma").unwrap_err();
    assert!(e.contains("\"fma\"") && e.contains("approx-div"), "{e}");
}

#[test]
fn flags_the_instructions_each_option_concerns() {
    let c = FastMath::CONTRACT;
    assert_eq!(
        flag_instruction("  %5 = fmul float %3, %4, !dbg !12", c).as_deref(),
        Some("  %5 = fmul contract float %3, %4, !dbg !12")
    );
    assert_eq!(
        flag_instruction("  %x = fadd nnan double %a, %b", c).as_deref(),
        Some("  %x = fadd contract nnan double %a, %b")
    );
    assert_eq!(
        flag_instruction("  %x = fsub <2 x half> %a, %b", c).as_deref(),
        Some("  %x = fsub contract <2 x half> %a, %b")
    );
    // Already there, or not the option's instruction.
    assert_eq!(flag_instruction("  %x = fadd fast float %a, %b", c), None);
    assert_eq!(
        flag_instruction("  %x = fmul contract float %a, %b", c),
        None
    );
    assert_eq!(flag_instruction("  %x = fdiv float %a, %b", c), None);
    assert_eq!(
        flag_instruction("  %x = add i32 %a, %b", FastMath::ALL),
        None
    );
    assert_eq!(
        flag_instruction("  store float %a, ptr %p", FastMath::ALL),
        None
    );

    let div = FastMath {
        approx_div: true,
        ..FastMath::OFF
    };
    assert_eq!(
        flag_instruction("  %q = fdiv float %a, %b", div).as_deref(),
        Some("  %q = fdiv afn float %a, %b")
    );
    // f64 has no approximate division instruction.
    assert_eq!(flag_instruction("  %q = fdiv double %a, %b", div), None);
    assert_eq!(flag_instruction("  %m = fmul float %a, %b", div), None);

    let sqrt = FastMath {
        approx_sqrt: true,
        ..FastMath::OFF
    };
    assert_eq!(
        flag_instruction("  %r = tail call float @llvm.sqrt.f32(float %x)", sqrt).as_deref(),
        Some("  %r = tail call afn float @llvm.sqrt.f32(float %x)")
    );
    assert_eq!(
        flag_instruction("  %r = call float @llvm.sqrt.f32(float %x), !dbg !3", sqrt).as_deref(),
        Some("  %r = call afn float @llvm.sqrt.f32(float %x), !dbg !3")
    );
    assert_eq!(
        flag_instruction("  %r = call double @llvm.sqrt.f64(double %x)", sqrt),
        None
    );
    assert_eq!(
        flag_instruction("  %r = call float @llvm.sqrt.f32(float %x)", div),
        None
    );
}

const MODULE: &str = r#"@marker = internal constant <{ [13 x i8] }> <{ [13 x i8] c"fast=contract" }>, section ".ferrocuda.fast_math", align 1
@other = internal global [4 x i8] zeroinitializer
@llvm.used = appending global [2 x ptr] [ptr @marker, ptr @other], section "llvm.metadata"

define ptx_kernel void @fast(ptr %p, float %a, float %b) {
start:
  %m = fmul float %a, %b
  %s = fadd float %m, %a
  store float %s, ptr %p
  ret void
}

define ptx_kernel void @plain(ptr %p, float %a, float %b) {
start:
  %m = fmul float %a, %b
  %s = fadd float %m, %a
  %q = fdiv float %s, %b
  store float %q, ptr %p
  ret void
}
"#;

#[test]
fn a_marked_kernel_alone_is_flagged_and_the_marker_goes() {
    let applied = apply(MODULE, FastMath::OFF).unwrap().unwrap();
    let t = &applied.text;
    assert_eq!(
        applied.kernels,
        vec![("fast".to_owned(), FastMath::CONTRACT)]
    );
    assert!(!t.contains("@marker"), "{t}");
    assert!(
        t.contains(
            "@llvm.used = appending global [1 x ptr] [ptr @other], section \"llvm.metadata\"\n"
        ),
        "{t}"
    );
    let (fast, plain) = t.split_once("@plain").unwrap();
    assert!(fast.contains("%m = fmul contract float %a, %b"), "{t}");
    assert!(fast.contains("%s = fadd contract float %m, %a"), "{t}");
    assert!(!plain.contains("contract"), "{t}");
}

#[test]
fn a_helper_gets_the_flags_all_its_callers_allow() {
    let module = r#"@marker = internal constant [13 x i8] c"fast=contract", section ".ferrocuda.fast_math"
@table = internal constant [1 x ptr] [ptr @escapes]
define internal float @only_fast(float %a) {
  %m = fmul float %a, %a
  %r = call float @recursive(float %m)
  ret float %r
}
define internal float @recursive(float %a) {
  %m = fmul float %a, %a
  %r = tail call float @recursive(float %m)
  ret float %r
}
define internal float @shared(float %a) {
  %m = fmul float %a, %a
  ret float %m
}
define internal float @escapes(float %a) {
  %m = fmul float %a, %a
  ret float %m
}
define ptx_kernel void @fast(ptr %p, float %a) {
  %x = call float @only_fast(float %a)
  %y = call float @shared(float %x)
  %z = call float @escapes(float %y)
  store float %z, ptr %p
  ret void
}
define ptx_kernel void @plain(ptr %p, float %a) {
  %y = call float @shared(float %a)
  store float %y, ptr %p
  ret void
}
"#;
    let applied = apply(module, FastMath::OFF).unwrap().unwrap();
    let body = |name: &str| {
        let start = applied.text.find(&format!("@{name}(float %a) {{")).unwrap();
        let rest = &applied.text[start..];
        rest[..rest.find("\n}").unwrap()].to_owned()
    };
    assert!(
        body("only_fast").contains("fmul contract"),
        "{}",
        applied.text
    );
    assert!(
        body("recursive").contains("fmul contract"),
        "{}",
        applied.text
    );
    assert!(!body("shared").contains("contract"), "{}", applied.text);
    assert!(!body("escapes").contains("contract"), "{}", applied.text);
    assert_eq!(
        applied.kernels,
        vec![("fast".to_owned(), FastMath::CONTRACT)]
    );
}

#[test]
fn references_tell_calls_from_other_uses() {
    assert_eq!(
        function_references("  %r = tail call float @f(float %a, ptr @g), !dbg !4"),
        vec![("f".to_owned(), true), ("g".to_owned(), false)]
    );
    assert_eq!(
        function_references("  call void @\"q u\"() ; @comment"),
        vec![("q u".to_owned(), true)]
    );
    assert_eq!(
        function_references("@t = constant [1 x ptr] [ptr @h]"),
        vec![("t".to_owned(), false), ("h".to_owned(), false)]
    );
}

#[test]
fn crate_wide_flags_every_function() {
    let applied = apply(MODULE, FastMath::ALL).unwrap().unwrap();
    let t = &applied.text;
    assert_eq!(
        applied.kernels,
        vec![
            ("fast".to_owned(), FastMath::ALL),
            ("plain".to_owned(), FastMath::ALL)
        ]
    );
    let plain = t.split_once("@plain").unwrap().1;
    assert!(plain.contains("fmul contract float"), "{t}");
    assert!(plain.contains("fdiv afn float %s, %b"), "{t}");
}

#[test]
fn the_ptx_names_each_fast_kernel_before_its_version() {
    let ptx = "//\n// Generated by LLVM NVPTX Back-End\n//\n\n.version 7.0\n.target sm_70\n";
    let noted = ptx_note(
        ptx,
        &[
            ("a".to_owned(), FastMath::CONTRACT),
            ("b".to_owned(), FastMath::ALL),
        ],
    );
    assert_eq!(
        noted,
        "//\n// Generated by LLVM NVPTX Back-End\n//\n\n\
             // ferrocuda fast math: a contract\n\
             // ferrocuda fast math: b contract,approx-div,approx-sqrt\n\
             .version 7.0\n.target sm_70\n"
    );
}

#[test]
fn nothing_on_and_no_marker_leaves_the_module_alone() {
    let module = MODULE.split_once("\n\n").unwrap().1;
    assert_eq!(apply(module, FastMath::OFF).unwrap(), None);
}

#[test]
fn a_marker_for_a_missing_kernel_or_with_bad_flags_is_an_error() {
    let missing = MODULE.replace("c\"fast=contract\"", "c\"gone=contract\"");
    let e = apply(&missing, FastMath::OFF).unwrap_err();
    assert!(e.message().contains("`gone`"), "{e:?}");
    let bad = MODULE.replace("c\"fast=contract\"", "c\"fast=fused\"");
    let e = apply(&bad, FastMath::OFF).unwrap_err();
    assert!(e.message().contains("\"fused\""), "{e:?}");
}
