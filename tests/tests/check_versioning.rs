//! Kernels versioned on the bounds checks their guards decide (`nvptx-builder`'s check
//! versioning): in the PTX, `column_window_sums` has a second copy of its body whose loop is
//! marked `nounroll` and whose guarded reads have no check; the copy runs when the image and
//! the output hold `width * height` elements. On both backends the sums are right whichever
//! copy runs (slices exactly that long, longer, or shorter), and when a slice is too short a
//! failed check is reported exactly (its index and length, its line, the thread), with the
//! device usable afterwards. `kernels-idiomatic`'s 3-D stencil, whose every check its guards
//! decide, gets a copy with no check at all.

use ferrocuda::prelude::*;
use ferrocuda_tests::ptx_text::entry_body;
use ferrocuda_tests::{device_tests, expect_panic, random_f32, rng};
use kernels_idiomatic::stencil3d::stencil3d;
use test_kernels::check_versioning::{column_window_sums, window_sums};

/// The line of the first occurrence of `needle` in the kernels' `check_versioning.rs`.
fn line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(include_str!("../kernels/src/check_versioning.rs"), needle)
}

/// The CPU's `column_window_sums` of a `width` x `height` image.
fn sums_on_cpu(image: &[f32], width: usize, height: usize, rows: usize) -> Vec<f32> {
    window_on_cpu(image, (width, height), rows, 0)
}

/// The CPU's `window_sums` of a `width` x `height` image.
fn window_sums_on_cpu(image: &[f32], width: usize, height: usize, rows: usize) -> Vec<f32> {
    window_on_cpu(image, (width, height), rows, 2)
}

/// Each pixel's sum over rows `y .. y + rows` and columns `x - half ..= x + half` inside the
/// image, rows outer, columns in order (the kernels' order of additions).
fn window_on_cpu(
    image: &[f32],
    (width, height): (usize, usize),
    rows: usize,
    half: usize,
) -> Vec<f32> {
    let mut out = vec![0.0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            let mut sum = 0.0f32;
            for iy in (y..y + rows).take_while(|&iy| iy < height) {
                for ix in x.saturating_sub(half)..(x + half + 1).min(width) {
                    sum += image[iy * width + ix];
                }
            }
            out[y * width + x] = sum;
        }
    }
    out
}

/// Runs `window_sums` on `image` into an output of `width * height` elements, blocks of 16x16.
fn window_sums_on_device(
    device: &Device,
    image: &[f32],
    (width, height, rows): (usize, usize, usize),
) -> ferrocuda::Result<Vec<f32>> {
    on_device(
        device,
        image,
        width * height,
        (width, height),
        |image, out, grid| {
            launch!(window_sums[grid, (16, 16)](
                image,
                out,
                width as u32,
                height as u32,
                rows as u32
            ))
        },
    )
}

/// Uploads `image`, runs `launch` on it, an output of `out_len` zeros and the grid of 16x16
/// blocks covering a `width` x `height` image, and returns the output.
fn on_device(
    device: &Device,
    image: &[f32],
    out_len: usize,
    (width, height): (usize, usize),
    launch: impl FnOnce(&DeviceBuffer<f32>, &mut DeviceBuffer<f32>, (u32, u32)) -> ferrocuda::Result<()>,
) -> ferrocuda::Result<Vec<f32>> {
    let d_image = DeviceBuffer::from_slice(device, image)?;
    let mut d_out = DeviceBuffer::<f32>::zeros(device, out_len)?;
    let grid = (
        (width as u32).div_ceil(16).max(1),
        (height as u32).div_ceil(16).max(1),
    );
    launch(&d_image, &mut d_out, grid)?;
    device.synchronize()?;
    d_out.to_vec()
}

/// The lines of each copy of a versioned entry's body: `(fast, checked)`, by the IR block
/// names `llc` writes beside each PTX label.
fn copies(body: &str) -> (Vec<&str>, Vec<&str>) {
    let (mut fast, mut checked) = (Vec::new(), Vec::new());
    let mut current = None;
    for line in body.lines().map(str::trim) {
        if line.starts_with("$L__BB") || line.starts_with("// %bb.") {
            // The fast copy's first block follows its entry's assumption of the test, and
            // `llc` names the two merged after the latter.
            current = if line.contains("// %ferrocuda.fast.")
                || line.contains("// %ferrocuda.entry.assumed")
            {
                Some(true)
            } else if line.contains("// %ferrocuda.checked.") {
                Some(false)
            } else {
                None
            };
            continue;
        }
        match current {
            Some(true) => fast.push(line),
            Some(false) => checked.push(line),
            None => {}
        }
    }
    (fast, checked)
}

