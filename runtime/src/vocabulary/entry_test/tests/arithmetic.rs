//! The ops against native arithmetic: binary ops, comparisons, casts, selects and 1-bit values,
//! each with its flags, where LLVM's rules make a result poison and where they do not.

use super::{Program, Random, holds};

/// A reference for the binary ops and comparisons of one width, in the native types: the
/// result, or `None` when LLVM's rules make it poison.
macro_rules! reference_binary {
    ($name:ident, $u:ty, $i:ty) => {
        fn $name(opcode: &str, flags: &[&str], a: u64, b: u64) -> Option<u64> {
            let (a, b) = (a as $u, b as $u);
            let (sa, sb) = (a as $i, b as $i);
            let has = |flag: &str| flags.contains(&flag);
            let checked = |unsigned: Option<$u>, signed: Option<$i>, wrapped: $u| {
                let poison = (has("nuw") && unsigned.is_none()) || (has("nsw") && signed.is_none());
                (!poison).then_some(wrapped)
            };
            let result: $u = match opcode {
                "add" => checked(a.checked_add(b), sa.checked_add(sb), a.wrapping_add(b))?,
                "sub" => checked(a.checked_sub(b), sa.checked_sub(sb), a.wrapping_sub(b))?,
                "mul" => checked(a.checked_mul(b), sa.checked_mul(sb), a.wrapping_mul(b))?,
                "shl" | "lshr" => {
                    if u32::try_from(b).map_or(true, |b| b >= <$u>::BITS) {
                        return None;
                    }
                    let n = b as u32;
                    if opcode == "lshr" {
                        if has("exact") && a.trailing_zeros() < n {
                            return None;
                        }
                        a >> n
                    } else {
                        // The top n bits leave; with nsw, they and the new sign bit must
                        // all equal the old sign bit.
                        if has("nuw") && a.leading_zeros() < n {
                            return None;
                        }
                        if has("nsw") && a.leading_zeros() <= n && a.leading_ones() <= n {
                            return None;
                        }
                        a << n
                    }
                }
                "and" => a & b,
                "or" => {
                    if has("disjoint") && a & b != 0 {
                        return None;
                    }
                    a | b
                }
                "xor" => a ^ b,
                "umin" => a.min(b),
                "umax" => a.max(b),
                "smin" => sa.min(sb) as $u,
                "smax" => sa.max(sb) as $u,
                predicate => {
                    if has("samesign") && (sa < 0) != (sb < 0) {
                        return None;
                    }
                    <$u>::from(match predicate {
                        "eq" => a == b,
                        "ne" => a != b,
                        "ult" => a < b,
                        "ule" => a <= b,
                        "ugt" => a > b,
                        "uge" => a >= b,
                        "slt" => sa < sb,
                        "sle" => sa <= sb,
                        "sgt" => sa > sb,
                        "sge" => sa >= sb,
                        _ => unreachable!("{predicate}"),
                    })
                }
            };
            Some(result as u64)
        }
    };
}

reference_binary!(reference_8, u8, i8);
reference_binary!(reference_16, u16, i16);
reference_binary!(reference_32, u32, i32);
reference_binary!(reference_64, u64, i64);

fn reference_binary(width: u32, opcode: &str, flags: &[&str], a: u64, b: u64) -> Option<u64> {
    match width {
        8 => reference_8(opcode, flags, a, b),
        16 => reference_16(opcode, flags, a, b),
        32 => reference_32(opcode, flags, a, b),
        64 => reference_64(opcode, flags, a, b),
        _ => unreachable!(),
    }
}

/// `a` of `width` bits, signed and unsigned, through the native types.
fn native(a: u64, width: u32) -> (i128, u128) {
    match width {
        8 => (i128::from(a as u8 as i8), u128::from(a as u8)),
        16 => (i128::from(a as u16 as i16), u128::from(a as u16)),
        32 => (i128::from(a as u32 as i32), u128::from(a as u32)),
        64 => (i128::from(a as i64), u128::from(a)),
        _ => unreachable!(),
    }
}

