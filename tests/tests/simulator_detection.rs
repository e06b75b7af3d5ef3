//! The CPU simulator turns the bugs that hang a GPU or silently corrupt its shared memory into
//! errors: a divergent `syncthreads`, a thread returning before a barrier the others wait at, and
//! data races on shared memory (the broken kernels of `test_kernels::faults`).
//!
//! Each report is checked field by field (the kernel, the block, the threads and what each was
//! doing, the source sites involved), and one report of each kind word for word. Each faulty launch must end within a time limit instead of
//! hanging, leave the device usable (the next correct launch works, other buffers keep their
//! contents) and give the same report and the same partial results every time. The detectors
//! must stay silent on correct kernels that use shared memory and barriers heavily, including
//! the fixed version of each broken kernel, which also runs on the GPU against a CPU reference.

use ferrocuda::prelude::*;
use ferrocuda::{
    SharedAccess, SharedMemoryKind, SimulatorFault, SourceSite, ThreadActivity, ThreadGroup,
};
use ferrocuda_tests::{assert_close, blocks, device_tests, random_f32, random_u32, rng};
use kernels_nvptx::histogram::{BINS, histogram_shared};
use std::sync::mpsc;
use std::time::Duration;
use test_kernels::device_api::{api_dynamic_block_sum, api_shared_reverse};
use test_kernels::faults::*;

/// How long a faulty launch may take before the test calls it a hang (a GPU would hang for
/// ever; the simulator should answer in milliseconds).
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// The kernel source file, as the simulator names it in locations.
const FAULTS_FILE: &str = "tests/kernels/src/faults.rs";

/// A value no kernel writes: what the elements a faulty launch never reached still hold.
const SENTINEL: f32 = -7.5;

/// Runs `body` with the simulator on another OS thread and returns its result, or fails the test
/// if it has not finished within [`HANG_LIMIT`]. The simulator keeps pending errors per OS
/// thread, so `body` must launch and synchronize itself.
fn without_hanging<T: Send + 'static>(body: impl FnOnce(&Device) -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&Device::simulator())));
        let _ = done.send(outcome);
    });
    match result.recv_timeout(HANG_LIMIT) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the simulator did not finish within {HANG_LIMIT:?}: a hang"),
    }
}

/// The fault a launch reported at the next synchronization: asserts it is reported exactly once
/// and names `kernel`.
fn expect_fault(device: &Device, kernel: &str) -> SimulatorFault {
    match device.synchronize() {
        Err(Error::SimulatorFault(fault)) => {
            assert_eq!(fault.kernel(), kernel);
            // Reported once: the next synchronization is clean.
            device
                .synchronize()
                .expect("the fault is reported only once");
            *fault
        }
        other => panic!("expected a fault of `{kernel}`, got {other:?}"),
    }
}

/// The site (`path:line:column`) of the `nth` (from 0) occurrence of `needle` in the body of kernel
/// `kernel` in faults.rs: the location the simulator reports for an access or a call there.
/// Rust locates a function call at its name, a method call at the method's name (`get(0)` of
/// `flag.get(0)`) and an index expression at its bracket (`[t]` of `tile[t]`).
fn site(kernel: &str, needle: &str, nth: usize) -> SourceSite {
    let source = include_str!("../kernels/src/faults.rs");
    let lines: Vec<&str> = source.lines().collect();
    let header = format!("pub fn {kernel}(");
    let start = lines
        .iter()
        .position(|l| l.contains(&header))
        .unwrap_or_else(|| panic!("no kernel `{kernel}` in faults.rs"));
    let (line, column) = lines[start..]
        .iter()
        .enumerate()
        .filter_map(|(k, l)| l.find(needle).map(|c| (start + k + 1, c + 1)))
        .nth(nth)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} not in `{kernel}`"));
    SourceSite {
        file: FAULTS_FILE,
        line: line as u32,
        column: column as u32,
    }
}

/// The threads `(x, 0, 0)` for the given `x`s.
fn threads_x(xs: impl IntoIterator<Item = u32>) -> Vec<Dim3> {
    xs.into_iter().map(|x| Dim3::new(x, 0, 0)).collect()
}

/// Threads waiting at `syncthreads` at `site`.
fn at_syncthreads(site: SourceSite) -> ThreadActivity {
    ThreadActivity::AtBarrier {
        barrier: "syncthreads",
        site,
    }
}

