//! Tests of loop counter narrowing: which counters narrow, and the guard a counter starting at one needs.

use super::*;

/// PathFinder's row loop as `opt` leaves it (trimmed): the counter `%76` starts at 1, the
/// loop is entered when `%0 != 0`, and leaves when `%76 == zext %0`.
const ROW_LOOP: &str = "\
define void @k(i32 %0, i32 %1) {
  %3 = zext i32 %0 to i64
  %4 = zext nneg i32 %1 to i64
  br label %5

5:                                                ; preds = %2
  %6 = icmp eq i32 %0, 0
  br i1 %6, label %20, label %7

7:                                                ; preds = %5
  br label %8

8:                                                ; preds = %17, %7
  %9 = phi i64 [ 1, %7 ], [ %18, %17 ]
  %10 = phi i64 [ 0, %7 ], [ %9, %17 ]
  %11 = icmp samesign ule i64 %9, %4
  %12 = sub nsw i64 254, %10
  br i1 %11, label %13, label %14

13:                                               ; preds = %8
  call void @use(i64 %10)
  br label %14

14:                                               ; preds = %13, %8
  %15 = icmp eq i64 %9, %3, !dbg !7
  br i1 %15, label %20, label %16

16:                                               ; preds = %14
  br label %17

17:                                               ; preds = %16
  %18 = add nuw nsw i64 %9, 1
    #dbg_value(i64 %18, !1, !DIExpression(), !2)
  br label %8

20:                                               ; preds = %14, %5
  ret void
}
";

#[test]
fn narrows_a_counter_bounded_by_a_u32_and_entered_when_nonzero() {
    let out = apply(ROW_LOOP).expect("the counter narrows");
    assert!(
        out.contains("  %9 = phi i32 [ 1, %7 ], [ %18, %17 ]"),
        "{out}"
    );
    assert!(
        out.contains("  %10 = phi i32 [ 0, %7 ], [ %9, %17 ]"),
        "{out}"
    );
    assert!(out.contains("  %counter64.10 = zext i32 %10 to i64\n  %counter64.9 = zext i32 %9 to i64\n  %11 = icmp ule i32 %9, %1\n"), "{out}");
    assert!(
        out.contains("  %12 = sub nsw i64 254, %counter64.10"),
        "{out}"
    );
    assert!(out.contains("call void @use(i64 %counter64.10)"), "{out}");
    assert!(out.contains("  %15 = icmp eq i32 %9, %0, !dbg !7"), "{out}");
    assert!(
        out.contains("  %18 = add nuw i32 %9, 1\n  br label %8"),
        "{out}"
    );
    assert!(!out.contains("#dbg_value(i64 %18"), "{out}");
    assert_eq!(apply(&out), None, "a second run finds nothing");
}

#[test]
fn a_counter_starting_at_one_without_the_guard_stays() {
    // Entered whatever %0 is: with %0 == 0 the 64-bit counter passes 2^32.
    let unguarded = ROW_LOOP.replace("br i1 %6, label %20, label %7", "br label %7");
    assert_eq!(apply(&unguarded), None);
    // A guard on another value proves nothing.
    let other = ROW_LOOP.replace("%6 = icmp eq i32 %0, 0", "%6 = icmp eq i32 %1, 0");
    assert_eq!(apply(&other), None);
}

#[test]
fn a_counter_starting_at_zero_needs_no_guard() {
    let from_zero = ROW_LOOP
        .replace("br i1 %6, label %20, label %7", "br label %7")
        .replace("[ 1, %7 ], [ %18, %17 ]", "[ 0, %7 ], [ %18, %17 ]");
    assert!(apply(&from_zero).is_some());
}

#[test]
fn an_exit_test_that_can_be_skipped_or_a_wide_bound_keeps_the_counter() {
    // The test sits on one arm of the loop's branch: an iteration through the other arm
    // increments without testing.
    let skippable = ROW_LOOP
        .replace(
            "  br label %17\n\n17:",
            "  br label %17\n\n19:\n  br label %17\n\n17:",
        )
        .replace(
            "br i1 %11, label %13, label %14",
            "br i1 %11, label %13, label %19",
        );
    assert_eq!(apply(&skippable), None);
    // A bound that is a 64-bit value.
    let wide = ROW_LOOP.replace("%3 = zext i32 %0 to i64", "%3 = add i64 %4, 7");
    assert_eq!(apply(&wide), None);
    // The increment has another use.
    let used = ROW_LOOP.replace("call void @use(i64 %10)", "call void @use(i64 %18)");
    assert_eq!(apply(&used), None);
}

#[test]
fn value_names_match_whole() {
    assert!(mentions("  %12 = add i64 %1, 2", "%1"));
    assert!(!mentions("  %12 = add i64 %10, 2", "%1"));
    assert_eq!(
        replace_value("call void @f(i64 %9, i64 %90)", "%9", "%w.9"),
        "call void @f(i64 %w.9, i64 %90)"
    );
}
