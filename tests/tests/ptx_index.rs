//! The index narrowing, seen in the PTX: kernels indexing with `grid!` and comparing against
//! slice lengths compile their compares, `min`s and selects to 32-bit instructions (nvptx64's
//! `usize` is 64-bit; CUDA C's `int` indices are 32-bit), while the byte offsets of their loads
//! and stores stay 64-bit (the index widened by `cvt.u64.u32` or `mul.wide.u32`).

/// The body of the entry `name`.
fn entry_body<'a>(ptx: &'a str, name: &str) -> &'a str {
    let header = format!("\n.visible .entry {name}(");
    let start = ptx
        .find(&header)
        .unwrap_or_else(|| panic!("no entry {name} in the PTX"));
    let end = start + ptx[start..].find("\n}").expect("end of the entry");
    &ptx[start..end]
}

/// The instructions of `body` that compare, select or take the minimum or maximum of 64-bit
/// integers: what 64-bit index arithmetic leaves behind.
fn wide_index_instructions(body: &str) -> Vec<&str> {
    body.lines()
        .map(str::trim)
        .filter(|line| {
            let op = line.split_whitespace().next().unwrap_or("");
            let wide = op.ends_with(".s64") || op.ends_with(".u64") || op.ends_with(".b64");
            wide && ["setp.", "selp.", "min.", "max."]
                .iter()
                .any(|prefix| op.starts_with(prefix))
        })
        .collect()
}

#[test]
fn length_compares_of_grid_indices_are_32_bit() {
    for (ptx, entry) in [
        (test_kernels::__FERROCUDA_MODULE.ptx, "copy_within_grid"),
        (kernels_nvptx::__FERROCUDA_MODULE.ptx, "vecadd"),
    ] {
        let body = entry_body(ptx, entry);
        assert_eq!(
            wide_index_instructions(body),
            Vec::<&str>::new(),
            "{entry}:\n{body}"
        );
        // The index is computed in 32 bits and widened for the 64-bit byte offset.
        assert!(
            body.contains("mul.wide.u32") || body.contains("cvt.u64.u32"),
            "{entry}:\n{body}"
        );
    }
}

#[test]
fn large_buffers_kernels_keep_64_bit_lengths() {
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "add_from_large");
    assert!(
        body.lines().any(|l| l.trim().starts_with("setp.") && l.contains("64")),
        "{body}"
    );
    assert!(!body.contains("cvt.u32.u64"), "{body}");
}
