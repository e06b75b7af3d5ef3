//! Streams from `Device::new_stream` are blocking streams, ordered with the legacy default
//! stream both ways. Each test queues a slow kernel (`lcg_rounds`) on one side and, with no
//! synchronization or event in between, work on the other side that depends on it: on a GPU,
//! with streams that do not synchronize with the default stream (cudarc's `new_stream`), that
//! work would overtake the kernel. The expected values come from a closed form of the kernel's
//! recurrence, not from running it.

use ferrocuda::prelude::*;
use ferrocuda_tests::{blocks, device_tests, random_u32, rng};
use test_kernels::busy::{lcg_rounds, lcg_step, xor_into};

/// Elements per test: not a multiple of the block.
fn len(device: &Device) -> usize {
    if device.is_simulator() {
        10_007
    } else {
        (1 << 20) + 7
    }
}

/// Rounds of `lcg_rounds`: tens of milliseconds on a GPU (a dependent chain of 2^20 steps per
/// thread), a few steps on the simulator, where every launch is synchronous anyway.
fn rounds(device: &Device) -> u32 {
    if device.is_simulator() { 5 } else { 1 << 20 }
}

/// `lcg_step` applied `rounds` times, as one affine map `x -> a x + b` (mod 2^32) composed by
/// repeated squaring.
fn lcg_power(rounds: u32) -> (u32, u32) {
    let step = (lcg_step(1).wrapping_sub(lcg_step(0)), lcg_step(0));
    // (a2, b2) after (a1, b1): x -> a2 (a1 x + b1) + b2.
    let then = |(a1, b1): (u32, u32), (a2, b2): (u32, u32)| {
        (a2.wrapping_mul(a1), a2.wrapping_mul(b1).wrapping_add(b2))
    };
    let (mut result, mut square, mut n) = ((1u32, 0u32), step, rounds);
    while n > 0 {
        if n & 1 == 1 {
            result = then(result, square);
        }
        square = then(square, square);
        n >>= 1;
    }
    result
}

/// What `lcg_rounds` leaves in `data`.
fn expected(data: &[u32], rounds: u32) -> Vec<u32> {
    let (a, b) = lcg_power(rounds);
    data.iter()
        .map(|&x| a.wrapping_mul(x).wrapping_add(b))
        .collect()
}

#[test]
fn the_closed_form_matches_the_recurrence() {
    let data = random_u32(&mut rng("lcg_closed_form"), 100, u32::MAX);
    for rounds in [0u32, 1, 2, 7, 1000] {
        let iterated: Vec<u32> = data
            .iter()
            .map(|&x| (0..rounds).fold(x, |x, _| lcg_step(x)))
            .collect();
        assert_eq!(expected(&data, rounds), iterated, "{rounds} rounds");
    }
}

