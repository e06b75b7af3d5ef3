//! Cooperative launches and the grid barrier (`#[kernel(cooperative)]`, `grid_sync`), and the
//! memory-model guarantee of barriers: a thread that reads back, after a barrier, an element of
//! a `&mut [T]` it wrote itself before it sees what another thread wrote there in between (the
//! compiler does not forward its own store across the barrier). Each kernel test runs on the
//! simulator and on the GPU against a CPU reference; the misuses that would hang a GPU (a grid
//! barrier that part of the grid skips, a panic before it) are simulator faults, tested there.
//! `tests/tests/ptx_barrier_reload.rs` pins the reload in the PTX.

use ferrocuda::prelude::*;
use ferrocuda::{Error, SimulatorFault, ThreadActivity};
use ferrocuda_tests::{device_tests, expect_panic};
use kernels_nvptx::grid_sync_sum::grid_sync_sum;
use test_kernels::cooperative::{
    block_partner_reload, cooperative_flag, first_value, grid_partner_reload, grid_rounds_3d,
    grid_sync_after_panic, grid_sync_not_cooperative, grid_sync_skipped_by_block,
    grid_sync_skipped_by_thread, helper_partner_reload, ordinary_flag, overwrite, stencil_rounds,
};

/// What `seen` must hold after a partner-reload kernel: element `i` was written first by its
/// own thread (`first_value(i)`), then, for an element of the even side (`even(i)`),
/// overwritten by thread `i + step`.
fn partner_reference(n: usize, step: usize, even: impl Fn(usize) -> bool) -> Vec<u32> {
    (0..n)
        .map(|i| {
            if even(i) {
                overwrite(first_value(i), i + step)
            } else {
                first_value(i)
            }
        })
        .collect()
}

/// The cooperative grid of at most `wanted` blocks of `block` threads that fits on `device`.
fn cooperative_grid<K: InspectKernel>(kernel: &K, device: &Device, block: u32, wanted: u32) -> u32 {
    let most = kernel.max_cooperative_blocks(device, block, 0u32).unwrap();
    assert!(
        most >= 1,
        "no block of {block} threads fits on {}",
        device.name()
    );
    most.min(wanted)
}

/// `rounds` rounds of `stencil_rounds` on the CPU, the result where the kernel leaves it.
fn stencil_reference(mut a: Vec<u32>, rounds: u32) -> Vec<u32> {
    let n = a.len();
    for _ in 0..rounds {
        a = (0..n)
            .map(|i| {
                a[i].wrapping_mul(2)
                    .wrapping_add(a[(i + n - 1) % n])
                    .wrapping_add(a[(i + 1) % n].wrapping_mul(3))
            })
            .collect();
    }
    a
}

/// The fault of a launch on the simulator.
fn simulator_fault(result: ferrocuda::Result<()>) -> SimulatorFault {
    match result {
        Err(Error::SimulatorFault(fault)) => *fault,
        other => panic!("expected a simulator fault, got {other:?}"),
    }
}

