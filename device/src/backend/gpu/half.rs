//! Half precision on the GPU: the PTX instructions of each operation where the target
//! architecture has them, chosen at compile time by the `sm_NN` target features that
//! `-Ctarget-cpu` sets (`FERROCUDA_ARCH`); below that, the correctly rounded software of
//! `half_rounding.rs`, which gives the same bits.
//!
//! | operation | `f16` | `bf16` |
//! |---|---|---|
//! | add, sub, mul | `add/sub/mul.rn.f16` | sm_90: `add/sub/mul.rn.bf16`; sm_80: `fma.rn.bf16` with 1.0 or -0.0; older: software |
//! | fma | `fma.rn.f16` | sm_80: `fma.rn.bf16`; older: software |
//! | from `f32` | `cvt.rn.f16.f32` (pairs: `cvt.rn.f16x2.f32` on sm_80) | sm_80: `cvt.rn.bf16.f32`; older: software |
//! | from `f64` | `cvt.rn.f16.f64` | software |
//! | to `f32` | `cvt.f32.f16` | a 16-bit shift (exact) |
//! | atomic add | `atom.add.noftz.f16` | sm_90: `atom.add.noftz.bf16`; older: compare-and-swap loop |
//!
//! The pairs (`f16x2`, `bf16x2`) use the `.f16x2`/`.bf16x2` forms under the same conditions.
//! Every instruction has an explicit `.rn`, which also keeps ptxas from fusing a multiply and an
//! add into one rounding.

use crate::half_rounding::{self as soft, BF16};
use core::arch::asm;
use core::sync::atomic::Ordering;

/// A two-operand instruction on 16-bit registers.
macro_rules! binary16 {
    ($instruction:literal, $a:expr, $b:expr) => {{
        let d: u16;
        // SAFETY: an arithmetic instruction on registers; it touches no memory.
        unsafe {
            asm!(concat!($instruction, " {d}, {a}, {b};"), d = out(reg16) d, a = in(reg16) $a,
                b = in(reg16) $b, options(pure, nomem, nostack))
        };
        d
    }};
}

/// A three-operand instruction on 16-bit registers.
macro_rules! ternary16 {
    ($instruction:literal, $a:expr, $b:expr, $c:expr) => {{
        let d: u16;
        // SAFETY: an arithmetic instruction on registers; it touches no memory.
        unsafe {
            asm!(concat!($instruction, " {d}, {a}, {b}, {c};"), d = out(reg16) d,
                a = in(reg16) $a, b = in(reg16) $b, c = in(reg16) $c,
                options(pure, nomem, nostack))
        };
        d
    }};
}

/// A two-operand instruction on 32-bit registers (the packed pairs).
macro_rules! binary32 {
    ($instruction:literal, $a:expr, $b:expr) => {{
        let d: u32;
        // SAFETY: an arithmetic instruction on registers; it touches no memory.
        unsafe {
            asm!(concat!($instruction, " {d}, {a}, {b};"), d = out(reg32) d, a = in(reg32) $a,
                b = in(reg32) $b, options(pure, nomem, nostack))
        };
        d
    }};
}

/// A three-operand instruction on 32-bit registers (the packed pairs).
macro_rules! ternary32 {
    ($instruction:literal, $a:expr, $b:expr, $c:expr) => {{
        let d: u32;
        // SAFETY: an arithmetic instruction on registers; it touches no memory.
        unsafe {
            asm!(concat!($instruction, " {d}, {a}, {b}, {c};"), d = out(reg32) d,
                a = in(reg32) $a, b = in(reg32) $b, c = in(reg32) $c,
                options(pure, nomem, nostack))
        };
        d
    }};
}

/// `bf16` 1.0 and -0.0, the operands that turn `fma.rn.bf16` into an add and a multiply.
#[cfg(all(target_feature = "sm_80", not(target_feature = "sm_90")))]
const BF16_ONE: u16 = 0x3f80;
#[cfg(all(target_feature = "sm_80", not(target_feature = "sm_90")))]
const BF16_NEG_ZERO: u16 = 0x8000;

