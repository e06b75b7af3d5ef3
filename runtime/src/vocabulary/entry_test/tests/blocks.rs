//! Tests of block indices over a launch's grid: they hold when they hold in every block, the
//! largest grids are decided, and random programs of block indices never hold where a block
//! fails.

use super::{Random, blocks, buffer, holds_in_every_block, random_grid};
use crate::vocabulary::entry_test::decide::BOX_BUDGET;
use crate::vocabulary::entry_test::exact::signed;
use crate::vocabulary::entry_test::interval::modulus;
use crate::vocabulary::entry_test::syntax::EntryTest;
use crate::vocabulary::params::ParamBuffer;

/// `$0 <= a*^y + ^x + $1` and `a*^y + ^x + $1 + 15 < $2` (a tile's ends, affine in the
/// block indices, as the builder writes a per-block test), for every block of `grid` one
/// by one: the reference for the boxes.
fn every_block(params: &[(u64, u32)], grid: [u32; 3]) -> bool {
    let (a, origin, len) = (
        params[0].0 as i64,
        params[1].0 as i32 as i64,
        params[2].0 as i64,
    );
    (0..grid[1]).all(|y| {
        (0..grid[0]).all(|x| {
            let lo = a * i64::from(y) + i64::from(x) + origin;
            lo >= 0 && lo + 15 < len
        })
    }) && grid.iter().all(|&g| g > 0)
}

#[test]
fn a_test_of_block_indices_holds_when_it_holds_for_every_block() {
    const TILE: &str = "mul.nsw 32 $0:32 ^y;add.nsw 32 %0 ^x;add.nsw 32 %1 $1:32;\
        add.nsw 32 %2 15;sext 64 %2;sext 64 %3;icmp.sge 64 %4 0;icmp.ult 64 %5 $2:64;\
        and 1 %6 %7";
    let test = EntryTest::parse(TILE).expect("parses");
    assert_eq!(test.block_axes, 0b011);
    let mut random = Random(11);
    let (mut held, mut failed) = (0, 0);
    for _ in 0..4000 {
        let a = random.next() % 40;
        let origin = (random.next() % 9) as i32 - 4;
        let len = random.next() % 900;
        let grid = [
            (random.next() % 12) as u32,
            (random.next() % 12) as u32,
            (random.next() % 3) as u32,
        ];
        let params = [(a, 32), (u64::from(origin as u32), 32), (len, 64)];
        let expected = every_block(&params, grid);
        assert_eq!(
            test.holds(&buffer(&params), grid),
            expected,
            "a {a} origin {origin} len {len} grid {grid:?}"
        );
        if expected { held += 1 } else { failed += 1 }
    }
    assert!(held > 200 && failed > 200, "{held} {failed}");
    // A limit on the block index holds at the last block, so for the whole grid; an axis the
    // program does not read is not looked at.
    let limit = EntryTest::parse("icmp.ult 32 ^x 100").expect("parses");
    assert!(limit.holds(&buffer(&[]), [100, 7, 1]));
    assert!(!limit.holds(&buffer(&[]), [101, 1, 1]));
    assert!(!limit.holds(&buffer(&[]), [0, 1, 1]));
    let z = EntryTest::parse("icmp.eq 32 ^z 0").expect("parses");
    assert!(z.holds(&buffer(&[]), [5, 5, 1]) && !z.holds(&buffer(&[]), [1, 1, 2]));
}

#[test]
fn the_largest_grids_are_decided_without_overflow() {
    let full = [u32::MAX; 3];
    let any = EntryTest::parse(
        "icmp.ule 32 ^x -1;icmp.ule 32 ^y -1;icmp.ule 32 ^z -1;and 1 %0 %1;and 1 %3 %2",
    )
    .expect("parses");
    assert_eq!(any.decide(&buffer(&[]), full), (true, 1));
    // The last block of the widest grid is 2^32 - 2.
    let limit = EntryTest::parse("icmp.ult 32 ^x -2").expect("parses");
    assert!(!limit.holds(&buffer(&[]), full));
    assert!(limit.holds(&buffer(&[]), [u32::MAX - 1, 1, 1]));
    // Not decided by sets (no square is 7 modulo 8, so none is modulo 2^32): each block
    // is, until the budget is spent.
    let square = EntryTest::parse("mul 32 ^x ^x;icmp.ne 32 %0 7").expect("parses");
    assert_eq!(square.decide(&buffer(&[]), full), (false, BOX_BUDGET));
}