device_tests! {
    /// Block barriers: each even thread reads back its own element after the odd thread next
    /// to it overwrote it, for several block sizes.
    fn block_barrier_reload_sees_the_partners_write(device) {
        for (blocks, threads) in [(1usize, 2usize), (3, 34), (4, 256), (2, 1024)] {
            let n = blocks * threads;
            let mut data = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            let mut seen = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            launch!(block_partner_reload[blocks as u32, threads as u32](&mut data, &mut seen))
                .unwrap();
            let expected = partner_reference(n, 1, |i| i.is_multiple_of(2));
            assert_eq!(seen.to_vec().unwrap(), expected, "{blocks} blocks of {threads}");
            assert_eq!(data.to_vec().unwrap(), expected, "{blocks} blocks of {threads}");
        }
    }

    /// Grid barriers: each thread of an even block reads back its own element after the same
    /// thread of the next block overwrote it.
    fn grid_barrier_reload_sees_the_other_blocks_write(device) {
        for (wanted, threads) in [(2u32, 32u32), (6, 64), (64, 256)] {
            let blocks = cooperative_grid(&grid_partner_reload, device, threads, wanted) & !1;
            let n = (blocks * threads) as usize;
            let mut data = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            let mut seen = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            launch!(grid_partner_reload[blocks, threads](&mut data, &mut seen)).unwrap();
            let step = threads as usize;
            let expected = partner_reference(n, step, |i| (i / step).is_multiple_of(2));
            assert_eq!(seen.to_vec().unwrap(), expected, "{blocks} blocks of {threads}");
        }
    }

    /// Many grid barriers in a row (the barrier word's top bit flips at each), with a grid that
    /// strides over more elements than it has threads, against the CPU's rounds.
    fn stencil_rounds_with_grid_barriers_match_the_cpu(device) {
        let wanted = if device.is_simulator() { 12 } else { u32::MAX };
        let blocks = cooperative_grid(&stencil_rounds, device, 128, wanted);
        let threads = (blocks * 128) as usize;
        for (n, rounds) in [(1usize, 3u32), (1000, 0), (1000, 1), (threads + 7, 2), (3 * threads - 1, 41)] {
            let start: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
            let mut a = DeviceBuffer::from_slice(device, &start).unwrap();
            let mut b = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            launch!(stencil_rounds[blocks, 128](&mut a, &mut b, rounds)).unwrap();
            let result = if rounds % 2 == 0 { a.to_vec() } else { b.to_vec() }.unwrap();
            assert_eq!(result, stencil_reference(start, rounds), "n = {n}, {rounds} rounds");
        }
    }

    /// A 3-dimensional cooperative grid: every block sees the arrivals of all the others after
    /// each barrier, and no block passes a barrier early.
    fn three_dimensional_grid_passes_every_barrier_together(device) {
        let rounds = 50u32;
        let grid = Dim3::new(3, 2, 2);
        let mut counter = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let mut mismatches = DeviceBuffer::from_slice(device, &[u32::MAX; 12]).unwrap();
        launch!(grid_rounds_3d[grid, (8, 4, 2)](&mut counter, &mut mismatches, rounds)).unwrap();
        assert_eq!(counter.to_vec().unwrap(), [rounds * 12]);
        assert_eq!(mismatches.to_vec().unwrap(), [0; 12]);
    }

    /// `is_cooperative_launch` tells the two kinds of launch apart.
    fn is_cooperative_launch_tells_the_launches_apart(device) {
        let mut flags = DeviceBuffer::<u32>::zeros(device, 96).unwrap();
        launch!(cooperative_flag[3, 32](&mut flags)).unwrap();
        assert_eq!(flags.to_vec().unwrap(), vec![1; 96]);
        launch!(ordinary_flag[3, 32](&mut flags)).unwrap();
        assert_eq!(flags.to_vec().unwrap(), vec![0; 96]);
    }

    /// A grid barrier in a kernel not marked `cooperative` panics in every thread (nothing
    /// hangs), with the message that says what to do, also right after a cooperative launch
    /// (on driver 580 the grid workspace's address is not null in an ordinary launch, so the
    /// launch token says which launches are cooperative).
    fn grid_sync_outside_a_cooperative_launch_panics(device) {
        let mut out = DeviceBuffer::<u32>::zeros(device, 64).unwrap();
        launch!(cooperative_flag[2, 32](&mut out)).unwrap();
        device.synchronize().unwrap();
        out.copy_from(&[0; 64]).unwrap();
        let panic = expect_panic(
            launch!(grid_sync_not_cooperative[2, 32](&mut out)).and_then(|()| device.synchronize()),
        );
        assert_eq!(panic.message, ferrocuda::device::grid_sync::NOT_COOPERATIVE);
        assert_eq!(panic.kernel, "grid_sync_not_cooperative");
        assert_eq!(out.to_vec().unwrap(), vec![0; 64], "no thread went past the barrier");
    }

    /// A grid larger than the device holds at once is refused before launch, with both numbers.
    fn too_large_a_cooperative_grid_is_refused_with_both_numbers(device) {
        let occupancy = grid_partner_reload.occupancy(device, 256, 0).unwrap();
        let resident = occupancy.active_blocks * device.limits().multiprocessor_count;
        let blocks = resident + 1;
        let mut data = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let mut seen = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let error = launch!(grid_partner_reload[blocks, 256](&mut data, &mut seen)).unwrap_err();
        let Error::Launch(error) = error else {
            panic!("expected a launch error, got {error:?}");
        };
        assert_eq!(error.kernel, "grid_partner_reload");
        assert!(
            error.problem.contains(&format!("cooperative launch of {blocks} blocks"))
                && error.problem.contains(&format!("at most {resident} blocks")),
            "{}",
            error.problem
        );
    }

    /// The single-launch sum: blocks' partials, a grid barrier, block 0 sums them.
    fn grid_sync_sum_matches_the_cpu(device) {
        let wanted = if device.is_simulator() { 9 } else { u32::MAX };
        let blocks = cooperative_grid(&grid_sync_sum, device, 256, wanted);
        let lengths: &[usize] = if device.is_simulator() {
            &[0, 1, 1000, 65_539]
        } else {
            &[0, 1, 1000, 65_539, (1 << 24) + 3]
        };
        for &n in lengths {
            let x: Vec<f32> = (0..n).map(|i| ((i * 37 % 1001) as f32 - 500.0) / 256.0).collect();
            let input = DeviceBuffer::from_slice(device, &x).unwrap();
            let mut partials = DeviceBuffer::<f32>::zeros(device, blocks as usize).unwrap();
            let mut out = DeviceBuffer::from_slice(device, &[f32::NAN]).unwrap();
            launch!(grid_sync_sum[blocks, 256](&input, &mut partials, &mut out)).unwrap();
            let sum = out.to_vec().unwrap()[0] as f64;
            let expected: f64 = x.iter().map(|&v| v as f64).sum();
            let bound = 1e-6 * x.iter().map(|&v| v.abs() as f64).sum::<f64>() + 1e-6;
            assert!((sum - expected).abs() <= bound, "n = {n}: {sum} against {expected}");
        }
    }
}

