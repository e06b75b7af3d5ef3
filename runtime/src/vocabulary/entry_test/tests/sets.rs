//! Ops over sets of values ([`Op::evaluate_over`]) against every value of their operands' sets:
//! each value the op takes is in its set, and poison somewhere is seen.

use super::Random;
use crate::vocabulary::entry_test::interval::{Interval, modulus};
use crate::vocabulary::entry_test::parse::allowed_flags;
use crate::vocabulary::entry_test::syntax::{
    FLAG_NNEG, FLAG_NSW, FLAG_NUW, FLAG_SAMESIGN, Op, Opcode, Operand, Predicate,
};

/// Every value of `set` at `width` bits, in order from `set.lo`.
fn members(set: Interval, width: u32) -> impl Iterator<Item = u64> {
    (set.lo..=set.hi).map(move |n| n.rem_euclid(modulus(width)) as u64)
}

/// Whether `set` at `width` bits contains `value`.
fn contains(set: Interval, value: u64, width: u32) -> bool {
    (i128::from(value) - set.lo).rem_euclid(modulus(width)) <= set.hi - set.lo
}

/// A random set of `width`-bit values for [`Op::evaluate_over`]: a point, or up to 48
/// values around an edge value (so often across the unsigned or signed wrap), or at 8 bits
/// and less sometimes every value.
fn random_set(random: &mut Random, width: u32) -> Interval {
    if width <= 8 && random.next().is_multiple_of(12) {
        return Interval::full(width);
    }
    let size = match random.next() % 3 {
        0 => 0,
        1 => random.next() % 4,
        _ => random.next() % 48,
    };
    let start = i128::from(random.value(width)) - (random.next() % (size + 1)) as i128;
    Interval::of(start, start + size as i128, width)
}

/// One op of each kind and flags, with the widths of its result and operands (`[result,
/// first operand, others]`).
fn every_op() -> Vec<(Op, [u32; 3])> {
    let op = |opcode, flags, width, source_width| Op {
        opcode,
        flags,
        width,
        source_width,
        operands: [Operand::Constant(0); 3],
    };
    let mut ops = Vec::new();
    for width in [1, 8, 16, 32, 64] {
        for opcode in [
            Opcode::Add,
            Opcode::Sub,
            Opcode::Mul,
            Opcode::Shl,
            Opcode::Lshr,
            Opcode::And,
            Opcode::Or,
            Opcode::Xor,
            Opcode::Umin,
            Opcode::Umax,
            Opcode::Smin,
            Opcode::Smax,
        ] {
            let allowed = allowed_flags(opcode);
            // Every subset of the allowed flags.
            for flags in 0..=allowed {
                if flags & !allowed == 0 {
                    ops.push((op(opcode, flags, width, width), [width; 3]));
                }
            }
        }
        for predicate in [
            Predicate::Eq,
            Predicate::Ne,
            Predicate::Ult,
            Predicate::Ule,
            Predicate::Ugt,
            Predicate::Uge,
            Predicate::Slt,
            Predicate::Sle,
            Predicate::Sgt,
            Predicate::Sge,
        ] {
            for flags in [0, FLAG_SAMESIGN] {
                let icmp = op(Opcode::Icmp(predicate), flags, width, width);
                ops.push((icmp, [1, width, width]));
            }
        }
        ops.push((op(Opcode::Select, 0, width, 1), [width, 1, width]));
        for from in [1, 8, 16, 32, 64] {
            if from < width {
                for flags in [0, FLAG_NNEG] {
                    ops.push((op(Opcode::Zext, flags, width, from), [width, from, width]));
                }
                ops.push((op(Opcode::Sext, 0, width, from), [width, from, width]));
            }
            if from > width {
                for flags in 0..=FLAG_NUW | FLAG_NSW {
                    ops.push((op(Opcode::Trunc, flags, width, from), [width, from, width]));
                }
            }
        }
    }
    ops
}

#[test]
fn ops_over_sets_contain_every_value_and_poison() {
    let mut random = Random(6);
    // Ops found poison everywhere, maybe poison, and bitwise bounds checked exact.
    let (mut always, mut maybe, mut exact) = (0, 0, 0);
    for (op, [result, first, others]) in every_op() {
        let is_cast = matches!(op.opcode, Opcode::Zext | Opcode::Sext | Opcode::Trunc);
        for _ in 0..60 {
            let a = random_set(&mut random, first);
            let (b, c) = match op.opcode {
                _ if is_cast => (Interval::point(0), Interval::point(0)),
                Opcode::Select => (
                    random_set(&mut random, others),
                    random_set(&mut random, others),
                ),
                // Shift amounts mostly around the width.
                Opcode::Shl | Opcode::Lshr if random.next().is_multiple_of(2) => {
                    let lo = random.next() % (u64::from(others) + 2);
                    let hi = lo + random.next() % 4;
                    (
                        Interval::of(lo.into(), hi.into(), others),
                        Interval::point(0),
                    )
                }
                _ => (random_set(&mut random, others), Interval::point(0)),
            };
            let over = op.evaluate_over([a, b, c]);
            let (mut poisoned, mut values) = (false, Vec::new());
            for x in members(a, first) {
                for y in members(b, others) {
                    for z in members(c, others) {
                        match op.apply(x, y, z) {
                            Some(value) => values.push(value),
                            None => poisoned = true,
                        }
                    }
                }
            }
            let context = format!("{op:?} on {a:?} {b:?} {c:?}: {over:?}");
            let Some(over) = over else {
                assert!(values.is_empty(), "{context}: defined somewhere");
                always += 1;
                continue;
            };
            assert!(
                !poisoned || over.maybe_poison,
                "{context}: poison somewhere"
            );
            maybe += usize::from(over.maybe_poison);
            for &value in &values {
                assert!(contains(over.value, value, result), "{context}: {value}");
            }
            // Bitwise ops and min and max: the bounds are the values' own, unsigned.
            let bitwise = matches!(
                op.opcode,
                Opcode::And | Opcode::Or | Opcode::Xor | Opcode::Umin | Opcode::Umax
            );
            let wraps = |set: Interval, width| set.hi >= modulus(width);
            if bitwise && op.flags == 0 && !wraps(a, first) && !wraps(b, others) {
                let (lo, hi) = over.value.unsigned(result);
                let least = values.iter().min().map(|&v| i128::from(v));
                let greatest = values.iter().max().map(|&v| i128::from(v));
                assert_eq!((Some(lo), Some(hi)), (least, greatest), "{context}");
                exact += 1;
            }
        }
    }
    assert!(
        always > 300 && maybe > 1000 && exact > 1000,
        "{always} {maybe} {exact}"
    );
}
