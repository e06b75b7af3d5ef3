//! Asynchronous copies to shared memory (`cp.async`) and `ldmatrix` (the kernels of
//! `test_kernels::async_copy`) against CPU references, on the simulator and the GPU; and the
//! misuses the simulator reports: an access to a copy not yet waited for, `wait_group` keeping
//! exactly its newest groups pending, bad sizes and alignments, `ldmatrix` without its whole
//! warp. (`async_copy.rs` is about host-side asynchronous memory copies.)
//!
//! Both instructions need sm_80: the GPU variants run when the test kernels' PTX targets sm_80 or
//! newer (`scripts/gpu-bundle.sh` builds them for sm_90) and say they are skipped otherwise.

use ferrocuda::prelude::*;
use ferrocuda::{SimulatorFault, SourceSite};
use ferrocuda_tests::{assert_close, device_tests, expect_panic, random_f32, random_u32, rng};
use rand::seq::SliceRandom;
use test_kernels::async_copy::*;

/// The kernel source, as the simulator names it in locations.
const KERNELS_FILE: &str = "tests/kernels/src/async_copy.rs";

/// The architecture number of the test kernels' PTX (`.target sm_90` gives 90).
fn ptx_architecture() -> u32 {
    let ptx = test_kernels::__FERROCUDA_MODULE.ptx;
    let target = ptx
        .lines()
        .find_map(|l| l.trim().strip_prefix(".target sm_"))
        .expect("a .target line in the PTX");
    target
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .expect("an architecture number")
}

/// Whether the kernels can run on `device`: always on the simulator, on a GPU when the PTX was
/// built for sm_80 or newer (else it says why it skips).
fn runs_on(device: &Device) -> bool {
    if device.is_simulator() || ptx_architecture() >= 80 {
        return true;
    }
    eprintln!(
        "skipped on the GPU: the test kernels were built for sm_{}, and cp.async and ldmatrix need sm_80 (build with FERROCUDA_ARCH=sm_90, as scripts/gpu-bundle.sh does)",
        ptx_architecture()
    );
    false
}

/// `input[i]`, or zero past its end (what the zero-fill copies stage).
fn padded<T: Copy + Default>(input: &[T], i: usize) -> T {
    input.get(i).copied().unwrap_or_default()
}

/// The pipeline kernel's result, computed on the CPU in the kernel's order.
fn pipeline_reference(input: &[f32], tiles: usize, blocks: usize) -> Vec<f32> {
    let mut out = Vec::new();
    for block in 0..blocks {
        for t in 0..PIPELINE_THREADS {
            let mut sum = 0.0f32;
            for k in 0..tiles {
                let tile = (block * tiles + k) * PIPELINE_TILE;
                let index = (4 * t + 5 * k + 1) % PIPELINE_TILE;
                sum += (k + 1) as f32 * padded(input, tile + index);
            }
            out.push(sum);
        }
    }
    out
}

/// The fragment registers of `ldmatrix` for every lane, from the PTX ISA's description ("matrix
/// fragments for ldmatrix"): element `(row, col)` of the 8x8 fragment of matrix `i` is held by
/// thread `4 * row + col / 2`, in the low half of its register `i` when `col` is even; row `k` of
/// matrix `i` is the 8 elements at the address lane `8 * i + k` gave; `.trans` puts element
/// `(col, row)` of the stored matrix at fragment position `(row, col)`.
fn ldmatrix_reference(matrix: &[u16], rows: &[u32], matrices: usize, transpose: bool) -> Vec<u32> {
    let mut out = vec![0xdead_beef_u32; 4 * 32];
    for i in 0..matrices {
        out.iter_mut()
            .skip(i)
            .step_by(4)
            .for_each(|register| *register = 0);
        let stored = |r: usize, c: usize| matrix[8 * rows[8 * i + r] as usize + c] as u32;
        for row in 0..8 {
            for col in 0..8 {
                let value = if transpose {
                    stored(col, row)
                } else {
                    stored(row, col)
                };
                let thread = 4 * row + col / 2;
                out[4 * thread + i] |= value << (16 * (col % 2));
            }
        }
    }
    out
}

/// Launches `async_copy_bad` in `mode` with its 64 bytes of shared memory and waits (a kernel
/// panic comes from the launch on the simulator, from the synchronization on a GPU).
fn bad_copy(
    device: &Device,
    input: &[f32],
    mode: u32,
    out: &mut DeviceBuffer<f32>,
) -> ferrocuda::Result<()> {
    launch!(async_copy_bad[1, 1, &device.default_stream(), 64](input, mode, out))
        .and_then(|()| device.synchronize())
}

