//! Which synchronization reports a kernel panic: exactly one, the launching thread's first
//! synchronization of the launch's stream (or of the device), naming exactly that kernel; never
//! another stream's or another thread's, never lost. And a launch with `&mut` host slices whose
//! kernel panics still copies back what the other threads wrote.

use ferrocuda::prelude::*;
use ferrocuda::{Device, KernelPanic, Stream};
use ferrocuda_tests::{device_tests, expect_panic};
use test_kernels::faults::{explicit_panic, index_out_of_bounds};

/// `explicit_panic` on 4 blocks of 64 threads: thread 3 of block 2 panics, the others write 7.
fn launch_explicit_panic(stream: &Stream, out: &mut DeviceBuffer<u32>) {
    launch!(explicit_panic[4, 64, stream](out)).unwrap();
}

/// `index_out_of_bounds` on 2 blocks of 128 threads into 200 elements: panics when `culprit`
/// is below 256 (block `culprit / 128`, thread `culprit % 128`), else runs cleanly.
fn launch_index(stream: &Stream, out: &mut DeviceBuffer<f32>, culprit: u32) {
    launch!(index_out_of_bounds[2, 128, stream](out, culprit)).unwrap();
}

/// Checks that `panic` is `explicit_panic`'s.
#[track_caller]
fn assert_explicit_panic(panic: &KernelPanic) {
    assert_eq!(panic.kernel, "explicit_panic");
    assert_eq!(panic.message, "thread 3 of block 2 gives up");
    assert_eq!(
        (panic.block, panic.thread),
        (Dim3::new(2, 0, 0), Dim3::new(3, 0, 0))
    );
    assert_eq!(panic.other_panics, 0);
    assert_eq!(panic.other_failed_launches, 0);
}

/// Checks that `panic` is `explicit_panic`'s, reported ahead of `others` later failures.
#[track_caller]
fn assert_explicit_panic_at_head(panic: &KernelPanic, others: u32) {
    let alone = KernelPanic {
        other_failed_launches: 0,
        ..panic.clone()
    };
    assert_explicit_panic(&alone);
    assert_eq!(panic.other_failed_launches, others);
}

/// One host thread's work in `several_host_threads_see_only_their_own_panics`: `rounds` rounds
/// of a clean launch on the default stream, checked by a copy (a default-stream
/// synchronization that must not see this thread's panics on its own stream), and a panicking
/// launch on its own stream, reported by that stream's synchronization. Returns how many
/// panics it saw.
fn host_thread(device: &Device, thread: u32, rounds: usize) -> usize {
    let stream = device.new_stream().unwrap();
    let default = device.default_stream();
    let mut clean = DeviceBuffer::<f32>::zeros(device, 200).unwrap();
    let mut out = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
    let mut values = DeviceBuffer::<f32>::zeros(device, 200).unwrap();
    let mut seen = 0;
    for _ in 0..rounds {
        launch_index(&default, &mut clean, 1000);
        if thread.is_multiple_of(2) {
            launch_explicit_panic(&stream, &mut out);
        } else {
            launch_index(&stream, &mut values, 128 + thread);
        }
        assert_eq!(clean.to_vec().unwrap()[199], 199.0, "thread {thread}");
        let panic = expect_panic(stream.synchronize());
        if thread.is_multiple_of(2) {
            assert_explicit_panic(&panic);
        } else {
            assert_eq!(panic.kernel, "index_out_of_bounds");
            assert_eq!(
                (panic.block, panic.thread),
                (Dim3::new(1, 0, 0), Dim3::new(thread, 0, 0))
            );
        }
        seen += 1;
        stream.synchronize().unwrap();
    }
    seen
}

