//! Parsing: the programs the syntax refuses, and mutated programs, which parse or not but never
//! panic when parsed or evaluated.

use super::{ONE, Random, buffer};
use crate::vocabulary::entry_test::syntax::EntryTest;

#[test]
fn malformed_programs_are_rejected() {
    for valid in [
        "zext 64 $0:32;icmp.ule 64 %0 $1:64",
        "icmp.eq 32 $0:32 1;select 32 %0 $1:32 7;umin 32 %1 15;smax 32 %2 -1;\
         umax 32 %3 %2;smin 32 %4 0;icmp.ult 32 %5 9",
        "select 64 1 $0:64 -1;icmp.eq 64 %0 3",
        "trunc 1 $0:32;select 1 %0 0 %0;select 1 -1 %1 1",
    ] {
        assert!(EntryTest::parse(valid).is_some(), "{valid}");
    }
    for program in [
        // Empty, or an empty op.
        "",
        ";",
        "icmp.eq 32 $0:32 1;",
        ";icmp.eq 32 $0:32 1",
        // Unknown opcode, flag, predicate; a flag its opcode cannot take.
        "udiv 32 $0:32 1;icmp.eq 32 %0 1",
        "add.nuw.wrap 32 $0:32 1;icmp.eq 32 %0 1",
        "icmp 32 $0:32 1",
        "icmp.lt 32 $0:32 1",
        "icmp.samesign 32 $0:32 1",
        "icmp.eq.nuw 32 $0:32 1",
        "lshr.nuw 32 $0:32 1;icmp.eq 32 %0 1",
        "sext.nneg 64 $0:32;icmp.eq 64 %0 1",
        "and.disjoint 32 $0:32 1;icmp.eq 32 %0 1",
        "zext.exact 64 $0:32;icmp.eq 64 %0 1",
        // Bad widths.
        "icmp.eq 33 $0:32 1",
        "icmp.eq 0 $0:32 1",
        "icmp.eq 128 $0:32 1",
        "icmp.eq x $0:32 1",
        "icmp.eq 32 $0:16 1",
        "icmp.eq 32 $0:33 1",
        "icmp.eq 32 $0 1",
        // Width mismatches.
        "icmp.eq 64 $0:32 1",
        "add 64 $0:32 $1:64;icmp.eq 64 %0 1",
        "zext 64 $0:32;icmp.eq 32 %0 1",
        "zext 32 $0:32;icmp.eq 32 %0 1",
        "sext 16 $0:32;icmp.eq 16 %0 1",
        "trunc 32 $0:32;icmp.eq 32 %0 1",
        "trunc 64 $0:32;icmp.eq 64 %0 1",
        "zext 64 5;icmp.eq 64 %0 5",
        // References to a later, the same or a missing op.
        "icmp.eq 32 %1 1;icmp.eq 1 %0 1",
        "icmp.eq 32 %0 1",
        "icmp.eq 32 $0:32 1;and 1 %0 %7",
        "icmp.eq 32 $0:32 1;and 1 %0 %",
        "icmp.eq 32 $0:32 1;and 1 %0 %-1",
        "icmp.eq 32 $0:32 1;and 1 %0 %+0",
        // The last op not 1 bit wide.
        "add 32 $0:32 1",
        "zext 64 $0:32",
        // Constants out of range or not decimal.
        "icmp.eq 8 $0:8 256",
        "trunc 8 $0:32;icmp.eq 8 %0 256",
        "trunc 8 $0:32;icmp.eq 8 %0 -129",
        "icmp.eq 32 $0:32 4294967296",
        "icmp.eq 32 $0:32 -2147483649",
        "icmp.eq 64 $0:64 18446744073709551616",
        "icmp.eq 64 $0:64 -9223372036854775809",
        "icmp.eq 32 $0:32 +1",
        "icmp.eq 32 $0:32 0x10",
        "icmp.eq 32 $0:32 --1",
        "icmp.eq 32 $0:32 -",
        "icmp.eq 32 $0:32 1.0",
        "icmp.eq 32 $+0:32 1",
        // Operand counts and spacing.
        "icmp.eq 32 $0:32",
        "icmp.eq 32 $0:32 1 2",
        "zext 64 $0:32 $1:32;icmp.eq 64 %0 1",
        "icmp.eq  32 $0:32 1",
        "icmp.eq 32 $0:32 1 ",
        " icmp.eq 32 $0:32 1",
        "icmp.eq 32 $0:32 1; icmp.eq 32 $0:32 1",
        "icmp.eq\t32 $0:32 1",
        // A select's condition not 1 bit wide, its arms not of its width, an operand
        // missing or one too many, a flag.
        "add 32 $0:32 1;select 32 %0 1 2;icmp.eq 32 %1 1",
        "select 32 2 $0:32 1;icmp.eq 32 %0 1",
        "select 32 $0:32 $0:32 1;icmp.eq 32 %0 1",
        "icmp.eq 32 $0:32 1;select 32 %0 $1:64 1;icmp.eq 32 %1 1",
        "icmp.eq 32 $0:32 1;select 64 %0 $1:32 1;icmp.eq 64 %1 1",
        "icmp.eq 32 $0:32 1;select 32 %0 1 $1:64;icmp.eq 32 %1 1",
        "icmp.eq 32 $0:32 1;select 32 %0 $1:32;icmp.eq 32 %1 1",
        "icmp.eq 32 $0:32 1;select 32 %0;icmp.eq 32 %1 1",
        "icmp.eq 32 $0:32 1;select 32 %0 $1:32 1 2;icmp.eq 32 %1 1",
        "icmp.eq 32 $0:32 1;select.nuw 32 %0 $1:32 1;icmp.eq 32 %1 1",
        "icmp.eq 32 $0:32 1;select 32 %5 $1:32 1;icmp.eq 32 %1 1",
        // Min and max: flags, widths, operand counts.
        "umin.nuw 32 $0:32 1;icmp.eq 32 %0 1",
        "umax.nsw 32 $0:32 1;icmp.eq 32 %0 1",
        "smin.disjoint 32 $0:32 1;icmp.eq 32 %0 1",
        "smax.exact 32 $0:32 1;icmp.eq 32 %0 1",
        "umin 64 $0:32 1;icmp.eq 64 %0 1",
        "smax 32 $0:32 $1:64;icmp.eq 32 %0 1",
        "umin 32 $0:32;icmp.eq 32 %0 1",
        "umin 32 $0:32 1 2;icmp.eq 32 %0 1",
        "smin 8 $0:32 1;icmp.eq 8 %0 1",
        "umax 32 $0:32 4294967296;icmp.eq 32 %0 1",
        "min 32 $0:32 1;icmp.eq 32 %0 1",
    ] {
        assert_eq!(EntryTest::parse(program), None, "{program:?}");
    }
}

