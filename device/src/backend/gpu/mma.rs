//! `mma.sync` and `cvt.rna.tf32.f32` as inline PTX. Both need sm_80: on older targets the
//! [`TensorCoreInput`] impls are absent (so a call to `mma_sync` is a compile error naming the
//! architecture, see `mma.rs`) and tf32 rounding is the same bit arithmetic the hardware does.

#[cfg(target_feature = "sm_80")]
use crate::mma::{Bf16, F16, TensorCoreInput, Tf32};

/// `value` rounded to tf32 (`cvt.rna.tf32.f32`).
#[cfg(target_feature = "sm_80")]
#[inline(always)]
pub(crate) fn round_to_tf32(value: f32) -> f32 {
    let bits: u32;
    // SAFETY: a register-to-register conversion (sm_80+, which this cfg guarantees); it touches
    // no memory.
    unsafe {
        core::arch::asm!(
            "cvt.rna.tf32.f32 {d}, {a};",
            d = out(reg32) bits,
            a = in(reg32) value,
            options(pure, nomem, nostack)
        )
    };
    f32::from_bits(bits)
}

/// `value` rounded to tf32 by the bit arithmetic of `cvt.rna.tf32.f32` (before sm_80).
#[cfg(not(target_feature = "sm_80"))]
#[inline(always)]
pub(crate) fn round_to_tf32(value: f32) -> f32 {
    f32::from_bits(crate::mma::round_to_tf32_bits(value.to_bits()))
}

/// Implements [`TensorCoreInput`] for an input type with its `mma.sync` instruction.
macro_rules! mma_instructions {
    ($($input:ty => $instruction:literal;)*) => {$(
        #[cfg(target_feature = "sm_80")]
        impl TensorCoreInput for $input {
            #[inline(always)]
            fn __mma(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
                let d: [f32; 4];
                let (d0, d1, d2, d3): (f32, f32, f32, f32);
                // SAFETY: a register-only warp instruction (sm_80+, which the cfg guarantees);
                // it touches no memory. That all 32 lanes execute it converged is `mma_sync`'s
                // documented contract; breaking it gives undefined register values or a hang,
                // not a memory access.
                unsafe {
                    core::arch::asm!(
                        concat!(
                            $instruction,
                            " {{{d0}, {d1}, {d2}, {d3}}}, {{{a0}, {a1}, {a2}, {a3}}}, ",
                            "{{{b0}, {b1}}}, {{{c0}, {c1}, {c2}, {c3}}};"
                        ),
                        d0 = out(reg32) d0,
                        d1 = out(reg32) d1,
                        d2 = out(reg32) d2,
                        d3 = out(reg32) d3,
                        a0 = in(reg32) a[0],
                        a1 = in(reg32) a[1],
                        a2 = in(reg32) a[2],
                        a3 = in(reg32) a[3],
                        b0 = in(reg32) b[0],
                        b1 = in(reg32) b[1],
                        c0 = in(reg32) c[0],
                        c1 = in(reg32) c[1],
                        c2 = in(reg32) c[2],
                        c3 = in(reg32) c[3],
                        options(nomem, nostack)
                    )
                };
                d = [d0, d1, d2, d3];
                d
            }
        }
    )*};
}

mma_instructions! {
    F16 => "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32";
    Bf16 => "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32";
    Tf32 => "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32";
}
