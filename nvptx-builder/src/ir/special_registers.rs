//! The reads of the special registers that number a thread and its block (`ctaid`, `tid`),
//! as rustc's intrinsics (`llvm.nvvm.read.ptx.sreg.*`) print them.

use crate::ir::instructions::strip_metadata;

/// Whether `inst` reads a special register that is the same for every thread of a block
/// (`ctaid`, `ntid`, `nctaid`).
pub(crate) fn block_register(inst: &str) -> bool {
    let Some(name) = inst
        .split("@llvm.nvvm.read.ptx.sreg.")
        .nth(1)
        .and_then(|r| r.split('(').next())
    else {
        return false;
    };
    (inst.starts_with("call ") || inst.starts_with("tail call "))
        && ["ctaid.", "ntid.", "nctaid."].iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|a| ["x", "y", "z"].contains(&a))
        })
}

/// The axis (`x`, `y`, `z`) of a thread-index read.
pub(crate) fn thread_axis(inst: &str) -> Option<&str> {
    let inst = strip_metadata(inst);
    if !(inst.starts_with("call ") || inst.starts_with("tail call ")) {
        return None;
    }
    let axis = inst
        .split("@llvm.nvvm.read.ptx.sreg.tid.")
        .nth(1)?
        .strip_suffix("()")?;
    ["x", "y", "z"].contains(&axis).then_some(axis)
}
