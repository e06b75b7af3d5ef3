//! Vector addition through per-thread local arrays: exact, for sizes that
//! leave the last thread fewer than its four elements.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::local_array::{LOCAL_ELEMENTS, vecadd_local};

device_tests! {
    fn vecadd_local_matches_cpu(device) {
        let mut rng = rng("vecadd_local");
        for n in [1usize, 3, 4, 5, 1023, 1025, 4097, 100_003] {
            let (a, b) = (random_f32(&mut rng, n), random_f32(&mut rng, n));
            let a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
            let mut c_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            let block = 128u32;
            let grid = n.div_ceil(LOCAL_ELEMENTS * block as usize) as u32;
            launch!(vecadd_local[grid, block](&a_dev, &b_dev, &mut c_dev)).unwrap();
            let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
            assert_eq!(c_dev.to_vec().unwrap(), expected, "n = {n}");
        }
    }

    fn vecadd_local_extra_threads_do_nothing(device) {
        // Far more threads than elements: only the first two threads have work.
        let (a, b) = (vec![1.0f32; 6], vec![2.0f32; 6]);
        let mut c = vec![0.0f32; 6];
        launch!(vecadd_local[3, 64](&a, &b, &mut c)).unwrap();
        assert_eq!(c, vec![3.0; 6]);
    }
}
