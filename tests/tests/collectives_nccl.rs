//! The collectives of a `Communicator` (all-reduce, broadcast, reduce, all-gather,
//! reduce-scatter) against CPU references on random data: every element type NCCL reduces, every
//! reduction, the awkward lengths 0, 1, 31 and 2^20 + 7; with every device of the backend (the
//! simulated devices, or every GPU through NCCL) and with one rank; and the misuses, each an
//! error naming the numbers.
//!
//! The references are independent of the runtime: integers fold with Rust's wrapping operations,
//! floats in `f64` (half-precision values converted by the `half` crate), compared within the
//! rounding that a reduction in the element type allows.
//!
//! On a GPU the communicator needs NCCL (`libnccl.so` on the library path): without it the GPU
//! variants print why and pass, or fail with the reason when `FERROCUDA_REQUIRE_GPU` is set.

use ferrocuda::device::half::{bf16, f16};
use ferrocuda::prelude::*;
use ferrocuda::{CollectiveElement, Communicator, Error, ReduceOp};
use ferrocuda_tests::{REQUIRE_GPU_ENV, device_tests, other_device};

/// The lengths every collective runs on (the largest for a few types only: see `lengths`).
const SMALL_LENGTHS: [usize; 4] = [0, 1, 31, 1000];
/// The large length, not a multiple of anything NCCL splits by.
const LARGE: usize = (1 << 20) + 7;
/// Every reduction.
const OPS: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max];

/// An element type under test: random values, and an independent reference.
trait Element: CollectiveElement + Copy {
    /// A value made from 64 random bits; for products, one near 1 so that products of the
    /// ranks stay finite.
    fn random(bits: u64, op: ReduceOp) -> Self;
    /// The reduction of `values` by `op`, computed independently of the runtime.
    fn reference(values: &[Self], op: ReduceOp) -> Self;
    /// Whether `got` is `expected` within the rounding a reduction of `values` may add.
    fn close(got: Self, expected: Self, values: &[Self], op: ReduceOp) -> bool;
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn random(bits: u64, _: ReduceOp) -> Self {
                // The high bits: every value of the type, wrapping sums and products included.
                (bits >> (64 - <$t>::BITS)) as $t
            }
            fn reference(values: &[Self], op: ReduceOp) -> Self {
                let fold: fn(Self, Self) -> Self = match op {
                    ReduceOp::Sum => <$t>::wrapping_add,
                    ReduceOp::Prod => <$t>::wrapping_mul,
                    ReduceOp::Min => std::cmp::min,
                    ReduceOp::Max => std::cmp::max,
                };
                values[1..].iter().fold(values[0], |a, &b| fold(a, b))
            }
            fn close(got: Self, expected: Self, _: &[Self], _: ReduceOp) -> bool {
                got == expected
            }
        }
    )*};
}
integer!(i8, u8, i32, u32, i64, u64);

/// Float types: conversions to and from `f64` (for halves, by the `half` crate) and the unit
/// roundoff.
trait Float: Copy {
    const EPSILON: f64;
    fn to_f64(self) -> f64;
    fn from_f64(x: f64) -> Self;
}
impl Float for f32 {
    const EPSILON: f64 = f32::EPSILON as f64;
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}
impl Float for f64 {
    const EPSILON: f64 = f64::EPSILON;
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
}
impl Float for f16 {
    const EPSILON: f64 = 9.77e-4;
    fn to_f64(self) -> f64 {
        half::f16::from_bits(self.to_bits()).to_f64()
    }
    fn from_f64(x: f64) -> Self {
        f16::from_bits(half::f16::from_f64(x).to_bits())
    }
}
impl Float for bf16 {
    const EPSILON: f64 = 7.82e-3;
    fn to_f64(self) -> f64 {
        half::bf16::from_bits(self.to_bits()).to_f64()
    }
    fn from_f64(x: f64) -> Self {
        bf16::from_bits(half::bf16::from_f64(x).to_bits())
    }
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Element for $t {
            fn random(bits: u64, op: ReduceOp) -> Self {
                let unit = (bits >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
                let x = match op {
                    ReduceOp::Prod => 0.5 + 1.5 * unit,
                    _ => 2.0 * unit - 1.0,
                };
                <$t as Float>::from_f64(x)
            }
            fn reference(values: &[Self], op: ReduceOp) -> Self {
                let values = values.iter().map(|v| v.to_f64());
                <$t as Float>::from_f64(match op {
                    ReduceOp::Sum => values.sum(),
                    ReduceOp::Prod => values.product(),
                    ReduceOp::Min => values.fold(f64::INFINITY, f64::min),
                    ReduceOp::Max => values.fold(f64::NEG_INFINITY, f64::max),
                })
            }
            fn close(got: Self, expected: Self, values: &[Self], op: ReduceOp) -> bool {
                let (got, expected) = (got.to_f64(), expected.to_f64());
                // One rounding per combination, plus the reference's own rounding.
                let steps = values.len() as f64 + 1.0;
                let scale = match op {
                    ReduceOp::Sum => values.iter().map(|v| v.to_f64().abs()).sum::<f64>(),
                    ReduceOp::Prod => expected.abs(),
                    ReduceOp::Min | ReduceOp::Max => return got == expected,
                };
                (got - expected).abs() <= steps * <$t as Float>::EPSILON * scale
            }
        }
    )*};
}
float!(f32, f64, f16, bf16);