/// The simulated device has one multiprocessor: its cooperative grids are what one
/// multiprocessor holds of the kernel.
#[test]
fn the_simulators_cooperative_grids_fit_one_multiprocessor() {
    let device = Device::simulator();
    for block in [32u32, 256, 1024] {
        let occupancy = grid_partner_reload.occupancy(&device, block, 0u32).unwrap();
        let most = grid_partner_reload
            .max_cooperative_blocks(&device, block, 0u32)
            .unwrap();
        assert_eq!(most, occupancy.active_blocks, "blocks of {block}");
        assert!(most * block <= 2048, "blocks of {block}");
    }
}

/// A block that returns before the grid barrier the others wait at is a divergent grid
/// barrier, naming the blocks on each side and the barrier's line.
#[test]
fn a_grid_barrier_skipped_by_a_block_is_a_fault() {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<u32>::zeros(&device, 4 * 32).unwrap();
    let fault = simulator_fault(
        launch!(grid_sync_skipped_by_block[4, 32](2u32, &mut out))
            .and_then(|()| device.synchronize()),
    );
    let text = fault.to_string();
    let SimulatorFault::DivergentGridBarrier { groups, grid, .. } = &fault else {
        panic!("expected a divergent grid barrier, got {text}");
    };
    assert_eq!(*grid, Dim3::new(4, 1, 1));
    assert_eq!(groups.len(), 2, "{text}");
    assert_eq!(
        groups[0].blocks,
        [Dim3::new(0, 0, 0), Dim3::new(1, 0, 0), Dim3::new(3, 0, 0)]
    );
    assert!(
        matches!(groups[0].activity, ThreadActivity::AtBarrier { barrier: "grid_sync", site } if site.file.ends_with("cooperative.rs")),
        "{text}"
    );
    assert_eq!(groups[1].blocks, [Dim3::new(2, 0, 0)]);
    assert_eq!(groups[1].activity, ThreadActivity::Exited);
    assert!(
        text.contains("block (2, 0, 0) ended without reaching it"),
        "{text}"
    );
    assert_eq!(out.to_vec().unwrap(), vec![0; 128], "no block went past it");
}

