//! The race detector.

use super::*;

// ---------------------------------------------------------------------------------------------
// The race detector.

static RACE_WRITE: Site = OnceLock::new();
static RACE_READ: Site = OnceLock::new();
/// Parameter 0: mode (0: no barrier, 1: barrier between write and read, 2: no barrier but each
/// thread reads its own word, 3: syncwarp between, reading a lane of the same warp, 4: syncwarp
/// between, reading a lane of the other warp).
unsafe fn race_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let mode = unsafe { p.get::<u32>(0) };
    let s = Shared::<u32>::new(3, 64);
    let t = rank();
    let write = Location::caller();
    let _ = RACE_WRITE.set(write);
    // SAFETY: `t` is a rank of a block of at most 64 threads, inside the 64-element array.
    sim::hooks().shared_access(unsafe { s.ptr.add(t) }.cast(), 4, true, write);
    let neighbour = match mode {
        0 => (t + 1) % 64,
        1 => {
            sync();
            (t + 1) % 64
        }
        2 => t,
        3 => {
            sim::hooks().warp(WarpOp::Sync { mask: u32::MAX }, Location::caller());
            t ^ 1
        }
        _ => {
            sim::hooks().warp(WarpOp::Sync { mask: u32::MAX }, Location::caller());
            (t + 32) % 64
        }
    };
    let read = Location::caller();
    let _ = RACE_READ.set(read);
    // SAFETY: every `neighbour` above is reduced modulo 64 or is `t` or `t ^ 1` of a block of
    // at most 64 threads: inside the 64-element array.
    sim::hooks().shared_access(unsafe { s.ptr.add(neighbour) }.cast(), 4, false, read);
}
static RACE: KernelInfo = KernelInfo::new("race", &MODULE, race_sim, &[]);

pub(super) fn run_race(mode: u32) -> Result<()> {
    let sim = Simulator::new();
    let mut params = ParamBuffer::default();
    params.push(mode);
    launch(&sim, &RACE, 2, 64, 0, &params)
}

#[test]
fn race_between_a_write_and_an_unsynchronised_read_is_reported() {
    let fault = fault(run_race(0));
    let (w, r) = (site(&RACE_WRITE), site(&RACE_READ));
    // Thread 0 runs first: it writes word 0 and reads word 1; thread 1 then writes word 1.
    assert_eq!(
        fault,
        SimulatorFault::DataRace {
            kernel: "race".to_string(),
            block: Dim3::new(0, 0, 0),
            first: SharedAccess {
                thread: Dim3::new(0, 0, 0),
                write: false,
                site: r,
            },
            second: SharedAccess {
                thread: Dim3::new(1, 0, 0),
                write: true,
                site: w,
            },
            memory: SharedMemoryKind::Static,
            offset: 4,
            region_bytes: 256,
        }
    );
    assert_eq!(
        fault.to_string(),
        format!(
            "kernel `race`: data race on shared memory in block (0, 0, 0): thread (0, 0, 0) read at {r} and thread (1, 0, 0) wrote at {w} with no syncthreads between (byte 4 of a 256-byte static shared array)"
        )
    );
}

#[test]
fn no_race_when_a_barrier_separates_the_accesses() {
    run_race(1).expect("the barrier orders the accesses");
}

#[test]
fn no_race_when_threads_touch_their_own_words() {
    run_race(2).expect("no shared word");
}

#[test]
fn syncwarp_orders_the_lanes_of_a_warp_only() {
    run_race(3).expect("syncwarp orders the lanes of one warp");
    let fault = fault(run_race(4));
    // Thread 32 wrote word 32 before the syncwarps; thread 0 (another warp) reads it after them.
    let SimulatorFault::DataRace { first, second, .. } = fault else {
        panic!("expected a data race: {fault:?}")
    };
    assert_eq!((first.thread, first.write), (Dim3::new(32, 0, 0), true));
    assert_eq!((second.thread, second.write), (Dim3::new(0, 0, 0), false));
}

/// Parameter 0: whether each thread also reads its neighbour's byte.
unsafe fn byte_race_sim(p: &ParamReader<'_>) {
    // SAFETY: the test that launches this kernel pushes its parameters with exactly these types
    // (slices of host data that outlive the synchronous launch), as the simulator entry requires.
    let read_neighbour = unsafe { p.get::<u32>(0) } != 0;
    let s = Shared::<u8>::new(4, 32);
    let t = rank();
    s.set(t, t as u8);
    let _ = s.get(t);
    if read_neighbour {
        let _ = s.get(t ^ 1);
    }
}
static BYTE_RACE: KernelInfo = KernelInfo::new("byte_race", &MODULE, byte_race_sim, &[]);

#[test]
fn neighbouring_bytes_do_not_race_but_the_same_byte_does() {
    let sim = Simulator::new();
    let mut params = ParamBuffer::default();
    params.push(0u32);
    launch(&sim, &BYTE_RACE, 1, 32, 0, &params).expect("bytes of one word are distinct");
    let mut params = ParamBuffer::default();
    params.push(1u32);
    let fault = fault(launch(&sim, &BYTE_RACE, 1, 32, 0, &params));
    let SimulatorFault::DataRace {
        first,
        second,
        offset,
        region_bytes,
        ..
    } = fault
    else {
        panic!("expected a data race: {fault:?}")
    };
    assert_eq!((first.thread, first.write), (Dim3::new(0, 0, 0), false));
    assert_eq!((second.thread, second.write), (Dim3::new(1, 0, 0), true));
    assert_eq!((offset, region_bytes), (1, 32));
}

unsafe fn write_write_sim(_: &ParamReader<'_>) {
    let s = Shared::<f64>::new(5, 4);
    s.set(rank() % 4, 1.0);
}
static WRITE_WRITE: KernelInfo = KernelInfo::new("write_write", &MODULE, write_write_sim, &[]);

#[test]
fn two_writes_to_one_element_race() {
    let sim = Simulator::new();
    let fault = fault(launch(&sim, &WRITE_WRITE, 1, 8, 0, &ParamBuffer::default()));
    let SimulatorFault::DataRace {
        first,
        second,
        memory,
        offset,
        region_bytes,
        ..
    } = fault
    else {
        panic!("expected a data race: {fault:?}")
    };
    assert_eq!((first.thread, first.write), (Dim3::new(0, 0, 0), true));
    assert_eq!((second.thread, second.write), (Dim3::new(4, 0, 0), true));
    assert_eq!(
        (memory, offset, region_bytes),
        (SharedMemoryKind::Static, 0, 32)
    );
}