/// Runs `column_window_sums` on `image` into an output of `out_len` elements, blocks of 16x16.
fn sums_on_device(
    device: &Device,
    image: &[f32],
    out_len: usize,
    (width, height, rows): (usize, usize, usize),
) -> ferrocuda::Result<Vec<f32>> {
    on_device(
        device,
        image,
        out_len,
        (width, height),
        |image, out, grid| {
            launch!(column_window_sums[grid, (16, 16)](
                image,
                out,
                width as u32,
                height as u32,
                rows as u32
            ))
        },
    )
}

#[test]
fn the_kernel_tests_its_slices_before_anything_else() {
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "column_window_sums");
    let code: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.'))
        .collect();
    // The versioned kernel first looks at its launch token's bit 62 (set by the runtime when
    // it found the test true on the host), then, when it is clear, computes the uniform test
    // of `width * height` against the slices' lengths, before any thread index is read;
    // without the pass the kernel starts with the thread indices (the token's `tid == 0` test).
    let bit = code
        .iter()
        .position(|l| l.starts_with("and.b64") && l.ends_with(", 4611686018427387904;"))
        .expect("the token's bit tested");
    let compares: Vec<usize> = (0..code.len())
        .filter(|&i| code[i].starts_with("setp."))
        .collect();
    let first_tid = code
        .iter()
        .position(|l| l.contains("%tid."))
        .expect("a thread index");
    assert!(
        bit < compares[0] && compares[1] < first_tid,
        "no uniform test first\n{body}"
    );
    assert!(code[compares[1]].contains("64"), "{}", code[compares[1]]);
    // The test is also in the module's notes, for the runtime.
    assert!(
        test_kernels::__FERROCUDA_MODULE
            .ptx
            .lines()
            .take_while(|l| !l.starts_with(".version"))
            .any(|l| l.starts_with("// ferrocuda entry test: column_window_sums ")),
        "no note"
    );
    // Both copies: the checked one keeps the exact report's panic call.
    assert!(
        body.contains("panic_bounds_check"),
        "no checked copy\n{body}"
    );
    // The copy without the guarded checks has its loop marked so that `ptxas` keeps it rolled.
    assert!(
        body.contains(".pragma \"nounroll\""),
        "no marked loop\n{body}"
    );
}

#[test]
fn the_copy_without_checks_compares_its_column_guards_in_32_bits() {
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "window_sums");
    let (fast, checked) = copies(body);
    assert!(
        !fast.is_empty() && !checked.is_empty(),
        "not versioned\n{body}"
    );
    let wide = |lines: &[&str]| {
        lines
            .iter()
            .filter(|l| l.starts_with("setp.") && (l.contains("64 ") || l.contains("64\t")))
            .count()
    };
    let narrow = |lines: &[&str]| {
        lines
            .iter()
            .filter(|l| l.starts_with("setp.") && l.contains(".u32"))
            .count()
    };
    // The checked copy: `ix < width` for the four columns that can leave the image, `iy <
    // height` and the checks, all 64-bit. The fast copy: only `iy < height` (`y + k` with
    // `k < rows` may pass 2^32); the column guards are 32-bit.
    assert!(wide(&checked) >= 5, "{}", checked.join("\n"));
    assert_eq!(wide(&fast), 1, "{}", fast.join("\n"));
    // (The block index against its limit is tested before the copy: by the host for the whole
    // grid, or by the block when the launch bit is clear.)
    assert!(narrow(&fast) >= 5, "{}", fast.join("\n"));
    // The fast copy cannot panic: no launch token stored, no barrier for it.
    assert!(checked.iter().any(|l| l.starts_with("st.volatile.shared")));
    assert!(checked.iter().any(|l| l.starts_with("bar.sync")));
    assert!(
        !fast
            .iter()
            .any(|l| l.starts_with("st.volatile") || l.starts_with("bar.")),
        "{}",
        fast.join("\n")
    );
}

