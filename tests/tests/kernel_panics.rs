//! A panicking kernel thread comes back as `Error::KernelPanic` with file, line, block and
//! thread; the other threads ran, the device stays usable and other buffers keep their contents.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic};
use test_kernels::faults::{assert_non_negative, explicit_panic, index_out_of_bounds};

/// The line of the first occurrence of `needle` in the kernels' `faults.rs`.
fn line_of(needle: &str) -> u32 {
    ferrocuda_tests::line_of(include_str!("../kernels/src/faults.rs"), needle)
}

device_tests! {
    fn out_of_bounds_index_is_reported(device) {
        let untouched = DeviceBuffer::from_slice(device, &[42u32; 8]).unwrap();
        let mut out = DeviceBuffer::<f32>::zeros(device, 1000).unwrap();
        // Thread 1000 + 37 = block 8, thread 13 (blocks of 128) indexes past the end.
        launch!(index_out_of_bounds[10, 128](&mut out, 1037u32)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.kernel, "index_out_of_bounds");
        assert!(panic.file.ends_with("faults.rs"), "{}", panic.file);
        assert_eq!(panic.line, line_of("out[past_end] = 1.0;"));
        assert_eq!(panic.block, Dim3::new(8, 0, 0));
        assert_eq!(panic.thread, Dim3::new(13, 0, 0));
        // The same text on both backends: the GPU records the integers, the host formats them.
        assert_eq!(panic.message, "index out of bounds: the len is 1000 but the index is 1000");
        // The error was reported once; the other threads ran; the device works.
        device.synchronize().unwrap();
        let out = out.to_vec().unwrap();
        assert!(out.iter().enumerate().all(|(i, &v)| v == i as f32));
        assert_eq!(untouched.to_vec().unwrap(), vec![42u32; 8]);
    }

    fn explicit_panic_message_and_location(device) {
        let mut out = DeviceBuffer::<u32>::zeros(device, 200).unwrap();
        launch!(explicit_panic[4, 64](&mut out)).unwrap();
        let panic = expect_panic(out.to_vec().map(|_| ()));
        assert_eq!(panic.message, "thread 3 of block 2 gives up");
        assert_eq!(panic.line, line_of("panic!(\"thread 3 of block 2 gives up\")"));
        assert_eq!((panic.block, panic.thread), (Dim3::new(2, 0, 0), Dim3::new(3, 0, 0)));
        assert_eq!(panic.other_panics, 0);
        // The next launch of the same kernel works, with no stale report.
        let mut out = DeviceBuffer::<u32>::zeros(device, 100).unwrap();
        launch!(explicit_panic[2, 64](&mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![7u32; 100]);
    }

    fn assert_in_kernel_with_host_slices(device) {
        let values: Vec<i32> = (0..300).map(|i| if i == 250 { -1 } else { i }).collect();
        let mut out = vec![0i32; 300];
        let stream = device.default_stream();
        // Host slices make the launch synchronous, so the launch itself reports the panic.
        let panic = expect_panic(launch!(assert_non_negative[3, 128, &stream](&values, &mut out)));
        assert_eq!(panic.message, "negative input");
        assert_eq!((panic.block, panic.thread), (Dim3::new(1, 0, 0), Dim3::new(122, 0, 0)));
        assert_eq!(panic.kernel, "assert_non_negative");
        let fine: Vec<i32> = (0..300).collect();
        launch!(assert_non_negative[3, 128, &stream](&fine, &mut out)).unwrap();
        assert_eq!(out, fine);
    }
}
