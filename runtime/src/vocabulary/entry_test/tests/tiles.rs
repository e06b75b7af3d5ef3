//! Tile tests as the builder writes them: affine ones, decided by the first box, and clamped
//! ones (HotSpot's), decided exactly by cutting boxes, over 683 x 683 blocks within the budget.

use super::{Program, Random, buffer, holds_in_every_block, random_grid};
use crate::vocabulary::entry_test::decide::BOX_BUDGET;
use crate::vocabulary::entry_test::syntax::EntryTest;

/// `hi = t_y * cols + t_x` and `lo = f_y * cols + f_x` over the tile of a block, HotSpot's
/// shape: on each axis the tile starts at `blk = s * ^axis - b`, its first index
/// `f = smax(blk, 0)` and its last `t = blk + umin(select(blk + t < n, t, n - 1 - blk), t)`
/// (`n` the rows or columns); the test is `hi < len && lo >= 0`. Parameters: `$0:64` the
/// length, `$1:32` the columns, `$2:32` the rows.
fn clamped_tiles(s: u32, b: u32, t: u32) -> String {
    let mut p = Program::default();
    let ends = |p: &mut Program, axis: &str, n: &str| {
        let scaled = p.op(format!("mul.nsw 32 {axis} {s}"));
        let start = p.op(format!("sub.nsw 32 {scaled} {b}"));
        let end = p.op(format!("add.nsw 32 {start} {t}"));
        let inside = p.op(format!("icmp.slt 32 {end} {n}"));
        let limit = p.op(format!("sub.nsw 32 {n} 1"));
        let room = p.op(format!("sub.nsw 32 {limit} {start}"));
        let span = p.op(format!("select 32 {inside} {t} {room}"));
        let span = p.op(format!("umin 32 {span} {t}"));
        let last = p.op(format!("add.nsw 32 {start} {span}"));
        let first = p.op(format!("smax 32 {start} 0"));
        (first, last)
    };
    let (first_y, last_y) = ends(&mut p, "^y", "$2:32");
    let (first_x, last_x) = ends(&mut p, "^x", "$1:32");
    let cols = p.op("sext 64 $1:32".to_string());
    let index = |p: &mut Program, y: &str, x: &str| {
        let y = p.op(format!("sext 64 {y}"));
        let row = p.op(format!("mul.nsw 64 {y} {cols}"));
        let x = p.op(format!("sext 64 {x}"));
        p.op(format!("add.nsw 64 {row} {x}"))
    };
    let hi = index(&mut p, &last_y, &last_x);
    let lo = index(&mut p, &first_y, &first_x);
    let below = p.op(format!("icmp.ult 64 {hi} $0:64"));
    let above = p.op(format!("icmp.sge 64 {lo} 0"));
    p.op(format!("and 1 {below} {above}"));
    p.text()
}

/// An affine tile test as the builder writes it: `lo = cx*^x ± cy*^y + cz*^z + origin`,
/// `hi = lo + t`, `0 <= lo`, `hi < len` and `^x < limit`. Parameters: `$0:32` to `$2:32` the
/// coefficients, `$3:32` the origin, `$4:64` the length, `$5:32` the limit.
fn affine_tiles(t: u32, subtract_y: bool) -> String {
    let y = if subtract_y { "sub" } else { "add" };
    format!(
        "mul.nsw 32 ^x $0:32;mul.nsw 32 ^y $1:32;mul.nsw 32 ^z $2:32;{y}.nsw 32 %0 %1;\
         add.nsw 32 %3 %2;add.nsw 32 %4 $3:32;add.nsw 32 %5 {t};sext 64 %5;sext 64 %6;\
         icmp.sge 64 %7 0;icmp.ult 64 %8 $4:64;icmp.ult 32 ^x $5:32;and 1 %9 %10;\
         and 1 %12 %11"
    )
}

