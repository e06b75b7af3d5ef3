//! 32-bit index arithmetic (the entry's narrowed lengths and `usize` arguments, `grid!` in
//! `u32`) and the launch checks behind it, on the simulator and the GPU: a HotSpot-like stencil
//! against a CPU reference on sizes that are not multiples of the block, the launch rejecting a
//! slice longer than `u32::MAX` elements, a `usize` argument above it and a grid of 2^32 threads
//! along x, and buffers longer than 2^32 bytes (a plain kernel over 4 GiB of `f32`, and a
//! `large_buffers` kernel indexing bytes past `u32::MAX`). The PTX check is in `tests/ptx_index.rs`.

use ferrocuda::prelude::*;
use ferrocuda_tests::{assert_close, device_tests, random_f32, random_u32, rng};
use test_kernels::index_narrowing::{
    STENCIL_BLOCK, add_from, add_from_bytes, add_from_large, copy_within_grid, heat_stencil,
};

/// The CPU reference of `heat_stencil`: neighbours outside the grid take the nearest edge value.
fn heat_stencil_reference(t: &[f32], p: &[f32], rows: usize, cols: usize, k: f32) -> Vec<f32> {
    let at = |r: isize, c: isize| {
        let r = r.clamp(0, rows as isize - 1) as usize;
        let c = c.clamp(0, cols as isize - 1) as usize;
        t[r * cols + c]
    };
    let mut next = vec![0.0; rows * cols];
    for r in 0..rows as isize {
        for c in 0..cols as isize {
            let centre = at(r, c);
            let around = at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1);
            let i = r as usize * cols + c as usize;
            next[i] = p[i] + centre + k * (around - 4.0 * centre);
        }
    }
    next
}

/// The launch error's problem, or a panic naming what came back instead.
fn launch_problem(result: ferrocuda::Result<()>) -> String {
    match result {
        Err(Error::Launch(error)) => error.problem,
        other => panic!("expected a launch error, got {other:?}"),
    }
}

/// A zeroed device buffer of `len` elements, or `None` (with a message) when the device cannot
/// hold it: the tests over buffers past 2^32 bytes then say so and pass.
fn big_zeroed<T: DeviceCopy>(device: &Device, len: usize) -> Option<DeviceBuffer<T>> {
    match DeviceBuffer::<T>::zeros(device, len) {
        Ok(buffer) => Some(buffer),
        Err(error) => {
            eprintln!(
                "skipped: cannot allocate {len} elements on {}: {error}",
                device.name()
            );
            None
        }
    }
}