#[test]
fn a_block_index_is_32_bits_and_named_by_its_axis() {
    for program in [
        "icmp.ult 64 ^x 3",
        "icmp.ult 32 ^w 3",
        "icmp.ult 32 ^ 3",
        "zext 32 ^x",
    ] {
        assert_eq!(EntryTest::parse(program), None, "{program}");
    }
    let wide = EntryTest::parse("zext 64 ^y;icmp.ult 64 %0 5").expect("parses");
    assert!(wide.holds(&buffer(&[]), [1, 5, 1]) && !wide.holds(&buffer(&[]), [1, 6, 1]));
}

/// The values of `test`'s ops in the block `block`, `None` when one is poison (or a
/// parameter cannot be read).
fn values_at(test: &EntryTest, params: &ParamBuffer, block: [u32; 3]) -> Option<Vec<u64>> {
    let mut values = Vec::new();
    for op in &test.ops {
        let value = op.evaluate(&values, params, block)?;
        values.push(value);
    }
    Some(values)
}

/// A random program over the block indices and parameters `$0:32` and `$1:64`, grown
/// from values of one width.
#[derive(Default)]
struct Grower {
    ops: Vec<String>,
    /// The operands made so far (block indices, parameters, op values) and their widths.
    pool: Vec<(String, u32)>,
}

impl Grower {
    /// Appends an op of a `width`-bit result; its value.
    fn push(&mut self, text: String, width: u32) -> String {
        self.ops.push(text);
        let name = format!("%{}", self.ops.len() - 1);
        self.pool.push((name.clone(), width));
        name
    }

    /// A `width`-bit operand (8 bits or more): a constant, or a value of the pool, cast to
    /// `width` from 32 bits when the pool has none.
    fn value(&mut self, random: &mut Random, width: u32) -> String {
        if random.next().is_multiple_of(4) {
            return match random.next() % 3 {
                0 => random.value(width).to_string(),
                _ => (random.next() % 20).to_string(),
            };
        }
        let of_width: Vec<&String> = self
            .pool
            .iter()
            .filter(|(_, w)| *w == width)
            .map(|(name, _)| name)
            .collect();
        if !of_width.is_empty() && !random.next().is_multiple_of(5) {
            return of_width[(random.next() as usize) % of_width.len()].clone();
        }
        let wide: Vec<String> = self
            .pool
            .iter()
            .filter(|(_, w)| *w == 32)
            .map(|(name, _)| name.clone())
            .collect();
        let source = wide[(random.next() as usize) % wide.len()].clone();
        let cast = match width {
            32 => return source,
            64 if random.next().is_multiple_of(2) => "sext",
            64 => "zext",
            _ => "trunc",
        };
        self.push(format!("{cast} {width} {source}"), width)
    }

    /// A 1-bit value: one of the pool, or a new comparison.
    fn bit(&mut self, random: &mut Random) -> String {
        let bits: Vec<&String> = self
            .pool
            .iter()
            .filter(|(_, w)| *w == 1)
            .map(|(name, _)| name)
            .collect();
        if !bits.is_empty() && random.next().is_multiple_of(2) {
            return bits[(random.next() as usize) % bits.len()].clone();
        }
        self.compare(random)
    }

    /// A new comparison of two values.
    fn compare(&mut self, random: &mut Random) -> String {
        let width = random_width(random);
        let (a, b) = (self.value(random, width), self.value(random, width));
        let predicates = [
            "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
        ];
        let predicate = predicates[(random.next() as usize) % predicates.len()];
        let samesign = if random.next().is_multiple_of(6) {
            ".samesign"
        } else {
            ""
        };
        self.push(format!("icmp.{predicate}{samesign} {width} {a} {b}"), 1)
    }

