//! The idiomatic benchmark suite (`kernels-idiomatic`) against independent CPU references, on
//! random data whose sizes are not multiples of the blocks or tiles, edge sizes included (one
//! cell, one row, a single block's worth plus one). The references compute each algorithm
//! directly, without the kernels' tiling (the stencils step the whole grid; the row sweep goes
//! row by row), in the same order of floating-point operations, so every comparison is exact:
//! a kernel that loads a wrong halo cell, skips a tile or writes a cell twice differs somewhere.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic, line_of, random_f32, random_u32, rng};
use kernels_idiomatic::convolution::{FILTER, FILTER_SIZE, convolution};
use kernels_idiomatic::hotspot::{AMBIENT, HotspotCoefficients, hotspot, launch_grid};
use kernels_idiomatic::nbody::{Float4, nbody};
use kernels_idiomatic::pathfinder::{launch_blocks, pathfinder};
use kernels_idiomatic::spmv::spmv_csr;
use kernels_idiomatic::stencil3d::stencil3d;
use rand::Rng;

/// `steps` HotSpot steps of the whole `rows` x `cols` grid: every cell updated from its four
/// neighbours, a neighbour past the grid's edge replaced by the cell itself.
fn hotspot_reference(
    power: &[f32],
    temp: &[f32],
    rows: usize,
    cols: usize,
    steps: usize,
    k: HotspotCoefficients,
) -> Vec<f32> {
    let step_div_cap = k.step / k.cap;
    let (rx_1, ry_1, rz_1) = (1.0 / k.rx, 1.0 / k.ry, 1.0 / k.rz);
    let mut t = temp.to_vec();
    for _ in 0..steps {
        let mut next = t.clone();
        for r in 0..rows {
            for c in 0..cols {
                let at = |rr: usize, cc: usize| t[rr * cols + cc];
                let center = at(r, c);
                let north = at(r.saturating_sub(1), c);
                let south = at((r + 1).min(rows - 1), c);
                let west = at(r, c.saturating_sub(1));
                let east = at(r, (c + 1).min(cols - 1));
                next[r * cols + c] = center
                    + step_div_cap
                        * (power[r * cols + c]
                            + (south + north - 2.0 * center) * ry_1
                            + (east + west - 2.0 * center) * rx_1
                            + (AMBIENT - center) * rz_1);
            }
        }
        t = next;
    }
    t
}

