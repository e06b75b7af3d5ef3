//! CUDA graphs: a stream capture records launches and copies instead of running them; the
//! graph replays them in order, as often as asked; an update changes the captured arguments;
//! a replayed kernel's panic is reported with its location; a graph keeps the memory it uses
//! alive; and what a capture cannot record is an `Error::Graph` naming the operation. Each
//! result is checked against the same steps computed on the CPU.

use ferrocuda::prelude::*;
use ferrocuda::{Graph, GraphExec};
use ferrocuda_tests::{
    assert_close, blocks, device_tests, expect_panic, other_device, random_f32, rng,
};
use test_kernels::cooperative::cooperative_flag;
use test_kernels::graphs::{accumulate, affine, count_or_panic};

/// Taken by every test of this file: while a stream captures, its device refuses default-stream
/// work from every thread (see `Error::Graph`), so the tests, which share the device, run one
/// at a time.
fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Elements per buffer: not a multiple of the block.
fn len(device: &Device) -> usize {
    if device.is_simulator() {
        1_003
    } else {
        (1 << 20) + 3
    }
}

/// The CPU reference of `affine`.
fn affine_cpu(x: &mut [f32], a: f32, b: f32) {
    x.iter_mut().for_each(|v| *v = a * *v + b);
}

/// The CPU reference of `accumulate`.
fn accumulate_cpu(src: &[f32], dst: &mut [f32], scale: f32) {
    dst.iter_mut().zip(src).for_each(|(d, s)| *d += scale * s);
}

/// Captures the chain of the first test on `stream`: two kernels, a copy, a third kernel.
fn capture_chain(
    stream: &Stream,
    x: &mut DeviceBuffer<f32>,
    y: &mut DeviceBuffer<f32>,
    z: &mut DeviceBuffer<f32>,
) -> Graph {
    let n = x.len();
    stream
        .capture(|s| {
            launch!(affine[blocks(n, 256), 256, s](&mut *x, 0.5f32, 1.0f32))?;
            s.copy_buffer(x, y)?;
            launch!(accumulate[blocks(n, 256), 256, s](&*y, &mut *z, 0.25f32))?;
            launch!(affine[blocks(n, 128), 128, s](&mut *z, 0.75f32, -0.125f32))
        })
        .unwrap()
}

/// The chain of [`capture_chain`] on the CPU.
fn chain_cpu(x: &mut [f32], y: &mut [f32], z: &mut [f32]) {
    affine_cpu(x, 0.5, 1.0);
    y.copy_from_slice(x);
    accumulate_cpu(y, z, 0.25);
    affine_cpu(z, 0.75, -0.125);
}

/// Whether `result` is an `Error::Graph` whose operation contains `operation`.
#[track_caller]
fn expect_graph_error<T: std::fmt::Debug>(result: ferrocuda::Result<T>, operation: &str) {
    match result {
        Err(Error::Graph {
            operation: op,
            problem,
        }) => {
            assert!(
                op.contains(operation),
                "operation `{op}` should name `{operation}` ({problem})"
            );
            assert!(!problem.is_empty());
        }
        other => panic!("expected Error::Graph for `{operation}`, got {other:?}"),
    }
}