/// The line of the first occurrence of `needle` in `kernels-idiomatic`'s `stencil3d.rs`.
fn stencil_line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(
        include_str!("../../kernels-idiomatic/src/stencil3d.rs"),
        needle,
    )
}

/// The CPU's `stencil3d` (the same operations in the same order).
fn stencil_on_cpu(
    input: &[f32],
    (nx, ny, nz): (usize, usize, usize),
    c0: f32,
    c1: f32,
) -> Vec<f32> {
    let mut out = vec![0.0f32; nx * ny * nz];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                let i = (z * ny + y) * nx + x;
                out[i] = if x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1
                {
                    input[i]
                } else {
                    let plane = nx * ny;
                    c0 * input[i]
                        + c1 * (input[i - 1]
                            + input[i + 1]
                            + input[i - nx]
                            + input[i + nx]
                            + input[i - plane]
                            + input[i + plane])
                };
            }
        }
    }
    out
}

/// Runs `kernels-idiomatic`'s `stencil3d` on `input` into an output of `out_len` elements, blocks of 32x8x1
/// on a grid covering the `nx` x `ny` x `nz` points.
fn stencil_on_device(
    device: &Device,
    input: &[f32],
    out_len: usize,
    (nx, ny, nz): (usize, usize, usize),
) -> ferrocuda::Result<Vec<f32>> {
    let d_input = DeviceBuffer::from_slice(device, input)?;
    let mut d_out = DeviceBuffer::<f32>::zeros(device, out_len)?;
    let grid = (
        (nx as u32).div_ceil(32).max(1),
        (ny as u32).div_ceil(8).max(1),
        (nz as u32).max(1),
    );
    launch!(stencil3d[grid, (32, 8, 1)](
        &d_input,
        &mut d_out,
        nx as u32,
        ny as u32,
        nz as u32,
        0.25f32,
        0.125f32
    ))?;
    device.synchronize()?;
    d_out.to_vec()
}

#[test]
fn a_kernel_whose_every_check_is_proved_has_a_copy_without_any() {
    // `kernels-idiomatic`'s 3-D stencil: every check is decided by its guards and interior test.
    let body = entry_body(kernels_idiomatic::__FERROCUDA_MODULE.ptx, "stencil3d");
    let (fast, checked) = copies(body);
    assert!(
        !fast.is_empty() && !checked.is_empty(),
        "not versioned\n{body}"
    );
    // The copy without checks has no bounds check left. Built without overflow checks it
    // cannot panic at all: no launch token, no barrier, no 64-bit compare (the interior
    // test's `x == nx - 1` is 32-bit), and its reads address from 32-bit indices
    // (`mul.wide.u32`, as CUDA C's `int` indices do; `i - 1` and `i + 1` are offsets of the
    // centre's address, and the store reuses it). With overflow checks (a dev
    // build), the index arithmetic's own checks stay, and with them the token.
    let has = |lines: &[&str], needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    assert_eq!(has(&fast, "panic_bounds_check"), 0, "{}", fast.join("\n"));
    assert!(
        has(&checked, "panic_bounds_check") >= 7,
        "{}",
        checked.join("\n")
    );
    if !cfg!(debug_assertions) {
        assert_eq!(has(&fast, "call"), 0, "{}", fast.join("\n"));
        assert_eq!(
            has(&fast, "st.volatile") + has(&fast, "bar.sync"),
            0,
            "{}",
            fast.join("\n")
        );
        assert!(
            !fast
                .iter()
                .any(|l| l.starts_with("setp.") && l.contains("64")),
            "{}",
            fast.join("\n")
        );
        assert!(has(&fast, "mul.wide.u32") >= 5, "{}", fast.join("\n"));
        assert!(
            has(&fast, "+-4]") == 1 && has(&fast, "+4]") == 1,
            "{}",
            fast.join("\n")
        );
    }
    // The checked copy keeps its token.
    assert_eq!(has(&checked, "st.volatile.shared"), 1);
    // The entry test is in the module's notes, over the stencil's parameters: the three
    // dimensions (`$4`..`$6`, 32-bit) and the two slices' lengths (`$1`, `$3`).
    let note = kernels_idiomatic::__FERROCUDA_MODULE
        .ptx
        .lines()
        .take_while(|l| !l.starts_with(".version"))
        .find_map(|l| l.strip_prefix("// ferrocuda entry test: stencil3d "))
        .expect("the stencil's entry test note");
    for operand in ["$1:64", "$3:64", "$4:32", "$5:32", "$6:32"] {
        assert!(note.contains(operand), "{operand}: {note}");
    }
}