/// Every device of `device`'s backend: the simulated devices, or every GPU.
fn devices_like(device: &Device) -> Vec<Device> {
    if device.is_simulator() {
        let n = Device::simulated_count().unwrap().min(MAX_RANKS);
        (0..n).map(|i| Device::simulated(i).unwrap()).collect()
    } else {
        let n = Device::gpu_count().unwrap().min(MAX_RANKS);
        (0..n).map(|i| Device::new(i).unwrap()).collect()
    }
}

/// Serialises the GPU variants of this file's tests: collectives of two communicators over the same GPUs must
/// be issued in the same order on every GPU (NCCL's rule), which tests on parallel threads
/// would not guarantee.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A communicator over `devices`, or `None` (printing why) when NCCL is missing on a GPU
/// machine; with `FERROCUDA_REQUIRE_GPU` set that is a failure.
fn communicator(devices: &[Device]) -> Option<Communicator> {
    match Communicator::new(devices) {
        Ok(communicator) => Some(communicator),
        Err(error @ Error::CollectiveLibrary { .. }) => {
            let required =
                std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| !matches!(v.trim(), "" | "0"));
            if required {
                panic!("{REQUIRE_GPU_ENV} is set, but the collectives cannot run: {error}");
            }
            eprintln!("skipped: {error}");
            None
        }
        Err(error) => panic!("Communicator::new: {error}"),
    }
}

/// The most ranks the references handle (more devices than this: the test uses the first ones).
const MAX_RANKS: usize = 8;

/// The lengths `T` runs on: with `large`, the large one for `f32` (the other types take the same
/// code path with another element size; the test's CPU side, unoptimised, sets the budget).
fn lengths<T: Element>(large: bool) -> Vec<usize> {
    let mut lengths = SMALL_LENGTHS.to_vec();
    if large && T::TYPE == ferrocuda::ElementType::F32 {
        lengths.push(LARGE);
    }
    lengths
}

/// `ranks` random buffers of `n` values for `op`, from a SplitMix64 stream seeded by `seed`'s
/// bytes (cheap in the tests' unoptimised build, where `rand`'s generators cost much more).
fn inputs<T: Element>(seed: &str, ranks: usize, n: usize, op: ReduceOp) -> Vec<Vec<T>> {
    let mut state = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    });
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    (0..ranks)
        .map(|_| (0..n).map(|_| T::random(next(), op)).collect())
        .collect()
}

/// The reference reduction of element `i` of every rank's values, and that column.
fn reduced<T: Element>(values: &[Vec<T>], i: usize, op: ReduceOp) -> (T, [T; MAX_RANKS]) {
    let mut column = [values[0][i]; MAX_RANKS];
    for (slot, rank) in column.iter_mut().zip(values) {
        *slot = rank[i];
    }
    (T::reference(&column[..values.len()], op), column)
}

/// Checks `got` (rank `rank`'s buffer after a reduction) against the reference of `values`
/// (element `i` of `got` reduces element `offset + i` of every rank).
fn check_reduced<T: Element>(
    what: &str,
    got: &[T],
    values: &[Vec<T>],
    offset: usize,
    op: ReduceOp,
) {
    for (i, &g) in got.iter().enumerate() {
        let (expected, column) = reduced(values, offset + i, op);
        let column = &column[..values.len()];
        assert!(
            T::close(g, expected, column, op),
            "{what} ({op}, {:?}): element {i} is {g:?}, expected {expected:?} from {column:?}",
            T::TYPE
        );
    }
}

/// Buffers of `values` on the devices, one per rank.
fn upload<T: Element>(devices: &[Device], values: &[Vec<T>]) -> Vec<DeviceBuffer<T>> {
    devices
        .iter()
        .zip(values)
        .map(|(d, v)| DeviceBuffer::from_slice(d, v).unwrap())
        .collect()
}