/// A reference for the casts, through the native types' conversions.
fn reference_cast(opcode: &str, flags: &[&str], from: u32, to: u32, a: u64) -> Option<u64> {
    let (signed, unsigned) = native(a, from);
    let has = |flag: &str| flags.contains(&flag);
    // The value reduced to `to` bits, and whether it fits, unsigned and signed.
    let (reduced, fits_unsigned, fits_signed) = match (opcode, to) {
        ("sext", 16) => (signed as i16 as u16 as u64, true, true),
        ("sext", 32) => (signed as i32 as u32 as u64, true, true),
        ("sext", 64) => (signed as i64 as u64, true, true),
        ("zext", _) => (unsigned as u64, true, true),
        ("trunc", 8) => (
            unsigned as u8 as u64,
            u8::try_from(unsigned).is_ok(),
            i8::try_from(signed).is_ok(),
        ),
        ("trunc", 16) => (
            unsigned as u16 as u64,
            u16::try_from(unsigned).is_ok(),
            i16::try_from(signed).is_ok(),
        ),
        ("trunc", 32) => (
            unsigned as u32 as u64,
            u32::try_from(unsigned).is_ok(),
            i32::try_from(signed).is_ok(),
        ),
        _ => unreachable!("{opcode} {to}"),
    };
    let poison = (has("nneg") && signed < 0)
        || (has("nuw") && !fits_unsigned)
        || (has("nsw") && !fits_signed);
    (!poison).then_some(reduced)
}

const WIDTHS: [u32; 4] = [8, 16, 32, 64];

/// The values of `width` bits at which arithmetic changes behaviour: around 0, the square
/// root of the range (products at the wrap), the signed and unsigned limits, and shift
/// amounts around the width.
fn edges(width: u32) -> Vec<u64> {
    let top = u64::MAX >> (64 - width);
    let root = 1u64 << (width / 2);
    let sign = 1u64 << (width - 1);
    let w = u64::from(width);
    [
        0,
        1,
        2,
        3,
        root - 1,
        root,
        root + 1,
        sign - 1,
        sign,
        sign + 1,
        top - 1,
        top,
        w - 1,
        w,
        w + 1,
    ]
    .iter()
    .map(|&v| v & top)
    .collect()
}

#[test]
fn binary_ops_and_comparisons_match_native_arithmetic() {
    let mut arithmetic: Vec<(&str, &[&str])> = Vec::new();
    for opcode in ["add", "sub", "mul", "shl"] {
        for flags in [&[][..], &["nuw"], &["nsw"], &["nuw", "nsw"]] {
            arithmetic.push((opcode, flags));
        }
    }
    arithmetic.extend([
        ("lshr", &[][..]),
        ("lshr", &["exact"]),
        ("and", &[]),
        ("or", &[]),
        ("or", &["disjoint"]),
        ("xor", &[]),
        ("umin", &[]),
        ("umax", &[]),
        ("smin", &[]),
        ("smax", &[]),
    ]);
    let predicates = [
        "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
    ];
    let mut random = Random(2);
    let mut outcomes = [0; 2];
    for width in WIDTHS {
        for &(opcode, flags) in &arithmetic {
            let name: String = std::iter::once(opcode)
                .chain(flags.iter().copied())
                .collect::<Vec<_>>()
                .join(".");
            // Every pair of edge values, then random pairs.
            let edges = edges(width);
            let pairs = edges
                .iter()
                .flat_map(|&a| edges.iter().map(move |&b| (a, b)));
            let random_pairs: Vec<(u64, u64)> = (0..400)
                .map(|_| {
                    let a = random.value(width);
                    let b = if opcode == "shl" || opcode == "lshr" {
                        random.shift(width)
                    } else {
                        random.value(width)
                    };
                    (a, b)
                })
                .collect();
            for (a, b) in pairs.chain(random_pairs) {
                let reference = reference_binary(width, opcode, flags, a, b);
                // The result compared with the reference's, or when that is poison with
                // the wrapped result (which must not pass either), and with something else.
                let wrapped = reference_binary(width, opcode, &[], a, b);
                let wrong = random.value(width);
                for claimed in [reference.or(wrapped).unwrap_or(wrong), wrong] {
                    let mut program = Program::default();
                    let (x, y) = (program.input(a, width), program.input(b, width));
                    let expected = program.input(claimed, width);
                    let result = program.op(format!("{name} {width} {x} {y}"));
                    program.op(format!("icmp.eq {width} {result} {expected}"));
                    assert_eq!(
                        program.holds(),
                        reference == Some(claimed),
                        "{} on {a}, {b}",
                        program.text()
                    );
                }
                outcomes[usize::from(reference.is_some())] += 1;
            }
        }
        for predicate in predicates {
            for samesign in [false, true] {
                let name = if samesign {
                    format!("icmp.{predicate}.samesign")
                } else {
                    format!("icmp.{predicate}")
                };
                let flags: &[&str] = if samesign { &["samesign"] } else { &[] };
                for _ in 0..300 {
                    let a = random.value(width);
                    // Often equal operands, which tell `lt` from `le`.
                    let b = if random.next().is_multiple_of(4) {
                        a
                    } else {
                        random.value(width)
                    };
                    let mut program = Program::default();
                    let (x, y) = (program.input(a, width), program.input(b, width));
                    program.op(format!("{name} {width} {x} {y}"));
                    let reference = reference_binary(width, predicate, flags, a, b);
                    assert_eq!(
                        program.holds(),
                        reference == Some(1),
                        "{} on {a}, {b}",
                        program.text()
                    );
                }
            }
        }
    }
    // Both poison and defined results were seen many times.
    assert!(outcomes.iter().all(|&n| n > 1000), "{outcomes:?}");
}