device_tests! {
    fn stencil_matches_the_cpu_whichever_copy_runs(device) {
        let mut rng = rng("stencil3d_matches_the_cpu");
        // A single point, grids with no interior, sizes off the 32x8 block; slices exactly
        // `nx ny nz` long and longer (the copy without checks).
        for dims in [(1usize, 1usize, 1usize), (2, 2, 2), (3, 3, 3), (37, 5, 4), (33, 9, 2), (40, 17, 6)] {
            let n = dims.0 * dims.1 * dims.2;
            for extra in [0usize, 7] {
                let input = random_f32(&mut rng, n + extra);
                let out = stencil_on_device(device, &input, n + extra, dims).unwrap();
                assert_eq!(out[..n], stencil_on_cpu(&input, dims, 0.25, 0.125)[..], "{dims:?}, {extra} extra");
            }
        }
    }

    fn stencil_reports_a_short_input_exactly(device) {
        let dims = (37usize, 5usize, 4usize);
        let n = dims.0 * dims.1 * dims.2;
        let mut rng = rng("stencil3d_short_input");
        // One element short: the checked copy runs. Only the last point reads the missing
        // element (a corner, copied): one panic, reported exactly.
        let input = random_f32(&mut rng, n - 1);
        let panic = expect_panic(stencil_on_device(device, &input, n, dims));
        assert_eq!(panic.message, format!("index out of bounds: the len is {} but the index is {}", n - 1, n - 1));
        assert_eq!(panic.line, stencil_line_of("output[i] = input[i]"));
        assert_eq!((panic.block.x * 32 + panic.thread.x, panic.block.y * 8 + panic.thread.y, panic.block.z), (36, 4, 3));
        assert_eq!(panic.other_panics, 0);
        // A short output: the last point's store fails the same way.
        let input = random_f32(&mut rng, n);
        let panic = expect_panic(stencil_on_device(device, &input, n - 1, dims));
        assert_eq!(panic.message, format!("index out of bounds: the len is {} but the index is {}", n - 1, n - 1));
        assert_eq!(panic.line, stencil_line_of("output[i] = input[i]"));
        // The device is fine afterwards.
        let out = stencil_on_device(device, &input, n, dims).unwrap();
        assert_eq!(out, stencil_on_cpu(&input, dims, 0.25, 0.125));
    }


    fn window_sums_match_the_cpu(device) {
        let mut rng = rng("window_sums_match_the_cpu");
        // Columns 0, 1 and the last two clip the window on either side (the narrowed guards
        // decide them); widths below the window, a single pixel, sizes off the block.
        for (width, height, rows) in [(1usize, 1usize, 1usize), (2, 3, 2), (4, 1, 1), (37, 23, 3), (100, 5, 9)] {
            let image = random_f32(&mut rng, width * height);
            let out = window_sums_on_device(device, &image, (width, height, rows)).unwrap();
            let expected = window_sums_on_cpu(&image, width, height, rows);
            for (i, (a, b)) in out.iter().zip(&expected).enumerate() {
                assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{width}x{height}, {rows} rows, pixel {i}: {a} != {b}");
            }
        }
    }

    fn window_sums_report_a_short_image(device) {
        let (width, height) = (37usize, 23usize);
        let image = vec![1.0f32; width * (height - 1)];
        // One row short: the checked copy runs, and a read of the missing row fails.
        let panic = expect_panic(window_sums_on_device(device, &image, (width, height, 1)));
        assert_eq!(panic.line, line_of("sum += image[iy * width + ix as usize]"));
        let len = width * (height - 1);
        assert!(
            panic.message.starts_with(&format!("index out of bounds: the len is {len} but the index is ")),
            "{}", panic.message
        );
        let out = window_sums_on_device(device, &vec![1.0f32; width * height], (width, height, 2)).unwrap();
        assert_eq!(out, window_sums_on_cpu(&vec![1.0f32; width * height], width, height, 2));
    }

    fn sums_match_the_cpu_whichever_copy_runs(device) {
        let mut rng = rng("column_window_sums_match_the_cpu");
        // Sizes that are not multiples of the block, a single pixel, windows of 0, 1 and more
        // rows than the image has; images exactly `width * height` long and 5 elements longer
        // (the fast copy), outputs 3 elements longer (the fast copy) and the same images with
        // an output one row longer than the image (still the fast copy: both fit).
        for (width, height, rows) in [(1usize, 1usize, 1usize), (37, 23, 0), (37, 23, 1), (37, 23, 5), (100, 3, 7)] {
            for extra in [0usize, 5] {
                let image = random_f32(&mut rng, width * height + extra);
                let expected = sums_on_cpu(&image, width, height, rows);
                let out = sums_on_device(device, &image, width * height + 3 * extra / 5, (width, height, rows)).unwrap();
                assert_eq!(out[..width * height], expected[..], "{width}x{height}, {rows} rows, {extra} extra");
            }
        }
    }

    fn a_short_image_runs_the_checked_copy(device) {
        let (width, height) = (37usize, 23usize);
        let mut rng = rng("column_window_sums_short_image");
        // One row short: the checked copy runs; with windows of 1 row every read of the last
        // row fails, the first of them reported exactly.
        let image = random_f32(&mut rng, width * (height - 1));
        let panic = expect_panic(sums_on_device(device, &image, width * height, (width, height, 1)));
        assert_eq!(panic.line, line_of("sum += image[iy * width + x]"));
        let len = width * (height - 1);
        assert!(
            panic.message.starts_with(&format!("index out of bounds: the len is {len} but the index is ")),
            "{}", panic.message
        );
        let index: usize = panic.message.rsplit(' ').next().unwrap().parse().unwrap();
        // The failing reads are those of row 22: index 22 * 37 + x, by the thread of (x, 22).
        assert!((len..width * height).contains(&index), "index {index}");
        let x = index - len;
        assert_eq!((panic.block.x * 16 + panic.thread.x) as usize, x);
        assert_eq!((panic.block.y * 16 + panic.thread.y) as usize, height - 1);

        // The device and a fresh launch are fine afterwards: windows of 0 rows read nothing,
        // so the same short image gives zeros, and a full image gives the CPU's sums.
        let out = sums_on_device(device, &image, width * height, (width, height, 0)).unwrap();
        assert!(out.iter().all(|&v| v == 0.0));
        let image = random_f32(&mut rng, width * height);
        let out = sums_on_device(device, &image, width * height, (width, height, 3)).unwrap();
        assert_eq!(out, sums_on_cpu(&image, width, height, 3));
    }

    fn a_short_output_is_reported_exactly(device) {
        let (width, height) = (20usize, 4usize);
        let image = vec![1.0f32; width * height];
        // The output is 1 element short: the last pixel's store (index 79) fails.
        let panic = expect_panic(sums_on_device(device, &image, width * height - 1, (width, height, 2)));
        assert_eq!(panic.message, "index out of bounds: the len is 79 but the index is 79");
        assert_eq!(panic.line, line_of("output[y * width + x] = sum"));
        assert_eq!((panic.block.x, panic.thread.x, panic.thread.y), (1, 3, 3));
        assert_eq!(panic.other_panics, 0);
    }
}

