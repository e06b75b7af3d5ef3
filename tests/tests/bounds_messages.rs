//! Failed bounds checks name the index and the length on both backends: on the GPU the device
//! records the integers and the host prints the text Rust (or the simulator) prints.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, expect_panic};
use test_kernels::check_faults::{
    atomic_index_out_of_bounds, matrix_column_out_of_bounds, slice_range_out_of_bounds,
};

device_tests! {
    fn range_checks_print_cores_text(device) {
        let data = DeviceBuffer::from_slice(device, &[1u32; 10]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, 1).unwrap();
        let cases = [
            (11, 12, "range start index 11 out of range for slice of length 10"),
            (2, 12, "range end index 12 out of range for slice of length 10"),
            (4, 2, "slice index starts at 4 but ends at 2"),
        ];
        for (start, end, expected) in cases {
            launch!(slice_range_out_of_bounds[1, 32](&data, &mut out, start, end)).unwrap();
            let panic = expect_panic(device.synchronize());
            assert_eq!(panic.message, expected);
            assert!(panic.file.ends_with("check_faults.rs"), "{}", panic.file);
        }
        launch!(slice_range_out_of_bounds[1, 32](&data, &mut out, 3u32, 10u32)).unwrap();
        device.synchronize().unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![7]);
    }

    fn atomic_slice_check_names_index_and_length(device) {
        let mut bins = DeviceBuffer::<u32>::zeros(device, 4).unwrap();
        launch!(atomic_index_out_of_bounds[1, 32](&mut bins, 9u32)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(panic.message, "atomic slice index out of bounds: the index is 9 but the length is 4");
        assert!(panic.file.ends_with("check_faults.rs"), "{}", panic.file);
    }

    fn matrix_check_names_column_and_shape(device) {
        let data = DeviceBuffer::from_slice(device, &[0.5f32; 6]).unwrap();
        let mut out = DeviceBuffer::<f32>::zeros(device, 1).unwrap();
        launch!(matrix_column_out_of_bounds[1, 32](&data, &mut out, 2u32, 3u32, 5u32)).unwrap();
        let panic = expect_panic(device.synchronize());
        assert_eq!(
            panic.message,
            "matrix column index out of bounds: the column is 5 but there are 3 columns (index (0, 5) into 2 x 3)"
        );
    }
}
