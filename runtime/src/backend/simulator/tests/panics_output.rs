//! Panics, output, constants, determinism, thread sets, speed.

use super::execution::VECADD;
use super::races::run_race;
use super::*;

// ---------------------------------------------------------------------------------------------
// Panics.

static PANIC_LINE: AtomicU32 = AtomicU32::new(0);
unsafe fn panics_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let (t, b) = (thread_idx().x, block_idx().x);
    let table = [1u32, 2, 3];
    let index = if (b, t) == (1, 5) || (b, t) == (2, 9) {
        t as usize
    } else {
        0
    };
    PANIC_LINE.store(line!() + 1, Ordering::Relaxed);
    let value = table[std::hint::black_box(index)];
    out[(b * 32 + t) as usize] = value;
}
static PANICS: KernelInfo = KernelInfo::new("panics", &MODULE, panics_sim, &[]);

#[test]
fn a_panic_is_reported_with_message_location_block_and_thread() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 96];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    let result = launch(&sim, &PANICS, 3, 32, 0, &params);
    let Err(Error::KernelPanic(panic)) = result else {
        panic!("expected a panic: {result:?}")
    };
    assert_eq!(panic.kernel, "panics");
    assert_eq!(
        panic.message,
        "index out of bounds: the len is 3 but the index is 5"
    );
    assert_eq!(panic.file, file!());
    assert_eq!(panic.line, PANIC_LINE.load(Ordering::Relaxed));
    assert!(panic.column > 0);
    assert_eq!(
        (panic.block, panic.thread),
        (Dim3::new(1, 0, 0), Dim3::new(5, 0, 0))
    );
    assert_eq!(panic.other_panics, 1);
    // Every other thread ran.
    for (i, v) in out.iter().enumerate() {
        let expected = if i == 32 + 5 || i == 64 + 9 { 0 } else { 1 };
        assert_eq!(*v, expected, "element {i}");
    }
    // The simulator works after a panic.
    launch(&sim, &VECADD, 1, 32, 0, &{
        let mut params = ParamBuffer::default();
        push_slice::<f32>(&mut params, &[]);
        push_slice::<f32>(&mut params, &[]);
        push_slice::<f32>(&mut params, &[]);
        params
    })
    .expect("a later launch works");
}

unsafe fn panic_before_barrier_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<u32>(p, 0) };
    let (t, b) = (thread_idx().x, block_idx().x);
    assert!(!(b == 0 && t == 3), "thread {t} of block {b} gives up");
    sync();
    out[(b * 8 + t) as usize] = 1;
}
static PANIC_BEFORE_BARRIER: KernelInfo = KernelInfo::new(
    "panic_before_barrier",
    &MODULE,
    panic_before_barrier_sim,
    &[],
);

#[test]
fn threads_waiting_for_a_panicked_thread_report_the_panic() {
    let sim = Simulator::new();
    let mut out = vec![0u32; 16];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    let result = launch(&sim, &PANIC_BEFORE_BARRIER, 2, 8, 0, &params);
    let Err(Error::KernelPanic(panic)) = result else {
        panic!("expected a panic: {result:?}")
    };
    assert_eq!(panic.message, "thread 3 of block 0 gives up");
    assert_eq!(
        (panic.block, panic.thread, panic.other_panics),
        (Dim3::new(0, 0, 0), Dim3::new(3, 0, 0), 0)
    );
    // Block 0 stopped at the barrier; block 1 ran.
    assert_eq!(out, [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1]);
}

#[test]
fn panics_outside_kernels_still_reach_the_previous_hook() {
    super::super::panic_capture::install();
    let caught = std::panic::catch_unwind(|| panic!("an ordinary panic"));
    assert!(caught.is_err());
    assert!(super::super::panic_capture::take_captured().is_none());
}

// ---------------------------------------------------------------------------------------------
// Output, constants, determinism.

unsafe fn print_sim(_: &ParamReader<'_>) {
    let (t, b) = (thread_idx().x, block_idx().x);
    sim::hooks().print(&format!("block {b} thread {t}\n"));
    sync();
    if t == 0 {
        sim::hooks().print(&format!("block {b} done\n"));
    }
}
static PRINT: KernelInfo = KernelInfo::new("print", &MODULE, print_sim, &[]);