#[test]
fn hotspots_note_holds_for_every_grid_its_tiles_cover() {
    // The runtime's evaluation of HotSpot's note (`ferrocuda::entry_test_holds`, as `launch!`
    // makes it) over the launch's grid: the limits and the tile's test hold for every block of
    // the grid `launch_grid` gives, edge blocks too, and not for a grid twice as wide or as
    // tall (its last tiles lie wholly past the grid's columns or rows, where the guards bound
    // nothing) or an output one element short. (A grid one block larger may still hold: with
    // 7 steps per launch its extra tiles start inside the grid and their guards keep them
    // there.)
    if cfg!(debug_assertions) {
        return;
    }
    let ptx = kernels_idiomatic::__FERROCUDA_MODULE.ptx;
    for (rows, cols, iteration) in [(8192usize, 8192usize, 2usize), (1000, 777, 1), (64, 30, 7)] {
        let (gx, gy) = kernels_idiomatic::hotspot::launch_grid(rows, cols, iteration);
        let params = |len: usize| -> Vec<u64> {
            let n = (rows * cols) as u64;
            let it = iteration as u64;
            let floats = [0u64; 5];
            [
                it,
                0,
                n,
                0,
                n,
                0,
                len as u64,
                cols as u64,
                rows as u64,
                it,
                it,
            ]
            .into_iter()
            .chain(floats)
            .chain([0])
            .collect()
        };
        let holds = |len: usize, grid: [u32; 3]| {
            ferrocuda::entry_test_holds(ptx, "hotspot", &params(len), grid)
        };
        let n = rows * cols;
        assert_eq!(
            holds(n, [gx, gy, 1]),
            Some(true),
            "{rows}x{cols}/{iteration}"
        );
        assert_eq!(
            holds(n - 1, [gx, gy, 1]),
            Some(false),
            "{rows}x{cols}/{iteration}"
        );
        assert_eq!(
            holds(n, [2 * gx, gy, 1]),
            Some(false),
            "{rows}x{cols}/{iteration}"
        );
        assert_eq!(
            holds(n, [gx, 2 * gy, 1]),
            Some(false),
            "{rows}x{cols}/{iteration}"
        );
    }
}

