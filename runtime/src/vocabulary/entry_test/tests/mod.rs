//! The entry test's unit tests, by concept: [`notes`] (the builder's notes and a raw
//! launcher's question), [`parse`] (malformed and mutated programs), [`arithmetic`] (each op
//! against native arithmetic), [`sets`] (ops over sets of values), [`blocks`] (tests of block
//! indices over a grid), [`tiles`] (affine and clamped tile tests, HotSpot's) and [`memo`] (a
//! repeated launch's answer). Here: the helpers they share.

mod arithmetic;
mod blocks;
mod memo;
mod notes;
mod parse;
mod sets;
mod tiles;

use super::syntax::EntryTest;
use crate::vocabulary::params::ParamBuffer;

/// A grid of one block.
const ONE: [u32; 3] = [1, 1, 1];

/// A deterministic generator (splitmix64) of test values, biased towards the edges.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A `width`-bit value: often 0, 1, the largest or smallest signed or unsigned value,
    /// something small, or something around the square root of the range (whose products
    /// land at the wrap edge).
    fn value(&mut self, width: u32) -> u64 {
        let top = u64::MAX >> (64 - width);
        let half = 1u64 << (width / 2);
        let small = self.next() % 4;
        let value = match self.next() % 10 {
            0 => 0,
            1 => 1,
            2 => top,
            3 => top >> 1,
            4 => (top >> 1) + 1,
            5 => self.next() % 70,
            6 => half.wrapping_add(small).wrapping_sub(2),
            7 => top.wrapping_sub(small),
            8 => (top >> 1).wrapping_add(small).wrapping_sub(2),
            _ => self.next(),
        };
        value & top
    }

    /// A shift amount for `width` bits: mostly in range, sometimes at or past the width.
    fn shift(&mut self, width: u32) -> u64 {
        match self.next() % 4 {
            0 => self.value(width),
            _ => self.next() % (u64::from(width) + 2),
        }
    }
}

/// Builds a program and the parameters it reads (each pushed as the launcher would, then
/// a launch token).
#[derive(Default)]
struct Program {
    ops: Vec<String>,
    /// Each parameter's value and width (32: pushed as a `u32`, 64: as a `u64`).
    params: Vec<(u64, u32)>,
}

impl Program {
    /// Appends an op; its value as an operand.
    fn op(&mut self, text: String) -> String {
        self.ops.push(text);
        format!("%{}", self.ops.len() - 1)
    }

    /// A new parameter of `width` bits holding `value`, as an operand (narrower than 32
    /// bits: a `trunc` of a 32-bit parameter).
    fn input(&mut self, value: u64, width: u32) -> String {
        let n = self.params.len();
        if width >= 32 {
            self.params.push((value, width));
            format!("${n}:{width}")
        } else {
            self.params.push((value, 32));
            self.op(format!("trunc {width} ${n}:32"))
        }
    }

    fn text(&self) -> String {
        self.ops.join(";")
    }

    fn holds(&self) -> bool {
        let text = self.text();
        let test = EntryTest::parse(&text).unwrap_or_else(|| panic!("rejected: {text}"));
        test.holds(&buffer(&self.params), ONE)
    }
}

/// A parameter buffer as the launcher writes it: the values, then a token.
fn buffer(params: &[(u64, u32)]) -> ParamBuffer {
    let mut buffer = ParamBuffer::default();
    for &(value, width) in params {
        if width == 64 {
            buffer.push(value);
        } else {
            buffer.push(value as u32);
        }
    }
    buffer.push(7u64);
    buffer
}

fn holds(program: &str, params: &[(u64, u32)]) -> bool {
    let test = EntryTest::parse(program).unwrap_or_else(|| panic!("rejected: {program}"));
    test.holds(&buffer(params), ONE)
}

/// Every block of `grid`.
fn blocks(grid: [u32; 3]) -> impl Iterator<Item = [u32; 3]> {
    (0..grid[2])
        .flat_map(move |z| (0..grid[1]).flat_map(move |y| (0..grid[0]).map(move |x| [x, y, z])))
}

/// The reference: `test` holds in each block of `grid`, one by one.
fn holds_in_every_block(test: &EntryTest, params: &ParamBuffer, grid: [u32; 3]) -> bool {
    blocks(grid).all(|block| test.holds_at(params, block))
}

/// A random grid of up to 9 x 7 x 3 blocks.
fn random_grid(random: &mut Random) -> [u32; 3] {
    [
        1 + (random.next() % 9) as u32,
        1 + (random.next() % 7) as u32,
        1 + (random.next() % 3) as u32,
    ]
}
