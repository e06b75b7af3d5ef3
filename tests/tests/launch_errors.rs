//! Bad launches are rejected with errors that name the kernel, the bad value and the limit, and
//! the device stays usable afterwards.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::elementwise::vecadd;

/// A correct launch, to show the device still works after an error.
fn vecadd_works(device: &Device) {
    let mut rng = rng("after-error");
    let (a, b) = (random_f32(&mut rng, 300), random_f32(&mut rng, 300));
    let mut c = vec![0.0f32; 300];
    let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
    let stream = device.default_stream();
    launch!(vecadd[3, 128, &stream](&a_dev, &b, &mut c)).unwrap();
    let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_eq!(c, expected);
}

fn launch_error(result: ferrocuda::Result<()>) -> String {
    match result {
        Err(Error::Launch(e)) => {
            assert_eq!(e.kernel, "vecadd");
            e.to_string()
        }
        other => panic!("expected a launch error, got {other:?}"),
    }
}

device_tests! {
    fn block_of_2048_threads_is_rejected(device) {
        let a = DeviceBuffer::<f32>::zeros(device, 2048).unwrap();
        let mut c = DeviceBuffer::<f32>::from_slice(device, &[5.0; 2048]).unwrap();
        let message = launch_error(launch!(vecadd[1, 2048](&a, &a, &mut c)));
        assert_eq!(
            message,
            format!("cannot launch kernel `vecadd`: block of 2048 threads (2048 x 1 x 1) exceeds the limit of 1024 threads per block on {}", device.name())
        );
        // Nothing ran: the output buffer kept its contents.
        assert_eq!(c.to_vec().unwrap(), vec![5.0; 2048]);
        vecadd_works(device);
    }

    fn zero_sized_grid_and_block_are_rejected(device) {
        let a = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let message = launch_error(launch!(vecadd[0, 16](&a, &a, &mut c)));
        assert!(message.contains("grid is 0 x 1 x 1: every dimension must be at least 1"), "{message}");
        let message = launch_error(launch!(vecadd[1, (16, 0)](&a, &a, &mut c)));
        assert!(message.contains("block is 16 x 0 x 1"), "{message}");
        // A launcher with no grid at all.
        let message = launch_error(vecadd.block(16).launch(&a, &a, &mut c));
        assert!(message.contains("grid is 0 x 0 x 0"), "{message}");
        vecadd_works(device);
    }

    fn dimension_limits_are_checked(device) {
        let a = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let message = launch_error(launch!(vecadd[(1, 65536), 16](&a, &a, &mut c)));
        assert!(message.contains("grid y dimension 65536 (1 x 65536 x 1) exceeds the limit of 65535 blocks"), "{message}");
        let message = launch_error(launch!(vecadd[1, (1, 1, 65)](&a, &a, &mut c)));
        assert!(message.contains("block z dimension 65 (1 x 1 x 65) exceeds the limit of 64"), "{message}");
        let message = launch_error(launch!(vecadd[1, 16, &device.default_stream(), 1 << 20](&a, &a, &mut c)));
        assert!(message.contains("1048576 bytes of dynamic shared memory exceed the limit of"), "{message}");
        vecadd_works(device);
    }

    fn buffers_of_another_device_are_rejected(device) {
        let Some(other) = ferrocuda_tests::other_device(device) else {
            return;
        };
        let a = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        let b = DeviceBuffer::<f32>::zeros(&other, 16).unwrap();
        let mut c = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        match launch!(vecadd[1, 16](&a, &b, &mut c)) {
            Err(Error::DeviceMismatch { what, .. }) => assert_eq!(what, "argument 2 (`b: &[f32]`) of kernel `vecadd`"),
            other => panic!("expected a device mismatch, got {other:?}"),
        }
        vecadd_works(device);
    }

    fn length_mismatch_in_copies(device) {
        let mut a = DeviceBuffer::<f32>::zeros(device, 16).unwrap();
        match a.copy_from(&[1.0; 15]) {
            Err(Error::LengthMismatch { expected: 16, actual: 15, .. }) => {}
            other => panic!("expected a length mismatch, got {other:?}"),
        }
        assert_eq!(a.to_vec().unwrap(), vec![0.0; 16]);
    }
}