/// Every collective of `T` with every reduction and length on `communicator`.
fn check_type<T: Element>(communicator: &Communicator, large: bool) {
    let devices = communicator.devices().to_vec();
    let ranks = devices.len();
    for n in lengths::<T>(large) {
        for op in OPS {
            let seed = format!("{:?} {op} {n} {ranks}", T::TYPE);
            let what = format!("{ranks} ranks, {n} elements");
            let values = inputs::<T>(&seed, ranks, n, op);

            let mut buffers = upload(&devices, &values);
            communicator.all_reduce(&mut buffers, op).unwrap();
            for (rank, buffer) in buffers.iter().enumerate() {
                check_reduced(
                    &format!("all_reduce, rank {rank}, {what}"),
                    &buffer.to_vec().unwrap(),
                    &values,
                    0,
                    op,
                );
            }

            let root = ranks - 1;
            let mut buffers = upload(&devices, &values);
            communicator.reduce(&mut buffers, op, root).unwrap();
            check_reduced(
                &format!("reduce to rank {root}, {what}"),
                &buffers[root].to_vec().unwrap(),
                &values,
                0,
                op,
            );
            for rank in 0..root {
                assert!(
                    buffers[rank].to_vec().unwrap() == values[rank],
                    "reduce: rank {rank} changed"
                );
            }

            // Reduce-scatter: each rank sends ranks * m elements and receives m.
            let m = n / ranks.max(1);
            let sends_values: Vec<Vec<T>> =
                values.iter().map(|v| v[..m * ranks].to_vec()).collect();
            let sends = upload(&devices, &sends_values);
            let mut receives: Vec<DeviceBuffer<T>> = devices
                .iter()
                .map(|d| DeviceBuffer::zeros(d, m).unwrap())
                .collect();
            communicator
                .reduce_scatter(&sends, &mut receives, op)
                .unwrap();
            for (rank, buffer) in receives.iter().enumerate() {
                check_reduced(
                    &format!("reduce_scatter, rank {rank}, {what}"),
                    &buffer.to_vec().unwrap(),
                    &sends_values,
                    rank * m,
                    op,
                );
            }
        }
        // Broadcast and all-gather move data without arithmetic: exact.
        let values = inputs::<T>(&format!("{:?} move {n}", T::TYPE), ranks, n, ReduceOp::Sum);
        for root in 0..ranks {
            let mut buffers = upload(&devices, &values);
            communicator.broadcast(&mut buffers, root).unwrap();
            for (rank, buffer) in buffers.iter().enumerate() {
                assert!(
                    buffer.to_vec().unwrap() == values[root],
                    "broadcast from {root}: rank {rank} of {n} elements differs"
                );
            }
        }
        let sends = upload(&devices, &values);
        let mut receives: Vec<DeviceBuffer<T>> = devices
            .iter()
            .map(|d| DeviceBuffer::zeros(d, n * ranks).unwrap())
            .collect();
        communicator.all_gather(&sends, &mut receives).unwrap();
        let gathered: Vec<T> = values.concat();
        for (rank, buffer) in receives.iter().enumerate() {
            assert!(
                buffer.to_vec().unwrap() == gathered,
                "all_gather: rank {rank} of {n} elements per rank differs"
            );
        }
    }
}

/// Every element type on `communicator`.
fn check_every_type(communicator: &Communicator, large: bool) {
    check_type::<f32>(communicator, large);
    check_type::<f64>(communicator, large);
    check_type::<f16>(communicator, large);
    check_type::<bf16>(communicator, large);
    check_type::<i8>(communicator, large);
    check_type::<u8>(communicator, large);
    check_type::<i32>(communicator, large);
    check_type::<u32>(communicator, large);
    check_type::<i64>(communicator, large);
    check_type::<u64>(communicator, large);
}