    /// Grows one op of a random kind.
    fn grow(&mut self, random: &mut Random) {
        let width = random_width(random);
        match random.next() % 10 {
            0..=3 => {
                let opcodes: [(&str, &[&str]); 8] = [
                    ("add", &["nuw", "nsw"]),
                    ("sub", &["nuw", "nsw"]),
                    ("mul", &["nuw", "nsw"]),
                    ("shl", &["nuw", "nsw"]),
                    ("lshr", &["exact"]),
                    ("and", &[]),
                    ("or", &["disjoint"]),
                    ("xor", &[]),
                ];
                let (opcode, flags) = opcodes[(random.next() as usize) % opcodes.len()];
                let mut name = opcode.to_string();
                for flag in flags {
                    if random.next().is_multiple_of(4) {
                        name = format!("{name}.{flag}");
                    }
                }
                let a = self.value(random, width);
                let b = if matches!(opcode, "shl" | "lshr") && !random.next().is_multiple_of(4) {
                    (random.next() % u64::from(width + 1)).to_string()
                } else {
                    self.value(random, width)
                };
                self.push(format!("{name} {width} {a} {b}"), width);
            }
            4 => {
                let opcodes = ["umin", "umax", "smin", "smax"];
                let opcode = opcodes[(random.next() as usize) % opcodes.len()];
                let (a, b) = (self.value(random, width), self.value(random, width));
                self.push(format!("{opcode} {width} {a} {b}"), width);
            }
            5 => {
                let from = random_width(random);
                // A value, not a constant (whose width a cast could not tell).
                let a = loop {
                    let a = self.value(random, from);
                    if !a.starts_with(|c: char| c.is_ascii_digit()) {
                        break a;
                    }
                };
                let (cast, flags): (&str, &[&str]) = match from.cmp(&width) {
                    std::cmp::Ordering::Less if random.next().is_multiple_of(2) => ("sext", &[]),
                    std::cmp::Ordering::Less => ("zext", &["nneg"]),
                    std::cmp::Ordering::Greater => ("trunc", &["nuw", "nsw"]),
                    std::cmp::Ordering::Equal => return,
                };
                let mut name = cast.to_string();
                for flag in flags {
                    if random.next().is_multiple_of(5) {
                        name = format!("{name}.{flag}");
                    }
                }
                self.push(format!("{name} {width} {a}"), width);
            }
            6 => {
                self.compare(random);
            }
            7 | 8 => {
                let c = self.bit(random);
                let (a, b) = (self.value(random, width), self.value(random, width));
                self.push(format!("select {width} {c} {a} {b}"), width);
            }
            _ => {
                // A product of two block-index expressions.
                let axes = ["^x", "^y", "^z"];
                let a = axes[(random.next() as usize) % 3];
                let b = axes[(random.next() as usize) % 3];
                let a = self.push(format!("add 32 {a} {}", random.next() % 5), 32);
                let flags = if random.next().is_multiple_of(3) {
                    ".nsw"
                } else {
                    ""
                };
                self.push(format!("mul{flags} 32 {a} {b}"), 32);
            }
        }
    }
}

/// A width for a random op: mostly 32 or 64 bits.
fn random_width(random: &mut Random) -> u32 {
    [8, 16, 32, 32, 64, 64][(random.next() as usize) % 6]
}