device_tests! {
    /// A chain of kernels and a copy, captured once: the capture runs nothing, and each replay
    /// runs the whole chain in order (the copy between two kernels sees the first one's result).
    fn a_captured_chain_replays_in_order(device) {
        let _serial = one_at_a_time();
        let n = len(device);
        let x_host = random_f32(&mut rng("graph_chain_x"), n);
        let z_host = random_f32(&mut rng("graph_chain_z"), n);
        let mut x = DeviceBuffer::from_slice(device, &x_host).unwrap();
        let mut y = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let mut z = DeviceBuffer::from_slice(device, &z_host).unwrap();
        let stream = device.new_stream().unwrap();
        let graph = capture_chain(&stream, &mut x, &mut y, &mut z);
        assert!(!stream.is_capturing());
        assert_eq!((graph.len(), graph.kernel_launches()), (4, 3));
        // Captured, not run.
        assert_eq!(x.to_vec().unwrap(), x_host);
        assert_eq!(y.to_vec().unwrap(), vec![0.0; n]);
        let exec = graph.instantiate().unwrap();
        drop(graph);
        let (mut xr, mut yr, mut zr) = (x_host.clone(), vec![0.0f32; n], z_host.clone());
        for replay in 1..=5 {
            exec.launch(&stream).unwrap();
            chain_cpu(&mut xr, &mut yr, &mut zr);
            if replay == 2 {
                stream.synchronize().unwrap();
                assert_close(&z.to_vec().unwrap(), &zr, 1e-5);
            }
        }
        stream.synchronize().unwrap();
        assert_close(&x.to_vec().unwrap(), &xr, 1e-5);
        assert_close(&y.to_vec().unwrap(), &yr, 1e-5);
        assert_close(&z.to_vec().unwrap(), &zr, 1e-5);
        // Replays on another stream of the device, and on the default stream, work too.
        let other = device.new_stream().unwrap();
        exec.launch(&other).unwrap();
        other.synchronize().unwrap();
        exec.launch(&device.default_stream()).unwrap();
        chain_cpu(&mut xr, &mut yr, &mut zr);
        chain_cpu(&mut xr, &mut yr, &mut zr);
        assert_close(&z.to_vec().unwrap(), &zr, 1e-5);
        // Outside a capture, a stream's copy runs in the stream's order.
        launch!(affine[blocks(n, 256), 256, &other](&mut z, 2.0f32, 0.0f32)).unwrap();
        other.copy_buffer(&z, &mut y).unwrap();
        other.synchronize().unwrap();
        affine_cpu(&mut zr, 2.0, 0.0);
        assert_close(&y.to_vec().unwrap(), &zr, 1e-5);
    }

    /// An update gives the executable graph a new scalar and new buffers (a capture of the same
    /// launches); later replays use them and leave the old buffers alone. A capture of other
    /// launches is refused, naming the first difference.
    fn an_update_changes_scalars_and_buffers(device) {
        let _serial = one_at_a_time();
        let n = len(device);
        let a_host = random_f32(&mut rng("graph_update_a"), n);
        let b_host = random_f32(&mut rng("graph_update_b"), n);
        let mut a = DeviceBuffer::from_slice(device, &a_host).unwrap();
        let mut a_sum = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let mut b = DeviceBuffer::from_slice(device, &b_host).unwrap();
        let mut b_sum = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let stream = device.new_stream().unwrap();
        let grid = blocks(n, 256);
        let mut exec: GraphExec = stream
            .capture(|s| {
                launch!(affine[grid, 256, s](&mut a, 2.0f32, 1.0f32))?;
                launch!(accumulate[grid, 256, s](&a, &mut a_sum, 1.0f32))
            })
            .unwrap()
            .instantiate()
            .unwrap();
        exec.launch(&stream).unwrap();
        let (mut ar, mut a_sum_r) = (a_host.clone(), vec![0.0f32; n]);
        affine_cpu(&mut ar, 2.0, 1.0);
        accumulate_cpu(&ar, &mut a_sum_r, 1.0);

        let again = stream
            .capture(|s| {
                launch!(affine[grid, 256, s](&mut b, -0.5f32, 3.0f32))?;
                launch!(accumulate[grid, 256, s](&b, &mut b_sum, 0.5f32))
            })
            .unwrap();
        exec.update(&again).unwrap();
        drop(again);
        exec.launch(&stream).unwrap();
        exec.launch(&stream).unwrap();
        let (mut br, mut b_sum_r) = (b_host.clone(), vec![0.0f32; n]);
        for _ in 0..2 {
            affine_cpu(&mut br, -0.5, 3.0);
            accumulate_cpu(&br, &mut b_sum_r, 0.5);
        }
        stream.synchronize().unwrap();
        assert_close(&a.to_vec().unwrap(), &ar, 1e-5);
        assert_close(&a_sum.to_vec().unwrap(), &a_sum_r, 1e-5);
        assert_close(&b.to_vec().unwrap(), &br, 1e-5);
        assert_close(&b_sum.to_vec().unwrap(), &b_sum_r, 1e-5);

        // Another sequence: refused, and the executable graph keeps its arguments.
        let swapped = stream
            .capture(|s| {
                launch!(accumulate[grid, 256, s](&a, &mut a_sum, 1.0f32))?;
                launch!(affine[grid, 256, s](&mut a, 2.0f32, 1.0f32))
            })
            .unwrap();
        match exec.update(&swapped) {
            Err(Error::Graph { operation, problem }) => {
                assert_eq!(operation, "GraphExec::update");
                assert!(problem.contains("`affine`") && problem.contains("`accumulate`"), "{problem}");
            }
            other => panic!("expected Error::Graph, got {other:?}"),
        }
        let shorter = stream
            .capture(|s| launch!(affine[grid, 256, s](&mut a, 2.0f32, 1.0f32)))
            .unwrap();
        expect_graph_error(exec.update(&shorter), "GraphExec::update");
        exec.launch(&stream).unwrap();
        affine_cpu(&mut br, -0.5, 3.0);
        accumulate_cpu(&br, &mut b_sum_r, 0.5);
        assert_close(&b_sum.to_vec().unwrap(), &b_sum_r, 1e-5);
        assert_close(&a.to_vec().unwrap(), &ar, 1e-5);
    }

    /// A copy from the host in a capture keeps a snapshot of the data as it was: every replay
    /// copies that snapshot (here it resets the buffer a kernel then transforms), and an update
    /// takes the new capture's data. Outside a capture it is an ordinary stream copy.
    fn a_graph_replays_its_host_uploads(device) {
        let _serial = one_at_a_time();
        let n = len(device);
        let initial = random_f32(&mut rng("graph_upload"), n);
        let mut x = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let stream = device.new_stream().unwrap();
        let mut host = initial.clone();
        let grid = blocks(n, 256);
        let mut exec = stream
            .capture(|s| {
                s.copy_from_host(&host, &mut x)?;
                launch!(affine[grid, 256, s](&mut x, 3.0f32, 0.5f32))
            })
            .unwrap()
            .instantiate()
            .unwrap();
        host.iter_mut().for_each(|v| *v = -1.0);
        assert_eq!(x.to_vec().unwrap(), vec![0.0f32; n], "a capture runs nothing");
        for _ in 0..3 {
            exec.launch(&stream).unwrap();
        }
        stream.synchronize().unwrap();
        let mut expected = initial.clone();
        affine_cpu(&mut expected, 3.0, 0.5);
        assert_close(&x.to_vec().unwrap(), &expected, 1e-6);

        let other = random_f32(&mut rng("graph_upload_other"), n);
        let again = stream
            .capture(|s| {
                s.copy_from_host(&other, &mut x)?;
                launch!(affine[grid, 256, s](&mut x, 3.0f32, 0.5f32))
            })
            .unwrap();
        exec.update(&again).unwrap();
        drop(again);
        exec.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        let mut expected = other.clone();
        affine_cpu(&mut expected, 3.0, 0.5);
        assert_close(&x.to_vec().unwrap(), &expected, 1e-6);

        // A copy between buffers is not a copy from the host: the update is refused.
        let mut y = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let swapped = stream
            .capture(|s| {
                s.copy_buffer(&y, &mut x)?;
                launch!(affine[grid, 256, s](&mut x, 3.0f32, 0.5f32))
            })
            .unwrap();
        expect_graph_error(exec.update(&swapped), "GraphExec::update");

        // Outside a capture: a stream copy, whose source may change as soon as it returns.
        let mut data = initial.clone();
        stream.copy_from_host(&data, &mut y).unwrap();
        data.iter_mut().for_each(|v| *v = 7.0);
        stream.synchronize().unwrap();
        assert_eq!(y.to_vec().unwrap(), initial);
        assert!(matches!(
            stream.copy_from_host(&initial[1..], &mut y),
            Err(Error::LengthMismatch { .. })
        ));
    }

    /// A kernel that panics in a replay is reported by the next synchronization of the stream,
    /// once, with its kernel, line, block and thread; the other threads ran. After an update
    /// that removes the culprit, replays are clean.
    fn a_panic_in_a_replay_is_reported_with_its_location(device) {
        let _serial = one_at_a_time();
        let n = 256;
        let data = DeviceBuffer::from_slice(device, &[5u32; 100]).unwrap();
        let mut counts = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        let stream = device.new_stream().unwrap();
        // Thread 200 (block 1, thread 72 in blocks of 128) reads data[200] of 100.
        let graph = stream
            .capture(|s| launch!(count_or_panic[2, 128, s](&mut counts, &data, 200u32)))
            .unwrap();
        let mut exec = graph.instantiate().unwrap();
        // Capturing ran nothing, so there is nothing to report.
        stream.synchronize().unwrap();
        exec.launch(&stream).unwrap();
        let panic = expect_panic(stream.synchronize());
        assert_eq!(panic.kernel, "count_or_panic");
        assert!(panic.file.ends_with("graphs.rs"), "{}", panic.file);
        let source = include_str!("../kernels/src/graphs.rs");
        let line = source.lines().position(|l| l.contains("counts[i] += data[i];")).unwrap() + 1;
        assert_eq!(panic.line, line as u32);
        assert_eq!((panic.block, panic.thread), (Dim3::new(1, 0, 0), Dim3::new(72, 0, 0)));
        assert_eq!(panic.message, "index out of bounds: the len is 100 but the index is 200");
        // Reported once.
        stream.synchronize().unwrap();
        // A second replay panics again, and the device synchronization reports it.
        exec.launch(&stream).unwrap();
        expect_panic(device.synchronize());

        let clean = stream
            .capture(|s| launch!(count_or_panic[2, 128, s](&mut counts, &data, u32::MAX)))
            .unwrap();
        exec.update(&clean).unwrap();
        exec.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        // Every thread counted three replays, but the culprit, which panicked before counting
        // in the first two.
        let mut expected = vec![3u32; n];
        expected[200] = 1;
        assert_eq!(counts.to_vec().unwrap(), expected);
    }

    /// The memory of a buffer a graph captured outlives the buffer's handle: the replays still
    /// read and write it, and new buffers do not get it. A buffer dropped during a capture is
    /// kept until the capture's graph is gone, and the capture goes on.
    fn a_graph_keeps_its_buffers_alive(device) {
        let _serial = one_at_a_time();
        let n = len(device);
        let source_host = random_f32(&mut rng("graph_keeps_alive"), n);
        let mut source = DeviceBuffer::from_slice(device, &source_host).unwrap();
        let mut result = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let unrelated = DeviceBuffer::from_slice(device, &source_host).unwrap();
        let stream = device.new_stream().unwrap();
        let graph = stream
            .capture(|s| {
                launch!(affine[blocks(n, 256), 256, s](&mut source, 1.0f32, 1.0f32))?;
                drop(unrelated);
                s.copy_buffer(&source, &mut result)
            })
            .unwrap();
        let exec = graph.instantiate().unwrap();
        drop(graph);
        drop(source);
        // New buffers, which would reuse the memory of `source` if it had been freed.
        let fillers: Vec<DeviceBuffer<f32>> = (0..4)
            .map(|_| DeviceBuffer::from_slice(device, &vec![-7.0f32; n]).unwrap())
            .collect();
        exec.launch(&stream).unwrap();
        exec.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        let expected: Vec<f32> = source_host.iter().map(|v| v + 2.0).collect();
        assert_close(&result.to_vec().unwrap(), &expected, 1e-6);
        for filler in &fillers {
            assert_eq!(filler.to_vec().unwrap(), vec![-7.0f32; n]);
        }
        drop(exec);
    }

    /// What a capture cannot record is refused with `Error::Graph` naming the operation, on
    /// both backends, and the capture goes on; misuse of captures and graphs is an error too.
    fn misuse_is_an_error_naming_the_operation(device) {
        let _serial = one_at_a_time();
        let n = 1000;
        let host = random_f32(&mut rng("graph_misuse"), n);
        let mut x = DeviceBuffer::from_slice(device, &host).unwrap();
        let stream = device.new_stream().unwrap();
        expect_graph_error(stream.end_capture(), "Stream::end_capture");
        expect_graph_error(device.default_stream().begin_capture(), "Stream::begin_capture");

        let other = device.new_stream().unwrap();
        let mut w = DeviceBuffer::from_slice(device, &host).unwrap();
        let mut flags = DeviceBuffer::<u32>::zeros(device, 64).unwrap();
        stream.begin_capture().unwrap();
        assert!(stream.is_capturing());
        assert!(!other.is_capturing());
        expect_graph_error(stream.begin_capture(), "Stream::begin_capture");
        launch!(affine[blocks(n, 256), 256, &stream](&mut x, 1.0f32, 2.0f32)).unwrap();
        expect_graph_error(x.to_vec(), "to_vec");
        expect_graph_error(x.copy_from(&host), "copy_from");
        expect_graph_error(DeviceBuffer::<f32>::zeros(device, 10), "DeviceBuffer::zeros");
        expect_graph_error(DeviceBuffer::from_slice(device, &host), "DeviceBuffer::from_slice");
        expect_graph_error(launch!(affine[blocks(n, 256), 256](&mut x, 1.0f32, 2.0f32)), "launch");
        let mut on_host = host.clone();
        assert!(matches!(
            launch!(affine[blocks(n, 256), 256, &stream](&mut on_host, 1.0f32, 2.0f32)),
            Err(Error::Graph { .. })
        ));
        expect_graph_error(stream.synchronize(), "Stream::synchronize");
        expect_graph_error(other.synchronize(), "Stream::synchronize");
        expect_graph_error(device.synchronize(), "Device::synchronize");
        expect_graph_error(stream.record_event(), "Event::record");
        expect_graph_error(device.default_stream().copy_buffer(&x, &mut w), "Stream::copy_buffer");
        // A cooperative kernel would replay as an ordinary launch, without its co-residency.
        match launch!(cooperative_flag[1, 64, &stream](&mut flags)) {
            Err(Error::Graph { problem, .. }) => assert!(
                problem.contains("`cooperative_flag` is #[kernel(cooperative)]"),
                "{problem}"
            ),
            other => panic!("a cooperative launch in a capture: {other:?}"),
        }
        // Launches on another stream are queued and run as usual.
        launch!(affine[blocks(n, 256), 256, &other](&mut w, 3.0f32, 0.0f32)).unwrap();
        let graph = stream.end_capture().unwrap();
        assert_eq!(graph.len(), 1);
        expect_graph_error(stream.end_capture(), "Stream::end_capture");

        // The capture survived the refusals: its one launch adds 2.
        let exec = graph.instantiate().unwrap();
        exec.launch(&stream).unwrap();
        exec.launch(&stream).unwrap();
        stream.synchronize().unwrap();
        let expected: Vec<f32> = host.iter().map(|v| v + 4.0).collect();
        assert_close(&x.to_vec().unwrap(), &expected, 1e-6);
        let tripled: Vec<f32> = host.iter().map(|v| 3.0 * v).collect();
        assert_close(&w.to_vec().unwrap(), &tripled, 1e-6);

        // Copies check lengths and devices, in a capture as outside.
        let mut shorter = DeviceBuffer::<f32>::zeros(device, n - 1).unwrap();
        assert!(matches!(
            stream.copy_buffer(&x, &mut shorter),
            Err(Error::LengthMismatch { expected: 999, actual: 1000, .. })
        ));
        // A graph replays only on its own device's streams.
        if let Some(other_device) = other_device(device) {
            let foreign = other_device.new_stream().unwrap();
            assert!(matches!(exec.launch(&foreign), Err(Error::DeviceMismatch { .. })));
            let mut foreign_buffer = DeviceBuffer::<f32>::zeros(&other_device, n).unwrap();
            assert!(matches!(
                stream.copy_buffer(&x, &mut foreign_buffer),
                Err(Error::DeviceMismatch { .. })
            ));
        }
        // An empty capture is a graph that does nothing.
        let empty = stream.capture(|_| Ok(())).unwrap();
        assert!(empty.is_empty());
        empty.instantiate().unwrap().launch(&stream).unwrap();
        // A failing closure ends the capture and returns its error.
        let failed = stream.capture(|_| x.to_vec().map(|_| ()));
        expect_graph_error(failed, "to_vec");
        assert!(!stream.is_capturing());
        stream.synchronize().unwrap();
        assert_close(&x.to_vec().unwrap(), &expected, 1e-6);

        // A stream dropped while it captures ends its capture: the device's default stream
        // works again, and nothing was run.
        let doomed = device.new_stream().unwrap();
        doomed.begin_capture().unwrap();
        launch!(affine[blocks(n, 256), 256, &doomed](&mut x, 0.0f32, 0.0f32)).unwrap();
        expect_graph_error(x.to_vec(), "to_vec");
        drop(doomed);
        assert_close(&x.to_vec().unwrap(), &expected, 1e-6);
        device.synchronize().unwrap();
    }
}

/// Graphs move between threads (CUDA graph objects may be used from any thread, one at a time).
#[test]
fn graphs_are_send() {
    fn send<T: Send>() {}
    send::<Graph>();
    send::<GraphExec>();
}
