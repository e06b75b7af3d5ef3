//! `unroll!`, the loop unrolling the tensor-core kernels (`attention.rs`, `gemm_bf16.rs`) need
//! for their fragment and accumulator arrays to stay in registers. Rust has no `#pragma
//! unroll`, and no well-kept crate gives a counted unroll over a constant bound for `no_std`
//! kernel code without a proc-macro dependency in the device build, so it is written here.

/// `unroll!(i < N => { ... })` runs the block for `i = 0, 1, ..., N - 1` (`N` at most 8, a
/// constant after monomorphisation) as straight-line copies, each with a constant `i`: arrays
/// indexed by `i` then stay in registers. LLVM does not unroll loops this size by itself (its
/// cost model counts the inline assembly of `ldmatrix` and `mma`), and a loop over an array
/// indexed by the loop variable puts the array in local memory.
macro_rules! unroll {
    ($i:ident < $n:expr => $body:block) => {
        unroll!(@each $i, $n, $body; 0 1 2 3 4 5 6 7)
    };
    (@each $i:ident, $n:expr, $body:block; $($k:literal)*) => {{
        const { assert!($n <= 8, "unroll! covers at most 8 iterations") };
        $(
            // The copies past `N` are dead code, but rustc's `unconditional_panic` lint sees their
            // constant indices into arrays of length `N` before that is known.
            #[allow(
                unconditional_panic,
                reason = "the iterations past N are never taken (`if k < N`)"
            )]
            let () = if $k < $n {
                let $i: usize = $k;
                $body
            };
        )*
    }};
}