/// A random program reading the block indices, of any op but mostly not affine in them,
/// and its parameters: its last op compares one of its values with a constant, often the
/// greatest that value takes over `grid` (so that the test often holds).
fn random_block_program(random: &mut Random, grid: [u32; 3]) -> (String, Vec<(u64, u32)>) {
    let params = vec![
        (random.next() % 64, 32),
        (random.value(64) >> (random.next() % 64), 64),
    ];
    let mut grower = Grower {
        ops: Vec::new(),
        pool: ["^x", "^y", "^z", "$0:32"]
            .map(|name| (name.to_string(), 32))
            .into_iter()
            .chain([("$1:64".to_string(), 64)])
            .collect(),
    };
    for _ in 0..2 + random.next() % 9 {
        grower.grow(random);
    }
    // The value to bound: the last op's unless it is a bit.
    let (value, width) = match grower.pool.last() {
        Some((name, width)) if name.starts_with('%') && *width > 1 => (name.clone(), *width),
        _ => {
            let width = random_width(random);
            (grower.value(random, width), width)
        }
    };
    let and = random.next().is_multiple_of(3).then(|| grower.bit(random));
    // The greatest value over the grid, unsigned or signed, when no op is poison.
    let signed_bound = random.next().is_multiple_of(3);
    let mut probe = grower.ops.clone();
    probe.push(format!("icmp.eq {width} {value} {value}"));
    let test = EntryTest::parse(&probe.join(";")).unwrap_or_else(|| panic!("{probe:?}"));
    let params_buffer = buffer(&params);
    let index = value
        .strip_prefix('%')
        .and_then(|index| index.parse::<usize>().ok());
    let greatest = blocks(grid)
        .map(|block| {
            let values = values_at(&test, &params_buffer, block)?;
            // A parameter or constant is its own value.
            let value = match index {
                Some(index) => values[index],
                None => operand_value(&value, &params)?,
            };
            Some(if signed_bound {
                i128::from(signed(value, width))
            } else {
                i128::from(value)
            })
        })
        .try_fold(i128::MIN, |greatest, value| Some(greatest.max(value?)));
    let bound = match (greatest, random.next() % 4) {
        (Some(greatest), 0 | 1) => greatest,
        (Some(greatest), 2) => greatest - 1,
        _ => i128::from(random.value(width)),
    };
    let top = if signed_bound {
        (modulus(width) >> 1) - 1
    } else {
        modulus(width) - 1
    };
    let bound = bound.clamp(-(modulus(width) >> 1), top);
    let predicate = if signed_bound { "sle" } else { "ule" };
    let compared = grower.push(format!("icmp.{predicate} {width} {value} {bound}"), 1);
    if let Some(bit) = and {
        grower.push(format!("and 1 {compared} {bit}"), 1);
    }
    (grower.ops.join(";"), params)
}

/// The value of a parameter or constant operand `text` of [`random_block_program`].
fn operand_value(text: &str, params: &[(u64, u32)]) -> Option<u64> {
    match text {
        "$0:32" => Some(params[0].0),
        "$1:64" => Some(params[1].0),
        _ => text.parse().ok(),
    }
}

#[test]
fn random_programs_of_block_indices_never_hold_where_a_block_fails() {
    let mut random = Random(7);
    // Programs that fail in every block, that fail in some blocks only (where boxes
    // must be cut to find them), that hold and are found to, that hold but are not found
    // to (more boxes than the budget, or undecided by sets).
    let (mut failed, mut partly, mut held, mut missed) = (0, 0, 0, 0);
    for _ in 0..6000 {
        let grid = random_grid(&mut random);
        let (program, params) = random_block_program(&mut random, grid);
        let test = EntryTest::parse(&program).unwrap_or_else(|| panic!("rejected {program}"));
        let params = buffer(&params);
        let reference = holds_in_every_block(&test, &params, grid);
        let holds = test.holds(&params, grid);
        assert!(
            !holds || reference,
            "{program} holds over {grid:?} but fails in a block"
        );
        let somewhere = blocks(grid).any(|block| test.holds_at(&params, block));
        match (reference, holds, somewhere) {
            (false, _, false) => failed += 1,
            (false, _, true) => partly += 1,
            (true, true, _) => held += 1,
            (true, false, _) => missed += 1,
        }
    }
    assert!(
        failed > 1000 && partly > 500 && held > 1500,
        "{failed} {partly} {held} {missed}"
    );
}