#[test]
fn parsing_and_evaluating_mutated_programs_never_panics() {
    let seed = "zext 64 $4:32;zext 64 $5:32;mul.nuw 64 %0 %1;icmp.ule 64 %2 $1:64;\
                icmp.ult.samesign 32 $4:32 -1;shl.nsw 64 %2 $2:64;lshr.exact 64 %5 3;\
                trunc.nuw.nsw 8 %6;sext 16 %7;or.disjoint 16 %8 -1;and 1 %3 %4;\
                mul.nsw 32 ^x 12;sub.nsw 32 %11 2;add 32 %12 ^y;icmp.slt 32 %13 $4:32;\
                select 32 %14 15 %13;umin 32 %15 15;smax 32 %16 %12;umax 32 %17 ^z;\
                smin 32 %18 $5:32;zext 64 %19;mul.nsw 64 %20 %1;icmp.ult 64 %21 $1:64;\
                and 1 %10 %22";
    let alphabet = b"%$:;.- ^0123456789abcdeilmnopqrstuwxyz\xc3\xa9";
    let mut random = Random(4);
    let mut parsed = 0;
    for _ in 0..20_000 {
        let mut bytes = seed.as_bytes().to_vec();
        for _ in 0..1 + random.next() % 4 {
            let at = (random.next() as usize) % (bytes.len() + 1);
            let byte = alphabet[(random.next() as usize) % alphabet.len()];
            match random.next() % 3 {
                0 if at < bytes.len() => bytes[at] = byte,
                1 if at < bytes.len() => {
                    bytes.remove(at);
                }
                _ => bytes.insert(at, byte),
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Some(test) = EntryTest::parse(&text) {
            parsed += 1;
            let params: Vec<(u64, u32)> = (0..8)
                .map(|_| {
                    let width = if random.next().is_multiple_of(2) {
                        32
                    } else {
                        64
                    };
                    (random.value(64), width)
                })
                .collect();
            test.holds(&buffer(&params), ONE);
            // Over a few blocks too: the boxes' evaluation.
            let grid = [
                (random.next() % 6) as u32,
                (random.next() % 6) as u32,
                (random.next() % 3) as u32,
            ];
            test.holds(&buffer(&params), grid);
        }
    }
    assert!(parsed > 100, "{parsed}");
}