device_tests! {
    fn hotspot_matches_cpu(device) {
        let mut rng = rng("idiomatic hotspot");
        // (rows, cols, steps per launch): one cell, one row, a tile's worth plus one, shapes that
        // are not multiples of the inner tile (16 - 2 steps), the pyramid's extremes, and grids
        // with interior blocks (which run the copy without the output's check, the edge
        // blocks the checked one).
        for (rows, cols, iteration) in [
            (1, 1, 1), (1, 37, 2), (15, 15, 1), (13, 29, 2), (40, 17, 3), (9, 70, 7), (100, 90, 2),
            (70, 201, 1),
        ] {
            let k = HotspotCoefficients::for_grid(rows, cols);
            // Rodinia's inputs: temperatures around 323 K, power up to about 0.7 W per cell.
            let temp: Vec<f32> = random_f32(&mut rng, rows * cols).iter().map(|v| 323.0 + 10.0 * v).collect();
            let power: Vec<f32> = random_f32(&mut rng, rows * cols).iter().map(|v| 0.35 + 0.35 * v).collect();
            let mut dst = DeviceBuffer::from_slice(device, &vec![f32::NAN; rows * cols]).unwrap();
            let grid = launch_grid(rows, cols, iteration);
            let it = iteration as u32;
            launch!(hotspot[grid, (16, 16)](
                it, &power, &temp, &mut dst, cols as u32, rows as u32, it, it,
                k.cap, k.rx, k.ry, k.rz, k.step
            ))
            .unwrap();
            let expected = hotspot_reference(&power, &temp, rows, cols, iteration, k);
            assert_eq!(dst.to_vec().unwrap(), expected, "{rows} x {cols}, {iteration} steps");
        }
    }

    fn hotspot_on_a_grid_past_its_tiles_reports_the_blocks_past_the_grid(device) {
        // Two block rows more than the tiles need: their cells lie below the grid, and a thread
        // there writes past `temp_dst` (or, where arithmetic overflow is checked, computes its
        // tile's valid rows below zero). The blocks that do so run the checked copy, so the
        // launch reports their panic instead of writing out of bounds; the device stays usable.
        let source = include_str!("../../kernels-idiomatic/src/hotspot.rs");
        let (rows, cols, iteration) = (30usize, 30usize, 1u32);
        let k = HotspotCoefficients::for_grid(rows, cols);
        let temp = vec![323.0f32; rows * cols];
        let power = vec![0.5f32; rows * cols];
        let mut dst = DeviceBuffer::<f32>::zeros(device, rows * cols).unwrap();
        let (gx, gy) = launch_grid(rows, cols, iteration as usize);
        let launch = |dst: &mut DeviceBuffer<f32>, grid: (u32, u32)| {
            launch!(hotspot[grid, (16, 16)](
                iteration, &power, &temp, dst, cols as u32, rows as u32, iteration, iteration,
                k.cap, k.rx, k.ry, k.rz, k.step
            ))
            .and_then(|_| device.synchronize())
        };
        let panic = expect_panic(launch(&mut dst, (gx, gy + 2)));
        assert!(panic.block.y >= gy, "{panic:?}");
        let write = line_of(source, "temp_dst[index] = temp_t");
        let valid_rows = line_of(source, "BLOCK - 1 - (blk_y_max - rows + 1) as usize");
        assert!(
            (panic.line == write && panic.message.starts_with("index out of bounds: the len is 900"))
                || (panic.line == valid_rows && panic.message.contains("overflow")),
            "{panic:?}"
        );
        launch(&mut dst, (gx, gy)).unwrap();
        let expected = hotspot_reference(&power, &temp, rows, cols, 1, k);
        assert_eq!(dst.to_vec().unwrap(), expected);
    }

    fn hotspot_repeated_launches_match_cpu(device) {
        // Rodinia's loop: 5 steps as launches of 2, 2 and 1, ping-ponging two buffers.
        let mut rng = rng("idiomatic hotspot loop");
        let (rows, cols) = (33, 45);
        let k = HotspotCoefficients::for_grid(rows, cols);
        let temp: Vec<f32> = random_f32(&mut rng, rows * cols).iter().map(|v| 323.0 + 10.0 * v).collect();
        let power: Vec<f32> = random_f32(&mut rng, rows * cols).iter().map(|v| 0.35 + 0.35 * v).collect();
        let power_device = DeviceBuffer::from_slice(device, &power).unwrap();
        let mut a = DeviceBuffer::from_slice(device, &temp).unwrap();
        let mut b = DeviceBuffer::<f32>::zeros(device, rows * cols).unwrap();
        for iteration in [2u32, 2, 1] {
            let grid = launch_grid(rows, cols, iteration as usize);
            launch!(hotspot[grid, (16, 16)](
                iteration, &power_device, &a, &mut b, cols as u32, rows as u32, iteration,
                iteration, k.cap, k.rx, k.ry, k.rz, k.step
            ))
            .unwrap();
            std::mem::swap(&mut a, &mut b);
        }
        assert_eq!(a.to_vec().unwrap(), hotspot_reference(&power, &temp, rows, cols, 5, k));
    }

    fn pathfinder_matches_cpu(device) {
        let mut rng = rng("idiomatic pathfinder");
        // (rows, cols, rows per launch): one column, a block's inner width plus one, and rows
        // that do not divide into launches evenly.
        for (rows, cols, pyramid) in [(2, 1, 1), (5, 7, 3), (21, 255, 20), (9, 300, 2), (30, 1000, 7), (4, 513, 127)] {
            let weights = random_u32(&mut rng, rows * cols, 10);
            let weights: Vec<i32> = weights.iter().map(|&w| w as i32).collect();
            // The CPU: the cheapest path to each cell, row by row.
            let mut expected = weights[..cols].to_vec();
            for r in 1..rows {
                expected = (0..cols)
                    .map(|c| {
                        let west = expected[c.saturating_sub(1)];
                        let east = expected[(c + 1).min(cols - 1)];
                        west.min(expected[c]).min(east) + weights[r * cols + c]
                    })
                    .collect();
            }
            // The GPU: Rodinia's host loop, `pyramid` rows per launch (fewer in the last), ping-ponging
            // two rows; the grid and the border follow each launch's rows.
            let wall = DeviceBuffer::from_slice(device, &weights[cols..]).unwrap();
            let mut src = DeviceBuffer::from_slice(device, &weights[..cols]).unwrap();
            let mut dst = DeviceBuffer::from_slice(device, &vec![i32::MIN; cols]).unwrap();
            let mut t = 0;
            while t < rows - 1 {
                let iteration = pyramid.min(rows - 1 - t);
                let blocks = launch_blocks(cols, iteration);
                let it = iteration as u32;
                launch!(pathfinder[blocks, 256](it, &wall, &src, &mut dst, cols as u32, t as u32, it))
                .unwrap();
                std::mem::swap(&mut src, &mut dst);
                t += pyramid;
            }
            assert_eq!(src.to_vec().unwrap(), expected, "{rows} rows x {cols}, {pyramid} per launch");
        }
    }

    fn stencil3d_matches_cpu(device) {
        let mut rng = rng("idiomatic stencil3d");
        let (c0, c1) = (0.4f32, 0.1f32);
        for (nx, ny, nz) in [(1, 1, 1), (3, 3, 3), (2, 5, 4), (33, 9, 5), (70, 17, 3)] {
            let input = random_f32(&mut rng, nx * ny * nz);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; input.len()]).unwrap();
            let grid = ((nx as u32).div_ceil(32), (ny as u32).div_ceil(8), nz as u32);
            launch!(stencil3d[grid, (32, 8, 1)](&input, &mut out, nx as u32, ny as u32, nz as u32, c0, c1)).unwrap();
            let at = |x: usize, y: usize, z: usize| input[(z * ny + y) * nx + x];
            let mut expected = input.clone();
            for z in 1..nz.saturating_sub(1) {
                for y in 1..ny.saturating_sub(1) {
                    for x in 1..nx.saturating_sub(1) {
                        expected[(z * ny + y) * nx + x] = c0 * at(x, y, z)
                            + c1 * (at(x - 1, y, z) + at(x + 1, y, z) + at(x, y - 1, z) + at(x, y + 1, z)
                                + at(x, y, z - 1) + at(x, y, z + 1));
                    }
                }
            }
            assert_eq!(out.to_vec().unwrap(), expected, "{nx} x {ny} x {nz}");
        }
    }

    fn convolution_matches_cpu(device) {
        let mut rng = rng("idiomatic convolution");
        let weights: [f32; FILTER_SIZE * FILTER_SIZE] =
            random_f32(&mut rng, FILTER_SIZE * FILTER_SIZE).try_into().unwrap();
        FILTER.write(device, &weights).unwrap();
        let radius = (FILTER_SIZE / 2) as isize;
        for (w, h) in [(1, 1), (7, 3), (3, 9), (40, 33), (100, 17)] {
            let image = random_f32(&mut rng, w * h);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; w * h]).unwrap();
            let grid = ((w as u32).div_ceil(16), (h as u32).div_ceil(16));
            launch!(convolution[grid, (16, 16)](&image, &mut out, w as u32, h as u32)).unwrap();
            let mut expected = vec![0.0f32; w * h];
            for y in 0..h as isize {
                for x in 0..w as isize {
                    let mut sum = 0.0f32;
                    for (k, weight) in weights.iter().enumerate() {
                        let iy = y + (k / FILTER_SIZE) as isize - radius;
                        let ix = x + (k % FILTER_SIZE) as isize - radius;
                        if (0..h as isize).contains(&iy) && (0..w as isize).contains(&ix) {
                            sum += weight * image[(iy * w as isize + ix) as usize];
                        }
                    }
                    expected[(y * w as isize + x) as usize] = sum;
                }
            }
            assert_eq!(out.to_vec().unwrap(), expected, "{w} x {h}");
        }
    }

    fn nbody_matches_cpu(device) {
        let mut rng = rng("idiomatic nbody");
        let (dt, softening2) = (0.01f32, 0.0025f32);
        // One body, less than a tile, exactly a tile, and partial last tiles.
        for n in [1, 7, 256, 300, 513] {
            let float4s = |rng: &mut rand::rngs::StdRng, mass: bool| -> Vec<Float4> {
                (0..n)
                    .map(|_| Float4 {
                        x: rng.random_range(-1.0..1.0),
                        y: rng.random_range(-1.0..1.0),
                        z: rng.random_range(-1.0..1.0),
                        w: if mass { rng.random_range(0.5..1.5) } else { 0.0 },
                    })
                    .collect()
            };
            let positions = float4s(&mut rng, true);
            let velocities = float4s(&mut rng, false);
            let mut new_positions = DeviceBuffer::<Float4>::zeros(device, n).unwrap();
            let mut new_velocities = DeviceBuffer::<Float4>::zeros(device, n).unwrap();
            launch!(nbody[n.div_ceil(256), 256](
                &positions, &velocities, &mut new_positions, &mut new_velocities, dt, softening2
            ))
            .unwrap();
            let (mut expected_p, mut expected_v) = (Vec::new(), Vec::new());
            for (me, v) in positions.iter().zip(&velocities) {
                let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
                for other in &positions {
                    let (rx, ry, rz) = (other.x - me.x, other.y - me.y, other.z - me.z);
                    let inverse = 1.0 / (rx * rx + ry * ry + rz * rz + softening2).sqrt();
                    let strength = other.w * (inverse * inverse * inverse);
                    ax += rx * strength;
                    ay += ry * strength;
                    az += rz * strength;
                }
                let velocity = Float4 { x: v.x + ax * dt, y: v.y + ay * dt, z: v.z + az * dt, w: v.w };
                expected_v.push(velocity);
                expected_p.push(Float4 {
                    x: me.x + velocity.x * dt,
                    y: me.y + velocity.y * dt,
                    z: me.z + velocity.z * dt,
                    w: me.w,
                });
            }
            assert_eq!(new_velocities.to_vec().unwrap(), expected_v, "{n} bodies");
            assert_eq!(new_positions.to_vec().unwrap(), expected_p, "{n} bodies");
        }
    }

    fn spmv_matches_cpu(device) {
        let mut rng = rng("idiomatic spmv");
        // (rows, columns, most non-zeros per row): one row, empty rows among full ones, more
        // rows than one block and a partial last block.
        for (rows, cols, most) in [(1, 1, 1), (5, 3, 4), (257, 100, 9), (1000, 2000, 40)] {
            let mut offsets = vec![0u32];
            let (mut columns, mut values) = (Vec::new(), Vec::new());
            for _ in 0..rows {
                let count = rng.random_range(0..=most);
                for _ in 0..count {
                    columns.push(rng.random_range(0..cols as u32));
                    values.push(rng.random_range(-1.0f32..1.0));
                }
                offsets.push(columns.len() as u32);
            }
            let x = random_f32(&mut rng, cols);
            let mut y = DeviceBuffer::from_slice(device, &vec![f32::NAN; rows]).unwrap();
            launch!(spmv_csr[rows.div_ceil(256), 256](&offsets, &columns, &values, &x, &mut y)).unwrap();
            let expected: Vec<f32> = offsets
                .windows(2)
                .map(|row| {
                    (row[0] as usize..row[1] as usize)
                        .fold(0.0f32, |sum, k| sum + values[k] * x[columns[k] as usize])
                })
                .collect();
            assert_eq!(y.to_vec().unwrap(), expected, "{rows} rows");
        }
    }
}

