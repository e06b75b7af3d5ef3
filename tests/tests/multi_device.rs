//! Several devices: enumeration (`Device::count`, `Device::all`, the simulated devices), peer
//! access, and the copies from one device buffer to another by every route (same device, peer,
//! staged through the host), on whole buffers and sub-slices of awkward lengths (0, 1, 31,
//! 2^20 + 7) at several offsets, against the host copy of the same random data, elements around
//! the written range left untouched; and the errors for mismatched lengths and devices.
//!
//! On the simulator the copies between devices run between simulated devices 0 and 1; on the
//! GPU between GPU 0 and the last GPU (with one GPU, the peer and staged routes run within it).

use ferrocuda::prelude::*;
use ferrocuda::{CopyRoute, Error, SIMULATED_DEVICES_ENV};
use ferrocuda_tests::inputs::rng;
use ferrocuda_tests::{device_tests, other_device};
use kernels_nvptx::elementwise::vecadd;
use rand::Rng;

/// Lengths of the copies.
const LENGTHS: [usize; 6] = [0, 1, 2, 31, 4101, (1 << 20) + 7];

/// Every device of `device`'s backend: the simulated devices, or every GPU.
fn devices_like(device: &Device) -> Vec<Device> {
    if device.is_simulator() {
        let n = Device::simulated_count().unwrap();
        (0..n).map(|i| Device::simulated(i).unwrap()).collect()
    } else {
        let n = Device::gpu_count().unwrap();
        (0..n).map(|i| Device::new(i).unwrap()).collect()
    }
}

/// Copies `data[s..s + len]` on `from` into a buffer of sentinels on `to` at offset `d` by
/// `route` (or the automatic one, which must be `expected`), for several offsets and every
/// length, and checks every element of the destination.
fn check_copies(from: &Device, to: &Device, route: Option<CopyRoute>, expected: CopyRoute) {
    let data: Vec<u32> = {
        let mut rng = rng(&format!("copies {from} {to} {route:?}"));
        (0..LENGTHS[LENGTHS.len() - 1] + 8)
            .map(|_| rng.random())
            .collect()
    };
    let sentinel = 0xDEAD_BEEF_u32;
    let source = DeviceBuffer::from_slice(from, &data).unwrap();
    let stream = to.new_stream().unwrap();
    for len in LENGTHS {
        for (s, d) in [(0, 0), (1, 0), (3, 5), (7, 2)] {
            let mut destination =
                DeviceBuffer::from_slice(to, &vec![sentinel; d + len + 3]).unwrap();
            let mut view = destination.slice_mut(d..d + len);
            match route {
                Some(route) => view
                    .copy_from_device_via(source.slice(s..s + len), &stream, route)
                    .unwrap(),
                None => assert_eq!(
                    view.copy_from_device(source.slice(s..s + len), &stream)
                        .unwrap(),
                    expected,
                    "the route from {from} to {to}"
                ),
            }
            stream.synchronize().unwrap();
            let got = destination.to_vec().unwrap();
            let mut want = vec![sentinel; d + len + 3];
            want[d..d + len].copy_from_slice(&data[s..s + len]);
            if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
                panic!(
                    "{expected} of {len} elements from {from} (offset {s}) to {to} (offset {d}): element {i} is {:#x}, expected {:#x}",
                    got[i], want[i]
                );
            }
        }
    }
    // Whole buffers of another element type.
    let values: Vec<f64> = {
        let mut rng = rng("whole f64");
        (0..1000).map(|_| rng.random_range(-1e6..1e6)).collect()
    };
    let source = DeviceBuffer::from_slice(from, &values).unwrap();
    let mut destination = DeviceBuffer::<f64>::zeros(to, values.len()).unwrap();
    match route {
        Some(route) => destination
            .slice_mut(..)
            .copy_from_device_via(source.slice(..), &to.default_stream(), route)
            .unwrap(),
        None => {
            destination
                .copy_from_device(&source, &to.default_stream())
                .unwrap();
        }
    }
    assert_eq!(destination.to_vec().unwrap(), values, "whole-buffer copy");
    assert_eq!(
        source.to_device(to).unwrap().to_vec().unwrap(),
        values,
        "to_device"
    );
}

#[test]
fn simulated_devices_are_distinct_and_counted() {
    let count = Device::simulated_count().unwrap();
    assert!(count >= 1);
    let first = Device::simulated(0).unwrap();
    assert_eq!(first.to_string(), Device::simulator().to_string());
    assert_eq!(first.ordinal(), 0);
    if count > 1 {
        let second = Device::simulated(1).unwrap();
        assert!(second.is_simulator());
        assert_eq!(second.ordinal(), 1);
        assert_eq!(
            second.to_string(),
            "ferrocuda CPU simulator (simulated device 1)"
        );
        // One handle per index.
        assert_eq!(
            Device::simulated(1).unwrap().to_string(),
            second.to_string()
        );
        assert!(first.can_access_peer(&second).unwrap());
        first.enable_peer_access(&second).unwrap();
    }
    let message = Device::simulated(count).unwrap_err().to_string();
    assert!(
        message.contains(&format!("simulated device {count} requested"))
            && message.contains(&format!("has {count}"))
            && message.contains(SIMULATED_DEVICES_ENV),
        "{message}"
    );
}