#[test]
fn casts_match_native_conversions() {
    let mut random = Random(3);
    let casts: [(&str, &[&str]); 6] = [
        ("zext", &[]),
        ("zext", &["nneg"]),
        ("sext", &[]),
        ("trunc", &[]),
        ("trunc", &["nuw"]),
        ("trunc", &["nsw"]),
    ];
    let mut poisoned = 0;
    for from in WIDTHS {
        for to in WIDTHS {
            for (opcode, flags) in casts {
                let larger = opcode != "trunc";
                if (larger && to <= from) || (!larger && to >= from) {
                    continue;
                }
                let flags = if opcode == "trunc" && random.next().is_multiple_of(2) {
                    &["nuw", "nsw"][..]
                } else {
                    flags
                };
                let name: String = std::iter::once(opcode)
                    .chain(flags.iter().copied())
                    .collect::<Vec<_>>()
                    .join(".");
                for _ in 0..400 {
                    let a = random.value(from);
                    let reference = reference_cast(opcode, flags, from, to, a);
                    poisoned += usize::from(reference.is_none());
                    // As for the binary ops: a poison result must not pass as its value.
                    let unflagged = reference_cast(opcode, &[], from, to, a);
                    let wrong = random.value(to);
                    for claimed in [reference.or(unflagged).unwrap_or(wrong), wrong] {
                        let mut program = Program::default();
                        let x = program.input(a, from);
                        let expected = program.input(claimed, to);
                        let result = program.op(format!("{name} {to} {x}"));
                        program.op(format!("icmp.eq {to} {result} {expected}"));
                        assert_eq!(
                            program.holds(),
                            reference == Some(claimed),
                            "{} on {a}",
                            program.text()
                        );
                    }
                }
            }
        }
    }
    assert!(poisoned > 1000, "{poisoned}");
}

#[test]
fn one_bit_values_wrap_and_extend() {
    // x = (p0 & 1) as 1 bit.
    for (p0, x) in [(0u64, 0u64), (1, 1), (2, 0), (3, 1)] {
        let params = [(p0, 32)];
        let bit = "trunc 1 $0:32";
        assert_eq!(holds(&format!("{bit};xor 1 %0 1"), &params), x == 0);
        assert_eq!(holds(&format!("{bit};xor 1 %0 -1"), &params), x == 0);
        assert_eq!(holds(&format!("{bit};add 1 %0 1"), &params), x == 0);
        // 1 + 1 overflows unsigned; signed, 1 is -1 and -1 + -1 overflows too, while
        // 0 + -1 does not.
        assert_eq!(holds(&format!("{bit};add.nuw 1 %0 1"), &params), x == 0);
        assert_eq!(holds(&format!("{bit};add.nsw 1 %0 1"), &params), x == 0);
        assert_eq!(
            holds(&format!("{bit};add.nsw 1 %0 0;icmp.eq 1 %1 1"), &params),
            x == 1
        );
        assert_eq!(
            holds(&format!("{bit};sext 32 %0;icmp.eq 32 %1 -1"), &params),
            x == 1
        );
        assert_eq!(
            holds(&format!("{bit};zext 64 %0;icmp.eq 64 %1 1"), &params),
            x == 1
        );
        assert_eq!(
            holds(&format!("{bit};zext.nneg 64 %0;icmp.eq 64 %1 0"), &params),
            x == 0
        );
        assert_eq!(holds(&format!("{bit};icmp.slt 1 %0 0"), &params), x == 1);
        assert_eq!(holds(&format!("{bit};trunc.nuw 1 $0:32"), &params), p0 == 1);
    }
}