device_tests! {
    fn heat_stencil_matches_cpu(device) {
        let mut rng = rng("heat_stencil");
        let block = STENCIL_BLOCK as u32;
        for (rows, cols) in [(1, 1), (1, 17), (17, 1), (16, 16), (33, 50), (100, 129)] {
            let t = random_f32(&mut rng, rows * cols);
            let p = random_f32(&mut rng, rows * cols);
            let t_dev = DeviceBuffer::from_slice(device, &t).unwrap();
            let p_dev = DeviceBuffer::from_slice(device, &p).unwrap();
            // Poisoned output: every cell must be written.
            let mut next = DeviceBuffer::from_slice(device, &vec![f32::NAN; rows * cols]).unwrap();
            let grid = ((cols as u32).div_ceil(block), (rows as u32).div_ceil(block));
            launch!(heat_stencil[grid, (block, block)](&t_dev, &p_dev, &mut next, rows, cols, 0.1f32))
                .unwrap();
            let expected = heat_stencil_reference(&t, &p, rows, cols, 0.1);
            assert_close(&next.to_vec().unwrap(), &expected, 1e-5);
        }
    }

    fn indices_cover_every_element_of_the_shorter_slice(device) {
        let mut rng = rng("copy_within_grid");
        for (source_len, target_len) in [(0, 0), (1, 1), (0, 5), (5, 0), (1000, 777), (300, 4099)] {
            let source = random_u32(&mut rng, source_len, u32::MAX);
            let target = random_u32(&mut rng, target_len, u32::MAX);
            let source_dev = DeviceBuffer::from_slice(device, &source).unwrap();
            let mut target_dev = DeviceBuffer::from_slice(device, &target).unwrap();
            let threads = source_len.max(target_len).max(1) as u32;
            launch!(copy_within_grid[threads.div_ceil(128), 128](&source_dev, &mut target_dev))
                .unwrap();
            let mut expected = target.clone();
            let n = source_len.min(target_len);
            expected[..n].copy_from_slice(&source[..n]);
            assert_eq!(target_dev.to_vec().unwrap(), expected, "{source_len} -> {target_len}");
        }
    }

    fn launch_rejects_a_slice_longer_than_u32_max_without_the_opt_out(device) {
        let len = u32::MAX as usize + 1;
        let Some(mut big) = big_zeroed::<u8>(device, len) else { return };
        let problem = launch_problem(launch!(add_from_bytes[1, 32](&mut big, 0usize, 1u8)));
        assert_eq!(
            problem,
            "argument `data: &mut [u8]` has 4294967296 elements, more than the limit of 4294967295 (u32::MAX) for kernels that index in 32 bits; mark the kernel `#[kernel(large_buffers)]` to pass longer slices (its indices then stay 64-bit)"
        );
        // A view of u32::MAX elements is accepted.
        let view = big.slice_mut(1..);
        add_from_bytes.grid(1).block(32).launch(view, 0usize, 1u8).unwrap();
        assert_eq!(big.slice(..34).to_vec().unwrap(), [[0u8].as_slice(), &[1; 32], &[0]].concat());
    }

    fn launch_rejects_a_usize_argument_above_u32_max(device) {
        let mut data = DeviceBuffer::<f32>::zeros(device, 4).unwrap();
        let problem = launch_problem(launch!(add_from[1, 32](&mut data, 1usize << 32, 1.0f32)));
        assert_eq!(
            problem,
            "argument `start: usize` is 4294967296, more than the limit of 4294967295 (u32::MAX) for `usize` parameters of kernels that index in 32 bits; mark the kernel `#[kernel(large_buffers)]` to pass larger values (or pass a `u64`)"
        );
    }

    fn launch_rejects_a_grid_of_2_pow_32_threads_along_x(device) {
        let source = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let mut target = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let problem = launch_problem(
            launch!(copy_within_grid[4_194_304u32, 1024](&source, &mut target)),
        );
        assert_eq!(
            problem,
            "the grid has 4294967296 threads along x (4194304 blocks of 1024), more than the limit of 4294967295 (u32::MAX) that keeps thread indices 32-bit; cover more elements with a grid-stride loop (`gridsize!`)"
        );
    }

    fn plain_kernel_indexes_an_f32_buffer_past_4_gib(device) {
        // 2^30 + 1000 floats: fewer than u32::MAX elements, more than 2^32 bytes. The byte
        // offsets must stay 64-bit.
        let len = (1usize << 30) + 1000;
        let Some(mut data) = big_zeroed::<f32>(device, len) else { return };
        let start = len - 1000 - 24;
        launch!(add_from[4, 256](&mut data, start, 2.5f32)).unwrap();
        let tail = data.slice(len - 2048..).to_vec().unwrap();
        for (k, value) in tail.iter().enumerate() {
            let i = len - 2048 + k;
            let expected = if i >= start { 2.5 } else { 0.0 };
            assert_eq!(*value, expected, "element {i}");
        }
        // Nothing was written near the start (a wrapped 32-bit byte offset would land there).
        assert!(data.slice(..8192).to_vec().unwrap().iter().all(|&v| v == 0.0));
    }

    fn large_buffers_kernel_indexes_bytes_past_u32_max(device) {
        let len = (1usize << 32) + 1000;
        let Some(mut data) = big_zeroed::<u8>(device, len) else { return };
        let start = len - 1000 - 24;
        launch!(add_from_large[4, 256](&mut data, start, 7u8)).unwrap();
        let tail = data.slice(len - 2048..).to_vec().unwrap();
        for (k, value) in tail.iter().enumerate() {
            let i = len - 2048 + k;
            let expected = if i >= start { 7 } else { 0 };
            assert_eq!(*value, expected, "element {i}");
        }
        // Indices past u32::MAX must not wrap to the start of the buffer.
        assert!(data.slice(..4096).to_vec().unwrap().iter().all(|&v| v == 0));
    }
}