#[test]
fn hotspot_gets_a_copy_for_its_32_bit_arithmetic() {
    // `kernels-idiomatic`'s HotSpot: its tile loads' checks are proved, its four clamped
    // neighbours' checks are decided outright (`nvptx-builder/src/passes/proved_checks.rs`), and its
    // output's check (which a grid larger than its tiles could fail) passes for every thread
    // of a block whose corner threads' indices are in bounds: the copy's entry tests that per
    // block (`nvptx-builder/src/passes/check_versioning/tile_checks/mod.rs`), its threads' ends bounded by the guards the
    // store is under, so that the blocks at the grid's edges pass too. The copy exists for its arithmetic: `iteration`, the borders
    // and the block indices below 2^15 make its tile origin and cells fit in 32 bits. A dev
    // build's overflow checks leave other checks, so only an optimised build is pinned.
    if cfg!(debug_assertions) {
        return;
    }
    let body = entry_body(kernels_idiomatic::__FERROCUDA_MODULE.ptx, "hotspot");
    let (fast, checked) = copies(body);
    assert!(
        !fast.is_empty() && !checked.is_empty(),
        "not versioned\n{body}"
    );
    let has = |lines: &[&str], needle: &str| lines.iter().filter(|l| l.contains(needle)).count();
    for copy in [&fast, &checked] {
        assert_eq!(
            has(copy, "index_2d_out_of_bounds"),
            0,
            "{}",
            copy.join("\n")
        );
    }
    assert_eq!(
        has(&checked, "panic_bounds_check"),
        3,
        "{}",
        checked.join("\n")
    );
    // The copy cannot panic, so it neither stores the launch token nor waits for it.
    assert_eq!(has(&fast, "panic_bounds_check"), 0, "{}", fast.join("\n"));
    assert_eq!(has(&fast, "LAUNCH_TOKEN"), 0, "{}", fast.join("\n"));
    // The block's test, before the copy, computes the ends of its threads' indices with one
    // `mul.wide.s32` each, its threads' last indices the constants `max_block` gives (15), not
    // read from the block's size.
    let all: Vec<&str> = body.lines().map(str::trim).collect();
    assert_eq!(has(&all, "%ntid."), 0, "{body}");
    assert_eq!(has(&all, "mul.wide.s32"), 2, "{body}");
    // The copy's compares (the loop's, the guards') are all 32-bit: the block's test of its
    // ends (64-bit) is made before it.
    let wide = fast
        .iter()
        .filter(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|op| op.starts_with("setp.") && op.ends_with("64"))
        })
        .count();
    assert_eq!(wide, 0, "{}", fast.join("\n"));
    // The clamped neighbours `ty.saturating_sub(1).max(valid_y_min)` (and `tx`'s) are one
    // signed max of `ty - 1` each (`VIADDMNMX`), not a max with 1, a subtract and an unsigned
    // max: `valid_y_min` is `-blk_y` only where `blk_y < 0`, so never negative.
    assert_eq!(has(&fast, "max.s32"), 2, "{}", fast.join("\n"));
    let saturating = fast
        .iter()
        .filter(|l| l.starts_with("max.u32") && l.ends_with(", 1;"))
        .count();
    assert_eq!(saturating, 0, "{}", fast.join("\n"));
    // The note limits `iteration` (`$0`) and the borders (`$9`, `$10`) to 2^15: the largest
    // power of two under which the tile's corners, `(16 - 2 iteration) by - border_rows`
    // and the rest, still fit in 32 bits.
    let note = kernels_idiomatic::__FERROCUDA_MODULE
        .ptx
        .lines()
        .take_while(|l| !l.starts_with(".version"))
        .find_map(|l| l.strip_prefix("// ferrocuda entry test: hotspot "))
        .expect("HotSpot's entry test note");
    for limit in ["$0:32 32768", "$9:32 32768", "$10:32 32768"] {
        assert!(note.contains(limit), "{limit}: {note}");
    }
    // It also holds the block indices' limits, over the block indices (`^x`, `^y`), and the
    // tile's test: its threads' ends clamped by the guards the store is under (`valid_x_min
    // <= tx <= valid_x_max`, a `select` each, clamped with `umin`), so that every block of a
    // grid its tiles cover passes, edge blocks too. The runtime makes it for the whole grid;
    // with its bit set the entry goes straight to the assumed block, past the limits and the
    // tile's test.
    for part in [
        "icmp.ult 32 ^x 32768",
        "icmp.ult 32 ^y 32768",
        "umin 32 ",
        "select 64 ",
    ] {
        assert!(note.contains(part), "{part}: {note}");
    }
    for axis in ["^x", "^y"] {
        let origin = |op: &str| op.starts_with("mul 32 ") && op.ends_with(&format!(" {axis}"));
        assert!(note.split(';').any(origin), "{axis}'s tile origin: {note}");
    }
    let bit = all
        .iter()
        .position(|l| l.contains(", 4611686018427387904;"))
        .expect("the launch bit's test");
    let vouched = all[bit..]
        .iter()
        .find(|l| l.starts_with("$L__BB") || l.starts_with("// %bb."))
        .expect("a block after the bit's test");
    assert!(
        vouched.contains("ferrocuda.entry.assumed"),
        "{vouched}\n{body}"
    );
}