device_tests! {
    /// A synchronization with a time limit gives up on a kernel that outlasts it (on a GPU:
    /// 2^32 - 1 rounds, which LLVM folds 64 to a multiply-add: a dependent chain of 2^26 of
    /// them per thread), says so, and leaves the work running: a plain synchronization then
    /// waits for it, and the results are right. A limit of zero gives up at the first look.
    fn synchronize_timeout_gives_up_and_the_work_goes_on(device) {
        let n = 4099;
        let data = random_u32(&mut rng("synchronize_timeout"), n, u32::MAX);
        let rounds = if device.is_simulator() { 5 } else { u32::MAX };
        let mut buffer = DeviceBuffer::from_slice(device, &data).unwrap();
        launch!(lcg_rounds[blocks(n, 256), 256](&mut buffer, rounds)).unwrap();
        let no_time = std::time::Duration::ZERO;
        for result in [
            device.default_stream().synchronize_timeout(no_time),
            device.synchronize_timeout(no_time),
        ] {
            match result {
                Err(Error::Timeout { operation, limit_ms, .. }) => {
                    assert!(!device.is_simulator(), "the simulator's work is already done");
                    assert!(operation.ends_with("::synchronize_timeout"), "{operation}");
                    assert_eq!(limit_ms, 0);
                }
                Ok(()) => assert!(device.is_simulator(), "the kernel finished at once"),
                Err(other) => panic!("{other}"),
            }
        }
        device
            .synchronize_timeout(std::time::Duration::from_secs(60))
            .unwrap();
        assert_eq!(buffer.to_vec().unwrap(), expected(&data, rounds));
    }

    fn to_vec_waits_for_a_kernel_on_a_new_stream(device) {
        let (n, rounds) = (len(device), rounds(device));
        let input = random_u32(&mut rng("to_vec_waits"), n, u32::MAX);
        let stream = device.new_stream().unwrap();
        let mut data = DeviceBuffer::from_slice(device, &input).unwrap();
        launch!(lcg_rounds[blocks(n, 256), 256, &stream](&mut data, rounds)).unwrap();
        // A synchronous copy on the default stream: it must wait for the stream's kernel.
        assert!(data.to_vec().unwrap() == expected(&input, rounds), "to_vec overtook the kernel");
        stream.synchronize().unwrap();
    }

    fn a_new_stream_waits_for_the_default_stream(device) {
        let (n, rounds) = (len(device), rounds(device));
        let input = random_u32(&mut rng("new_stream_waits"), n, u32::MAX);
        let stream = device.new_stream().unwrap();
        let mut data = DeviceBuffer::from_slice(device, &input).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        launch!(lcg_rounds[blocks(n, 256), 256](&mut data, rounds)).unwrap();
        // Queued on the new stream right behind the default stream's kernel.
        launch!(xor_into[blocks(n, 256), 256, &stream](&data, &mut out, 0x5a5a_5a5au32)).unwrap();
        stream.synchronize().unwrap();
        let want: Vec<u32> = expected(&input, rounds).iter().map(|x| x ^ 0x5a5a_5a5a).collect();
        assert!(out.to_vec().unwrap() == want, "the new stream overtook the default stream");
    }

    fn a_buffer_dropped_while_a_stream_uses_it_is_freed_after(device) {
        let (n, rounds) = (len(device), rounds(device));
        let mut rng = rng("drop_while_used");
        let stream = device.new_stream().unwrap();
        for _ in 0..3 {
            let input = random_u32(&mut rng, n, u32::MAX);
            let mut busy = DeviceBuffer::from_slice(device, &input).unwrap();
            let mut result = DeviceBuffer::<u32>::zeros(device, n).unwrap();
            launch!(lcg_rounds[blocks(n, 256), 256, &stream](&mut busy, rounds)).unwrap();
            launch!(xor_into[blocks(n, 256), 256, &stream](&busy, &mut result, 0u32)).unwrap();
            // Freed on the default stream: after the kernels, or its memory could go to `fresh`
            // while they still write it.
            drop(busy);
            let other = random_u32(&mut rng, n, u32::MAX);
            let fresh = DeviceBuffer::from_slice(device, &other).unwrap();
            stream.synchronize().unwrap();
            assert!(fresh.to_vec().unwrap() == other, "a kernel wrote freed memory");
            assert!(result.to_vec().unwrap() == expected(&input, rounds));
        }
    }

    fn work_queued_on_a_dropped_stream_completes(device) {
        let (n, rounds) = (len(device), rounds(device));
        let input = random_u32(&mut rng("dropped_stream"), n, u32::MAX);
        let mut data = DeviceBuffer::from_slice(device, &input).unwrap();
        let stream = device.new_stream().unwrap();
        let clone = stream.clone();
        launch!(lcg_rounds[blocks(n, 256), 256, &stream](&mut data, rounds)).unwrap();
        drop(stream);
        // The clone keeps the stream alive and usable.
        launch!(lcg_rounds[blocks(n, 256), 256, &clone](&mut data, 1u32)).unwrap();
        drop(clone);
        device.synchronize().unwrap();
        assert!(data.to_vec().unwrap() == expected(&input, rounds + 1));
        // Many short-lived streams, each destroyed with its last clone while its kernel may still
        // run; streams are not ordered with each other, so each works on its own chunk.
        let chunk = n.div_ceil(200);
        for start in (0..n).step_by(chunk) {
            let stream = device.new_stream().unwrap();
            let part = data.slice_mut(start..(start + chunk).min(n));
            launch!(lcg_rounds[blocks(chunk, 256), 256, &stream](part, 2u32)).unwrap();
        }
        device.synchronize().unwrap();
        assert!(data.to_vec().unwrap() == expected(&input, rounds + 3));
    }

    fn two_new_streams_ordered_by_an_event(device) {
        let (n, rounds) = (len(device), rounds(device));
        let input = random_u32(&mut rng("two_streams"), n, u32::MAX);
        let (one, two) = (device.new_stream().unwrap(), device.new_stream().unwrap());
        let mut data = DeviceBuffer::from_slice(device, &input).unwrap();
        let mut out = DeviceBuffer::<u32>::zeros(device, n).unwrap();
        launch!(lcg_rounds[blocks(n, 256), 256, &one](&mut data, rounds)).unwrap();
        let done = one.record_event().unwrap();
        two.wait_event(&done).unwrap();
        launch!(xor_into[blocks(n, 256), 256, &two](&data, &mut out, 7u32)).unwrap();
        two.synchronize().unwrap();
        let want: Vec<u32> = expected(&input, rounds).iter().map(|x| x ^ 7).collect();
        assert!(out.to_vec().unwrap() == want);
    }
}
