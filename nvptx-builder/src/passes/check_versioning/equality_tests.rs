//! Tests of the equality checks ([`super::equality_checks`]): which ones a bound decides, and
//! what the fast copy and the entry test make of them.
use super::apply;

/// `for j in 0..n { sum += x[j] }` as LLVM leaves the rolled loop: the check of `x[j]`
/// became `%next == Y` (`%next` is `j + 1`), failing on its true side; `Y` and `X` are
/// replaced by the variants.
const DOT: &str = "\
define ptx_kernel void @dot(ptr %0, i64 %1, i32 %2, i64 %3) {
start:
  %xl = and i64 %1, 4294967295
  %nn = zext i32 %2 to i64
  %empty = icmp eq i32 %2, 0
  br i1 %empty, label %done, label %pre

pre:
  %xl1 = add nuw nsw i64 %xl, 1
  br label %head

head:
  %next = phi i64 [ %after, %body ], [ 1, %pre ]
  %j = phi i64 [ %next, %body ], [ 0, %pre ]
  %hit = icmp eq i64 X, Y
  br i1 %hit, label %panic, label %body

body:
  %p = getelementptr inbounds float, ptr %0, i64 %j
  %v = load float, ptr %p, align 4
  %after = add nuw nsw i64 %next, 1
  %end = icmp eq i64 %next, %nn
  br i1 %end, label %done, label %head, !llvm.loop !0

panic:
  call void @panic_bounds_check(i64 %xl, i64 %xl)
  unreachable

done:
  ret void
}

declare void @panic_bounds_check(i64, i64)

!0 = distinct !{!0}
";

fn dot(x: &str, y: &str) -> String {
    DOT.replace("X, Y", &format!("{x}, {y}"))
}

#[test]
fn a_counter_reaching_the_length_plus_one_is_decided_by_its_bound() {
    // `j + 1 == len + 1` with `j + 1 <= n`: never, when `n <= len`.
    let versioned = apply(&dot("%next", "%xl1"), false).expect("versioned");
    let text = &versioned.text;
    assert!(
        text.contains("br i1 false, label %ferrocuda.fast.panic, label %ferrocuda.fast.body"),
        "{text}"
    );
    assert!(
        text.contains("= icmp ult i64 %ferrocuda.fast.next, %ferrocuda.fast.xl1"),
        "{text}"
    );
    // The original keeps its check; the entry tests `n <= len` (and `n` below 2^30).
    assert!(text.contains("br i1 %ferrocuda.checked.hit, label %ferrocuda.checked.panic"));
    assert!(
        text.contains("= icmp ule i64 %ferrocuda.version.nn, %ferrocuda.version.xl\n"),
        "{text}"
    );
    // `j == len` with `j < n`: the same.
    let versioned = apply(&dot("%j", "%xl"), false).expect("versioned");
    assert!(
        versioned
            .text
            .contains("br i1 false, label %ferrocuda.fast.panic")
    );
}

#[test]
fn a_counter_that_may_reach_the_length_keeps_its_check() {
    // `j + 1 == len` with only `j + 1 <= n`: it happens when `n == len`.
    assert_eq!(apply(&dot("%next", "%xl"), false), None);
    // `len + 1` against a value nothing bounds (the raw length parameter).
    assert_eq!(apply(&dot("%1", "%xl1"), false), None);
}