/// The block and groups of a divergent barrier.
fn divergent_barrier(fault: &SimulatorFault) -> (Dim3, &[ThreadGroup]) {
    match fault {
        SimulatorFault::DivergentBarrier { block, groups, .. } => (*block, groups),
        other => panic!("expected a divergent barrier, got {other:?}"),
    }
}

/// A data race's block, its two accesses, and the byte raced on with the array's kind and size.
type RaceFields = (
    Dim3,
    SharedAccess,
    SharedAccess,
    (usize, SharedMemoryKind, usize),
);

/// The fields of a data race.
fn data_race(fault: &SimulatorFault) -> RaceFields {
    match fault {
        SimulatorFault::DataRace {
            block,
            first,
            second,
            memory,
            offset,
            region_bytes,
            ..
        } => (*block, *first, *second, (*offset, *memory, *region_bytes)),
        other => panic!("expected a data race, got {other:?}"),
    }
}

/// One access of a race by thread `thread`.
fn access(thread: (u32, u32), write: bool, site: SourceSite) -> SharedAccess {
    SharedAccess {
        thread: Dim3::new(thread.0, thread.1, 0),
        write,
        site,
    }
}

/// `out[start + k] = input[start + (k + 1) % count]` within each chunk of `block` elements.
fn rotate_reference(input: &[f32], block: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(block) {
        out.extend(chunk.iter().cycle().skip(1).take(chunk.len()));
    }
    out
}

/// `out[i] = input[i] + input[i + 1]`, 0 past the end.
fn stencil_reference(input: &[f32]) -> Vec<f32> {
    (0..input.len())
        .map(|i| input[i] + input.get(i + 1).copied().unwrap_or(0.0))
        .collect()
}

/// A correct launch after a fault: works, and a buffer made before the fault kept its contents.
fn still_usable(device: &Device, untouched: &DeviceBuffer<u32>, contents: &[u32]) {
    assert_eq!(untouched.to_vec().unwrap(), contents);
    let mut rng = rng("still_usable");
    let input = random_f32(&mut rng, 333);
    let mut out = DeviceBuffer::from_slice(device, &[SENTINEL; 333]).unwrap();
    launch!(stencil_with_barrier[blocks(333, 64), 64](&input, &mut out)).unwrap();
    assert_eq!(out.to_vec().unwrap(), stencil_reference(&input));
}

/// What a faulty launch left behind: the fault and the output buffer.
type Outcome<T> = (SimulatorFault, Vec<T>);

fn divergent_syncthreads_outcome(device: &Device) -> Outcome<u32> {
    // 1000 threads in blocks of 96 (11 blocks); block 7 diverges.
    let (n, block, bad) = (1000usize, 96usize, 7u32);
    let mut out = DeviceBuffer::from_slice(device, &vec![u32::MAX; n]).unwrap();
    launch!(divergent_syncthreads[blocks(n, block), block as u32](&mut out, bad)).unwrap();
    let fault = expect_fault(device, "divergent_syncthreads");
    (fault, out.to_vec().unwrap())
}

fn reduce_in_branch_outcome(device: &Device) -> Outcome<f32> {
    let mut rng = rng("reduce_in_branch");
    let (n, block) = (1000usize, 128usize);
    let input = DeviceBuffer::from_slice(device, &random_f32(&mut rng, n)).unwrap();
    let grid = blocks(n, block);
    let mut partial = DeviceBuffer::from_slice(device, &vec![SENTINEL; grid as usize]).unwrap();
    launch!(reduce_barrier_in_branch[grid, block as u32](&input, &mut partial)).unwrap();
    let fault = expect_fault(device, "reduce_barrier_in_branch");
    (fault, partial.to_vec().unwrap())
}

fn early_return_outcome(device: &Device) -> (Outcome<f32>, Vec<f32>) {
    let mut rng = rng("early_return");
    let (n, block) = (1000usize, 128usize);
    let input = random_f32(&mut rng, n);
    let input_on_device = DeviceBuffer::from_slice(device, &input).unwrap();
    let mut out = DeviceBuffer::from_slice(device, &vec![SENTINEL; n]).unwrap();
    launch!(rotate_early_return[blocks(n, block), block as u32](&input_on_device, &mut out))
        .unwrap();
    let fault = expect_fault(device, "rotate_early_return");
    ((fault, out.to_vec().unwrap()), input)
}

