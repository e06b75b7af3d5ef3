//! The simulator keeps the promises the GPU keeps (issue 9, point 7): a spin-wait on a flag
//! another thread of the block, or a later block, sets completes; a launch that makes no
//! progress is reported by the watchdog instead of hanging; a thread's stack overflow is the
//! launch's error, naming the kernel and `FERROCUDA_SIMULATOR_STACK_KIB`, and the process goes
//! on; shared memory up to an H100's opt-in 227 KiB runs; `u32` overflow behaves the same on
//! both backends; a debug build's precondition failure names the kernel.
//!
//! The tests that end a process (an endless loop, a non-unwinding panic) or need an environment
//! variable set before the simulator starts (a larger stack) run this binary again with a filter
//! and an environment variable that makes the child do the dangerous part, and check what the
//! child printed.

use ferrocuda::prelude::*;
use ferrocuda::{SimulatorFault, ThreadActivity};
use ferrocuda_tests::device_tests;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};
use test_kernels::simulator_promises::*;

/// How long a launch may take before the test calls it a hang.
const HANG_LIMIT: Duration = Duration::from_secs(60);

/// Set in a child process: which dangerous launch to make.
const CHILD_ENV: &str = "FERROCUDA_TEST_PROMISES_CHILD";

/// Runs `body` on another OS thread; fails the test if it has not finished within
/// [`HANG_LIMIT`].
fn without_hanging<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    let (done, result) = mpsc::channel();
    std::thread::spawn(move || {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        let _ = done.send(outcome);
    });
    match result.recv_timeout(HANG_LIMIT) {
        Ok(Ok(value)) => value,
        Ok(Err(panic)) => std::panic::resume_unwind(panic),
        Err(_) => panic!("the launch did not finish within {HANG_LIMIT:?}: a hang"),
    }
}

