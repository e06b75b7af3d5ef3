//! Link-time rewrite of core's index panics into calls that record integers.
//!
//! Core reports `slice[i]` and `&slice[a..b]` out of bounds through `panic_bounds_check(index,
//! len, location)` and `slice_index_fail(start, end, len, location)`, which format their message
//! at run time; the device panic record keeps static text only, so on the GPU the index and the
//! length were lost. This pass replaces the body of each of those functions by a tail call of an
//! entry of the device library (`ferrocuda_panic_bounds`, `ferrocuda_panic_slice_range`, in
//! `device/src/backend/gpu/panic_operands.rs`) with the same parameters, which records the
//! integers; the host prints Rust's text. The functions are cold (called only on a failed check),
//! so the kernels' hot code does not change.
//!
//! The functions are found by their v0-mangled paths (`...4core9panicking18panic_bounds_check`),
//! whatever the crate hash. A function is rewritten only when its replacement is defined in the
//! module (a kernel crate without the device library keeps core's bodies) and its parameter count
//! is the one expected (a future core with another signature keeps its body too).

use crate::ir::syntax::{matching_paren, split_top_level};

/// A core function to redirect: the end of its mangled name, the replacement's symbol, and the
/// number of parameters both take.
struct Redirect {
    mangled_suffix: &'static str,
    target: &'static str,
    params: usize,
}

/// The functions this pass redirects.
const REDIRECTS: &[Redirect] = &[
    Redirect {
        mangled_suffix: "4core9panicking18panic_bounds_check",
        target: "ferrocuda_panic_bounds",
        params: 3,
    },
    Redirect {
        mangled_suffix: "4core5slice5index16slice_index_fail",
        target: "ferrocuda_panic_slice_range",
        params: 4,
    },
];

/// The module text with the redirected bodies, or `None` when nothing was rewritten.
pub(crate) fn rewrite(ir: &str) -> Option<String> {
    let mut out = String::with_capacity(ir.len());
    let mut changed = false;
    let mut lines = ir.split_inclusive('\n');
    while let Some(line) = lines.next() {
        let Some(header) = redirected_header(ir, line) else {
            out.push_str(line);
            continue;
        };
        // Skip the old body, up to the function's closing brace.
        for body in lines.by_ref() {
            if body.starts_with('}') {
                break;
            }
        }
        out.push_str(&header);
        changed = true;
    }
    changed.then_some(out)
}

/// The new definition replacing the one starting at `line`, when `line` defines a function to
/// redirect whose replacement `ir` defines.
fn redirected_header(ir: &str, line: &str) -> Option<String> {
    if !line.starts_with("define ") || !line.trim_end().ends_with('{') {
        return None;
    }
    let at = line.find('@')?;
    let open = at + line[at..].find('(')?;
    let name = &line[at + 1..open];
    let redirect = REDIRECTS
        .iter()
        .find(|r| name.ends_with(r.mangled_suffix))?;
    if !ir.contains(&format!(" @{}(", redirect.target)) {
        return None;
    }
    let close = open + matching_paren(&line[open..])?;
    let params = split_top_level(&line[open + 1..close]);
    if params.len() != redirect.params {
        return None;
    }
    let mut args = Vec::new();
    for param in &params {
        let ty = param.split_whitespace().next()?;
        let value = param.split_whitespace().last()?;
        if !value.starts_with('%') {
            return None;
        }
        args.push(format!("{ty} {value}"));
    }
    // Debug info would require a location on the new call; the one-call body needs none.
    let head = strip_debug_attachment(line.trim_end().trim_end_matches('{').trim_end());
    Some(format!(
        "{head} {{\nstart:\n  tail call void @{}({})\n  unreachable\n}}\n",
        redirect.target,
        args.join(", ")
    ))
}

/// `header` without a trailing `!dbg !N` attachment.
fn strip_debug_attachment(header: &str) -> &str {
    match header.rfind(" !dbg !") {
        Some(i) if header[i + 7..].chars().all(|c| c.is_ascii_digit()) => &header[..i],
        _ => header,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CORE: &str = "\
define internal void @_RNvNtCsd358nV3edtU_4core9panicking18panic_bounds_check(i64 noundef %index, i64 noundef %len, ptr noalias noundef readonly align 8 dereferenceable(24) %0) unnamed_addr #3 !dbg !42 {
start:
  %_5 = alloca [48 x i8], align 8
  call void @format_things(ptr %_5)
  unreachable
}
";
    const TARGET: &str = "\
define void @ferrocuda_panic_bounds(i64 noundef %index, i64 noundef %len, ptr %location) unnamed_addr #4 {
start:
  unreachable
}
";

    #[test]
    fn redirects_panic_bounds_check_to_the_recording_entry() {
        let ir = format!("{CORE}\n{TARGET}");
        let out = rewrite(&ir).expect("rewritten");
        let expected = "\
define internal void @_RNvNtCsd358nV3edtU_4core9panicking18panic_bounds_check(i64 noundef %index, i64 noundef %len, ptr noalias noundef readonly align 8 dereferenceable(24) %0) unnamed_addr #3 {
start:
  tail call void @ferrocuda_panic_bounds(i64 %index, i64 %len, ptr %0)
  unreachable
}
";
        assert_eq!(out, format!("{expected}\n{TARGET}"));
    }

    #[test]
    fn keeps_core_without_the_replacement() {
        assert_eq!(rewrite(CORE), None);
    }

    #[test]
    fn keeps_a_signature_it_does_not_know() {
        let two = CORE.replace("i64 noundef %len, ", "");
        assert_eq!(rewrite(&format!("{two}\n{TARGET}")), None);
    }
}