fn flag_race_outcome(device: &Device, writer: u32, reader: u32) -> Outcome<u32> {
    // Blocks of 32 x 3 threads, 5 of them; block 3 skips its barrier.
    let mut seen = DeviceBuffer::from_slice(device, &[0u32; 5]).unwrap();
    launch!(shared_flag_race[5, (32, 3)](&mut seen, 3u32, writer, reader)).unwrap();
    let fault = expect_fault(device, "shared_flag_race");
    (fault, seen.to_vec().unwrap())
}

fn write_race_outcome(device: &Device) -> Outcome<u32> {
    let n = 150;
    let mut out = DeviceBuffer::from_slice(device, &vec![u32::MAX; n]).unwrap();
    launch!(shared_write_race[blocks(n, 64), 64](&mut out)).unwrap();
    let fault = expect_fault(device, "shared_write_race");
    (fault, out.to_vec().unwrap())
}

fn stencil_race_outcome(device: &Device) -> Outcome<f32> {
    let mut rng = rng("stencil_race");
    let n = 300;
    let input = DeviceBuffer::from_slice(device, &random_f32(&mut rng, n)).unwrap();
    let mut out = DeviceBuffer::from_slice(device, &vec![SENTINEL; n]).unwrap();
    launch!(stencil_missing_barrier[blocks(n, 128), 128](&input, &mut out)).unwrap();
    let fault = expect_fault(device, "stencil_missing_barrier");
    (fault, out.to_vec().unwrap())
}

#[test]
fn divergent_syncthreads_names_the_block_the_threads_and_both_barriers() {
    without_hanging(|device| {
        let untouched = DeviceBuffer::from_slice(device, &[1u32, 2, 3]).unwrap();
        let (fault, out) = divergent_syncthreads_outcome(device);
        let first = site("divergent_syncthreads", "syncthreads()", 0);
        let second = site("divergent_syncthreads", "syncthreads()", 1);
        let (block, groups) = divergent_barrier(&fault);
        assert_eq!(block, Dim3::new(7, 0, 0));
        assert_eq!(
            groups,
            [
                ThreadGroup {
                    threads: threads_x((0..96).step_by(2)),
                    activity: at_syncthreads(first),
                },
                ThreadGroup {
                    threads: threads_x((1..96).step_by(2)),
                    activity: at_syncthreads(second),
                },
            ]
        );
        // The report, word for word.
        assert_eq!(
            fault.to_string(),
            format!(
                "kernel `divergent_syncthreads`: divergent barrier in block (7, 0, 0): threads (0..=94 step 2, 0, 0) wait at syncthreads at {first}; threads (1..=95 step 2, 0, 0) wait at syncthreads at {second}"
            )
        );
        // Blocks 0..7 ran (the simulator runs blocks in order and stops at the fault); block 7
        // wrote nothing, and the later blocks never started.
        let done = 7 * 96;
        assert!(out[..done].iter().enumerate().all(|(i, &v)| v == i as u32));
        assert!(out[done..].iter().all(|&v| v == u32::MAX));
        still_usable(device, &untouched, &[1, 2, 3]);
        // The same kernel with no bad block is correct.
        let mut out = DeviceBuffer::<u32>::zeros(device, 1000).unwrap();
        launch!(divergent_syncthreads[blocks(1000, 96), 96](&mut out, u32::MAX)).unwrap();
        assert_eq!(out.to_vec().unwrap(), (0..1000).collect::<Vec<u32>>());
    });
}

#[test]
fn barrier_inside_a_reduction_branch_is_divergent() {
    without_hanging(|device| {
        let untouched = DeviceBuffer::from_slice(device, &[9u32; 17]).unwrap();
        let (fault, partial) = reduce_in_branch_outcome(device);
        let barrier = site("reduce_barrier_in_branch", "syncthreads()", 1);
        let (block, groups) = divergent_barrier(&fault);
        assert_eq!(block, Dim3::new(0, 0, 0));
        assert_eq!(
            groups,
            [
                ThreadGroup {
                    threads: threads_x((0..128).step_by(2)),
                    activity: at_syncthreads(barrier),
                },
                ThreadGroup {
                    threads: threads_x((1..128).step_by(2)),
                    activity: ThreadActivity::Exited,
                },
            ]
        );
        assert!(partial.iter().all(|&v| v == SENTINEL), "{partial:?}");
        still_usable(device, &untouched, &[9; 17]);
    });
}