#[test]
fn affine_and_clamped_tile_tests_hold_exactly_when_every_block_passes() {
    let mut random = Random(8);
    let mut seen = [[0; 2]; 2];
    for round in 0..3000 {
        let grid = random_grid(&mut random);
        let near =
            |n: i128, random: &mut Random| (n + (random.next() % 4) as i128 - 1).max(0) as u64;
        let affine = round % 2 == 0;
        let (program, params) = if affine {
            let t = (random.next() % 20) as u32;
            let subtract_y = random.next().is_multiple_of(3);
            let c: [i128; 3] = std::array::from_fn(|_| (random.next() % 40) as i128);
            let [gx, gy, gz] = grid.map(|g| i128::from(g) - 1);
            // The least and greatest `lo` over the grid, less the origin.
            let (least, greatest) = if subtract_y {
                (-c[1] * gy, c[0] * gx + c[2] * gz)
            } else {
                (0, c[0] * gx + c[1] * gy + c[2] * gz)
            };
            // The origin often the least that keeps `lo` non-negative, or one less.
            let origin = if !random.next().is_multiple_of(4) {
                -least - i128::from(random.next().is_multiple_of(4))
            } else {
                (random.next() % 40) as i128 - 20
            };
            let len = near(greatest + origin + i128::from(t) + 1, &mut random);
            let limit = near(i128::from(grid[0]), &mut random);
            let params = vec![
                (c[0] as u64, 32),
                (c[1] as u64, 32),
                (c[2] as u64, 32),
                (u64::from(origin as i32 as u32), 32),
                (len, 64),
                (limit, 32),
            ];
            (affine_tiles(t, subtract_y), params)
        } else {
            let s = 1 + (random.next() % 16) as u32;
            let b = (random.next() % 4) as u32;
            let t = 1 + (random.next() % 16) as u32;
            // Columns and rows around where the grid's tiles end.
            let cols = near(
                i128::from(s * grid[0]) + (random.next() % 9) as i128 - 4,
                &mut random,
            )
            .max(1);
            let rows = near(
                i128::from(s * grid[1]) + (random.next() % 9) as i128 - 4,
                &mut random,
            )
            .max(1);
            let len = near(i128::from(cols) * i128::from(rows) - 1, &mut random);
            let params = vec![(len, 64), (cols, 32), (rows, 32)];
            (clamped_tiles(s, b, t), params)
        };
        let test = EntryTest::parse(&program).unwrap_or_else(|| panic!("rejected {program}"));
        let params = buffer(&params);
        let reference = holds_in_every_block(&test, &params, grid);
        let (holds, boxes) = test.decide(&params, grid);
        assert_eq!(holds, reference, "{program} over {grid:?}: {boxes} boxes");
        if affine && holds {
            assert_eq!(boxes, 1, "{program} over {grid:?}");
        }
        seen[usize::from(affine)][usize::from(reference)] += 1;
    }
    assert!(seen.iter().flatten().all(|&n| n > 300), "{seen:?}");
}

/// HotSpot's tiles over 683 x 683 blocks for a grid of 8192 x 8192 cells, and the
/// parameters (`len`, the columns, the rows).
fn hotspot() -> (EntryTest, [u32; 3], [(u64, u32); 3]) {
    let test = EntryTest::parse(&clamped_tiles(12, 2, 15)).expect("parses");
    (
        test,
        [683, 683, 1],
        [(8192 * 8192, 64), (8192, 32), (8192, 32)],
    )
}

#[test]
fn hotspots_clamped_tiles_hold_over_683_by_683_blocks() {
    let (test, grid, params) = hotspot();
    // Every block's tile is inside the grid (natively): its last row and column below
    // 8192, its first at 0 or more.
    let last = |block: i64| {
        let start = 12 * block - 2;
        start + (if start + 15 < 8192 { 15 } else { 8191 - start }).min(15)
    };
    assert!((0..683).all(|block| last(block) < 8192 && last(block) >= 0));
    let (holds, boxes) = test.decide(&buffer(&params), grid);
    assert!(holds && boxes < BOX_BUDGET, "{boxes}");
    assert!(test.holds(&buffer(&params), grid));
    // One cell short: the last block's tile ends past the length.
    let short = [(8192 * 8192 - 1, 64), params[1], params[2]];
    assert!(!test.holds(&buffer(&short), grid));
    // One more column of blocks than of tiles: those tiles start past the last column.
    assert!(!test.holds(&buffer(&params), [684, 683, 1]));
    assert!(!test.holds(&buffer(&params), [683, 684, 1]));
    // More rows of cells than the length holds: the last row of tiles ends past it.
    let tall = [params[0], params[1], (8193, 32)];
    assert!(!test.holds(&buffer(&tall), grid));
}
