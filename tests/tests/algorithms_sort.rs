//! The device-wide radix sort (`kernels_algorithms::radix_sort`) against the CPU's stable
//! `sort_by_key`, on the simulator and the GPU: every key type (`u32`, `i32`, `f32`, `u64`), keys
//! alone and pairs whose values are the keys' original indices (which checks stability), at the
//! awkward lengths 0, 1, 31, 1000, a few tiles and a ragged tile, and 2^20 + 7 (the GPU only: see
//! [`LENGTHS_GPU`]); random keys with many duplicates, all-equal keys, negative floats with -0.0
//! and +0.0; a bit range; and the errors.

use ferrocuda::Error;
use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, rng};
use kernels_algorithms::radix_sort::{
    RadixKey, SORT_TILE, SortKey, SortTemp, SortValue, sort_keys, sort_keys_with, sort_pairs,
    sort_pairs_with,
};
use rand::Rng;
use rand::rngs::StdRng;

/// Lengths on both backends: empty, one, a partial warp, partial tiles, a ragged tile after
/// several full ones.
const LENGTHS: [usize; 6] = [0, 1, 31, 1000, SORT_TILE, 3 * SORT_TILE + 77];

/// Lengths on the GPU alone: at 2^20 + 7 the eight sorts of one key type take over a minute
/// on the simulator in a debug build (run them there with `FERROCUDA_TEST_LARGE=1`).
const LENGTHS_GPU: [usize; 1] = [(1 << 20) + 7];

/// The lengths to test on `device`.
fn lengths(device: &Device) -> Vec<usize> {
    let mut all = LENGTHS.to_vec();
    if !device.is_simulator() || std::env::var_os("FERROCUDA_TEST_LARGE").is_some() {
        all.extend(LENGTHS_GPU);
    }
    all
}

/// The keys' order on the CPU: by the bits of the order-preserving map, compared independently
/// of it for floats (`total_cmp` orders -0.0 before +0.0 and NaNs as the sort documents).
trait CpuOrder: Copy + PartialEq + std::fmt::Debug {
    fn cpu_cmp(&self, other: &Self) -> std::cmp::Ordering;
    fn random(rng: &mut StdRng, distinct: u32) -> Self;
}

impl CpuOrder for u32 {
    fn cpu_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
    fn random(rng: &mut StdRng, distinct: u32) -> Self {
        // Spread over every byte so that every pass moves keys.
        rng.random_range(0..distinct).wrapping_mul(0x9e37_79b9)
    }
}

impl CpuOrder for i32 {
    fn cpu_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
    fn random(rng: &mut StdRng, distinct: u32) -> Self {
        rng.random_range(0..distinct).wrapping_mul(0x9e37_79b9) as i32
    }
}

impl CpuOrder for u64 {
    fn cpu_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.cmp(other)
    }
    fn random(rng: &mut StdRng, distinct: u32) -> Self {
        u64::from(rng.random_range(0..distinct)).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }
}

impl CpuOrder for f32 {
    fn cpu_cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.total_cmp(other)
    }
    fn random(rng: &mut StdRng, distinct: u32) -> Self {
        // Negative and positive, zeros of both signs, infinities, subnormals.
        let specials = [-0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY, 1e-40, -1e-40];
        let pick = rng.random_range(0..distinct);
        if pick % 17 == 0 {
            specials[(pick / 17) as usize % specials.len()]
        } else {
            (pick as f32 - distinct as f32 / 2.0) * 0.37
        }
    }
}

/// Random keys: `distinct` values (few gives many duplicates).
fn random_keys<K: CpuOrder>(rng: &mut StdRng, n: usize, distinct: u32) -> Vec<K> {
    (0..n).map(|_| K::random(rng, distinct)).collect()
}

/// Bitwise equality (so -0.0 and +0.0 differ), reporting the first difference.
fn assert_same_keys<K: RadixKey + CpuOrder>(got: &[K], want: &[K], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        panic!(
            "{what}: first difference at {i}: got {:?}, expected {:?}",
            &got[i..(i + 4).min(got.len())],
            &want[i..(i + 4).min(want.len())]
        );
    }
}