#[test]
fn early_return_before_a_barrier_is_reported_in_the_last_block() {
    without_hanging(|device| {
        let untouched = DeviceBuffer::from_slice(device, &[5u32; 4]).unwrap();
        let ((fault, out), input) = early_return_outcome(device);
        let barrier = site("rotate_early_return", "syncthreads()", 0);
        // 1000 = 7 * 128 + 104: the last block has 104 threads with an element.
        let (block, groups) = divergent_barrier(&fault);
        assert_eq!(block, Dim3::new(7, 0, 0));
        assert_eq!(
            groups,
            [
                ThreadGroup {
                    threads: threads_x(0..104),
                    activity: at_syncthreads(barrier),
                },
                ThreadGroup {
                    threads: threads_x(104..128),
                    activity: ThreadActivity::Exited,
                },
            ]
        );
        assert_eq!(
            fault.to_string(),
            format!(
                "kernel `rotate_early_return`: divergent barrier in block (7, 0, 0): threads (0..104, 0, 0) wait at syncthreads at {barrier}; threads (104..128, 0, 0) exited without reaching it"
            )
        );
        let expected = rotate_reference(&input, 128);
        assert_eq!(out[..896], expected[..896]);
        assert!(out[896..].iter().all(|&v| v == SENTINEL));
        still_usable(device, &untouched, &[5; 4]);
        // With a length that is a multiple of the block, no thread returns early.
        let input = random_f32(&mut rng("early_return_full"), 1024);
        let mut out = DeviceBuffer::from_slice(device, &[SENTINEL; 1024]).unwrap();
        launch!(rotate_early_return[8, 128](&input, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), rotate_reference(&input, 128));
    });
}

#[test]
fn unsynchronised_read_of_a_shared_flag_is_a_race() {
    without_hanging(|device| {
        let untouched = DeviceBuffer::from_slice(device, &[4u32, 3]).unwrap();
        let write = site("shared_flag_race", "set(0, 100 + b)", 0);
        let read = site("shared_flag_race", "get(0)", 0);
        // Rank 70 is thread (6, 2, 0) of a 32 x 3 block. The reader runs first: it reads, then
        // the writer's store finds the race.
        let (fault, seen) = flag_race_outcome(device, 70, 5);
        assert_eq!(
            data_race(&fault),
            (
                Dim3::new(3, 0, 0),
                access((5, 0), false, read),
                access((6, 2), true, write),
                (0, SharedMemoryKind::Static, 4)
            )
        );
        assert_eq!(
            fault.to_string(),
            format!(
                "kernel `shared_flag_race`: data race on shared memory in block (3, 0, 0): thread (5, 0, 0) read at {read} and thread (6, 2, 0) wrote at {write} with no syncthreads between (byte 0 of a 4-byte static shared array)"
            )
        );
        // Blocks 0..3 ran correctly; in block 3 the reader copied the poisoned (never written)
        // flag before the race was found; block 4 never started.
        assert_eq!(seen, [100, 101, 102, u32::MAX, 0]);
        // The writer runs first: the reader's load finds the race.
        let (fault, _) = flag_race_outcome(device, 5, 70);
        assert_eq!(
            data_race(&fault),
            (
                Dim3::new(3, 0, 0),
                access((5, 0), true, write),
                access((6, 2), false, read),
                (0, SharedMemoryKind::Static, 4)
            )
        );
        // One thread writing then reading its own flag needs no barrier.
        let mut seen = DeviceBuffer::from_slice(device, &[0u32; 5]).unwrap();
        launch!(shared_flag_race[5, (32, 3)](&mut seen, 3u32, 70u32, 70u32)).unwrap();
        assert_eq!(seen.to_vec().unwrap(), [100, 101, 102, 103, 104]);
        still_usable(device, &untouched, &[4, 3]);
    });
}

#[test]
fn two_threads_writing_one_shared_element_race() {
    without_hanging(|device| {
        let untouched = DeviceBuffer::from_slice(device, &[8u32; 8]).unwrap();
        let (fault, out) = write_race_outcome(device);
        let write = site("shared_write_race", "[t / 2] = t", 0);
        assert_eq!(
            data_race(&fault),
            (
                Dim3::new(0, 0, 0),
                access((0, 0), true, write),
                access((1, 0), true, write),
                (0, SharedMemoryKind::Static, 1024)
            )
        );
        assert!(out.iter().all(|&v| v == u32::MAX));
        still_usable(device, &untouched, &[8; 8]);
    });
}

