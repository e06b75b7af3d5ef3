//! Dynamic shared memory sized at launch: a vector add staging three arrays
//! per block, on random data whose length is not a multiple of the block; too little shared
//! memory stops the kernel with a clear panic and the device stays usable.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::dynamic_shared::vecadd_dynamic_shared;

device_tests! {
    fn vecadd_through_dynamic_shared_memory(device) {
        let mut rng = rng("dynamic_shared");
        for (n, block) in [(1000usize, 32u32), (1usize, 32), (4099, 256), (70, 1024)] {
            let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
            let mut c = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            let bytes = 3 * block * 4;
            let blocks = (n as u32).div_ceil(block);
            launch!(vecadd_dynamic_shared[blocks, block, &device.default_stream(), bytes](&a, &b, &mut c)).unwrap();
            let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            assert_eq!(c.to_vec().unwrap(), expected, "n = {n}, block = {block}");
        }
    }

    fn too_little_dynamic_shared_memory_is_a_panic(device) {
        let (a, b) = (vec![1.0f32; 64], vec![2.0f32; 64]);
        let mut c = DeviceBuffer::<f32>::zeros(device, 64).unwrap();
        let result = vecadd_dynamic_shared
            .grid(2)
            .block(32)
            .shared_mem(2 * 32 * 4)
            .launch(&a, &b, &mut c)
            .and_then(|()| device.synchronize());
        match result {
            Err(Error::KernelPanic(panic)) => {
                assert_eq!(panic.kernel, "vecadd_dynamic_shared");
                assert!(panic.file.ends_with("dynamic_shared.rs"), "{}", panic.file);
            }
            other => panic!("expected a panic for too little shared memory, got {other:?}"),
        }
        vecadd_dynamic_shared.grid(2).block(32).shared_mem(3 * 32 * 4).launch(&a, &b, &mut c).unwrap();
        assert_eq!(c.to_vec().unwrap(), vec![3.0; 64]);
    }
}