/// IEEE binary16.
pub(crate) mod f16 {
    use super::*;

    #[inline(always)]
    pub(crate) fn from_f32(x: f32) -> u16 {
        let d: u16;
        // SAFETY: a conversion between registers.
        unsafe {
            asm!("cvt.rn.f16.f32 {d}, {x};", d = out(reg16) d, x = in(reg32) x,
                options(pure, nomem, nostack))
        };
        d
    }

    #[inline(always)]
    pub(crate) fn from_f64(x: f64) -> u16 {
        let d: u16;
        // SAFETY: a conversion between registers.
        unsafe {
            asm!("cvt.rn.f16.f64 {d}, {x};", d = out(reg16) d, x = in(reg64) x,
                options(pure, nomem, nostack))
        };
        d
    }

    #[inline(always)]
    pub(crate) fn to_f32(bits: u16) -> f32 {
        let d: f32;
        // SAFETY: a conversion between registers.
        unsafe {
            asm!("cvt.f32.f16 {d}, {h};", d = out(reg32) d, h = in(reg16) bits,
                options(pure, nomem, nostack))
        };
        d
    }

    #[inline(always)]
    pub(crate) fn add(a: u16, b: u16) -> u16 {
        binary16!("add.rn.f16", a, b)
    }

    #[inline(always)]
    pub(crate) fn sub(a: u16, b: u16) -> u16 {
        binary16!("sub.rn.f16", a, b)
    }

    #[inline(always)]
    pub(crate) fn mul(a: u16, b: u16) -> u16 {
        binary16!("mul.rn.f16", a, b)
    }

    #[inline(always)]
    pub(crate) fn mul_add(a: u16, b: u16, c: u16) -> u16 {
        ternary16!("fma.rn.f16", a, b, c)
    }

    /// `atom.add.noftz.f16` (sm_70), relaxed at GPU scope (the caller adds the fences of other
    /// orderings).
    ///
    /// # Safety
    /// As [`crate::atomic::atomic_add`].
    #[inline(always)]
    pub(crate) unsafe fn atomic_add(ptr: *mut u16, value: u16, _order: Ordering) -> u16 {
        let old: u16;
        // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are
        // atomic; the instruction reads and writes only `*ptr`.
        unsafe {
            asm!("atom.add.noftz.f16 {old}, [{ptr}], {value};", old = out(reg16) old,
                ptr = in(reg64) ptr, value = in(reg16) value, options(nostack))
        };
        old
    }
}

/// bfloat16.
pub(crate) mod bf16 {
    use super::*;

    #[inline(always)]
    pub(crate) fn from_f32(x: f32) -> u16 {
        #[cfg(target_feature = "sm_80")]
        {
            let d: u16;
            // SAFETY: a conversion between registers.
            unsafe {
                asm!("cvt.rn.bf16.f32 {d}, {x};", d = out(reg16) d, x = in(reg32) x,
                    options(pure, nomem, nostack))
            };
            d
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            soft::round(x as f64, BF16)
        }
    }

    #[inline(always)]
    pub(crate) fn from_f64(x: f64) -> u16 {
        soft::round(x, BF16)
    }

    #[inline(always)]
    pub(crate) fn to_f32(bits: u16) -> f32 {
        f32::from_bits((bits as u32) << 16)
    }

    #[inline(always)]
    pub(crate) fn add(a: u16, b: u16) -> u16 {
        #[cfg(target_feature = "sm_90")]
        {
            binary16!("add.rn.bf16", a, b)
        }
        #[cfg(all(target_feature = "sm_80", not(target_feature = "sm_90")))]
        {
            ternary16!("fma.rn.bf16", a, BF16_ONE, b)
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            soft::add(a, b, BF16)
        }
    }