#[test]
fn stencil_without_its_barrier_races() {
    without_hanging(|device| {
        let untouched = DeviceBuffer::from_slice(device, &[6u32; 3]).unwrap();
        let (fault, out) = stencil_race_outcome(device);
        let write = site("stencil_missing_barrier", "[t] = input[i]", 0);
        let read = site("stencil_missing_barrier", "[t + 1]", 0);
        // Thread 0 reads its neighbour's element before thread 1 has written it.
        assert_eq!(
            data_race(&fault),
            (
                Dim3::new(0, 0, 0),
                access((0, 0), false, read),
                access((1, 0), true, write),
                (4, SharedMemoryKind::Static, 1024)
            )
        );
        // Thread 0 finished before the race was found: it read the poisoned (NaN) tile.
        assert!(out[0].is_nan(), "{}", out[0]);
        assert!(out[1..].iter().all(|&v| v == SENTINEL));
        // With host slices the launch waits for the kernel, so it returns the fault itself.
        let input = random_f32(&mut rng("stencil_race_host"), 200);
        let mut host_out = vec![SENTINEL; 200];
        match launch!(stencil_missing_barrier[2, 128, &device.default_stream()](&input, &mut host_out))
        {
            Err(Error::SimulatorFault(from_launch)) => assert_eq!(*from_launch, fault),
            other => panic!("expected the race from the launch, got {other:?}"),
        }
        device
            .synchronize()
            .expect("already reported by the launch");
        still_usable(device, &untouched, &[6; 3]);
    });
}

#[test]
fn reports_and_partial_results_are_deterministic() {
    without_hanging(|device| {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
        for _ in 0..2 {
            assert_eq!(
                divergent_syncthreads_outcome(device),
                divergent_syncthreads_outcome(device)
            );
            let (a, b) = (
                reduce_in_branch_outcome(device),
                reduce_in_branch_outcome(device),
            );
            assert_eq!((&a.0, bits(&a.1)), (&b.0, bits(&b.1)));
            let (a, b) = (
                early_return_outcome(device).0,
                early_return_outcome(device).0,
            );
            assert_eq!((&a.0, bits(&a.1)), (&b.0, bits(&b.1)));
            assert_eq!(
                flag_race_outcome(device, 70, 5),
                flag_race_outcome(device, 70, 5)
            );
            assert_eq!(write_race_outcome(device), write_race_outcome(device));
            let (a, b) = (stencil_race_outcome(device), stencil_race_outcome(device));
            assert_eq!((&a.0, bits(&a.1)), (&b.0, bits(&b.1)));
        }
    });
}

#[test]
fn faults_on_several_host_threads_stay_with_their_thread() {
    // Each OS thread gets its own fault, and a clean thread sees none.
    let racy = std::thread::spawn(|| without_hanging(|device| write_race_outcome(device).0));
    let divergent =
        std::thread::spawn(|| without_hanging(|device| divergent_syncthreads_outcome(device).0));
    let clean = std::thread::spawn(|| {
        without_hanging(|device| {
            let input = random_f32(&mut rng("clean_thread"), 777);
            let mut out = DeviceBuffer::from_slice(device, &[SENTINEL; 777]).unwrap();
            launch!(rotate_guarded[blocks(777, 100), 100](&input, &mut out)).unwrap();
            device.synchronize().unwrap();
            assert_eq!(out.to_vec().unwrap(), rotate_reference(&input, 100));
        })
    });
    assert!(matches!(
        racy.join().unwrap(),
        SimulatorFault::DataRace { kernel, .. } if kernel == "shared_write_race"
    ));
    assert!(matches!(
        divergent.join().unwrap(),
        SimulatorFault::DivergentBarrier { block, .. } if block == Dim3::new(7, 0, 0)
    ));
    clean.join().unwrap();
}

