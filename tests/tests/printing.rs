//! Device printing from every thread: on the simulator the exact lines are
//! checked; on a GPU the lines go to the process's stdout (the driver's printf buffer), so the
//! test checks the doubled values.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_nvptx::printing::multiply_by_two;

device_tests! {
    fn multiply_by_two_prints_before_and_after(device) {
        let mut rng = rng("multiply_by_two");
        let a: Vec<f32> = random_f32(&mut rng, 10).iter().map(|v| v * 100.0).collect();
        let mut a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
        device.take_simulator_output();
        launch!(multiply_by_two[1, 16](&mut a_dev)).unwrap();
        device.synchronize().unwrap();
        let doubled: Vec<f32> = a.iter().map(|v| v * 2.0).collect();
        assert_eq!(a_dev.to_vec().unwrap(), doubled);
        if device.is_simulator() {
            let output = device.take_simulator_output();
            let mut lines: Vec<&str> = output.lines().collect();
            lines.sort_unstable();
            let mut expected: Vec<String> = (0..10)
                .flat_map(|i| {
                    [
                        format!("Before: idx = {i}, value = {:.6}", a[i]),
                        format!("After: idx = {i}, value = {:.6}", doubled[i]),
                    ]
                })
                .collect();
            expected.sort_unstable();
            assert_eq!(lines, expected);
            // Each thread prints "Before" before its "After".
            for i in 0..10 {
                let before = output.find(&format!("Before: idx = {i},")).unwrap();
                let after = output.find(&format!("After: idx = {i},")).unwrap();
                assert!(before < after, "thread {i} printed After first:\n{output}");
            }
        } else {
            assert_eq!(device.take_simulator_output(), "");
        }
    }
}