    #[inline(always)]
    pub(crate) fn sub(a: u16, b: u16) -> u16 {
        #[cfg(target_feature = "sm_90")]
        {
            binary16!("sub.rn.bf16", a, b)
        }
        #[cfg(all(target_feature = "sm_80", not(target_feature = "sm_90")))]
        {
            ternary16!("fma.rn.bf16", a, BF16_ONE, b ^ soft::SIGN)
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            soft::sub(a, b, BF16)
        }
    }

    #[inline(always)]
    pub(crate) fn mul(a: u16, b: u16) -> u16 {
        #[cfg(target_feature = "sm_90")]
        {
            binary16!("mul.rn.bf16", a, b)
        }
        // x * y + (-0.0) is x * y, signed zeros included.
        #[cfg(all(target_feature = "sm_80", not(target_feature = "sm_90")))]
        {
            ternary16!("fma.rn.bf16", a, b, BF16_NEG_ZERO)
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            soft::mul(a, b, BF16)
        }
    }

    #[inline(always)]
    pub(crate) fn mul_add(a: u16, b: u16, c: u16) -> u16 {
        #[cfg(target_feature = "sm_80")]
        {
            ternary16!("fma.rn.bf16", a, b, c)
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            soft::mul_add(a, b, c, BF16)
        }
    }

    /// `atom.add.noftz.bf16` on sm_90, relaxed at GPU scope; a compare-and-swap loop before.
    ///
    /// # Safety
    /// As [`crate::atomic::atomic_add`].
    #[inline(always)]
    pub(crate) unsafe fn atomic_add(ptr: *mut u16, value: u16, _order: Ordering) -> u16 {
        #[cfg(target_feature = "sm_90")]
        {
            let old: u16;
            // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are
            // atomic; the instruction reads and writes only `*ptr`.
            unsafe {
                asm!("atom.add.noftz.bf16 {old}, [{ptr}], {value};", old = out(reg16) old,
                    ptr = in(reg64) ptr, value = in(reg16) value, options(nostack))
            };
            old
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            // SAFETY: the caller's contract is `update_u16`'s.
            unsafe { crate::half_atomic::update_u16(ptr, Ordering::Relaxed, |old| add(old, value)) }
        }
    }
}

/// Two IEEE binary16 lanes in a 32-bit register, lane 0 in the low half.
pub(crate) mod f16x2 {
    use super::*;

    /// `cvt.rn.f16x2.f32 d, a, b` (sm_80) puts `a` in the high half; two `cvt.rn.f16.f32` before.
    #[inline(always)]
    pub(crate) fn from_f32s(low: f32, high: f32) -> u32 {
        #[cfg(target_feature = "sm_80")]
        {
            let d: u32;
            // SAFETY: a conversion between registers.
            unsafe {
                asm!("cvt.rn.f16x2.f32 {d}, {high}, {low};", d = out(reg32) d,
                    high = in(reg32) high, low = in(reg32) low, options(pure, nomem, nostack))
            };
            d
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            ((f16::from_f32(high) as u32) << 16) | f16::from_f32(low) as u32
        }
    }

    #[inline(always)]
    pub(crate) fn add(a: u32, b: u32) -> u32 {
        binary32!("add.rn.f16x2", a, b)
    }

    #[inline(always)]
    pub(crate) fn sub(a: u32, b: u32) -> u32 {
        binary32!("sub.rn.f16x2", a, b)
    }

    #[inline(always)]
    pub(crate) fn mul(a: u32, b: u32) -> u32 {
        binary32!("mul.rn.f16x2", a, b)
    }

    #[inline(always)]
    pub(crate) fn mul_add(a: u32, b: u32, c: u32) -> u32 {
        ternary32!("fma.rn.f16x2", a, b, c)
    }