device_tests! {
    fn pipeline_sums_tiles_through_three_stages(device) {
        if !runs_on(device) {
            return;
        }
        let mut rng = rng("async_copy_pipeline");
        let shared = (PIPELINE_STAGES * PIPELINE_TILE * 4) as u32;
        // Tiles per block below, at and above the stages in flight; inputs ending inside a
        // thread's 16 bytes, at a tile's end, and before the last tiles.
        for (n, tiles, blocks) in [(1000, 3, 2), (5 * 256, 5, 1), (3001, 1, 12), (700, 4, 3), (2, 2, 2)] {
            let input = random_f32(&mut rng, n);
            let mut out = DeviceBuffer::from_slice(device, &vec![f32::NAN; blocks * PIPELINE_THREADS]).unwrap();
            launch!(async_copy_pipeline[blocks as u32, PIPELINE_THREADS as u32, &device.default_stream(), shared](
                &input, tiles as u32, &mut out
            ))
            .unwrap();
            assert_close(&out.to_vec().unwrap(), &pipeline_reference(&input, tiles, blocks), 1e-5);
        }
    }

    fn copies_of_four_eight_and_sixteen_bytes_with_zero_fill(device) {
        if !runs_on(device) {
            return;
        }
        let mut rng = rng("async_copy_sizes");
        let shared = (SIZES_ELEMENTS * 4) as u32;
        // 218: thread 30 copies two elements and zeros, thread 31 only zeros.
        for n in [SIZES_ELEMENTS, 218, 96] {
            let input = random_u32(&mut rng, n, u32::MAX);
            let mut out = DeviceBuffer::from_slice(device, &[7u32; SIZES_ELEMENTS]).unwrap();
            launch!(async_copy_sizes[1, SIZES_THREADS as u32, &device.default_stream(), shared](&input, &mut out))
                .unwrap();
            let expected: Vec<u32> =
                (0..SIZES_ELEMENTS).map(|i| padded(&input, SIZES_ELEMENTS - 1 - i)).collect();
            assert_eq!(out.to_vec().unwrap(), expected, "n = {n}");
        }
    }

    fn bad_copies_stop_with_a_message(device) {
        if !runs_on(device) {
            return;
        }
        let input: Vec<f32> = (0..8).map(|i| i as f32).collect();
        let cases = [
            (0, &["shared destination", "not aligned"][..]),
            (1, &["global source", "not aligned"][..]),
            (2, &["a cp.async copies 4, 8 or 16 bytes"][..]),
            (3, &["async_copy_zero_fill: the source is longer than the copy"][..]),
            (4, &["out of bounds of", "shared array"][..]),
        ];
        for (mode, words) in cases {
            let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
            let panic = expect_panic(bad_copy(device, &input, mode, &mut out));
            for word in words {
                assert!(panic.message.contains(word), "mode {mode}: {}", panic.message);
            }
            // The kernel's line, not the device crate's (the GPU may name the file absolutely).
            assert!(panic.file.ends_with("kernels/src/async_copy.rs"), "mode {mode}: {}", panic.file);
        }
        // The simulator names the numbers.
        if device.is_simulator() {
            let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
            let panic = expect_panic(bad_copy(device, &input, 2, &mut out));
            assert!(panic.message.starts_with("async_copy of 12 bytes"), "{}", panic.message);
            let panic = expect_panic(bad_copy(device, &input, 4, &mut out));
            assert_eq!(
                panic.message,
                "async_copy of 4 elements to index 14 is out of bounds of a shared array of 16 elements"
            );
        }
        // A good copy goes through, checked or unchecked.
        for mode in [5, 7] {
            let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
            bad_copy(device, &input, mode, &mut out).unwrap();
            assert_eq!(out.to_vec().unwrap(), [4.0], "mode {mode}");
        }
        // The simulator checks the unchecked form too: a broken contract stops there with the
        // checked form's message (on a GPU it would be undefined behaviour: not launched).
        if device.is_simulator() {
            let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
            let panic = expect_panic(bad_copy(device, &input, 6, &mut out));
            assert_eq!(
                panic.message,
                "async_copy of 4 elements to index 14 is out of bounds of a shared array of 16 elements"
            );
        }
    }

    fn waited_copies_are_read_by_other_threads_after_a_barrier(device) {
        if !runs_on(device) {
            return;
        }
        let input = random_f32(&mut rng("async_copy_misuse_fixed"), 256);
        let mut out = DeviceBuffer::from_slice(device, &[f32::NAN; 64]).unwrap();
        launch!(async_copy_misuse[1, 32, &device.default_stream(), 1024](&input, 4, &mut out)).unwrap();
        let out = out.to_vec().unwrap();
        let expected: Vec<f32> = (0..32).map(|t| input[(4 * t + 4) % 128]).collect();
        assert_eq!(out[..32], expected);
    }

    fn ldmatrix_gives_every_lane_its_fragment(device) {
        if !runs_on(device) {
            return;
        }
        let mut rng = rng("ldmatrix_fragments");
        // Distinct values (an odd multiplier permutes the 16-bit numbers), rows in random order.
        let offset: u16 = rand::Rng::random(&mut rng);
        let matrix: Vec<u16> = (0..LDMATRIX_ELEMENTS as u16)
            .map(|i| i.wrapping_mul(40503).wrapping_add(offset))
            .collect();
        for variant in 0..6u32 {
            let mut order: Vec<u32> = (0..64).collect();
            order.shuffle(&mut rng);
            let rows = &order[..32];
            let mut out = DeviceBuffer::from_slice(device, &[0u32; 4 * 32]).unwrap();
            launch!(ldmatrix_fragments[1, 32, &device.default_stream(), 1024](
                &matrix, rows, variant, &mut out
            ))
            .unwrap();
            let matrices = [1, 2, 4][variant as usize % 3];
            let expected = ldmatrix_reference(&matrix, rows, matrices, variant >= 3);
            let out = out.to_vec().unwrap();
            for lane in 0..32 {
                assert_eq!(
                    out[4 * lane..4 * lane + 4],
                    expected[4 * lane..4 * lane + 4],
                    "variant {variant} (x{matrices}, trans: {}), lane {lane}",
                    variant >= 3
                );
            }
        }
    }
}