/// Threads of one block that reach the grid barrier while others of the block exit are a
/// divergent barrier of that block, as for `syncthreads`.
#[test]
fn a_grid_barrier_skipped_by_a_thread_is_a_divergent_barrier() {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<u32>::zeros(&device, 64).unwrap();
    let fault = simulator_fault(
        launch!(grid_sync_skipped_by_thread[2, 32](&mut out)).and_then(|()| device.synchronize()),
    );
    let text = fault.to_string();
    assert!(
        matches!(fault, SimulatorFault::DivergentBarrier { .. }),
        "{text}"
    );
    assert!(
        text.contains("wait at grid_sync at") && text.contains("thread (0, 0, 0) exited"),
        "{text}"
    );
}

/// A thread that panics before the grid barrier ends the launch with its panic; the threads
/// waiting at the barrier are stopped instead of waiting for ever.
#[test]
fn a_panic_before_the_grid_barrier_is_reported() {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<u32>::zeros(&device, 3 * 64).unwrap();
    let panic = expect_panic(
        launch!(grid_sync_after_panic[3, 64](1u32, &mut out)).and_then(|()| device.synchronize()),
    );
    assert_eq!(
        panic.message,
        "the first thread of this block gives up before the grid barrier"
    );
    assert_eq!(panic.block, Dim3::new(1, 0, 0));
    assert_eq!(panic.thread, Dim3::new(0, 0, 0));
    assert_eq!(out.to_vec().unwrap(), vec![0; 3 * 64]);
    // The simulator is usable afterwards.
    let mut flags = DeviceBuffer::<u32>::zeros(&device, 64).unwrap();
    launch!(cooperative_flag[2, 32](&mut flags)).unwrap();
    assert_eq!(flags.to_vec().unwrap(), vec![1; 64]);
}

/// `block_barrier_reload_sees_the_partners_write` through a helper function that takes the
/// slice as its own `&mut [u32]` and holds both barriers; the odd thread applies `writer % 4 + 1`
/// rounds of `overwrite`. On the GPU only: compiled for the host by an LLVM of version 23 or
/// later (stable Rust 1.99), the simulator's copy of the helper reads its own element's old
/// value after the barrier, because that LLVM takes a fence to leave a `noalias` argument that
/// does not escape alone, and no barrier of the simulator can change that (README, "Barriers
/// are barriers for the compiler too").
#[test]
fn a_helpers_barriers_reload_what_the_partner_wrote_on_the_gpu() {
    ferrocuda_tests::on_gpu(
        concat!(
            module_path!(),
            "::a_helpers_barriers_reload_what_the_partner_wrote_on_the_gpu"
        ),
        |device| {
            for (blocks, threads) in [(1usize, 2usize), (3, 34), (2, 1024)] {
                let n = blocks * threads;
                let mut data = DeviceBuffer::<u32>::zeros(device, n).unwrap();
                let mut seen = DeviceBuffer::<u32>::zeros(device, n).unwrap();
                launch!(helper_partner_reload[blocks as u32, threads as u32](&mut data, &mut seen))
                    .unwrap();
                let expected: Vec<u32> = (0..n)
                    .map(|i| {
                        if i % 2 == 1 {
                            return first_value(i);
                        }
                        let writer = i + 1;
                        (0..writer % 4 + 1)
                            .fold(first_value(i), |x, round| overwrite(x, writer + round))
                    })
                    .collect();
                assert_eq!(
                    seen.to_vec().unwrap(),
                    expected,
                    "{blocks} blocks of {threads}"
                );
            }
        },
    );
}
