//! Loops over checked indices are unrolled: the builder passes
//! `-Cllvm-args=-unroll-runtime-multi-exit` (see `nvptx-builder/src/nested.rs`), without which
//! LLVM keeps a loop with an exit to the panic path after each check rolled, and a thread has only
//! one iteration's loads in flight. The CSR SpMV of `kernels-idiomatic` (a loop of
//! `values[k] * x[columns[k]]` over a row) shows it in its PTX.

use ferrocuda_tests::ptx_text::entry_body;

#[test]
fn a_loop_of_checked_loads_is_unrolled() {
    let body = entry_body(kernels_idiomatic::__FERROCUDA_MODULE.ptx, "spmv_csr");
    let loads = body
        .lines()
        .filter(|line| line.trim_start().starts_with("ld.global"))
        .count();
    // Rolled: the two row offsets, then one `columns`, `values` and `x` load per iteration (5).
    // Unrolled by 4 with a remainder loop: 4 x 3 + 3 + 2 = 17.
    assert!(
        loads >= 11,
        "spmv_csr has {loads} global loads: its row loop was not unrolled\n{body}"
    );
}