/// The line number of the `nth` (from 0) line containing `needle` after the kernel body
/// `fn {function}(` (in the module `body`) of the kernel source.
fn line_of(function: &str, needle: &str, nth: usize) -> u32 {
    let source = include_str!("../kernels/src/async_copy.rs");
    let lines: Vec<&str> = source.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains(&format!("pub(super) fn {function}(")))
        .unwrap_or_else(|| panic!("no body fn {function}"));
    lines[start..]
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth)
        .map(|(k, _)| (start + k + 1) as u32)
        .unwrap_or_else(|| panic!("`{needle}` #{nth} not after fn {function}"))
}

/// File and line of a site.
fn at(site: SourceSite) -> (&'static str, u32) {
    (site.file, site.line)
}

/// Launches the misuse kernel in `mode` on the simulator and returns its fault.
fn misuse_fault(mode: u32) -> SimulatorFault {
    let device = Device::simulator();
    let input = random_f32(&mut rng("async_copy_misuse"), 256);
    let mut out = DeviceBuffer::<f32>::zeros(&device, 64).unwrap();
    let result =
        launch!(async_copy_misuse[1, 32, &device.default_stream(), 1024](&input, mode, &mut out))
            .and_then(|()| device.synchronize());
    match result {
        Err(Error::SimulatorFault(fault)) => {
            assert_eq!(fault.kernel(), "async_copy_misuse");
            *fault
        }
        other => panic!("mode {mode}: expected a fault, got {other:?}"),
    }
}

/// The access, the copy and `committed` of a pending-copy fault.
fn pending(fault: &SimulatorFault) -> (ferrocuda::SharedAccess, ferrocuda::SharedAccess, bool) {
    match fault {
        SimulatorFault::AsyncCopyPending {
            access,
            copy,
            committed,
            ..
        } => (*access, *copy, *committed),
        other => panic!("expected an access to a pending copy, got {other}"),
    }
}

#[test]
fn simulator_reports_a_read_after_the_commit_before_the_wait() {
    let fault = misuse_fault(0);
    let (access, copy, committed) = pending(&fault);
    assert_eq!(access.thread, Dim3::new(0, 0, 0));
    assert!(!access.write);
    assert_eq!(
        at(access.site),
        (KERNELS_FILE, line_of("misuse", "out[t] = staged[4 * t]", 0))
    );
    assert_eq!(copy.thread, Dim3::new(0, 0, 0));
    assert_eq!(
        at(copy.site),
        (
            KERNELS_FILE,
            line_of("misuse", "async_copy(&mut staged, 4 * t", 0)
        )
    );
    assert!(committed);
    let text = fault.to_string();
    assert!(text.contains("has not been waited for"), "{text}");
}

