//! Errors that are not driver errors say so, on the simulator: an event never recorded, an
//! allocation larger than the address space.

use ferrocuda::{Device, DeviceBuffer, Error, Event, PinnedBuffer};

#[test]
fn timing_an_unrecorded_event_is_event_not_recorded() {
    let device = Device::simulator();
    let (start, end) = (Event::new(&device).unwrap(), Event::new(&device).unwrap());
    start.record(&device.default_stream()).unwrap();
    let error = start.elapsed_ms(&end).unwrap_err();
    assert!(
        matches!(
            error,
            Error::EventNotRecorded {
                operation: "Event::elapsed_ms"
            }
        ),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "Event::elapsed_ms: both events must be recorded before measuring the time between them"
    );
    end.record(&device.default_stream()).unwrap();
    assert!(start.elapsed_ms(&end).unwrap() >= 0.0);
}

#[test]
fn an_allocation_beyond_the_address_space_is_allocation_too_large() {
    let device = Device::simulator();
    let error = DeviceBuffer::<u64>::zeros(&device, usize::MAX / 4).unwrap_err();
    let Error::AllocationTooLarge {
        operation,
        elements,
        element_bytes,
        limit,
    } = error
    else {
        panic!("expected AllocationTooLarge, got {error:?}")
    };
    assert_eq!(
        (operation, elements, element_bytes, limit),
        (
            "DeviceBuffer allocation",
            usize::MAX / 4,
            8,
            isize::MAX as usize
        )
    );
    let error = PinnedBuffer::<u32>::new(&device, usize::MAX).unwrap_err();
    assert!(
        matches!(
            error,
            Error::AllocationTooLarge {
                operation: "PinnedBuffer allocation",
                ..
            }
        ),
        "{error:?}"
    );
}
