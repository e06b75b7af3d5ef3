//! The index narrowing, seen in the PTX: `grid!(1)` is computed in 32 bits (`mad.lo.s32`, as
//! CUDA C's `int` index is) and widened once for the byte offset, instead of a 64-bit
//! `blockIdx * blockDim` (`mul.wide.u32` of two registers) plus a 64-bit add; a kernel's slice
//! lengths reach the body narrowed to 32 bits, and `large_buffers` kernels keep them whole.

use ferrocuda_tests::ptx_text::entry_body;

/// The instructions of `body` with opcode `op` (e.g. `mul.wide.u32`), operands included.
fn instructions<'a>(body: &'a str, op: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    body.lines()
        .map(str::trim)
        .filter(move |line| line.split_whitespace().next() == Some(op))
}

#[test]
fn grid_indices_are_computed_in_32_bits() {
    for (ptx, entry) in [
        (test_kernels::__FERROCUDA_MODULE.ptx, "copy_within_grid"),
        (kernels_nvptx::__FERROCUDA_MODULE.ptx, "vecadd"),
    ] {
        let body = entry_body(ptx, entry);
        // Once per copy of the body: a kernel whose every check its guard decides has a
        // second copy without them (`nvptx-builder`'s check versioning).
        let copies = if body.contains("// %ferrocuda.fast.")
            || body.contains("// %ferrocuda.entry.assumed")
        {
            2
        } else {
            1
        };
        assert_eq!(
            instructions(body, "mad.lo.s32").count(),
            copies,
            "{entry}: blockIdx.x * blockDim.x + threadIdx.x in 32 bits\n{body}"
        );
        // A wide multiply of two registers is the 64-bit `blockIdx.x * blockDim.x`; the byte
        // offset's `mul.wide.u32 %rd, %r, 4` (or a shift) is allowed.
        let wide_index: Vec<&str> = instructions(body, "mul.wide.u32")
            .filter(|line| {
                line.trim_end_matches(';')
                    .rsplit(", ")
                    .next()
                    .is_some_and(|last| last.starts_with('%'))
            })
            .collect();
        assert_eq!(wide_index, Vec::<&str>::new(), "{entry}:\n{body}");
    }
}

#[test]
fn lengths_are_narrowed_except_in_large_buffers_kernels() {
    let narrow = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "add_from_bytes");
    assert!(narrow.contains(", 4294967295;"), "{narrow}");
    let large = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "add_from_large");
    assert!(!large.contains("4294967295"), "{large}");
}
