//! Memory running out in the middle of a library call: each call that allocates temporary
//! storage is run with its first, second, ... allocation failing (`fail_allocation_after`)
//! until it succeeds. Each failure must be `Error::OutOfMemory` from the call (no panic), leave
//! the user's buffers as they were, and free what the call had allocated (the simulator counts
//! device memory exactly); the run that succeeds must give the CPU's answer.

use ferrocuda::prelude::*;
use ferrocuda::{Error, fail_allocation_after};
use ferrocuda_tests::{device_tests, rng};
use kernels_algorithms::histogram::histogram_even;
use kernels_algorithms::radix_sort::sort_pairs;
use kernels_algorithms::reduce::{Sum, reduce};
use kernels_algorithms::scan::inclusive_scan;
use kernels_algorithms::select::{Predicate, select_count};
use rand::Rng;

/// Device memory in use (free bytes fall as it grows): `total - free`.
fn in_use(device: &Device) -> usize {
    let (free, total) = device.memory_info().unwrap();
    total - free
}

/// Runs `call` with allocation 0, 1, 2, ... failing until it succeeds; checks each failure
/// (`OutOfMemory`, `unchanged` still true, no memory kept on the simulator). Returns the
/// number of allocations the call made.
fn until_it_succeeds<T>(
    device: &Device,
    what: &str,
    mut call: impl FnMut() -> ferrocuda::Result<T>,
    unchanged: impl Fn() -> bool,
) -> usize {
    for failing in 0..64 {
        let before = in_use(device);
        let result = {
            let _failure = fail_allocation_after(failing);
            call()
        };
        match result {
            Ok(_) => return failing,
            Err(Error::OutOfMemory { available: 0, .. }) => {
                assert!(
                    unchanged(),
                    "{what}: allocation {failing} failed and changed the input"
                );
                if device.is_simulator() {
                    assert_eq!(
                        in_use(device),
                        before,
                        "{what}: allocation {failing} failed and leaked"
                    );
                }
            }
            Err(other) => {
                panic!("{what}: allocation {failing} failed with {other}, not OutOfMemory")
            }
        }
    }
    panic!("{what}: still failing after 64 allocations");
}

device_tests! {
    // One test for all, so that no other test of this binary allocates while one counts the
    // simulator's memory.
    fn library_calls_return_out_of_memory_and_free_what_they_took(device) {
        // The injected failure fails that allocation only.
        let failure = fail_allocation_after(1);
        assert!(DeviceBuffer::<f32>::zeros(device, 16).is_ok());
        match DeviceBuffer::<f32>::zeros(device, 16) {
            Err(Error::OutOfMemory { requested: 64, available: 0, .. }) => {}
            other => panic!("expected the injected OutOfMemory, got {other:?}"),
        }
        assert!(DeviceBuffer::<f32>::zeros(device, 16).is_ok());
        // Dropping the guard before its allocation cancels it.
        drop(fail_allocation_after(0));
        assert!(DeviceBuffer::<f32>::zeros(device, 16).is_ok());
        drop(failure);

        let stream = device.default_stream();
        let mut rng = rng("allocation failure");
        let n = 5000;
        let keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
        let values: Vec<u32> = (0..n as u32).collect();

        let mut k = DeviceBuffer::from_slice(device, &keys).unwrap();
        let mut v = DeviceBuffer::from_slice(device, &values).unwrap();
        // A failed sort may leave the keys permuted only if it got as far as a pass; none of
        // its allocations come after its first pass, so the input stays as it was.
        let allocations = until_it_succeeds(
            device,
            "sort_pairs",
            || sort_pairs(&stream, &mut k, &mut v),
            || true,
        );
        assert!(allocations > 0, "sort_pairs allocates its temporary storage");
        let mut pairs: Vec<(u32, u32)> = keys.iter().copied().zip(values.iter().copied()).collect();
        pairs.sort_by_key(|p| p.0);
        let (want_keys, want_values): (Vec<u32>, Vec<u32>) = pairs.into_iter().unzip();
        assert_eq!(k.to_vec().unwrap(), want_keys);
        assert_eq!(v.to_vec().unwrap(), want_values);

        let input = DeviceBuffer::from_slice(device, &keys).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        let threshold = u32::MAX / 2;
        let count = {
            let mut count = 0;
            until_it_succeeds(device, "select_count", || {
                count = select_count(&stream, &input, Predicate::GreaterThan(threshold), &mut out)?;
                Ok(())
            }, || input.to_vec().unwrap() == keys);
            count
        };
        let want: Vec<u32> = keys.iter().copied().filter(|&x| x > threshold).collect();
        assert_eq!(count, want.len());
        assert!(out.to_vec().unwrap()[..count] == want[..]);

        let samples: Vec<f32> = (0..n).map(|i| (i % 10) as f32).collect();
        let samples = DeviceBuffer::from_slice(device, &samples).unwrap();
        let mut counts = DeviceBuffer::<u32>::zeros(device, 10).unwrap();
        until_it_succeeds(device, "histogram_even", || histogram_even(&stream, &samples, 0.0, 10.0, &mut counts), || true);
        assert_eq!(counts.to_vec().unwrap(), vec![n as u32 / 10; 10]);

        let ones = DeviceBuffer::from_slice(device, &vec![1u32; n]).unwrap();
        let mut prefix = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        until_it_succeeds(device, "inclusive_scan", || inclusive_scan(&stream, &ones, &mut prefix, Sum), || true);
        assert_eq!(prefix.to_vec().unwrap(), (1..=n as u32).collect::<Vec<_>>());
        let mut total = 0;
        until_it_succeeds(device, "reduce", || {
            total = reduce(&stream, &ones, Sum)?;
            Ok(())
        }, || true);
        assert_eq!(total, n as u32);
    }
}
