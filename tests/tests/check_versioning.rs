//! Kernels versioned on the bounds checks their guards decide (`nvptx-builder`'s check
//! versioning): in the PTX, `column_window_sums` has a second copy of its body whose loop is
//! marked `nounroll` and whose guarded reads have no check; the copy runs when the image and
//! the output hold `width * height` elements. On both backends the sums are right whichever
//! copy runs (slices exactly that long, longer, or shorter), and when a slice is too short a
//! failed check is reported exactly (its index and length, its line, the thread), with the
//! device usable afterwards.

use ferrocuda::prelude::*;
use ferrocuda_tests::ptx_text::entry_body;
use ferrocuda_tests::{device_tests, expect_panic, random_f32, rng};
use test_kernels::check_versioning::column_window_sums;

/// The line of the first occurrence of `needle` in the kernels' `check_versioning.rs`.
fn line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(include_str!("../kernels/src/check_versioning.rs"), needle)
}

/// The CPU's `column_window_sums` of a `width` x `height` image.
fn sums_on_cpu(image: &[f32], width: usize, height: usize, rows: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; width * height];
    for y in 0..height {
        for x in 0..width {
            let mut sum = 0.0f32;
            for iy in (y..y + rows).take_while(|&iy| iy < height) {
                sum += image[iy * width + x];
            }
            out[y * width + x] = sum;
        }
    }
    out
}

/// Runs `column_window_sums` on `image` into an output of `out_len` elements, blocks of 16x16.
fn sums_on_device(
    device: &Device,
    image: &[f32],
    out_len: usize,
    (width, height, rows): (usize, usize, usize),
) -> ferrocuda::Result<Vec<f32>> {
    let d_image = DeviceBuffer::from_slice(device, image)?;
    let mut d_out = DeviceBuffer::<f32>::zeros(device, out_len)?;
    let grid = (
        (width as u32).div_ceil(16).max(1),
        (height as u32).div_ceil(16).max(1),
    );
    launch!(column_window_sums[grid, (16, 16)](
        &d_image,
        &mut d_out,
        width as u32,
        height as u32,
        rows as u32
    ))?;
    device.synchronize()?;
    d_out.to_vec()
}

#[test]
fn the_kernel_tests_its_slices_before_anything_else() {
    let body = entry_body(test_kernels::__FERROCUDA_MODULE.ptx, "column_window_sums");
    let code: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with('.'))
        .collect();
    // The versioned kernel's first compare is the uniform test of `width * height` against
    // the slices' lengths, before any thread index is read; without the pass the kernel
    // starts with the thread indices (the launch token's `tid == 0` test).
    let first_compare = code
        .iter()
        .position(|l| l.starts_with("setp."))
        .expect("a compare");
    let first_tid = code
        .iter()
        .position(|l| l.contains("%tid."))
        .expect("a thread index");
    assert!(first_compare < first_tid, "no uniform test first\n{body}");
    assert!(
        code[first_compare].contains(".u64"),
        "{}",
        code[first_compare]
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

device_tests! {
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
