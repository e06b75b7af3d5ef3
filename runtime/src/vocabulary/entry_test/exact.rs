//! Evaluating an op exactly, in one block: the wrapping arithmetic of LLVM IR on `w`-bit values,
//! with its flags, `None` where LLVM would call the result poison.

use super::syntax::{
    FLAG_DISJOINT, FLAG_EXACT, FLAG_NNEG, FLAG_NSW, FLAG_NUW, FLAG_SAMESIGN, Op, Opcode, Operand,
    Predicate,
};
use crate::vocabulary::params::ParamBuffer;

/// The low `width` bits set (`width` from 1 to 64).
pub(super) fn mask(width: u32) -> u64 {
    u64::MAX >> (64 - width)
}

/// `value`, a `width`-bit integer, as a signed number.
pub(super) fn signed(value: u64, width: u32) -> i64 {
    ((value << (64 - width)) as i64) >> (64 - width)
}

/// Whether the signed `value` fits in `width` bits.
fn fits_signed(value: i128, width: u32) -> bool {
    let half = 1i128 << (width - 1);
    (-half..half).contains(&value)
}

impl Op {
    /// The op's value given the values before it; `None` when it is poison or an operand
    /// cannot be read.
    #[inline]
    pub(super) fn evaluate(
        &self,
        values: &[u64],
        params: &ParamBuffer,
        block: [u32; 3],
    ) -> Option<u64> {
        let read = |index: usize| operand(self.operands[index], values, params, block);
        let a = read(0)?;
        match self.opcode {
            Opcode::Zext | Opcode::Sext | Opcode::Trunc => self.apply(a, 0, 0),
            Opcode::Select => self.apply(a, read(1)?, read(2)?),
            _ => self.apply(a, read(1)?, 0),
        }
    }

    /// The op's value on its operands' values `a`, `b`, `c` (0 for an operand it does not
    /// have); `None` when it is poison.
    #[inline]
    pub(super) fn apply(&self, a: u64, b: u64, c: u64) -> Option<u64> {
        let (w, from) = (self.width, self.source_width);
        let flag = |f: u8| self.flags & f != 0;
        match self.opcode {
            Opcode::Zext => (!flag(FLAG_NNEG) || signed(a, from) >= 0).then_some(a),
            Opcode::Sext => Some(signed(a, from) as u64 & mask(w)),
            Opcode::Trunc => {
                let r = a & mask(w);
                let lost_unsigned = flag(FLAG_NUW) && r != a;
                let lost_signed = flag(FLAG_NSW) && signed(r, w) != signed(a, from);
                (!lost_unsigned && !lost_signed).then_some(r)
            }
            Opcode::Select => Some(if a == 1 { b } else { c }),
            _ => binary(self.opcode, self.flags, w, a, b),
        }
    }
}

/// The value of `operand` in the block of indices `block`: `None` when it cannot be read (a
/// missing value, or a parameter missing or of another size).
#[inline]
fn operand(operand: Operand, values: &[u64], params: &ParamBuffer, block: [u32; 3]) -> Option<u64> {
    match operand {
        Operand::Value(index) => values.get(index as usize).copied(),
        Operand::Param { index, bits } => params.unsigned(index as usize, bits),
        Operand::Constant(value) => Some(value),
        Operand::Block { axis } => Some(u64::from(block[usize::from(axis)])),
    }
}

/// A binary op or a comparison of two `w`-bit values `a` and `b`; `None` when poison.
fn binary(opcode: Opcode, flags: u8, w: u32, a: u64, b: u64) -> Option<u64> {
    let flag = |f: u8| flags & f != 0;
    let (nuw, nsw) = (flag(FLAG_NUW), flag(FLAG_NSW));
    // Exact results, signed and unsigned, in 128 bits (where no 64-bit op overflows).
    let (sa, sb) = (i128::from(signed(a, w)), i128::from(signed(b, w)));
    let (ua, ub) = (u128::from(a), u128::from(b));
    let max = u128::from(mask(w));
    // Each arm: the result before it is reduced to `w` bits, and whether it is poison.
    let (result, poison) = match opcode {
        Opcode::Add => (
            a.wrapping_add(b),
            (nuw && ua + ub > max) || (nsw && !fits_signed(sa + sb, w)),
        ),
        Opcode::Sub => (
            a.wrapping_sub(b),
            (nuw && a < b) || (nsw && !fits_signed(sa - sb, w)),
        ),
        Opcode::Mul => (
            a.wrapping_mul(b),
            (nuw && ua * ub > max) || (nsw && !fits_signed(sa * sb, w)),
        ),
        Opcode::Shl => {
            if b >= u64::from(w) {
                return None;
            }
            let r = (a << b) & mask(w);
            // Shifting back must give the operand: no 1 bit (`nuw`), or no bit that differs
            // from the result's sign (`nsw`), shifted out.
            (
                r,
                (nuw && r >> b != a) || (nsw && signed(r, w) >> b != signed(a, w)),
            )
        }
        Opcode::Lshr => {
            if b >= u64::from(w) {
                return None;
            }
            let r = a >> b;
            (r, flag(FLAG_EXACT) && r << b != a)
        }
        Opcode::And => (a & b, false),
        Opcode::Or => (a | b, flag(FLAG_DISJOINT) && a & b != 0),
        Opcode::Xor => (a ^ b, false),
        Opcode::Umin => (a.min(b), false),
        Opcode::Umax => (a.max(b), false),
        Opcode::Smin => (if sa <= sb { a } else { b }, false),
        Opcode::Smax => (if sa >= sb { a } else { b }, false),
        Opcode::Icmp(predicate) => {
            let r = match predicate {
                Predicate::Eq => a == b,
                Predicate::Ne => a != b,
                Predicate::Ult => a < b,
                Predicate::Ule => a <= b,
                Predicate::Ugt => a > b,
                Predicate::Uge => a >= b,
                Predicate::Slt => sa < sb,
                Predicate::Sle => sa <= sb,
                Predicate::Sgt => sa > sb,
                Predicate::Sge => sa >= sb,
            };
            (u64::from(r), flag(FLAG_SAMESIGN) && (sa < 0) != (sb < 0))
        }
        // Casts and selects are evaluated by `Op::apply`, never here.
        Opcode::Zext | Opcode::Sext | Opcode::Trunc | Opcode::Select => return None,
    };
    (!poison).then_some(result & mask(w))
}