/// Runs this binary's test `child` alone with `CHILD_ENV` set and `env`; whether it succeeded,
/// and its stdout and stderr together. A child still running after [`HANG_LIMIT`] is killed and
/// reported as a hang.
fn run_child(child: &str, env: &[(&str, &str)]) -> (bool, String) {
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    command.args([child, "--exact", "--test-threads=1", "--nocapture"]);
    command.env(CHILD_ENV, "1");
    for (name, value) in env {
        command.env(name, value);
    }
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut process = command.spawn().expect("running the test binary");
    let started = Instant::now();
    while process.try_wait().expect("waiting for the child").is_none() {
        if started.elapsed() > HANG_LIMIT {
            process.kill().expect("killing the child");
            panic!("the child `{child}` did not finish within {HANG_LIMIT:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let output = process.wait_with_output().expect("the child's output");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.success(), text)
}

/// Whether this process is a child started by [`run_child`].
fn is_child() -> bool {
    std::env::var_os(CHILD_ENV).is_some()
}

/// The result of a launch and the synchronization after it.
fn launched(device: &Device, launch: ferrocuda::Result<()>) -> ferrocuda::Result<()> {
    launch?;
    device.synchronize()
}

device_tests! {
    fn a_spin_on_a_flag_later_blocks_set_completes(device) {
        // Block b waits for block b + 1; the last sets its flag at once (up to 31 blocks of 64
        // threads: all resident at once on the simulator's 2048 threads, as on a GPU).
        for blocks in [2u32, 3, 31] {
            let device = device.clone();
            let flags = without_hanging(move || {
                let mut flags = DeviceBuffer::<u32>::zeros(&device, blocks as usize).unwrap();
                launched(&device, launch!(wait_for_next_block[blocks, 64](&mut flags))).unwrap();
                flags.to_vec().unwrap()
            });
            let expected: Vec<u32> = (1..=blocks).collect();
            assert_eq!(flags, expected, "{blocks} blocks");
        }
    }

    fn a_spin_wait_on_a_flag_of_the_block_completes(device) {
        let device = device.clone();
        let out = without_hanging(move || {
            let blocks = 3usize;
            let mut flags = DeviceBuffer::from_slice(&device, &vec![0u32; blocks]).unwrap();
            let mut out = DeviceBuffer::from_slice(&device, &vec![0u32; blocks]).unwrap();
            let launch = launch!(spin_on_flag[blocks as u32, 64](&mut flags, &mut out));
            launched(&device, launch).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(out, [1, 1, 1]);
    }

    fn shared_memory_beyond_96_kib_runs(device) {
        let threads = 256usize;
        let mut out = DeviceBuffer::from_slice(device, &vec![0u32; threads]).unwrap();
        let stream = device.default_stream();
        let launch = launch!(shared_beyond_96k[1, threads as u32, &stream, DYNAMIC_BYTES as u32](&mut out));
        launched(device, launch).unwrap();
        let total = STATIC_WORDS + DYNAMIC_BYTES / 4;
        let expected: Vec<u32> = (0..threads)
            .map(|t| {
                ((t + 1) % threads..total)
                    .step_by(threads)
                    .fold(0u32, |sum, j| sum.wrapping_add(j as u32))
            })
            .collect();
        assert_eq!(out.to_vec().unwrap(), expected);
    }

    fn memory_info_counts_allocations_and_frees_them_on_drop(device) {
        // A GPU's free memory is the whole device's: another process (the sanitizer runs four
        // test binaries at a time) can allocate or free between two readings, so the GPU gets a
        // few attempts, each of which must see the whole rise and fall on its own.
        let attempts = if device.is_simulator() { 1 } else { 5 };
        let mut failures = Vec::new();
        for _ in 0..attempts {
            match allocate_and_free_once(device) {
                Ok(()) => return,
                Err(failure) => failures.push(failure),
            }
        }
        panic!("memory_info did not follow a 1 GiB buffer: {failures:?}");
    }

    fn an_allocation_beyond_total_memory_fails(device) {
        let total = device.total_memory();
        let result = DeviceBuffer::<u8>::zeros(device, total + 1);
        assert!(result.is_err(), "allocating {} bytes succeeded", total + 1);
        // The device stays usable.
        let small = DeviceBuffer::from_slice(device, &[1u32, 2]).unwrap();
        assert_eq!(small.to_vec().unwrap(), [1, 2]);
    }

    fn u32_overflow_is_the_same_on_both_backends(device) {
        let mut out = DeviceBuffer::from_slice(device, &[0u32]).unwrap();
        let result = launched(device, launch!(overflowing_add[1, 1](u32::MAX, 2, &mut out)));
        if cfg!(debug_assertions) {
            match result {
                Err(Error::KernelPanic(panic)) => {
                    assert_eq!(panic.kernel, "overflowing_add");
                }
                other => panic!("a debug build must panic on u32 overflow, got {other:?}"),
            }
        } else {
            result.unwrap();
            assert_eq!(out.to_vec().unwrap(), [1]);
        }
    }
}

#[test]
fn an_allocation_beyond_total_memory_is_out_of_memory_on_the_simulator() {
    let device = Device::simulator();
    let total = device.total_memory();
    let kept = DeviceBuffer::<u8>::zeros(&device, 1 << 20).unwrap();
    match DeviceBuffer::<u8>::zeros(&device, total) {
        Err(Error::OutOfMemory {
            device: name,
            requested,
            available,
        }) => {
            assert_eq!(requested, total);
            assert!(
                available <= total - (1 << 20),
                "{available} of {total} free"
            );
            assert_eq!(name, "the ferrocuda CPU simulator");
        }
        other => panic!("expected OutOfMemory, got {:?}", other.map(|b| b.len())),
    }
    drop(kept);
}

#[test]
fn where_threads_yield_depends_only_on_the_launch() {
    let device = Device::simulator();
    let claims = |rounds: u32| {
        let mut counter = DeviceBuffer::from_slice(&device, &[0u32]).unwrap();
        let mut last = DeviceBuffer::from_slice(&device, &[0u32; 8]).unwrap();
        launched(
            &device,
            launch!(interleaved_claims[1, 8](&mut counter, &mut last, rounds)),
        )
        .unwrap();
        last.to_vec().unwrap()
    };
    // 8000 atomics: the threads yield at least once (every 4096 atomics).
    let first = claims(1000);
    // A launch with a number of atomics that is no multiple of the yield period in between.
    claims(5);
    assert_eq!(claims(1000), first);
}

#[test]
fn a_spin_for_a_flag_nobody_sets_is_reported_by_the_watchdog() {
    let (passed, text) = run_child(
        "child_wait_for_nobody",
        &[("FERROCUDA_SIMULATOR_WATCHDOG_SECS", "1")],
    );
    assert!(passed, "{text}");
    // Both blocks spin; the watchdog stops the one whose turn it is when the time is up.
    assert!(
        text.contains("kernel `wait_for_nobody`: no progress in block (0, 0, 0) for 1 s")
            || text.contains("kernel `wait_for_nobody`: no progress in block (1, 0, 0) for 1 s"),
        "{text}"
    );
}

#[test]
fn child_wait_for_nobody() {
    if !is_child() {
        return;
    }
    // Two blocks: after block 0 spins, both run in turns, and the watchdog stops the launch in
    // the block whose turn it is.
    let device = Device::simulator();
    let mut flags = DeviceBuffer::from_slice(&device, &[0u32]).unwrap();
    let result = launched(&device, launch!(wait_for_nobody[2, 32](&mut flags)));
    match result {
        Err(Error::SimulatorFault(fault)) => {
            let SimulatorFault::NoProgress { thread, groups, .. } = &*fault else {
                panic!("expected NoProgress, got {fault}");
            };
            assert_eq!(*thread, Dim3::new(0, 0, 0));
            assert_eq!(groups[0].activity, ThreadActivity::Runnable);
            println!("{fault}");
        }
        other => panic!("expected the watchdog's fault, got {other:?}"),
    }
}

#[test]
fn an_endless_loop_is_reported_by_the_watchdog_monitor() {
    let (passed, text) = run_child(
        "child_endless_loop",
        &[("FERROCUDA_SIMULATOR_WATCHDOG_SECS", "1")],
    );
    assert!(!passed, "{text}");
    assert!(
        text.contains("ferrocuda simulator watchdog: kernel `endless_loop` made no progress"),
        "{text}"
    );
    assert!(text.contains("FERROCUDA_SIMULATOR_WATCHDOG_SECS"), "{text}");
}

#[test]
fn child_endless_loop() {
    if !is_child() {
        return;
    }
    let device = Device::simulator();
    let mut out = DeviceBuffer::from_slice(&device, &[0u32]).unwrap();
    let _ = launched(&device, launch!(endless_loop[1, 1](&mut out)));
}

#[test]
fn a_stack_overflow_is_the_launchs_error_and_the_simulator_goes_on() {
    if std::env::var_os("FERROCUDA_SIMULATOR_STACK_KIB").is_some() {
        return;
    }
    let device = Device::simulator();
    let mut out = DeviceBuffer::from_slice(&device, &[0u32; 128]).unwrap();
    // Twice, on 2 blocks of 64 threads: the first thread's overflow ends the launch; the other
    // threads never start; the next launches on the same OS thread work.
    for round in 0..2 {
        match launched(&device, launch!(large_local_array[2, 64](&mut out))) {
            Err(Error::SimulatorFault(fault)) => {
                let SimulatorFault::StackOverflow {
                    kernel,
                    block,
                    thread,
                    stack_bytes,
                } = &*fault
                else {
                    panic!("round {round}: expected StackOverflow, got {fault}");
                };
                assert_eq!(kernel, "large_local_array");
                assert_eq!((*block, *thread), (Dim3::new(0, 0, 0), Dim3::new(0, 0, 0)));
                assert_eq!(*stack_bytes, 256 * 1024);
                let text = fault.to_string();
                assert!(text.contains("FERROCUDA_SIMULATOR_STACK_KIB"), "{text}");
                assert!(text.contains("256 KiB"), "{text}");
            }
            other => panic!("round {round}: expected the overflow's fault, got {other:?}"),
        }
        let mut sum = DeviceBuffer::from_slice(&device, &[0u32]).unwrap();
        launched(&device, launch!(overflowing_add[1, 32](40, 2, &mut sum))).unwrap();
        assert_eq!(sum.to_vec().unwrap(), vec![42]);
    }
}

#[test]
fn a_larger_stack_runs_the_large_local_array() {
    let (passed, text) = run_child(
        "child_large_local_array",
        &[("FERROCUDA_SIMULATOR_STACK_KIB", "2048")],
    );
    assert!(passed, "{text}");
}

#[test]
fn child_large_local_array() {
    if !is_child() {
        return;
    }
    let device = Device::simulator();
    let mut out = DeviceBuffer::from_slice(&device, &[0u32; 2]).unwrap();
    launched(&device, launch!(large_local_array[1, 2](&mut out))).unwrap();
}

#[test]
fn a_precondition_failure_names_the_kernel() {
    if !cfg!(debug_assertions) {
        return;
    }
    let (passed, text) = run_child("child_unchecked_read", &[]);
    assert!(!passed, "{text}");
    assert!(text.contains("unsafe precondition"), "{text}");
    assert!(
        text.contains("kernel `unchecked_read`, block (0, 0, 0), thread (0, 0, 0)"),
        "{text}"
    );
}

#[test]
fn child_unchecked_read() {
    if !is_child() {
        return;
    }
    let device = Device::simulator();
    let data = DeviceBuffer::from_slice(&device, &[1u32, 2, 3]).unwrap();
    let mut out = DeviceBuffer::from_slice(&device, &[0u32]).unwrap();
    let _ = launched(
        &device,
        launch!(unchecked_read[1, 1](&data, 1000, &mut out)),
    );
}

/// Allocates 1 GiB and frees it, checking that `memory_info` follows; why not, if it did not.
fn allocate_and_free_once(device: &Device) -> Result<(), String> {
    const GIB: usize = 1 << 30;
    // Slack for the small buffers other tests of this binary allocate meanwhile.
    const SLACK: usize = 64 << 20;
    let (free_before, total) = device.memory_info().unwrap();
    assert_eq!(total, device.total_memory());
    let buffer = DeviceBuffer::<u8>::zeros(device, GIB).unwrap();
    let (free_during, _) = device.memory_info().unwrap();
    if free_during + GIB > free_before + SLACK {
        return Err(format!(
            "free {free_before} before and {free_during} with 1 GiB allocated"
        ));
    }
    let pinned = PinnedBuffer::<u8>::new(device, 1 << 20).unwrap();
    drop(buffer);
    // A GPU frees stream-ordered (the memory returns at the next synchronization).
    device.synchronize().unwrap();
    let (free_after, _) = device.memory_info().unwrap();
    drop(pinned);
    if free_after + SLACK < free_during + GIB {
        return Err(format!(
            "free {free_during} with 1 GiB allocated and {free_after} after dropping it"
        ));
    }
    Ok(())
}