#[test]
fn printed_lines_come_in_thread_order() {
    let sim = Simulator::new();
    let _ = sim.take_output();
    launch(&sim, &PRINT, 2, 3, 0, &ParamBuffer::default()).expect("runs");
    assert_eq!(
        sim.take_output(),
        "block 0 thread 0\nblock 0 thread 1\nblock 0 thread 2\nblock 0 done\n\
         block 1 thread 0\nblock 1 thread 1\nblock 1 thread 2\nblock 1 done\n"
    );
    assert_eq!(sim.take_output(), "");
}

static SCALE_INIT: [u8; 4] = 2.0f32.to_le_bytes();
unsafe fn constant_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let out = unsafe { slice_mut::<f32>(p, 0) };
    let scale = sim::hooks().constant("SCALE", &SCALE_INIT).cast::<f32>();
    // SAFETY: the simulator's storage for a 4-byte symbol.
    out[rank()] = unsafe { scale.read() } * rank() as f32;
}
static CONSTANT: KernelInfo = KernelInfo::new("constant", &MODULE, constant_sim, &[]);

#[test]
fn constant_memory_reads_what_the_host_wrote() {
    let sim = Simulator::new();
    let mut out = vec![0.0f32; 4];
    let mut params = ParamBuffer::default();
    push_slice_mut(&mut params, &mut out);
    launch(&sim, &CONSTANT, 1, 4, 0, &params).expect("runs");
    assert_eq!(out, [0.0, 2.0, 4.0, 6.0]);
    let storage = sim.constants.storage("SCALE", &SCALE_INIT);
    assert_eq!(
        storage,
        sim.constants.storage("SCALE", &SCALE_INIT),
        "stable address"
    );
    assert_eq!(storage as usize % 16, 0);
    // SAFETY: 4 bytes of storage.
    unsafe { storage.cast::<f32>().write(3.0) };
    launch(&sim, &CONSTANT, 1, 4, 0, &params).expect("runs");
    assert_eq!(out, [0.0, 3.0, 6.0, 9.0]);
}

unsafe fn mixed_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let (out, counter) = unsafe { (slice_mut::<u32>(p, 0), slice::<AtomicU32>(p, 1)) };
    let s = Shared::<u32>::new(9, 64);
    let t = rank();
    let ticket = counter[0].fetch_add(1, Ordering::Relaxed);
    s.set(t, ticket);
    sync();
    let v = s.get(63 - t) + shfl(ShuffleKind::Xor, u32::MAX, ticket, 5, 32);
    sim::hooks().print(&format!("{t}:{v} "));
    out[block_idx().x as usize * 64 + t] = v;
}
static MIXED: KernelInfo = KernelInfo::new("mixed", &MODULE, mixed_sim, &[]);

#[test]
fn launches_are_deterministic() {
    let sim = Simulator::new();
    let run = || {
        let mut out = vec![0u32; 256];
        let counter = [AtomicU32::new(0)];
        let mut params = ParamBuffer::default();
        push_slice_mut(&mut params, &mut out);
        push_slice(&mut params, &counter);
        let _ = sim.take_output();
        launch(&sim, &MIXED, 4, 64, 0, &params).expect("runs");
        (out, sim.take_output(), counter[0].load(Ordering::Relaxed))
    };
    let first = run();
    assert_eq!(first.2, 256);
    for _ in 0..3 {
        assert_eq!(run(), first);
    }
    let faults: Vec<SimulatorFault> = (0..3).map(|_| fault(run_race(0))).collect();
    assert!(faults.iter().all(|f| *f == faults[0]));
}

#[test]
fn invalid_shapes_are_launch_errors() {
    let sim = Simulator::new();
    let result = launch(&sim, &VECADD, 1, 2048, 0, &ParamBuffer::default());
    assert!(matches!(result, Err(Error::Launch(_))), "{result:?}");
    let result = launch(&sim, &VECADD, 0, 32, 0, &ParamBuffer::default());
    assert!(matches!(result, Err(Error::Launch(_))), "{result:?}");
}

