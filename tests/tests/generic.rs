//! Generic kernels (`kernels_nvptx::generic`): every instance, launched by its types through
//! `launch!` and through the builder, against CPU references on random inputs whose lengths are
//! not multiples of the block, on the simulator and the GPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{blocks, device_tests, rng};
use kernels_nvptx::generic::{max_pool2, scale, widen};
use rand::Rng;
use rand::distr::{Distribution, StandardUniform};

/// `n` random values of `T`.
fn random<T>(rng: &mut impl Rng, n: usize) -> Vec<T>
where
    StandardUniform: Distribution<T>,
{
    (0..n).map(|_| rng.random()).collect()
}

/// `max_pool2`'s result on the CPU.
fn pool_reference<T: Copy + Ord>(input: &[T]) -> Vec<T> {
    input
        .chunks(2)
        .map(|pair| *pair.iter().max().unwrap())
        .collect()
}

/// Runs `max_pool2::<T>` on `input` and checks it.
macro_rules! check_pool {
    ($device:expr, $t:ty, $input:expr, $block:expr) => {{
        let input: Vec<$t> = $input;
        let n = input.len().div_ceil(2);
        let mut out = DeviceBuffer::<$t>::zeros($device, n).unwrap();
        launch!(max_pool2::<$t>[blocks(n, $block), $block as u32](&input, &mut out)).unwrap();
        assert_eq!(out.to_vec().unwrap(), pool_reference(&input), "{} of {}", stringify!($t), input.len());
    }};
}

device_tests! {
    fn scale_each_float_instance(device) {
        let mut rng = rng("generic_scale");
        for (n, block) in [(1usize, 32usize), (1000, 128), (4099, 256)] {
            let data: Vec<f32> = (0..n).map(|_| rng.random_range(-1e3f32..1e3)).collect();
            let factor: f32 = rng.random_range(-4.0..4.0);
            let mut buffer = DeviceBuffer::from_slice(device, &data).unwrap();
            launch!(scale::<f32>[blocks(n, block), block as u32](factor, &mut buffer)).unwrap();
            let expected: Vec<f32> = data.iter().map(|x| factor * x).collect();
            assert_eq!(buffer.to_vec().unwrap(), expected, "f32, n = {n}");

            let data: Vec<f64> = (0..n).map(|_| rng.random_range(-1e3f64..1e3)).collect();
            let factor: f64 = rng.random_range(-4.0..4.0);
            let mut buffer = DeviceBuffer::from_slice(device, &data).unwrap();
            // The builder form: the instance's associated `grid`.
            scale::<f64>::grid(blocks(n, block)).block(block as u32).launch(factor, &mut buffer).unwrap();
            let expected: Vec<f64> = data.iter().map(|x| factor * x).collect();
            assert_eq!(buffer.to_vec().unwrap(), expected, "f64, n = {n}");
        }
    }

    fn max_pool_each_integer_instance(device) {
        let mut rng = rng("generic_max_pool");
        for (n, block) in [(1usize, 32usize), (2, 32), (999, 64), (5001, 256)] {
            check_pool!(device, u8, random(&mut rng, n), block);
            check_pool!(device, i32, random(&mut rng, n), block);
            check_pool!(device, u64, random(&mut rng, n), block);
        }
        // Extremes of each type.
        check_pool!(device, i32, vec![i32::MIN, i32::MAX, -1, 0, i32::MIN], 32);
        check_pool!(device, u64, vec![u64::MAX, 0, 0, u64::MAX], 32);
    }

    fn widen_each_pair_of_types(device) {
        let mut rng = rng("generic_widen");
        let (n, block) = (3001usize, 128usize);

        let input: Vec<u8> = random(&mut rng, n);
        let (factor, offset) = (rng.random_range(-2.0f32..2.0), rng.random_range(-10.0f32..10.0));
        let mut out = DeviceBuffer::<f32>::zeros(device, n).unwrap();
        launch!(widen::<u8, f32>[blocks(n, block), block as u32](&input, &mut out, factor, offset)).unwrap();
        // A GPU may fuse the multiply and the add (one rounding instead of two).
        for (i, (&x, got)) in input.iter().zip(out.to_vec().unwrap()).enumerate() {
            let x = f32::from(x);
            assert!(got == x * factor + offset || got == x.mul_add(factor, offset), "u8 -> f32, element {i}: {got}");
        }

        let input: Vec<i32> = random(&mut rng, n);
        let (factor, offset) = (rng.random_range(-2.0f64..2.0), rng.random_range(-10.0f64..10.0));
        let mut out = DeviceBuffer::<f64>::zeros(device, n).unwrap();
        launch!(widen::<i32, f64>[blocks(n, block), block as u32](&input, &mut out, factor, offset)).unwrap();
        for (i, (&x, got)) in input.iter().zip(out.to_vec().unwrap()).enumerate() {
            let x = f64::from(x);
            assert!(got == x * factor + offset || got == x.mul_add(factor, offset), "i32 -> f64, element {i}: {got}");
        }

        let input: Vec<u16> = random(&mut rng, n);
        // Below 2^16 * 2^40 + 2^62: no overflow.
        let (factor, offset) = (rng.random_range(0..1u64 << 40), rng.random_range(0..1u64 << 62));
        let mut out = DeviceBuffer::<u64>::zeros(device, n).unwrap();
        launch!(widen::<u16, u64>[blocks(n, block), block as u32](&input, &mut out, factor, offset)).unwrap();
        let expected: Vec<u64> = input.iter().map(|&x| u64::from(x) * factor + offset).collect();
        assert_eq!(out.to_vec().unwrap(), expected);
    }
}

/// Each instance is its own kernel: its name in errors is the instance's PTX entry.
#[test]
fn instances_are_named_by_their_entry() {
    let device = Device::simulator();
    let mut data = DeviceBuffer::<f64>::zeros(&device, 4).unwrap();
    match launch!(scale::<f64>[1, 2048](1.0f64, &mut data)) {
        Err(Error::Launch(e)) => assert_eq!(e.kernel, "scale__f64"),
        other => panic!("expected a launch error, got {other:?}"),
    }
}