#[test]
fn a_launch_refuses_a_buffer_of_another_simulated_device() {
    if Device::simulated_count().unwrap() < 2 {
        eprintln!("one simulated device ({SIMULATED_DEVICES_ENV}=1): nothing to mix");
        return;
    }
    let (first, second) = (Device::simulated(0).unwrap(), Device::simulated(1).unwrap());
    let a = DeviceBuffer::from_slice(&first, &[1.0f32, 2.0]).unwrap();
    let b = DeviceBuffer::from_slice(&second, &[3.0f32, 4.0]).unwrap();
    let mut c = DeviceBuffer::<f32>::zeros(&first, 2).unwrap();
    let error = launch!(vecadd[1, 2](&a, &b, &mut c)).unwrap_err();
    let message = error.to_string();
    assert!(
        matches!(error, Error::DeviceMismatch { .. })
            && message.contains(&first.to_string())
            && message.contains(&second.to_string()),
        "{message}"
    );
    // Each simulated device runs its own launches.
    let mut d = DeviceBuffer::<f32>::zeros(&second, 2).unwrap();
    launch!(vecadd[1, 2](&b, &b, &mut d)).unwrap();
    assert_eq!(d.to_vec().unwrap(), vec![6.0, 8.0]);
    launch!(vecadd[1, 2](&a, &a, &mut c)).unwrap();
    assert_eq!(c.to_vec().unwrap(), vec![2.0, 4.0]);
}

#[test]
fn all_devices_are_those_counted_in_ordinal_order() {
    let devices = Device::all().unwrap();
    assert_eq!(devices.len(), Device::count().unwrap());
    assert!(!devices.is_empty());
    for (ordinal, device) in devices.iter().enumerate() {
        assert_eq!(device.ordinal(), ordinal, "{device}");
        assert_eq!(
            device.backend(),
            Device::default_device().unwrap().backend(),
            "{device}"
        );
    }
}

device_tests! {
    fn copies_within_one_device_by_every_route(device) {
        check_copies(device, device, None, CopyRoute::SameDevice);
        for route in [CopyRoute::SameDevice, CopyRoute::Peer, CopyRoute::StagedThroughHost] {
            check_copies(device, device, Some(route), route);
        }
    }

    fn copies_between_two_devices_by_every_route(device) {
        let devices = devices_like(device);
        let (first, last) = (&devices[0], &devices[devices.len() - 1]);
        if first.to_string() == last.to_string() {
            eprintln!("one device of this kind: the copies between devices run within {first}");
        }
        let automatic = if first.to_string() == last.to_string() {
            CopyRoute::SameDevice
        } else if last.can_access_peer(first).unwrap() {
            last.enable_peer_access(first).unwrap();
            CopyRoute::Peer
        } else {
            CopyRoute::StagedThroughHost
        };
        if device.is_simulator() && devices.len() > 1 {
            assert_eq!(automatic, CopyRoute::Peer, "simulated devices reach each other");
        }
        check_copies(first, last, None, automatic);
        check_copies(last, first, Some(CopyRoute::Peer), CopyRoute::Peer);
        check_copies(first, last, Some(CopyRoute::StagedThroughHost), CopyRoute::StagedThroughHost);
    }

    fn a_device_can_reach_itself(device) {
        assert!(device.can_access_peer(device).unwrap());
        device.enable_peer_access(device).unwrap();
    }

    fn copy_misuse_is_an_error_naming_both_sides(device) {
        let stream = device.default_stream();
        let source = DeviceBuffer::from_slice(device, &[1u32, 2, 3, 4, 5]).unwrap();
        let mut short = DeviceBuffer::<u32>::zeros(device, 3).unwrap();
        let error = short.copy_from_device(&source, &stream).unwrap_err();
        assert!(
            matches!(error, Error::LengthMismatch { expected: 3, actual: 5, .. }),
            "{error}"
        );
        let message = error.to_string();
        assert!(message.contains('3') && message.contains('5'), "{message}");
        assert_eq!(short.to_vec().unwrap(), vec![0; 3], "nothing copied");

        let devices = devices_like(device);
        if devices.len() > 1 {
            let other = &devices[1];
            let mut destination = DeviceBuffer::<u32>::zeros(device, 5).unwrap();
            // A stream of another device.
            let error = destination
                .copy_from_device(&source, &other.default_stream())
                .unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(error, Error::DeviceMismatch { .. })
                    && message.contains("the stream")
                    && message.contains(&device.to_string())
                    && message.contains(&other.to_string()),
                "{message}"
            );
            // A same-device copy between two devices.
            let elsewhere = DeviceBuffer::from_slice(other, &[9u32; 5]).unwrap();
            let error = destination
                .slice_mut(..)
                .copy_from_device_via(elsewhere.slice(..), &stream, CopyRoute::SameDevice)
                .unwrap_err();
            let message = error.to_string();
            assert!(
                message.contains(&device.to_string()) && message.contains(&other.to_string()),
                "{message}"
            );
            assert_eq!(destination.to_vec().unwrap(), vec![0; 5], "nothing copied");
        }

        // A GPU and the simulator share no memory.
        if let Some(other) = other_device(device) {
            assert!(!device.can_access_peer(&other).unwrap());
            let foreign = DeviceBuffer::from_slice(&other, &[7u32; 5]).unwrap();
            let mut destination = DeviceBuffer::<u32>::zeros(device, 5).unwrap();
            let error = destination.copy_from_device(&foreign, &stream).unwrap_err();
            let message = error.to_string();
            assert!(
                matches!(error, Error::PeerAccessUnsupported { .. })
                    && message.contains(&device.to_string())
                    && message.contains(&other.to_string()),
                "{message}"
            );
            let message = device.enable_peer_access(&other).unwrap_err().to_string();
            assert!(
                message.contains(&device.to_string()) && message.contains(&other.to_string()),
                "{message}"
            );
        }
    }
}
