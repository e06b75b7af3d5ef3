//! `ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{,.trans}.shared.b16`: the row address is converted to
//! a shared-state-space address inside the `asm!` block.

/// The start of every `ldmatrix` block: `a` (generic) becomes `s32` (shared).
macro_rules! ldmatrix_asm {
    ($shape:literal, [$($out:ident),+], $address:expr) => {{
        $(let $out: u32;)+
        // SAFETY: every lane whose row is used passed a 16-byte aligned address of 16 bytes inside
        // a shared array (checked by the façade); the instruction only reads those rows and writes
        // the output registers. That all 32 lanes execute it together is the façade's contract.
        unsafe {
            core::arch::asm!(
                "{{ .reg .u64 s; .reg .u32 s32;",
                "cvta.to.shared.u64 s, {a}; cvt.u32.u64 s32, s;",
                concat!("ldmatrix.sync.aligned.m8n8.", $shape, ".shared.b16 {{",
                    ldmatrix_asm!(@list $($out),+), "}}, [s32]; }}"),
                a = in(reg64) $address,
                $($out = out(reg32) $out,)+
                options(readonly, nostack)
            );
        }
        [$($out),+]
    }};
    (@list $first:ident $(, $rest:ident)*) => {
        concat!("{", stringify!($first), "}" $(, ", {", stringify!($rest), "}")*)
    };
}

/// The same instruction on a 32-bit shared-state-space row address (no conversion inside).
macro_rules! ldmatrix_shared_asm {
    ($shape:literal, [$($out:ident),+], $address:expr) => {{
        $(let $out: u32;)+
        // SAFETY: as `ldmatrix_asm!`, with the row address already in the shared state space.
        unsafe {
            core::arch::asm!(
                concat!("ldmatrix.sync.aligned.m8n8.", $shape, ".shared.b16 {{",
                    ldmatrix_asm!(@list $($out),+), "}}, [{a}];"),
                a = in(reg32) $address,
                $($out = out(reg32) $out,)+
                options(readonly, nostack)
            );
        }
        [$($out),+]
    }};
}

/// Loads `M` matrices (1, 2 or 4) from the 32-bit shared-state-space row address `address`:
/// the form of the façade's unchecked loads, whose address arithmetic then stays in 32 bits
/// (a generic address costs a 64-bit multiply-add per load in an inner loop).
#[inline(always)]
pub(crate) fn load_shared<const M: usize>(address: u32, transpose: bool) -> [u32; M] {
    let mut out = [0u32; M];
    match (M, transpose) {
        (1, false) => out.copy_from_slice(&ldmatrix_shared_asm!("x1", [r0], address)),
        (1, true) => out.copy_from_slice(&ldmatrix_shared_asm!("x1.trans", [r0], address)),
        (2, false) => out.copy_from_slice(&ldmatrix_shared_asm!("x2", [r0, r1], address)),
        (2, true) => out.copy_from_slice(&ldmatrix_shared_asm!("x2.trans", [r0, r1], address)),
        (_, false) => out.copy_from_slice(&ldmatrix_shared_asm!("x4", [r0, r1, r2, r3], address)),
        (_, true) => {
            out.copy_from_slice(&ldmatrix_shared_asm!("x4.trans", [r0, r1, r2, r3], address))
        }
    }
    out
}

/// Loads `M` matrices (1, 2 or 4); `used` is for the simulator.
#[inline(always)]
pub(crate) fn load<const M: usize>(row: *const u8, used: bool, transpose: bool) -> [u32; M] {
    let _ = used;
    let mut out = [0u32; M];
    match (M, transpose) {
        (1, false) => out.copy_from_slice(&ldmatrix_asm!("x1", [r0], row)),
        (1, true) => out.copy_from_slice(&ldmatrix_asm!("x1.trans", [r0], row)),
        (2, false) => out.copy_from_slice(&ldmatrix_asm!("x2", [r0, r1], row)),
        (2, true) => out.copy_from_slice(&ldmatrix_asm!("x2.trans", [r0, r1], row)),
        (_, false) => out.copy_from_slice(&ldmatrix_asm!("x4", [r0, r1, r2, r3], row)),
        (_, true) => out.copy_from_slice(&ldmatrix_asm!("x4.trans", [r0, r1, r2, r3], row)),
    }
    out
}

/// The panic of a row outside the array.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn out_of_bounds(row: usize, len: usize) -> ! {
    let _ = (row, len);
    panic!(
        "ldmatrix: a lane's row of 8 elements leaves the shared array (run on the simulator to see the index)"
    )
}

/// The panic of a row address not aligned to 16 bytes.
#[cold]
#[inline(never)]
#[track_caller]
pub(crate) fn misaligned(address: usize) -> ! {
    let _ = address;
    panic!("ldmatrix: a lane's row address is not 16-byte aligned")
}
