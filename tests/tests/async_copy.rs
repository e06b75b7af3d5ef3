//! Pinned host memory and asynchronous copies on streams (the host API of the streams-and-events
//! tutorial): round trips through two streams ordered by an event, and the length and device
//! checks.

use ferrocuda::PinnedBuffer;
use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, other_device, random_f32, rng};
use kernels_nvptx::elementwise::{square, vecadd};

device_tests! {
    fn pinned_buffer_basics(device) {
        let mut pinned = PinnedBuffer::<f32>::new(device, 1000).unwrap();
        assert_eq!(pinned.len(), 1000);
        assert!(!pinned.is_empty());
        assert!(pinned.iter().all(|&v| v == 0.0), "new pinned buffers are zeroed");
        pinned[7] = 3.5;
        pinned.as_mut_slice().unwrap()[8] = 4.5;
        assert_eq!(&pinned.as_slice().unwrap()[6..9], &[0.0, 3.5, 4.5]);
        let copy = PinnedBuffer::from_slice(device, &[1u8, 2, 3]).unwrap();
        assert_eq!(copy.to_vec().unwrap(), vec![1, 2, 3]);
        let empty = PinnedBuffer::<u64>::new(device, 0).unwrap();
        assert!(empty.is_empty());
        assert_eq!(&*empty, &[] as &[u64]);
    }

    fn async_round_trip_on_two_streams(device) {
        let mut rng = rng("async_round_trip");
        let n = 10_007;
        let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
        let a_pinned = PinnedBuffer::from_slice(device, &a).unwrap();
        let b_pinned = PinnedBuffer::from_slice(device, &b).unwrap();
        let mut out_pinned = PinnedBuffer::<f32>::new(device, n).unwrap();
        let mut a_dev = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let mut b_dev = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let mut c_dev = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        let (one, two) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let grid = n.div_ceil(256) as u32;

        // Stream one: upload a, square it. Stream two: upload b meanwhile, then wait for
        // stream one's event and add.
        a_dev.copy_from_async(&a_pinned, &one).unwrap();
        launch!(square[grid, 256, &one](&mut a_dev)).unwrap();
        let squared = one.record_event().unwrap();
        b_dev.copy_from_async(&b_pinned, &two).unwrap();
        two.wait_event(&squared).unwrap();
        launch!(vecadd[grid, 256, &two](&a_dev, &b_dev, &mut c_dev)).unwrap();
        c_dev.copy_to_async(&mut out_pinned, &two).unwrap();

        // No explicit synchronization: reading the pinned buffer waits for the copy into it.
        let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x * x + y).collect();
        assert_eq!(out_pinned.as_slice().unwrap(), expected.as_slice());
        two.synchronize().unwrap();
        one.synchronize().unwrap();
        assert_eq!(c_dev.to_vec().unwrap(), expected);
        // The sources are untouched and readable while nothing is pending.
        assert_eq!(a_pinned.as_slice().unwrap(), a.as_slice());
    }

    fn async_copies_on_the_default_stream_and_reuse(device) {
        let stream = device.default_stream();
        let mut pinned = PinnedBuffer::from_slice(device, &[1u32, 2, 3, 4, 5]).unwrap();
        let mut dev = DeviceBuffer::<u32>::zeros(device, 5).unwrap();
        for round in 0..3u32 {
            dev.copy_from_async(&pinned, &stream).unwrap();
            dev.copy_to_async(&mut pinned, &stream).unwrap();
            // Writing waits for both copies, then the next round uploads the new values.
            for v in pinned.iter_mut() {
                *v += 10;
            }
            assert_eq!(pinned.as_slice().unwrap()[0], 1 + 10 * (round + 1));
        }
        stream.synchronize().unwrap();
        assert_eq!(dev.to_vec().unwrap(), vec![21, 22, 23, 24, 25]);
    }

    fn copies_of_one_pinned_buffer_are_ordered_across_streams(device) {
        // Device to host into `staging` on stream one, then host to device from it on stream
        // two, with no synchronization or event between: the second copy must see the first's
        // data (the pinned buffer orders its own copies).
        let mut rng = rng("pinned_ordering");
        let n = 1 << 20;
        let data = random_f32(&mut rng, n);
        let (one, two) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let mut source = DeviceBuffer::from_slice(device, &data).unwrap();
        let mut staging = PinnedBuffer::<f32>::new(device, n).unwrap();
        let mut target = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        // `from_slice` and `zeros` work on the default stream, which streams from `new_stream`
        // wait for: no synchronization is needed before using the buffers on them.
        for round in 0..3 {
            // A kernel ahead of the copy on stream one delays it.
            launch!(square[(n as u32).div_ceil(256), 256, &one](&mut source)).unwrap();
            source.copy_to_async(&mut staging, &one).unwrap();
            target.copy_from_async(&staging, &two).unwrap();
            two.synchronize().unwrap();
            let expected: Vec<f32> = data.iter().map(|&v| (0..=round).fold(v, |x, _| x * x)).collect();
            assert_eq!(target.to_vec().unwrap(), expected, "round {round}");
        }
        one.synchronize().unwrap();
    }

    fn dropping_buffers_with_copies_in_flight(device) {
        // Dropping either side right after queueing a copy must neither crash nor corrupt:
        // the pinned buffer waits for its copies, the device buffer is freed after them.
        let n = 1 << 20;
        let stream = device.new_stream().unwrap();
        for _ in 0..4 {
            let source = PinnedBuffer::from_slice(device, &vec![1.5f32; n]).unwrap();
            let mut dev = DeviceBuffer::<f32>::zeros(device, n).unwrap();
            dev.copy_from_async(&source, &stream).unwrap();
            drop(source);
            let mut sink = PinnedBuffer::<f32>::new(device, n).unwrap();
            dev.copy_to_async(&mut sink, &stream).unwrap();
            drop(dev);
            assert!(sink.iter().all(|&v| v == 1.5));
            let dev = DeviceBuffer::from_slice(device, &vec![2.0f32; n]).unwrap();
            dev.copy_to_async(&mut sink, &stream).unwrap();
            drop(sink);
        }
        stream.synchronize().unwrap();
        device.synchronize().unwrap();
    }

    fn empty_async_copies(device) {
        let stream = device.new_stream().unwrap();
        let mut pinned = PinnedBuffer::<f32>::new(device, 0).unwrap();
        let mut dev = DeviceBuffer::<f32>::zeros(device, 0).unwrap();
        dev.copy_from_async(&pinned, &stream).unwrap();
        dev.copy_to_async(&mut pinned, &stream).unwrap();
        stream.synchronize().unwrap();
    }

    fn async_copy_length_mismatch(device) {
        let stream = device.new_stream().unwrap();
        let mut dev = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let mut pinned = PinnedBuffer::from_slice(device, &[7.0f32; 15]).unwrap();
        match dev.copy_from_async(&pinned, &stream) {
            Err(Error::LengthMismatch { expected: 16, actual: 15, operation }) => {
                assert_eq!(operation, "DeviceBuffer::copy_from_async")
            }
            other => panic!("expected a length mismatch, got {other:?}"),
        }
        match dev.copy_to_async(&mut pinned, &stream) {
            Err(Error::LengthMismatch { expected: 16, actual: 15, operation }) => {
                assert_eq!(operation, "DeviceBuffer::copy_to_async")
            }
            other => panic!("expected a length mismatch, got {other:?}"),
        }
        // Nothing was copied either way.
        assert_eq!(dev.to_vec().unwrap(), vec![0.0; 16]);
        assert_eq!(pinned.to_vec().unwrap(), vec![7.0; 15]);
    }

    fn async_copy_device_mismatch(device) {
        let Some(other) = other_device(device) else { return };
        let mut dev = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let mut pinned = PinnedBuffer::<f32>::new(device, 16).unwrap();
        let mut foreign_pinned = PinnedBuffer::<f32>::new(&other, 16).unwrap();
        let foreign_stream = other.new_stream().unwrap();
        let stream = device.new_stream().unwrap();
        let expect_mismatch = |result: ferrocuda::Result<()>, what_expected: &str| match result {
            Err(Error::DeviceMismatch { what, .. }) => assert_eq!(what, what_expected),
            other => panic!("expected a device mismatch, got {other:?}"),
        };
        expect_mismatch(dev.copy_from_async(&pinned, &foreign_stream), "the stream");
        expect_mismatch(dev.copy_to_async(&mut pinned, &foreign_stream), "the stream");
        expect_mismatch(dev.copy_from_async(&foreign_pinned, &stream), "the pinned buffer");
        expect_mismatch(dev.copy_to_async(&mut foreign_pinned, &stream), "the pinned buffer");
        // Still usable.
        pinned[0] = 1.0;
        dev.copy_from_async(&pinned, &stream).unwrap();
        stream.synchronize().unwrap();
        assert_eq!(dev.to_vec().unwrap()[0], 1.0);
    }
}