device_tests! {
    fn a_panic_is_reported_by_its_own_streams_synchronization(device) {
        let (one, two) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let mut out = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
        let mut clean = DeviceBuffer::<f32>::zeros(device, 200).unwrap();
        launch_explicit_panic(&one, &mut out);
        launch_index(&two, &mut clean, 1000);
        // Stream two's synchronization, and a copy (the default stream's), see nothing of
        // stream one's panic.
        two.synchronize().unwrap();
        assert_eq!(clean.to_vec().unwrap()[17], 17.0);
        device.default_stream().synchronize().unwrap();
        let panic = expect_panic(one.synchronize());
        assert_explicit_panic(&panic);
        // Reported once.
        one.synchronize().unwrap();
        device.synchronize().unwrap();
        // The device's synchronization reports a panic of any of this thread's streams.
        launch_index(&two, &mut clean, 130);
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.kernel, "index_out_of_bounds");
        assert_eq!((panic.block, panic.thread), (Dim3::new(1, 0, 0), Dim3::new(2, 0, 0)));
        two.synchronize().unwrap();
        device.synchronize().unwrap();
    }

    fn one_synchronization_reports_every_failed_launch_it_covers_once(device) {
        let stream = device.new_stream().unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
        let mut clean = DeviceBuffer::<f32>::zeros(device, 200).unwrap();
        for round in 0..50 {
            launch_explicit_panic(&stream, &mut out);
            if round % 10 == 0 {
                launch_index(&stream, &mut clean, 1000);
            }
        }
        // The first panic, counting the 49 others; all of them settled.
        let panic = expect_panic(stream.synchronize());
        assert_eq!(panic.other_failed_launches, 49);
        assert_eq!(
            (panic.kernel.as_str(), panic.block, panic.thread),
            ("explicit_panic", Dim3::new(2, 0, 0), Dim3::new(3, 0, 0))
        );
        assert!(panic.to_string().contains("49 later launch(es)"), "{panic}");
        stream.synchronize().unwrap();
        device.synchronize().unwrap();
        // A failure on each of two streams: one device synchronization reports both, once.
        let other = device.new_stream().unwrap();
        launch_index(&other, &mut clean, 5);
        launch_explicit_panic(&stream, &mut out);
        let panic = expect_panic(device.synchronize());
        assert_eq!((panic.kernel.as_str(), panic.other_failed_launches), ("index_out_of_bounds", 1));
        stream.synchronize().unwrap();
        other.synchronize().unwrap();
    }

    fn a_correct_kernel_after_many_failed_launches_is_not_charged_with_them(device) {
        // 100 launches that panic in one block, one synchronization, then correct work on the
        // default stream: its copy sees only its own launch.
        let stream = device.default_stream();
        let mut out = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
        let mut clean = DeviceBuffer::<f32>::zeros(device, 200).unwrap();
        for _ in 0..100 {
            launch_explicit_panic(&stream, &mut out);
        }
        assert_eq!(expect_panic(device.synchronize()).other_failed_launches, 99);
        for step in 0..3 {
            launch_index(&stream, &mut clean, 1000);
            let values = clean.to_vec().unwrap_or_else(|e| panic!("step {step}: {e}"));
            assert_eq!(values[123], 123.0);
        }
        // A clean launch between two failures does not end the count.
        launch_explicit_panic(&stream, &mut out);
        launch_index(&stream, &mut clean, 1000);
        launch_index(&stream, &mut clean, 7);
        let panic = expect_panic(stream.synchronize());
        assert_explicit_panic_at_head(&panic, 1);
        stream.synchronize().unwrap();
    }

    fn an_event_reports_the_panics_before_it(device) {
        let stream = device.new_stream().unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, 256).unwrap();
        let mut clean = DeviceBuffer::<f32>::zeros(device, 200).unwrap();
        launch_index(&stream, &mut clean, 1000);
        let before = stream.record_event().unwrap();
        launch_explicit_panic(&stream, &mut out);
        let after = stream.record_event().unwrap();
        before.synchronize().unwrap();
        assert_explicit_panic(&expect_panic(after.synchronize()));
        stream.synchronize().unwrap();
    }

    fn several_host_threads_see_only_their_own_panics(device) {
        let rounds = 12;
        let seen: Vec<usize> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..8u32)
                .map(|thread| scope.spawn(move || host_thread(device, thread, rounds)))
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        assert_eq!(seen, vec![rounds; 8]);
        device.synchronize().unwrap();
    }

    fn a_panicking_launch_copies_host_slices_back(device) {
        let mut out = vec![0u32; 256];
        let stream = device.default_stream();
        let panic = expect_panic(launch!(explicit_panic[4, 64, &stream](&mut out)));
        assert_explicit_panic(&panic);
        // Every thread but the one that panicked (block 2, thread 3) wrote its element.
        for (i, &v) in out.iter().enumerate() {
            assert_eq!(v, if i == 2 * 64 + 3 { 0 } else { 7 }, "element {i}");
        }
        device.synchronize().unwrap();
    }
}