/// The kernels of `device_api` that lean hardest on shared memory and barriers, over many block
/// shapes and lengths that are not multiples of the block: no detector may fire.
#[test]
fn no_false_reports_on_correct_shared_memory_kernels() {
    without_hanging(|device| {
        let mut rng = rng("no_false_reports");
        for (n, block) in [
            (1usize, 1usize),
            (31, 32),
            (1000, 33),
            (4099, 256),
            (700, 255),
        ] {
            let input = random_f32(&mut rng, n);
            let mut out = DeviceBuffer::from_slice(device, &vec![SENTINEL; n]).unwrap();
            launch!(api_shared_reverse[blocks(n, block), block as u32](&input, &mut out)).unwrap();
            device.synchronize().unwrap();
            let expected: Vec<f32> = input
                .chunks(block)
                .flat_map(|c| c.iter().rev().copied())
                .collect();
            assert_eq!(
                out.to_vec().unwrap(),
                expected,
                "reverse, n = {n}, block = {block}"
            );
        }
        for (n, block) in [(1usize, 1usize), (1000, 64), (4099, 512), (3000, 1024)] {
            let input = random_f32(&mut rng, n);
            let grid = blocks(n, block);
            let mut partial = DeviceBuffer::<f32>::zeros(device, grid as usize).unwrap();
            launch!(api_dynamic_block_sum[grid, block as u32, &device.default_stream(), (4 * block) as u32](
                &input, &mut partial
            ))
            .unwrap();
            device.synchronize().unwrap();
            let expected: Vec<f32> = input.chunks(block).map(|c| c.iter().sum()).collect();
            assert_close(&partial.to_vec().unwrap(), &expected, 1e-5);
        }
        for (n, grid, block) in [(10_007usize, 7u32, 96u32), (5usize, 3, 1), (3001, 2, 1024)] {
            let data = random_u32(&mut rng, n, 1 << 16);
            let mut bins = DeviceBuffer::<u32>::zeros(device, BINS).unwrap();
            launch!(histogram_shared[grid, block](&data, &mut bins)).unwrap();
            device.synchronize().unwrap();
            let mut expected = vec![0u32; BINS];
            for v in &data {
                expected[*v as usize % BINS] += 1;
            }
            assert_eq!(
                bins.to_vec().unwrap(),
                expected,
                "histogram, n = {n}, block = {block}"
            );
        }
    });
}

device_tests! {
    /// The fixed reduction: the barrier after the branch, reached by every thread.
    fn reduction_with_the_barrier_outside_the_branch(device) {
        let mut rng = rng("reduce_outside_branch");
        for (n, block) in [(1usize, 1usize), (1000, 128), (777, 100), (4099, 256), (65, 33)] {
            let input = random_f32(&mut rng, n);
            let grid = blocks(n, block);
            let mut partial = DeviceBuffer::from_slice(device, &vec![SENTINEL; grid as usize]).unwrap();
            launch!(reduce_barrier_outside_branch[grid, block as u32](&input, &mut partial)).unwrap();
            let expected: Vec<f32> = input.chunks(block).map(|c| c.iter().sum()).collect();
            assert_close(&partial.to_vec().unwrap(), &expected, 1e-5);
        }
    }

    /// The fixed rotation: guarded loads and stores instead of an early return.
    fn rotation_with_guards_instead_of_an_early_return(device) {
        let mut rng = rng("rotate_guarded");
        for (n, block) in [(1usize, 32usize), (1000, 128), (777, 100), (4099, 256), (64, 33)] {
            let input = random_f32(&mut rng, n);
            let mut out = DeviceBuffer::from_slice(device, &vec![SENTINEL; n]).unwrap();
            launch!(rotate_guarded[blocks(n, block), block as u32](&input, &mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap(), rotate_reference(&input, block), "n = {n}, block = {block}");
        }
    }

    /// The fixed stencil: a barrier between the writes of the tile and the neighbour reads.
    fn stencil_with_its_barrier(device) {
        let mut rng = rng("stencil_with_barrier");
        for (n, block) in [(1usize, 32usize), (300, 128), (777, 100), (4099, 256), (65, 1)] {
            let input = random_f32(&mut rng, n);
            let mut out = DeviceBuffer::from_slice(device, &vec![SENTINEL; n]).unwrap();
            launch!(stencil_with_barrier[blocks(n, block), block as u32](&input, &mut out)).unwrap();
            assert_eq!(out.to_vec().unwrap(), stencil_reference(&input), "n = {n}, block = {block}");
        }
    }

    /// The flag kernel without its race: every block has the barrier (no racy block).
    fn shared_flag_with_its_barrier(device) {
        let mut seen = DeviceBuffer::from_slice(device, &[0u32; 9]).unwrap();
        launch!(shared_flag_race[9, (32, 3)](&mut seen, u32::MAX, 70u32, 5u32)).unwrap();
        assert_eq!(seen.to_vec().unwrap(), (100..109).collect::<Vec<u32>>());
    }
}