#[test]
fn thread_sets_are_described_as_index_boxes() {
    let block = Dim3::new(8, 4, 2);
    assert_eq!(describe_threads(&[3], block), "thread (3, 0, 0)");
    assert_eq!(
        describe_threads(&(0..16).collect::<Vec<_>>(), block),
        "threads (0..8, 0..2, 0)"
    );
    assert_eq!(
        describe_threads(&(4..20).collect::<Vec<_>>(), block),
        "threads (4..8, 0, 0), (0..8, 1, 0), (0..4, 2, 0)"
    );
    assert_eq!(
        describe_threads(&(0..64).collect::<Vec<_>>(), block),
        "threads (0..8, 0..4, 0..2)"
    );
    assert_eq!(
        describe_threads(&[0, 2, 4], block),
        "threads (0..=4 step 2, 0, 0)"
    );
    // Two indices at a distance are two boxes, not a strided run.
    assert_eq!(
        describe_threads(&[0, 5, 6, 7], block),
        "threads (0, 0, 0), (5..8, 0, 0)"
    );
    assert_eq!(
        describe_threads(&[0, 1, 2, 4, 6], block),
        "threads (0..3, 0, 0), (4, 0, 0), (6, 0, 0)"
    );
    assert_eq!(
        describe_threads(&[0, 1, 2, 3, 5, 7, 9], Dim3::new(16, 1, 1)),
        "threads (0..4, 0, 0), (5..=9 step 2, 0, 0)"
    );
    // The even threads of every row and plane: one strided box.
    let even: Vec<usize> = (0..64).filter(|r| r % 2 == 0).collect();
    assert_eq!(
        describe_threads(&even, block),
        "threads (0..=6 step 2, 0..4, 0..2)"
    );
    // Lane 0 of every warp of a block of 1024.
    let leaders: Vec<usize> = (0..1024).step_by(32).collect();
    assert_eq!(
        describe_threads(&leaders, Dim3::new(1024, 1, 1)),
        "threads (0..=992 step 32, 0, 0)"
    );
    // Rows that all differ: too many boxes to spell out.
    let scattered: Vec<usize> = (0..8)
        .flat_map(|r| [r * 8 + r % 2, r * 8 + 5 + r % 3])
        .collect();
    let text = describe_threads(&scattered, block);
    assert!(
        text.starts_with("threads (0, 0, 0), (5, 0, 0), (1, 1, 0), (6, 1, 0),"),
        "{text}"
    );
    assert!(text.ends_with(", ... (16 threads in all)"), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Speed (run with `cargo test -p ferrocuda --release -- --ignored --nocapture simulator_speed`).

unsafe fn matmul_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let (a, b, c) = unsafe {
        (
            slice::<f32>(p, 0),
            slice::<f32>(p, 1),
            slice_mut::<f32>(p, 2),
        )
    };
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let n = unsafe { p.get::<u32>(3) } as usize;
    let (t, bi) = (thread_idx(), block_idx());
    let (tx, ty) = (t.x as usize, t.y as usize);
    let (row, col) = (bi.y as usize * 16 + ty, bi.x as usize * 16 + tx);
    let tile_a = Shared::<f32>::new(21, 256);
    let tile_b = Shared::<f32>::new(22, 256);
    let mut acc = 0.0f32;
    for tile in 0..n / 16 {
        tile_a.set(ty * 16 + tx, a[row * n + tile * 16 + tx]);
        tile_b.set(ty * 16 + tx, b[(tile * 16 + ty) * n + col]);
        sync();
        for k in 0..16 {
            acc += tile_a.get(ty * 16 + k) * tile_b.get(k * 16 + tx);
        }
        sync();
    }
    c[row * n + col] = acc;
}
static MATMUL: KernelInfo = KernelInfo::new("matmul", &MODULE, matmul_sim, &[]);

#[test]
fn tiled_matmul_is_correct() {
    let sim = Simulator::new();
    let n = 64usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 7) as f32).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let mut c = vec![0.0f32; n * n];
    let mut params = ParamBuffer::default();
    push_slice(&mut params, &a);
    push_slice(&mut params, &b);
    push_slice_mut(&mut params, &mut c);
    params.push(n as u32);
    let blocks = (n / 16) as u32;
    launch(&sim, &MATMUL, (blocks, blocks), (16, 16), 0, &params).expect("runs");
    for i in 0..n {
        for j in 0..n {
            let expected: f32 = (0..n).map(|k| a[i * n + k] * b[k * n + j]).sum();
            assert_eq!(c[i * n + j], expected, "c[{i}][{j}]");
        }
    }
}