/// Sorts `keys` alone and as pairs with their indices on `device`, against the CPU's stable sort.
fn check_sort<K: SortKey + SortKey<u64> + CpuOrder>(device: &Device, keys: &[K], what: &str) {
    let stream = device.default_stream();
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by(|&a, &b| keys[a].cpu_cmp(&keys[b]));
    let want_keys: Vec<K> = order.iter().map(|&i| keys[i]).collect();

    let mut buffer = DeviceBuffer::from_slice(device, keys).unwrap();
    sort_keys(&stream, &mut buffer).unwrap();
    assert_same_keys(
        &buffer.to_vec().unwrap(),
        &want_keys,
        &format!("{what}: sort_keys"),
    );

    let mut buffer = DeviceBuffer::from_slice(device, keys).unwrap();
    let indices: Vec<u32> = (0..keys.len() as u32).collect();
    let mut values = DeviceBuffer::from_slice(device, &indices).unwrap();
    sort_pairs(&stream, &mut buffer, &mut values).unwrap();
    assert_same_keys(
        &buffer.to_vec().unwrap(),
        &want_keys,
        &format!("{what}: sort_pairs keys"),
    );
    let want_values: Vec<u32> = order.iter().map(|&i| i as u32).collect();
    assert!(
        values.to_vec().unwrap() == want_values,
        "{what}: sort_pairs u32 values (stability)"
    );

    // 8-byte values, from the caller's temporary storage (twice, reused).
    let mut temp = SortTemp::<K, u64>::new(device, keys.len(), true).unwrap();
    for round in 0..2 {
        let mut buffer = DeviceBuffer::from_slice(device, keys).unwrap();
        let wide: Vec<u64> = (0..keys.len() as u64).map(|i| i << 33 | i).collect();
        let mut values = DeviceBuffer::from_slice(device, &wide).unwrap();
        let bits = 0..(std::mem::size_of::<K>() as u32 * 8);
        sort_pairs_with(&stream, &mut buffer, &mut values, bits, &mut temp).unwrap();
        assert_same_keys(
            &buffer.to_vec().unwrap(),
            &want_keys,
            &format!("{what}: u64 pairs keys, round {round}"),
        );
        let want: Vec<u64> = order.iter().map(|&i| wide[i]).collect();
        assert!(
            values.to_vec().unwrap() == want,
            "{what}: u64 values, round {round}"
        );
    }
}

/// [`check_sort`] on random keys with many and with few duplicates, and all-equal keys, at every
/// length.
fn check_type<K: SortKey + SortKey<u64> + CpuOrder>(device: &Device, name: &str) {
    let mut rng = rng(&format!("radix_sort_{name}"));
    for n in lengths(device) {
        for distinct in [u32::MAX, 100] {
            let keys: Vec<K> = random_keys(&mut rng, n, distinct);
            check_sort(
                device,
                &keys,
                &format!("{name}, n = {n}, {distinct} distinct"),
            );
        }
        if n <= 1000 {
            let same: Vec<K> = random_keys(&mut rng, 1, u32::MAX).repeat(n);
            check_sort(device, &same, &format!("{name}, n = {n}, all equal"));
        }
    }
}