device_tests! {
    fn collectives_over_every_device_match_cpu_references(device) {
        let _serial = (!device.is_simulator()).then(serial);
        let devices = devices_like(device);
        let Some(communicator) = communicator(&devices) else { return };
        assert_eq!(communicator.size(), devices.len());
        eprintln!("{} ranks on {}", devices.len(), communicator.library().unwrap());
        check_every_type(&communicator, true);
    }

    fn collectives_of_one_rank_match_cpu_references(device) {
        let _serial = (!device.is_simulator()).then(serial);
        let Some(communicator) = communicator(std::slice::from_ref(device)) else { return };
        // The large length runs in the test above, with every device.
        check_every_type(&communicator, false);
    }

    fn collectives_on_new_streams_complete_at_their_synchronization(device) {
        let _serial = (!device.is_simulator()).then(serial);
        let devices = devices_like(device);
        let streams: Vec<Stream> = devices.iter().map(|d| d.new_stream().unwrap()).collect();
        let communicator = match Communicator::with_streams(&streams) {
            Ok(c) => c,
            Err(Error::CollectiveLibrary { .. }) => return, // reported by the test above
            Err(e) => panic!("{e}"),
        };
        let values = inputs::<f32>("streams", devices.len(), LARGE, ReduceOp::Sum);
        let mut buffers = upload(&devices, &values);
        communicator.all_reduce(&mut buffers, ReduceOp::Sum).unwrap();
        communicator.synchronize().unwrap();
        for buffer in &buffers {
            check_reduced("all_reduce on new streams", &buffer.to_vec().unwrap(), &values, 0, ReduceOp::Sum);
        }
    }

    fn collective_misuse_is_an_error_naming_the_numbers(device) {
        let _serial = (!device.is_simulator()).then(serial);
        let devices = devices_like(device);
        let ranks = devices.len();
        let Some(communicator) = communicator(&devices) else { return };
        let message = |e: Error| e.to_string();

        // One buffer too few.
        let mut buffers: Vec<DeviceBuffer<f32>> = devices[..ranks - 1].iter().map(|d| DeviceBuffer::zeros(d, 4).unwrap()).collect();
        let text = message(communicator.all_reduce(&mut buffers, ReduceOp::Sum).unwrap_err());
        assert!(text.contains(&format!("got {} buffers", ranks - 1)) && text.contains(&format!("{ranks} ranks")), "{text}");

        // Lengths that differ.
        let mut buffers: Vec<DeviceBuffer<f32>> = devices.iter().enumerate().map(|(r, d)| DeviceBuffer::zeros(d, 4 + r).unwrap()).collect();
        if ranks > 1 {
            let text = message(communicator.all_reduce(&mut buffers, ReduceOp::Sum).unwrap_err());
            assert!(text.contains("rank 1 has 5 elements") && text.contains("4 elements"), "{text}");
        }

        // A root that is no rank.
        let mut buffers: Vec<DeviceBuffer<u32>> = devices.iter().map(|d| DeviceBuffer::zeros(d, 4).unwrap()).collect();
        let text = message(communicator.broadcast(&mut buffers, ranks).unwrap_err());
        assert!(text.contains(&format!("root {ranks} is not a rank")), "{text}");
        let text = message(communicator.reduce(&mut buffers, ReduceOp::Max, ranks + 3).unwrap_err());
        assert!(text.contains(&format!("root {} is not a rank", ranks + 3)), "{text}");

        // All-gather receive buffers of the wrong length.
        let sends: Vec<DeviceBuffer<u32>> = devices.iter().map(|d| DeviceBuffer::zeros(d, 3).unwrap()).collect();
        let mut receives: Vec<DeviceBuffer<u32>> = devices.iter().map(|d| DeviceBuffer::zeros(d, 3).unwrap()).collect();
        if ranks > 1 {
            let text = message(communicator.all_gather(&sends, &mut receives).unwrap_err());
            assert!(text.contains("has 3 elements") && text.contains(&format!("{} elements", 3 * ranks)), "{text}");
        }
        // Reduce-scatter send buffers of the wrong length.
        let mut small: Vec<DeviceBuffer<u32>> = devices.iter().map(|d| DeviceBuffer::zeros(d, 2).unwrap()).collect();
        if ranks > 1 {
            let text = message(communicator.reduce_scatter(&sends, &mut small, ReduceOp::Sum).unwrap_err());
            assert!(text.contains("send buffer of rank 0 has 3 elements") && text.contains(&format!("{} elements", 2 * ranks)), "{text}");
        }

        // A buffer on the wrong device: rank 0's buffer on the last device.
        if ranks > 1 {
            let mut buffers: Vec<DeviceBuffer<f32>> = devices.iter().rev().map(|d| DeviceBuffer::zeros(d, 4).unwrap()).collect();
            let error = communicator.all_reduce(&mut buffers, ReduceOp::Sum).unwrap_err();
            let text = message(error);
            assert!(text.contains("buffer of rank 0") && text.contains(&devices[0].to_string()) && text.contains(&devices[ranks - 1].to_string()), "{text}");
        }

        // A device listed twice.
        let twice = [devices[0].clone(), devices[0].clone()];
        let text = message(Communicator::new(&twice).unwrap_err());
        assert!(text.contains("rank 0 and rank 1"), "{text}");
        let text = message(Communicator::new(&[]).unwrap_err());
        assert!(text.contains("at least one device"), "{text}");

        // GPUs and the simulator mixed.
        if let Some(other) = other_device(device) {
            let error = Communicator::new(&[device.clone(), other]).unwrap_err();
            assert!(error.to_string().contains("mix GPUs and simulated devices"), "{error}");
        }
    }
}