#[test]
fn constants_take_the_width_of_their_op() {
    let all_ones_32 = [(0xFFFF_FFFF, 64)];
    assert!(holds("icmp.eq 32 $0:32 -1", &[(0xFFFF_FFFF, 32)]));
    assert!(holds("icmp.eq 32 $0:32 4294967295", &[(0xFFFF_FFFF, 32)]));
    assert!(!holds("icmp.eq 64 $0:64 -1", &all_ones_32));
    assert!(holds("icmp.eq 64 $0:64 4294967295", &all_ones_32));
    assert!(holds("icmp.eq 64 $0:64 -1", &[(u64::MAX, 64)]));
    assert!(holds(
        "icmp.eq 64 $0:64 18446744073709551615",
        &[(u64::MAX, 64)]
    ));
    assert!(holds("icmp.slt 32 $0:32 0", &[(0x8000_0000, 32)]));
    assert!(!holds("icmp.ult 32 $0:32 0", &[(0x8000_0000, 32)]));
    assert!(holds("icmp.sgt 64 $0:64 -9223372036854775808", &[(0, 64)]));
    // x - (-1) is x + 1 at the op's width.
    assert!(holds(
        "sub 32 $0:32 -1;icmp.eq 32 %0 0",
        &[(0xFFFF_FFFF, 32)]
    ));
    assert!(holds("sub.nsw 32 $0:32 -1;icmp.eq 32 %0 6", &[(5, 32)]));
    assert!(!holds("sub.nuw 32 $0:32 -1;icmp.eq 32 %0 6", &[(5, 32)]));
    assert!(holds(
        "sub.nuw 32 $0:32 -1;icmp.eq 32 %0 0",
        &[(0xFFFF_FFFF, 32)]
    ));
    assert!(holds("trunc 8 $0:32;icmp.eq 8 %0 -128", &[(0x180, 32)]));
}

#[test]
fn any_poison_fails_the_test_even_unused() {
    let program = "add.nuw 32 $0:32 $1:32;icmp.eq 32 $0:32 $0:32";
    assert!(holds(program, &[(1, 32), (2, 32)]));
    assert!(!holds(program, &[(0xFFFF_FFFF, 32), (1, 32)]));
    let program = "shl 64 $0:64 $1:64;icmp.uge 64 $0:64 0";
    assert!(holds(program, &[(5, 64), (63, 64)]));
    assert!(!holds(program, &[(5, 64), (64, 64)]));
    // The last op 1 but an earlier comparison poison.
    let program = "icmp.ult.samesign 32 $0:32 $1:32;icmp.eq 32 $0:32 $0:32";
    assert!(!holds(program, &[(0x8000_0000, 32), (1, 32)]));
}

#[test]
fn select_takes_the_arm_its_condition_names() {
    let mut random = Random(5);
    let mut taken = [0; 2];
    for width in [1, 8, 16, 32, 64] {
        for _ in 0..400 {
            let (c, a, b) = (random.next() % 2, random.value(width), random.value(width));
            let reference = if c == 1 { a } else { b };
            taken[c as usize] += 1;
            let wrong = random.value(width);
            for claimed in [reference, wrong] {
                // The condition a value, or the constant.
                for constant in [false, true] {
                    let mut program = Program::default();
                    let condition = if constant {
                        c.to_string()
                    } else {
                        program.input(c, 1)
                    };
                    let (x, y) = (program.input(a, width), program.input(b, width));
                    let expected = program.input(claimed, width);
                    let result = program.op(format!("select {width} {condition} {x} {y}"));
                    program.op(format!("icmp.eq {width} {result} {expected}"));
                    assert_eq!(
                        program.holds(),
                        reference == claimed,
                        "{} on {c}, {a}, {b}",
                        program.text()
                    );
                }
            }
        }
    }
    assert!(taken.iter().all(|&n| n > 500), "{taken:?}");
}