    /// `atom.add.noftz.f16x2` (sm_70), relaxed at GPU scope.
    ///
    /// # Safety
    /// As [`crate::atomic::atomic_add`].
    #[inline(always)]
    pub(crate) unsafe fn atomic_add(ptr: *mut u32, value: u32, _order: Ordering) -> u32 {
        let old: u32;
        // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are
        // atomic; the instruction reads and writes only `*ptr`.
        unsafe {
            asm!("atom.add.noftz.f16x2 {old}, [{ptr}], {value};", old = out(reg32) old,
                ptr = in(reg64) ptr, value = in(reg32) value, options(nostack))
        };
        old
    }
}

/// Two bfloat16 lanes in a 32-bit register, lane 0 in the low half.
pub(crate) mod bf16x2 {
    use super::*;

    /// Applies the scalar `op` to both lanes.
    #[cfg(not(target_feature = "sm_90"))]
    #[inline(always)]
    fn lanes(a: u32, b: u32, op: impl Fn(u16, u16) -> u16) -> u32 {
        let low = op(a as u16, b as u16) as u32;
        let high = op((a >> 16) as u16, (b >> 16) as u16) as u32;
        (high << 16) | low
    }

    #[inline(always)]
    pub(crate) fn from_f32s(low: f32, high: f32) -> u32 {
        #[cfg(target_feature = "sm_80")]
        {
            let d: u32;
            // SAFETY: a conversion between registers.
            unsafe {
                asm!("cvt.rn.bf16x2.f32 {d}, {high}, {low};", d = out(reg32) d,
                    high = in(reg32) high, low = in(reg32) low, options(pure, nomem, nostack))
            };
            d
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            ((bf16::from_f32(high) as u32) << 16) | bf16::from_f32(low) as u32
        }
    }

    #[inline(always)]
    pub(crate) fn add(a: u32, b: u32) -> u32 {
        #[cfg(target_feature = "sm_90")]
        {
            binary32!("add.rn.bf16x2", a, b)
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            lanes(a, b, bf16::add)
        }
    }

    #[inline(always)]
    pub(crate) fn sub(a: u32, b: u32) -> u32 {
        #[cfg(target_feature = "sm_90")]
        {
            binary32!("sub.rn.bf16x2", a, b)
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            lanes(a, b, bf16::sub)
        }
    }

    #[inline(always)]
    pub(crate) fn mul(a: u32, b: u32) -> u32 {
        #[cfg(target_feature = "sm_90")]
        {
            binary32!("mul.rn.bf16x2", a, b)
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            lanes(a, b, bf16::mul)
        }
    }

    #[inline(always)]
    pub(crate) fn mul_add(a: u32, b: u32, c: u32) -> u32 {
        #[cfg(target_feature = "sm_80")]
        {
            ternary32!("fma.rn.bf16x2", a, b, c)
        }
        #[cfg(not(target_feature = "sm_80"))]
        {
            let low = bf16::mul_add(a as u16, b as u16, c as u16) as u32;
            let high = bf16::mul_add((a >> 16) as u16, (b >> 16) as u16, (c >> 16) as u16) as u32;
            (high << 16) | low
        }
    }

    /// `atom.add.noftz.bf16x2` on sm_90, relaxed at GPU scope; a compare-and-swap loop before.
    ///
    /// # Safety
    /// As [`crate::atomic::atomic_add`].
    #[inline(always)]
    pub(crate) unsafe fn atomic_add(ptr: *mut u32, value: u32, _order: Ordering) -> u32 {
        #[cfg(target_feature = "sm_90")]
        {
            let old: u32;
            // SAFETY: the caller passes a valid, aligned pointer whose concurrent accesses are
            // atomic; the instruction reads and writes only `*ptr`.
            unsafe {
                asm!("atom.add.noftz.bf16x2 {old}, [{ptr}], {value};", old = out(reg32) old,
                    ptr = in(reg64) ptr, value = in(reg32) value, options(nostack))
            };
            old
        }
        #[cfg(not(target_feature = "sm_90"))]
        {
            // SAFETY: the caller's contract is `update_u32`'s.
            unsafe { crate::half_atomic::update_u32(ptr, Ordering::Relaxed, |old| add(old, value)) }
        }
    }
}
