//! The device-wide copy, fill and sequence (`kernels_algorithms::{copy, fill}`) against host
//! references on random data: every element type, the awkward lengths 0, 1, 31, non-multiples
//! of the chunk and the grid, 2^20 + 7, whole buffers and sub-slices at every offset modulo the
//! 16-byte vector (equally and unequally aligned source and destination), elements around the
//! written range left untouched; and the length-mismatch error.

use ferrocuda::prelude::*;
use ferrocuda_tests::inputs::rng;
use ferrocuda_tests::{device_tests, other_device};
use kernels_algorithms::copy::copy;
use kernels_algorithms::fill::{fill, sequence};
use rand::Rng;
use rand::distr::{Distribution, StandardUniform};

/// Lengths of the copies and fills.
const LENGTHS: [usize; 8] = [0, 1, 2, 31, 1000, 4101, 70_003, (1 << 20) + 7];

/// `n` random values of `T`.
fn random<T>(seed: &str, n: usize) -> Vec<T>
where
    StandardUniform: Distribution<T>,
{
    let mut rng = rng(seed);
    (0..n).map(|_| rng.random()).collect()
}

/// Copies `data[s..s + len]` into a destination buffer at offset `d`, for offsets that cover
/// every alignment, and checks the destination element by element, untouched ones included.
fn check_copy<T>(device: &Device, what: &str, data: &[T], sentinel: T)
where
    T: kernels_algorithms::copy::CopyElement + PartialEq + std::fmt::Debug,
{
    let stream = device.default_stream();
    let src = DeviceBuffer::from_slice(device, data).unwrap();
    for len in LENGTHS {
        for (s, d) in [(0, 0), (1, 1), (3, 0), (0, 5), (2, 7), (4, 4)] {
            if s + len > data.len() {
                continue;
            }
            let mut dst = DeviceBuffer::from_slice(device, &vec![sentinel; d + len + 3]).unwrap();
            copy(&stream, src.slice(s..s + len), dst.slice_mut(d..d + len)).unwrap();
            let got = dst.to_vec().unwrap();
            let mut expected = vec![sentinel; d + len + 3];
            expected[d..d + len].copy_from_slice(&data[s..s + len]);
            if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
                panic!(
                    "{what}: copy of {len} elements from offset {s} to offset {d}: element {i} is {:?}, expected {:?}",
                    got[i], expected[i]
                );
            }
        }
    }
    // A whole buffer into a whole buffer.
    let mut dst = DeviceBuffer::from_slice(device, &vec![sentinel; data.len()]).unwrap();
    copy(&stream, &src, &mut dst).unwrap();
    assert!(dst.to_vec().unwrap() == data, "{what}: whole-buffer copy");
}

/// Fills `[d, d + len)` of a buffer of sentinels with `value` and checks every element.
fn check_fill<T>(device: &Device, what: &str, value: T, sentinel: T)
where
    T: kernels_algorithms::copy::CopyElement + PartialEq + std::fmt::Debug,
{
    let stream = device.default_stream();
    for len in LENGTHS {
        for d in [0, 1, 3, 6] {
            let mut out = DeviceBuffer::from_slice(device, &vec![sentinel; d + len + 2]).unwrap();
            fill(&stream, out.slice_mut(d..d + len), value).unwrap();
            let got = out.to_vec().unwrap();
            for (i, g) in got.iter().enumerate() {
                let want = if i >= d && i < d + len {
                    value
                } else {
                    sentinel
                };
                assert!(
                    *g == want,
                    "{what}: fill of {len} at offset {d}: element {i} is {g:?}, expected {want:?}"
                );
            }
        }
    }
}

/// Checks `sequence` against `reference(i)` on sub-slices at several offsets.
fn check_sequence<T>(
    device: &Device,
    what: &str,
    start: T,
    step: T,
    sentinel: T,
    reference: impl Fn(usize) -> T,
) where
    T: kernels_algorithms::fill::SequenceKernel + PartialEq + std::fmt::Debug,
{
    let stream = device.default_stream();
    for len in LENGTHS {
        for d in [0, 1, 2, 5] {
            let mut out = DeviceBuffer::from_slice(device, &vec![sentinel; d + len + 1]).unwrap();
            sequence(&stream, out.slice_mut(d..d + len), start, step).unwrap();
            let got = out.to_vec().unwrap();
            for (i, g) in got.iter().enumerate() {
                let want = if i >= d && i < d + len {
                    reference(i - d)
                } else {
                    sentinel
                };
                assert!(
                    *g == want,
                    "{what}: sequence of {len} at offset {d}: element {i} is {g:?}, expected {want:?}"
                );
            }
        }
    }
}

/// The largest length of [`LENGTHS`] plus room for the offsets.
const DATA: usize = (1 << 20) + 16;