/// PathFinder's `for i in 0..iteration` (`iteration` a `u32` made `usize`) counts in 32 bits
/// (`nvptx-builder`'s loop-counter narrowing): the counter steps with a 32-bit add and the
/// `i == iteration - 1` exit test is a 32-bit compare; before the pass both were 64-bit. The dev
/// profile builds the kernel crates with overflow checks, which give the loop another shape (a
/// second, checked counter for `BLOCK - i - 2`) that the pass leaves 64-bit: this test runs in
/// release builds (`cargo test --release`), the build the benchmarks time.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the dev profile's overflow checks give PathFinder's loop a shape the narrowing leaves alone; run with --release"
)]
fn pathfinder_counts_its_rows_in_32_bits() {
    let body = ferrocuda_tests::ptx_text::entry_body(
        kernels_idiomatic::__FERROCUDA_MODULE.ptx,
        "pathfinder",
    );
    let steps_by_one_in_32_bits = body.lines().any(|line| {
        let Some(operands) = line.trim().strip_prefix("add.s32") else {
            return false;
        };
        let operands: Vec<&str> = operands.trim().trim_end_matches(';').split(", ").collect();
        operands.len() == 3 && operands[0] == operands[1] && operands[2] == "1"
    });
    assert!(steps_by_one_in_32_bits, "no 32-bit counter step:\n{body}");
    assert!(
        !body.contains("setp.eq.b64") && !body.contains("setp.ne.b64"),
        "a 64-bit equality test is left:\n{body}"
    );
}