#[test]
fn an_entry_test_is_exact_for_lengths_past_2_32() {
    // `(z * ny + y) * nx + x < len` from `nz * ny * nx <= len`: with `nz * ny` past 2^32 its
    // low half is not the partial product, and a test that multiplied only the low half by
    // `nx` (`(2^32 + 2^17) mod 2^32 * 2 = 2^18`) held for a length of `nz * ny`, half the
    // product, and the copy without checks wrote past the slice. Such lengths reach a kernel
    // through `large_buffers` or a slice it derives (`as_flattened_mut`).
    let ptx = test_kernels::__FERROCUDA_MODULE.ptx;
    let (nx, ny, nz) = (2u64, 65538u64, 65536u64);
    let product = nx * ny * nz;
    for (entry, elements) in [("volume_sums", 1u64), ("volume_sums_bytes", 4)] {
        // The slices (address, length in elements), nx, ny, nz, the launch token.
        let holds = |len: u64, (nx, ny, nz): (u64, u64, u64)| {
            ferrocuda::entry_test_holds(ptx, entry, &[0, len, 0, len, nx, ny, nz, 0], [1, 1, 1])
        };
        assert_eq!(
            holds((nz * ny).div_ceil(elements), (nx, ny, nz)),
            Some(false),
            "{entry}"
        );
        assert_eq!(
            holds((product - 1) / elements, (nx, ny, nz)),
            Some(false),
            "{entry}"
        );
        // Partial products below 2^32 keep the test exact: the fast copy for a length that
        // holds the volume, not for one element less.
        let small = (37u64, 5u64, 6u64);
        let n = small.0 * small.1 * small.2 * 4;
        assert_eq!(holds(n / elements, small), Some(true), "{entry}");
        assert_eq!(
            holds(n / elements - 1, (small.0, small.1, small.2 * 4)),
            Some(false),
            "{entry}"
        );
    }
}