device_tests! {
    fn sorts_u32_keys_and_pairs(device) {
        check_type::<u32>(device, "u32");
    }

    fn sorts_i32_keys_and_pairs(device) {
        check_type::<i32>(device, "i32");
    }

    fn sorts_f32_keys_and_pairs_in_ieee_order(device) {
        check_type::<f32>(device, "f32");
        // Every sign of zero and infinity, among negatives and positives, with duplicates.
        let keys = [1.5f32, -0.0, 0.0, -2.0, f32::INFINITY, -0.0, f32::NEG_INFINITY, 0.0, -1e-40, 1e-40, -2.0];
        check_sort(device, &keys, "f32 specials");
        let mut buffer = DeviceBuffer::from_slice(device, &keys).unwrap();
        sort_keys(&device.default_stream(), &mut buffer).unwrap();
        let bits: Vec<u32> = buffer.to_vec().unwrap().iter().map(|k| k.to_bits()).collect();
        assert_eq!(bits[4], (-0.0f32).to_bits(), "-0.0 sorts before +0.0");
        assert_eq!(bits[6], 0.0f32.to_bits());
    }

    fn sorts_u64_keys_and_pairs(device) {
        check_type::<u64>(device, "u64");
    }

    fn sorts_on_a_bit_range_stably(device) {
        // Bits 4..12 only: keys equal there keep their order.
        let stream = device.default_stream();
        let mut rng = rng("radix_sort_bits");
        for n in [0, 1, 31, 3 * SORT_TILE + 77] {
            let keys: Vec<u32> = (0..n).map(|_| rng.random()).collect();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| (keys[i] >> 4) & 0xff);
            let want: Vec<u32> = order.iter().map(|&i| keys[i]).collect();
            let mut buffer = DeviceBuffer::from_slice(device, &keys).unwrap();
            let mut temp = SortTemp::<u32>::new(device, n, false).unwrap();
            sort_keys_with(&stream, &mut buffer, 4..12, &mut temp).unwrap();
            assert_same_keys(&buffer.to_vec().unwrap(), &want, &format!("n = {n}, bits 4..12 (one pass)"));
            // 20 bits: three passes, an odd number, so the result is copied back.
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&i| (keys[i] >> 4) & 0xf_ffff);
            let want: Vec<u32> = order.iter().map(|&i| keys[i]).collect();
            let mut buffer = DeviceBuffer::from_slice(device, &keys).unwrap();
            sort_keys_with(&stream, &mut buffer, 4..24, &mut temp).unwrap();
            assert_same_keys(&buffer.to_vec().unwrap(), &want, &format!("n = {n}, bits 4..24 (three passes)"));
        }
    }

    fn bad_arguments_are_errors_naming_the_problem(device) {
        let stream = device.default_stream();
        let mut keys = DeviceBuffer::from_slice(device, &[3u32, 1, 2]).unwrap();
        let mut values = DeviceBuffer::from_slice(device, &[1u32, 2]).unwrap();
        let message = |result: ferrocuda::Result<()>| match result {
            Err(error @ Error::Launch(_)) => error.to_string(),
            other => panic!("expected a launch error, got {other:?}"),
        };
        let text = message(sort_pairs(&stream, &mut keys, &mut values));
        assert!(text.contains("3 keys but 2 values"), "{text}");
        let mut temp = SortTemp::<u32>::new(device, 3, false).unwrap();
        let text = message(sort_keys_with(&stream, &mut keys, 8..8, &mut temp));
        assert!(text.contains("the bit range is 8..8"), "{text}");
        let text = message(sort_keys_with(&stream, &mut keys, 0..33, &mut temp));
        assert!(text.contains("within 0..32"), "{text}");
        let mut small = SortTemp::<u32>::new(device, 2, false).unwrap();
        let text = message(sort_keys_with(&stream, &mut keys, 0..32, &mut small));
        assert!(text.contains("holds 2 keys, the sort has 3"), "{text}");
        let text = match SortTemp::<u32>::new(device, 1 << 30, false) {
            Err(error) => error.to_string(),
            Ok(_) => panic!("2^30 keys accepted"),
        };
        assert!(text.contains("fewer than 2^30"), "{text}");
        // Nothing was sorted by the failed calls.
        assert_eq!(keys.to_vec().unwrap(), [3, 1, 2]);
    }
}

/// `SortValue` is implemented by the documented value types.
#[test]
fn value_types_are_u32_and_u64() {
    fn is_value<V: SortValue>() {}
    is_value::<u32>();
    is_value::<u64>();
}