#[test]
fn simulator_reports_a_read_of_an_uncommitted_copy() {
    let fault = misuse_fault(1);
    let (access, _, committed) = pending(&fault);
    assert_eq!(
        at(access.site),
        (KERNELS_FILE, line_of("misuse", "out[t] = staged[4 * t]", 1))
    );
    assert!(!committed);
    assert!(fault.to_string().contains("never committed"), "{fault}");
}

#[test]
fn wait_group_keeps_exactly_the_newest_groups_pending() {
    // `wait::<1>` after two groups: group A is complete (its read passes), group B is not.
    let fault = misuse_fault(2);
    let (access, copy, committed) = pending(&fault);
    assert_eq!(
        at(access.site),
        (
            KERNELS_FILE,
            line_of("misuse", "out[32 + t] = staged[128 + 4 * t]", 0)
        )
    );
    assert_eq!(
        at(copy.site),
        (
            KERNELS_FILE,
            line_of("misuse", "async_copy(&mut staged, 128 + 4 * t", 0)
        )
    );
    assert!(committed);
}

#[test]
fn waited_copies_still_need_a_barrier_for_other_threads() {
    // Thread 0 reads thread 1's destination without a barrier; thread 1's copy then races.
    match misuse_fault(3) {
        SimulatorFault::DataRace { first, second, .. } => {
            assert_eq!((first.thread, first.write), (Dim3::new(0, 0, 0), false));
            assert_eq!(
                at(first.site).1,
                line_of("misuse", "out[t] = staged[(4 * t + 4) % 128]", 0)
            );
            assert_eq!((second.thread, second.write), (Dim3::new(1, 0, 0), true));
            assert_eq!(
                at(second.site).1,
                line_of("misuse", "async_copy(&mut staged, 4 * t", 0)
            );
        }
        other => panic!("expected a data race, got {other}"),
    }
}

/// Launches the `ldmatrix` misuse kernel on the simulator.
fn ldmatrix_misuse_result(mode: u32, threads: u32) -> ferrocuda::Result<()> {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<u32>::zeros(&device, threads as usize).unwrap();
    launch!(ldmatrix_misuse[1, threads, &device.default_stream(), 1024](mode, &mut out))
        .and_then(|()| device.synchronize())
}

#[test]
fn ldmatrix_without_its_whole_warp_is_a_divergent_warp_operation() {
    match ldmatrix_misuse_result(0, 32) {
        Err(Error::SimulatorFault(fault)) => {
            assert!(
                matches!(*fault, SimulatorFault::DivergentWarpOperation { .. }),
                "{fault}"
            );
            assert!(fault.to_string().contains("ldmatrix.x4"), "{fault}");
        }
        other => panic!("expected a divergent warp operation, got {other:?}"),
    }
}

#[test]
fn ldmatrix_checks_each_lanes_row() {
    let panic = expect_panic(ldmatrix_misuse_result(1, 32));
    assert!(
        panic.message.contains("is not 16-byte aligned"),
        "{}",
        panic.message
    );
    assert_eq!(panic.thread, Dim3::new(3, 0, 0));
    assert_eq!(
        (panic.file.as_str(), panic.line),
        (
            KERNELS_FILE,
            line_of("ldmatrix_misuse", "ldmatrix_x4(&tile, row)", 0)
        )
    );
    let panic = expect_panic(ldmatrix_misuse_result(2, 32));
    assert_eq!(
        panic.message,
        "ldmatrix: the row of 8 elements at index 508 leaves the shared array of 512 elements"
    );
    assert_eq!(panic.thread, Dim3::new(9, 0, 0));
    // The unchecked form checks on the simulator too.
    let panic = expect_panic(ldmatrix_misuse_result(4, 32));
    assert_eq!(
        panic.message,
        "ldmatrix: the row of 8 elements at index 508 leaves the shared array of 512 elements"
    );
    assert_eq!(panic.thread, Dim3::new(9, 0, 0));
    // Nothing wrong: the kernel runs, checked or unchecked.
    ldmatrix_misuse_result(3, 32).unwrap();
    ldmatrix_misuse_result(5, 32).unwrap();
}

#[test]
fn ldmatrix_in_a_partial_warp_stops() {
    let panic = expect_panic(ldmatrix_misuse_result(3, 48));
    assert!(panic.message.contains("partial warp"), "{}", panic.message);
    assert_eq!(panic.thread.x / 32, 1);
}
