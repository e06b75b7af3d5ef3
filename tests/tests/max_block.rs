//! `#[kernel(max_block(...))]` on both backends: bounded kernels compute what their CPU
//! references do with any block within the bound (sizes that are not multiples of the block),
//! a larger block along any one dimension is a launch error naming the block and the bound
//! (also when the total is within it), the device stays usable after it, and `.forall(n)`
//! and the suggested block size keep to the bound. The PTX side (`.maxntid`, the shared-tile
//! checks gone) is at the end.

use ferrocuda::prelude::*;
use ferrocuda_tests::ptx_text::entry_body;
use ferrocuda_tests::{device_tests, random_f32, random_u32, rng};
use test_kernels::max_block::{REVERSE_MAX, TILE, reverse_within_block, tile_transpose};

fn transpose_reference(input: &[f32], rows: usize, cols: usize) -> Vec<f32> {
    let mut out = vec![0.0; rows * cols];
    for r in 0..rows {
        for c in 0..cols {
            out[c * rows + r] = input[r * cols + c];
        }
    }
    out
}

fn reverse_reference(data: &[u32], block: usize) -> Vec<u32> {
    data.chunks(block)
        .flat_map(|chunk| chunk.iter().rev().copied())
        .collect()
}

/// The launch error's problem, or a panic naming what came back instead.
fn launch_problem(result: ferrocuda::Result<()>) -> String {
    match result {
        Err(Error::Launch(error)) => error.problem,
        other => panic!("expected a launch error, got {other:?}"),
    }
}

device_tests! {
    fn a_bounded_transpose_matches_the_reference(device) {
        let mut rng = rng("max-block-transpose");
        for (rows, cols) in [(1usize, 1usize), (16, 16), (37, 53), (100, 17)] {
            let input = random_f32(&mut rng, rows * cols);
            let input_dev = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut output = DeviceBuffer::<f32>::zeros(device, rows * cols).unwrap();
            let grid = (cols.div_ceil(TILE), rows.div_ceil(TILE));
            launch!(tile_transpose[grid, (TILE, TILE)](&input_dev, &mut output, rows, cols)).unwrap();
            assert_eq!(output.to_vec().unwrap(), transpose_reference(&input, rows, cols), "{rows} x {cols}");
        }
    }

    fn a_block_past_the_bound_along_one_dimension_is_refused(device) {
        let (rows, cols) = (40usize, 24usize);
        let mut rng = rng("max-block-refused");
        let input = random_f32(&mut rng, rows * cols);
        let input_dev = DeviceBuffer::from_slice(device, &input).unwrap();
        let poison = vec![-1.0f32; rows * cols];
        let mut output = DeviceBuffer::from_slice(device, &poison).unwrap();
        // 256 threads, as many as 16 x 16, but 32 along x.
        let problem = launch_problem(launch!(tile_transpose[(1, 3), (32, 8)](&input_dev, &mut output, rows, cols)));
        assert_eq!(
            problem,
            "the block is 32 x 8 x 1 threads, but the kernel is compiled for blocks of at most 16 x 16 x 1 (`#[kernel(max_block(16, 16, 1))]`, each dimension on its own); launch a smaller block or raise the bound"
        );
        let problem = launch_problem(launch!(tile_transpose[(2, 3), (16, 16, 2)](&input_dev, &mut output, rows, cols)));
        assert!(problem.starts_with("the block is 16 x 16 x 2 threads"), "{problem}");
        // Nothing ran, and the device and the buffers are still good.
        assert_eq!(output.to_vec().unwrap(), poison);
        launch!(tile_transpose[(2, 3), (16, 16)](&input_dev, &mut output, rows, cols)).unwrap();
        assert_eq!(output.to_vec().unwrap(), transpose_reference(&input, rows, cols));
    }

    fn any_block_within_the_bound_works(device) {
        let mut rng = rng("max-block-reverse");
        for block in [1u32, 31, 96, REVERSE_MAX] {
            for n in [0usize, 1, 127, 1000] {
                let data = random_u32(&mut rng, n, u32::MAX);
                let mut buffer = DeviceBuffer::from_slice(device, &data).unwrap();
                let grid = n.div_ceil(block as usize).max(1);
                launch!(reverse_within_block[grid, block](&mut buffer)).unwrap();
                assert_eq!(buffer.to_vec().unwrap(), reverse_reference(&data, block as usize), "block {block}, n {n}");
            }
        }
        let mut buffer = DeviceBuffer::<u32>::zeros(device, 4).unwrap();
        let problem = launch_problem(launch!(reverse_within_block[1, REVERSE_MAX + 1](&mut buffer)));
        assert!(problem.starts_with("the block is 129 x 1 x 1 threads, but the kernel is compiled for blocks of at most 128 x 1 x 1"), "{problem}");
    }

    fn forall_and_the_suggested_block_keep_to_the_bound(device) {
        let suggested = reverse_within_block.suggested_block_size(device, 0u32).unwrap();
        assert!((1..=REVERSE_MAX).contains(&suggested), "{suggested}");
        let attributes = reverse_within_block.attributes(device).unwrap();
        assert!(attributes.max_threads_per_block <= REVERSE_MAX, "{attributes:?}");
        let mut rng = rng("max-block-forall");
        let data = random_u32(&mut rng, 1000, u32::MAX);
        let mut buffer = DeviceBuffer::from_slice(device, &data).unwrap();
        reverse_within_block.forall(1000).launch(&mut buffer).unwrap();
        assert_eq!(buffer.to_vec().unwrap(), reverse_reference(&data, suggested as usize));
    }
}

/// The entries declare their block (and `min_blocks_per_sm`) to ptxas, and the checks of the shared tile, whose indices are
/// thread indices below 16, are gone: the unbounded twin keeps them.
#[test]
fn the_bound_reaches_the_ptx_and_removes_the_tile_checks() {
    let ptx = test_kernels::__FERROCUDA_MODULE.ptx;
    let bounded = entry_body(ptx, "tile_transpose");
    let unbounded = entry_body(ptx, "tile_transpose_unbounded");
    // `llc` may end the line with a comment naming the entry.
    assert!(bounded.contains(")\n.maxntid 16, 16, 1"), "{bounded}");
    assert!(!unbounded.contains(".maxntid"), "{unbounded}");
    let reverse = entry_body(ptx, "reverse_within_block");
    assert!(
        reverse.contains(")\n.maxntid 128, 1, 1") && reverse.contains("\n.minnctapersm 4"),
        "{reverse}"
    );
    assert!(!bounded.contains(".minnctapersm"), "{bounded}");
    let calls = |body: &str| {
        body.lines()
            .filter(|l| l.trim_start().starts_with("call"))
            .count()
    };
    assert!(
        calls(bounded) + 2 <= calls(unbounded),
        "tile_transpose calls {} functions (panics), tile_transpose_unbounded {}: the bound did not remove the two tile checks\n{bounded}",
        calls(bounded),
        calls(unbounded)
    );
}
