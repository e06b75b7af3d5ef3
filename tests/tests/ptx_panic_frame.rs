//! The panic path of checked indexing needs no stack, seen in the PTX: none of its functions
//! declares a local buffer (`__local_depot`), so a kernel whose own code needs none gets no stack
//! frame from its checks (`ptxas -v`: 0 bytes for the suite's and the tutorial kernels in a
//! release build).
//!
//! A record's kind and integers used to travel in a 32-byte struct, which the Rust ABI passes
//! through a copy on the caller's stack; ptxas then gave every kernel with a checked index a
//! 32- to 56-byte stack frame, set up at entry even when nothing panics. They now travel as
//! scalars.

/// Each function definition (`.func`, `.entry`) of `ptx`: its name and its body.
fn functions(ptx: &str) -> Vec<(&str, &str)> {
    let starts: Vec<usize> = ptx
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .filter(|&i| {
            let line = ptx[i..].lines().next().unwrap_or("");
            let line = line.strip_prefix(".visible ").unwrap_or(line);
            (line.starts_with(".func ") || line.starts_with(".entry ")) && line.ends_with('(')
        })
        .collect();
    starts
        .iter()
        .map(|&start| {
            let header = ptx[start..].lines().next().unwrap_or("");
            let name = header
                .trim_end_matches('(')
                .split_whitespace()
                .last()
                .unwrap_or("");
            let end = start + ptx[start..].find("\n}").expect("end of the function");
            (name, &ptx[start..end])
        })
        .collect()
}

/// Whether `name` is a function of the panic path of a failed check: core's index panics (as
/// the builder rewrites them), the device library's recording entries, its container checks and
/// the panic record's writer.
fn on_panic_path(name: &str) -> bool {
    [
        "4core9panicking18panic_bounds_check",
        "4core5slice5index16slice_index_fail",
        "ferrocuda_panic_bounds",
        "ferrocuda_panic_slice_range",
        "14panic_operands19panic_with_operands",
        "6bounds19index_out_of_bounds",
        "6bounds22index_2d_out_of_bounds",
        "5panic6record",
        "5panic9write_ids",
    ]
    .iter()
    .any(|suffix| name.ends_with(suffix))
}

#[test]
fn the_panic_path_has_no_stack_buffer() {
    for ptx in [
        kernels_nvptx::__FERROCUDA_MODULE.ptx,
        test_kernels::__FERROCUDA_MODULE.ptx,
    ] {
        let panic_path: Vec<_> = functions(ptx)
            .into_iter()
            .filter(|(name, _)| on_panic_path(name))
            .collect();
        // The entries that record integers are there (so the test looks at something).
        assert!(
            panic_path
                .iter()
                .any(|(name, _)| *name == "ferrocuda_panic_bounds"),
            "no ferrocuda_panic_bounds in the PTX"
        );
        assert!(
            panic_path.iter().any(|(name, _)| name.ends_with("record")),
            "no panic record writer in the PTX"
        );
        for (name, body) in panic_path {
            assert!(
                !body.contains("__local_depot"),
                "{name} has a stack buffer:\n{body}"
            );
        }
    }
}
