//! The two-operand integer intrinsics (`llvm.umin`, `llvm.smax`, `llvm.usub.sat`, ...) whose
//! 32-bit form the passes write, and their declarations.

/// The two-operand integer intrinsics whose 32-bit form mirrors the 64-bit one on operands
/// that fit ([`Analysis::narrow_call`](crate::analysis::ranges::Analysis::narrow_call)).
pub(crate) const MIN_MAX: [&str; 5] = ["umin", "umax", "smin", "smax", "usub.sat"];

/// Adds to the module `out` the declarations of the 32-bit `min`/`max` intrinsics it calls
/// without declaring them.
pub(crate) fn declare_min_max(out: &mut String) {
    for op in MIN_MAX {
        let name = format!("@llvm.{op}.i32(");
        if out.contains(&name) && !out.contains(&format!("declare i32 {name}")) {
            if !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!("declare i32 {name}i32, i32)\n"));
        }
    }
}