device_tests! {
    fn copy_matches_the_source_for_every_type_length_and_offset(device) {
        check_copy::<u8>(device, "u8", &random("copy_u8", DATA), 0xa5);
        check_copy::<i8>(device, "i8", &random("copy_i8", DATA), -3);
        check_copy::<u16>(device, "u16", &random("copy_u16", DATA), 0xbeef);
        check_copy::<i16>(device, "i16", &random("copy_i16", DATA), -77);
        check_copy::<u32>(device, "u32", &random("copy_u32", DATA), 0xdead_beef);
        check_copy::<i32>(device, "i32", &random("copy_i32", DATA), -1);
        check_copy::<u64>(device, "u64", &random("copy_u64", DATA), u64::MAX);
        check_copy::<i64>(device, "i64", &random("copy_i64", DATA), i64::MIN);
        check_copy::<f32>(device, "f32", &random("copy_f32", DATA), f32::MAX);
        check_copy::<f64>(device, "f64", &random("copy_f64", DATA), -0.5);
        let halves: Vec<f16> = random::<f32>("copy_f16", DATA).into_iter().map(f16::from_f32).collect();
        check_copy::<f16>(device, "f16", &halves, f16::from_f32(-2.0));
        let halves: Vec<bf16> = random::<f32>("copy_bf16", DATA).into_iter().map(bf16::from_f32).collect();
        check_copy::<bf16>(device, "bf16", &halves, bf16::from_f32(-2.0));
    }

    fn fill_writes_exactly_its_slice(device) {
        check_fill::<u8>(device, "u8", 0x5a, 1);
        check_fill::<i8>(device, "i8", -5, 1);
        check_fill::<u16>(device, "u16", 0x1234, 1);
        check_fill::<i16>(device, "i16", -300, 1);
        check_fill::<u32>(device, "u32", 0xcafe_f00d, 1);
        check_fill::<i32>(device, "i32", -123_456, 1);
        check_fill::<u64>(device, "u64", 1 << 40, 1);
        check_fill::<i64>(device, "i64", -(1 << 50), 1);
        check_fill::<f32>(device, "f32", 1.5, -0.0);
        check_fill::<f64>(device, "f64", -2.25e100, 0.0);
        check_fill::<f16>(device, "f16", f16::from_f32(0.75), f16::from_f32(0.0));
        check_fill::<bf16>(device, "bf16", bf16::from_f32(-3.0), bf16::from_f32(0.0));
    }

    fn sequence_is_start_plus_index_times_step(device) {
        check_sequence::<u32>(device, "u32", 7, 3, 0, |i| 7u32.wrapping_add((i as u32).wrapping_mul(3)));
        // Wraps around.
        check_sequence::<u32>(device, "u32 wrapping", u32::MAX - 5, 1 << 20, 0, |i| (u32::MAX - 5).wrapping_add((i as u32).wrapping_mul(1 << 20)));
        check_sequence::<i32>(device, "i32", 1000, -7, 0, |i| 1000i32.wrapping_add((i as i32).wrapping_mul(-7)));
        check_sequence::<u64>(device, "u64", 1 << 40, 1 << 33, 0, |i| (1u64 << 40).wrapping_add((i as u64).wrapping_mul(1 << 33)));
        check_sequence::<i64>(device, "i64", -5, 9, 0, |i| (-5i64).wrapping_add((i as i64).wrapping_mul(9)));
        check_sequence::<f32>(device, "f32", -1.25, 0.1, 0.0, |i| -1.25f32 + i as f32 * 0.1f32);
        check_sequence::<f64>(device, "f64", 3.0, 1e-3, -1.0, |i| 3.0f64 + i as f64 * 1e-3);
    }

    fn copy_checks_lengths_and_devices(device) {
        let stream = device.default_stream();
        let src = DeviceBuffer::from_slice(device, &[1u32, 2, 3, 4]).unwrap();
        let mut dst = DeviceBuffer::<u32>::zeros(device, 6).unwrap();
        match copy(&stream, &src, dst.slice_mut(1..4)) {
            Err(Error::LengthMismatch { expected: 4, actual: 3, operation }) => {
                assert!(operation.contains("copy"), "{operation}");
            }
            other => panic!("a 3-element destination must be a length mismatch, got {other:?}"),
        }
        // Nothing was written.
        assert_eq!(dst.to_vec().unwrap(), vec![0; 6]);
        if let Some(other) = other_device(device) {
            let mut elsewhere = DeviceBuffer::<u32>::zeros(&other, 4).unwrap();
            match copy(&stream, &src, &mut elsewhere) {
                Err(Error::DeviceMismatch { .. }) => {}
                other => panic!("a destination on another device must be a device mismatch, got {other:?}"),
            }
        }
    }
}
