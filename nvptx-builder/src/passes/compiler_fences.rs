//! Turns the compiler fences around barriers into what `llc` keeps: the barrier call itself,
//! without the `!noalias` metadata that would let `llc` move memory accesses across it.
//!
//! The device library puts a compiler fence (`core::sync::atomic::compiler_fence`, an LLVM
//! `fence syncscope("singlethread")`) on each side of every barrier (`device/src/backend/gpu/
//! sync.rs`). A kernel's `&mut [T]` parameters are `noalias`: when the body is inlined into the
//! entry, its accesses get `!alias.scope` metadata and every call that is not given the pointer
//! (the barrier intrinsic, inline assembly) gets `!noalias` for that scope, which tells LLVM the
//! call does not touch that memory. Without more, GVN then forwards a thread's store before
//! `bar.sync` to its load of the same element after it, missing what another thread wrote in
//! between (`tests/tests/ptx_barrier_reload.rs`). A `fence` is the one instruction every
//! optimisation treats as reading and writing all memory, so through rustc's and `opt`'s
//! pipelines no access moves across a fenced barrier.
//!
//! LLVM 23 gives the fences the same `!noalias` metadata as the calls they were inlined
//! with, and honours it there, so from that version on a fence alone no longer keeps a
//! `&mut [T]` element from being forwarded across `bar.sync` inside rustc's own pipeline.
//! `#[kernel]` therefore starts each body by giving every `&mut [T]` pointer to a comment-only
//! `asm` statement that may keep it (`device/src/backend/gpu/sync.rs`): the pointer is then
//! captured before every barrier, and the inliner gives no later call or fence that slice's
//! scope. The comment executes nothing ([`crate::ir::instructions::is_comment_asm`]).
//!
//! `llc` needs two changes. The NVPTX code generator of LLVM 22 cannot lower a single-thread
//! fence ("Unsupported scope "Thread" for seq_cst fence"), so the fences go; and `llc` runs GVN
//! again, so the call right after a fence (the barrier) loses its `!noalias` attachment: it may
//! then touch any memory the kernel's parameters reach, as a barrier does. The code is what it
//! was; only what `llc` may assume about the barrier changes.

/// The module without its single-thread fences, and with the call after each fence stripped of
/// its `!noalias` metadata; `None` when it has no such fence.
pub(crate) fn strip(ir: &str) -> Option<String> {
    let is_fence = |line: &str| {
        line.trim_start()
            .starts_with("fence syncscope(\"singlethread\")")
    };
    if !ir.lines().any(is_fence) {
        return None;
    }
    let mut out = String::with_capacity(ir.len());
    let mut after_fence = false;
    for line in ir.split_inclusive('\n') {
        if is_fence(line) {
            after_fence = true;
            continue;
        }
        if after_fence && line.contains("call ") {
            out.push_str(&without_noalias(line));
        } else {
            out.push_str(line);
        }
        after_fence = false;
    }
    Some(out)
}

/// `line` without its `, !noalias !N` attachment.
fn without_noalias(line: &str) -> String {
    const ATTACHMENT: &str = ", !noalias !";
    let Some(start) = line.find(ATTACHMENT) else {
        return line.to_string();
    };
    let digits = line[start + ATTACHMENT.len()..]
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(line.len() - start - ATTACHMENT.len());
    format!(
        "{}{}",
        &line[..start],
        &line[start + ATTACHMENT.len() + digits..]
    )
}

#[cfg(test)]
mod tests {
    use super::strip;

    #[test]
    fn fences_go_and_the_fenced_call_loses_its_noalias() {
        let ir = concat!(
            "define void @k(ptr %p) {\n",
            "  store i32 1, ptr %p, align 4, !alias.scope !3, !noalias !4\n",
            "  fence syncscope(\"singlethread\") seq_cst, !dbg !7, !noalias !5\n",
            "  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !8, !noalias !5\n",
            "  fence syncscope(\"singlethread\") acq_rel\n",
            "  fence seq_cst\n",
            "  call void @other(), !noalias !5\n",
            "  %v = load i32, ptr %p, align 4, !alias.scope !3, !noalias !4\n",
            "  ret void\n",
            "}\n",
        );
        assert_eq!(
            strip(ir).unwrap(),
            concat!(
                "define void @k(ptr %p) {\n",
                "  store i32 1, ptr %p, align 4, !alias.scope !3, !noalias !4\n",
                "  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0), !dbg !8\n",
                "  fence seq_cst\n",
                "  call void @other(), !noalias !5\n",
                "  %v = load i32, ptr %p, align 4, !alias.scope !3, !noalias !4\n",
                "  ret void\n",
                "}\n",
            )
        );
        assert_eq!(
            strip("define void @k() {\n  fence seq_cst\n  ret void\n}\n"),
            None
        );
    }
}
