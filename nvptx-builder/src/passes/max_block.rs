//! `#[kernel(max_block(x, y, z))]`: the entries that declare their largest block get LLVM's
//! `"nvvm.maxntid"="x,y,z"` attribute before `opt` runs, and with `min_blocks_per_sm(n)`
//! `"nvvm.minctasm"="n"` (`.minnctapersm n`: ptxas caps the registers so that `n` blocks fit).
//!
//! With it, LLVM's NVPTX passes know `tid.x < x`, `ntid.x <= x` (and so on), so checks and
//! arithmetic on thread indices fold, and `llc` writes `.maxntid x, y, z` on the entry, which
//! lets `ptxas` allocate registers for that many threads at most (CUDA C's `__launch_bounds__`).
//! The macro leaves a marker static in [`MAX_BLOCK_SECTION`] whose bytes are
//! `<entry symbol>=XXXX,YYYY,ZZZZ,MMMM` ([`crate::ir::markers`]; `MMMM` the blocks per
//! multiprocessor, 0 when not given); this step reads and removes the markers.
//! The runtime refuses, before every launch, a block larger than the bound along any dimension.

use crate::error::{Error, Result};
use crate::ir::markers::{Marker, defined_function, push_global_without_markers};

/// Link section of the markers `#[kernel(max_block(...))]` leaves for the linker.
///
/// The `#[kernel]` macro repeats this text; a test compares them.
pub const MAX_BLOCK_SECTION: &str = ".ferrocuda.max_block";

/// The module `ir` (text of `llvm-dis`) with each marked entry given `"nvvm.maxntid"` and the
/// markers removed; `None` when it has no marker.
pub(crate) fn apply(ir: &str) -> Result<Option<String>> {
    let markers = crate::ir::markers::read(ir, MAX_BLOCK_SECTION, "max_block")?;
    if markers.is_empty() {
        return Ok(None);
    }
    let bounds = markers
        .iter()
        .map(|m| Ok((m.kernel.as_str(), dims(m)?)))
        .collect::<Result<Vec<_>>>()?;
    let names: Vec<&str> = markers.iter().map(|m| m.global.as_str()).collect();
    let mut bounded: Vec<&str> = Vec::new();
    let mut text = String::with_capacity(ir.len());
    for line in ir.lines() {
        if line.starts_with('@') {
            push_global_without_markers(&mut text, line, &names);
            continue;
        }
        if let Some(name) = defined_function(line)
            && let Some((kernel, [x, y, z, blocks])) = bounds.iter().find(|(k, _)| *k == name)
            && line.contains("ptx_kernel")
        {
            let Some(body) = line.rfind(" {") else {
                return Err(Error::new(format!(
                    "cannot add `.maxntid` to the entry `{kernel}`: its definition has no body:\n{line}"
                )));
            };
            // Function attributes may follow the attribute group (`#N`) in the `define` line;
            // metadata attachments (`!dbg !N`) come after them.
            let at = line[..body].find(" !").unwrap_or(body);
            text.push_str(&line[..at]);
            text.push_str(&format!(" \"nvvm.maxntid\"=\"{x},{y},{z}\""));
            if *blocks > 0 {
                text.push_str(&format!(" \"nvvm.minctasm\"=\"{blocks}\""));
            }
            text.push_str(&line[at..]);
            text.push('\n');
            bounded.push(kernel);
            continue;
        }
        text.push_str(line);
        text.push('\n');
    }
    for (kernel, _) in &bounds {
        if !bounded.contains(kernel) {
            return Err(Error::new(format!(
                "#[kernel(max_block(...))] marks the kernel `{kernel}`, but the module has no entry of that name"
            )));
        }
    }
    Ok(Some(text))
}

/// A marker's value: the three dimensions, each 1 to 1024, and the blocks per multiprocessor,
/// 0 (not given) to 32.
fn dims(marker: &Marker) -> Result<[u32; 4]> {
    let bad = || {
        Error::new(format!(
            "cannot read the #[kernel(max_block(...))] marker of `{}`: `{}` is not three dimensions from 1 to 1024 and a block count from 0 to 32",
            marker.kernel, marker.value
        ))
    };
    let mut out = [0u32; 4];
    let mut parts = marker.value.split(',');
    for (i, d) in out.iter_mut().enumerate() {
        let range = if i < 3 { 1..=1024 } else { 0..=32 };
        *d = parts
            .next()
            .and_then(|p| p.parse().ok())
            .filter(|v| range.contains(v))
            .ok_or_else(bad)?;
    }
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODULE: &str = r#"@llvm.used = appending global [3 x ptr] [ptr @_RNvNvCs1_1k11MAX_BLOCK, ptr @other, ptr @_RNvNvCs1_1k11MAX_BLOCK2], section "llvm.metadata"
@_RNvNvCs1_1k11MAX_BLOCK = internal constant <{ [24 x i8] }> <{ [24 x i8] c"tile=0016,0008,0001,0000" }>, section ".ferrocuda.max_block", align 1
@_RNvNvCs1_1k11MAX_BLOCK2 = internal constant <{ [24 x i8] }> <{ [24 x i8] c"busy=0256,0001,0001,0003" }>, section ".ferrocuda.max_block", align 1
@other = global i32 0
define ptx_kernel void @tile(ptr %p) unnamed_addr #3 !dbg !7 {
start:
  ret void
}
define ptx_kernel void @free(ptr %p) unnamed_addr #3 {
start:
  ret void
}
define ptx_kernel void @busy(ptr %p) unnamed_addr #3 {
start:
  ret void
}
"#;

    #[test]
    fn a_marked_entry_gets_maxntid_and_the_marker_goes() {
        let text = apply(MODULE).unwrap().unwrap();
        assert!(
            text.contains(
                "define ptx_kernel void @tile(ptr %p) unnamed_addr #3 \"nvvm.maxntid\"=\"16,8,1\" !dbg !7 {"
            ),
            "{text}"
        );
        assert!(
            text.contains("define ptx_kernel void @free(ptr %p) unnamed_addr #3 {"),
            "{text}"
        );
        assert!(
            text.contains(
                "define ptx_kernel void @busy(ptr %p) unnamed_addr #3 \"nvvm.maxntid\"=\"256,1,1\" \"nvvm.minctasm\"=\"3\" {"
            ),
            "{text}"
        );
        assert!(!text.contains("MAX_BLOCK"), "{text}");
        assert!(
            text.contains("@llvm.used = appending global [1 x ptr] [ptr @other]"),
            "{text}"
        );
    }

    #[test]
    fn a_module_without_markers_is_left_alone() {
        assert_eq!(apply("define void @f() {\n  ret void\n}\n").unwrap(), None);
    }

    #[test]
    fn a_marker_for_a_missing_kernel_or_with_bad_dimensions_is_an_error() {
        let missing = MODULE.replace("c\"tile=", "c\"gone=");
        let e = apply(&missing).unwrap_err();
        assert!(e.message().contains("`gone`"), "{e:?}");
        let zero = MODULE.replace("0016,0008", "0000,0008");
        let e = apply(&zero).unwrap_err();
        assert!(e.message().contains("`0000,0008,0001,0000`"), "{e:?}");
        let three = MODULE.replace("0001,0003", "0001");
        let e = apply(&three).unwrap_err();
        assert!(e.message().contains("`0256,0001,0001`"), "{e:?}");
    }
}
