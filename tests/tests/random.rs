//! Random numbers on the device: Philox streams drawn in a kernel equal the host's bit for bit
//! (which on the GPU checks that the integer arithmetic and the libm Box-Muller agree across
//! targets), the device-wide fills equal their per-element host definitions for awkward lengths,
//! their output passes statistical checks that a broken generator fails, bad parameters are
//! errors, and the Monte Carlo kernel counts exactly what the host counts. The known-answer
//! vectors of Random123 are checked by the unit tests of `device/src/random.rs`.

use ferrocuda::device::random::{Philox, philox4x32, philox4x32_10, uniform_f32};
use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, other_device};
use kernels_algorithms::random::{
    element_normal_f32, element_normal_f64, element_uniform_f32, element_uniform_f64, fill_normal,
    fill_uniform,
};
use kernels_nvptx::monte_carlo::count_in_circle;
use test_kernels::random::philox_draws;

/// Lengths around the four-element groups of one Philox block and the grid-stride step.
const LENGTHS: [usize; 12] = [0, 1, 2, 3, 4, 5, 7, 8, 1000, 4097, 262_147, 1_048_583];

/// Samples of the statistical checks.
const SAMPLES: usize = 1 << 20;

/// The normal distribution's mass within one and two standard deviations of the mean.
const WITHIN_1_SIGMA: f64 = 0.682_689_492_137_085_9;
const WITHIN_2_SIGMA: f64 = 0.954_499_736_103_641_6;

/// Errs unless `got` is within 5 standard deviations `sigma` of `expected`.
fn within_5_sigma(what: &str, got: f64, expected: f64, sigma: f64) -> Result<(), String> {
    if (got - expected).abs() <= 5.0 * sigma {
        Ok(())
    } else {
        Err(format!(
            "{what} is {got}, expected {expected} within 5 sigma ({sigma:e})"
        ))
    }
}

/// The mean and the (population) variance of `values`.
fn mean_variance(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, variance)
}

/// Checks that `values` look uniform on (0, 1]: all inside, mean 1/2 and variance 1/12 within 5
/// sigma, and a chi-square on 64 equal bins below 63 + 5 sqrt(2 * 63) (63 degrees of freedom;
/// a probability of about 1e-5 for a good generator).
fn check_uniform(values: &[f64]) -> Result<(), String> {
    let n = values.len() as f64;
    if let Some(bad) = values.iter().find(|v| !(**v > 0.0 && **v <= 1.0)) {
        return Err(format!("{bad} is outside (0, 1]"));
    }
    let (mean, variance) = mean_variance(values);
    within_5_sigma("the mean", mean, 0.5, (1.0 / 12.0 / n).sqrt())?;
    within_5_sigma(
        "the variance",
        variance,
        1.0 / 12.0,
        (1.0 / 180.0 / n).sqrt(),
    )?;
    let mut bins = [0u64; 64];
    for v in values {
        bins[((v * 64.0) as usize).min(63)] += 1;
    }
    let expected = n / 64.0;
    let chi_square: f64 = bins
        .iter()
        .map(|&count| (count as f64 - expected).powi(2) / expected)
        .sum();
    let bound = 63.0 + 5.0 * (2.0f64 * 63.0).sqrt();
    if chi_square <= bound {
        Ok(())
    } else {
        Err(format!(
            "chi-square on 64 bins is {chi_square:.1}, above {bound:.1}"
        ))
    }
}

/// Checks that `values` look standard normal: all finite, mean 0 and variance 1 within 5 sigma,
/// and the fractions within 1 and 2 standard deviations within 5 sigma of the normal's.
fn check_normal(values: &[f64]) -> Result<(), String> {
    let n = values.len() as f64;
    if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
        return Err(format!("{bad} is not finite"));
    }
    let (mean, variance) = mean_variance(values);
    within_5_sigma("the mean", mean, 0.0, (1.0 / n).sqrt())?;
    within_5_sigma("the variance", variance, 1.0, (2.0 / n).sqrt())?;
    for (k, p) in [(1.0, WITHIN_1_SIGMA), (2.0, WITHIN_2_SIGMA)] {
        let inside = values.iter().filter(|v| v.abs() <= k).count() as f64 / n;
        within_5_sigma(
            &format!("the fraction within {k} sigma"),
            inside,
            p,
            (p * (1.0 - p) / n).sqrt(),
        )?;
    }
    Ok(())
}

/// The draws of one thread of `philox_draws`, on the host.
struct Draws {
    words: Vec<u32>,
    longs: Vec<u64>,
    singles: Vec<f32>,
    doubles: Vec<f64>,
}

/// What `philox_draws` writes for `threads` threads, computed on the host with `Philox`.
fn host_draws(seed: u64, first_subsequence: u64, threads: usize, rounds: usize) -> Draws {
    let mut draws = Draws {
        words: Vec::new(),
        longs: Vec::new(),
        singles: Vec::new(),
        doubles: Vec::new(),
    };
    for t in 0..threads {
        let mut rng = Philox::new(seed, first_subsequence + t as u64, (t % 7) as u64);
        for _ in 0..rounds {
            draws.words.push(rng.next_u32());
            draws.longs.push(rng.next_u64());
            draws.singles.push(rng.uniform_f32());
            draws.singles.push(rng.normal_f32());
            draws.doubles.push(rng.uniform_f64());
            draws.doubles.push(rng.normal_f64());
        }
    }
    draws
}

/// Bit patterns, so that `assert_eq!` compares floats exactly (and -0.0 apart from 0.0).
fn bits32(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// Bit patterns of `f64`s.
fn bits64(values: &[f64]) -> Vec<u64> {
    values.iter().map(|v| v.to_bits()).collect()
}

device_tests! {
    fn kernel_streams_equal_the_host_bit_for_bit(device) {
        let (threads, rounds) = (300usize, 6usize);
        for (seed, first_subsequence) in [(0u64, 0u64), (0xdead_beef_0123_4567, 1 << 40), (u64::MAX, u64::MAX - 1000)] {
            let mut words = DeviceBuffer::<u32>::zeros(device, threads * rounds).unwrap();
            let mut longs = DeviceBuffer::<u64>::zeros(device, threads * rounds).unwrap();
            let mut singles = DeviceBuffer::<f32>::zeros(device, 2 * threads * rounds).unwrap();
            let mut doubles = DeviceBuffer::<f64>::zeros(device, 2 * threads * rounds).unwrap();
            launch!(philox_draws[3, 128](seed, first_subsequence, rounds, &mut words, &mut longs, &mut singles, &mut doubles)).unwrap();
            let expected = host_draws(seed, first_subsequence, threads, rounds);
            let context = format!("seed {seed:#x}, first subsequence {first_subsequence}");
            assert_eq!(words.to_vec().unwrap(), expected.words, "{context}");
            assert_eq!(longs.to_vec().unwrap(), expected.longs, "{context}");
            assert_eq!(bits32(&singles.to_vec().unwrap()), bits32(&expected.singles), "{context}");
            assert_eq!(bits64(&doubles.to_vec().unwrap()), bits64(&expected.doubles), "{context}");
        }
    }

    fn distinct_subsequences_give_distinct_streams(device) {
        let (threads, rounds) = (256usize, 4usize);
        let mut words = DeviceBuffer::<u32>::zeros(device, threads * rounds).unwrap();
        let mut longs = DeviceBuffer::<u64>::zeros(device, threads * rounds).unwrap();
        let mut singles = DeviceBuffer::<f32>::zeros(device, 2 * threads * rounds).unwrap();
        let mut doubles = DeviceBuffer::<f64>::zeros(device, 2 * threads * rounds).unwrap();
        launch!(philox_draws[2, 128](7u64, 0u64, rounds, &mut words, &mut longs, &mut singles, &mut doubles)).unwrap();
        let mut longs = longs.to_vec().unwrap();
        // 1024 draws of 64 bits: any repeat would mean overlapping or correlated streams.
        longs.sort_unstable();
        let before = longs.len();
        longs.dedup();
        assert_eq!(longs.len(), before, "two threads' 64-bit draws coincide");
        // Neighbouring subsequences with the same seed share no word at the same position.
        let words = words.to_vec().unwrap();
        for t in 0..threads - 1 {
            let (a, b) = (&words[t * rounds..][..rounds], &words[(t + 1) * rounds..][..rounds]);
            assert!(a.iter().zip(b).all(|(x, y)| x != y), "threads {t} and {}: {a:?} vs {b:?}", t + 1);
        }
    }

    fn fills_equal_their_per_element_definitions(device) {
        let stream = device.default_stream();
        for len in LENGTHS {
            let seed = 0x5eed_0000 + len as u64;
            let mut single = DeviceBuffer::from_slice(device, &vec![f32::NAN; len]).unwrap();
            let mut double = DeviceBuffer::from_slice(device, &vec![f64::NAN; len]).unwrap();
            fill_uniform(&stream, &mut single, seed).unwrap();
            fill_uniform(&stream, &mut double, seed).unwrap();
            let expected: Vec<f32> = (0..len as u64).map(|i| element_uniform_f32(seed, i)).collect();
            assert_eq!(bits32(&single.to_vec().unwrap()), bits32(&expected), "uniform f32, length {len}");
            let expected: Vec<f64> = (0..len as u64).map(|i| element_uniform_f64(seed, i)).collect();
            assert_eq!(bits64(&double.to_vec().unwrap()), bits64(&expected), "uniform f64, length {len}");

            fill_normal(&stream, &mut single, seed, -3.5f32, 0.25).unwrap();
            fill_normal(&stream, &mut double, seed, 1e3f64, 7.0).unwrap();
            let expected: Vec<f32> = (0..len as u64).map(|i| element_normal_f32(seed, i, -3.5, 0.25)).collect();
            assert_eq!(bits32(&single.to_vec().unwrap()), bits32(&expected), "normal f32, length {len}");
            let expected: Vec<f64> = (0..len as u64).map(|i| element_normal_f64(seed, i, 1e3, 7.0)).collect();
            assert_eq!(bits64(&double.to_vec().unwrap()), bits64(&expected), "normal f64, length {len}");
        }
    }

    fn fills_pass_statistical_checks(device) {
        let stream = device.default_stream();
        let mut single = DeviceBuffer::<f32>::zeros(device, SAMPLES).unwrap();
        let mut double = DeviceBuffer::<f64>::zeros(device, SAMPLES).unwrap();

        fill_uniform(&stream, &mut single, 1).unwrap();
        let values: Vec<f64> = single.to_vec().unwrap().into_iter().map(f64::from).collect();
        check_uniform(&values).unwrap_or_else(|e| panic!("uniform f32: {e}"));
        fill_uniform(&stream, &mut double, 2).unwrap();
        check_uniform(&double.to_vec().unwrap()).unwrap_or_else(|e| panic!("uniform f64: {e}"));

        let (mean, std_dev) = (10.0, 3.0);
        fill_normal(&stream, &mut single, 3, mean as f32, std_dev as f32).unwrap();
        let values: Vec<f64> = single.to_vec().unwrap().into_iter().map(|v| (f64::from(v) - mean) / std_dev).collect();
        check_normal(&values).unwrap_or_else(|e| panic!("normal f32: {e}"));
        fill_normal(&stream, &mut double, 4, mean, std_dev).unwrap();
        let values: Vec<f64> = double.to_vec().unwrap().into_iter().map(|v| (v - mean) / std_dev).collect();
        check_normal(&values).unwrap_or_else(|e| panic!("normal f64: {e}"));
    }

    fn fill_past_u32_max_elements(device) {
        // 2^32 + 6 floats (16 GiB): element indices and Philox block counters past 32 bits.
        if device.is_simulator() {
            eprintln!("skipped on the simulator: 16 GiB of host memory");
            return;
        }
        let len = (1usize << 32) + 6;
        let mut data = DeviceBuffer::<f32>::zeros(device, len).unwrap();
        let seed = 77;
        fill_uniform(&device.default_stream(), &mut data, seed).unwrap();
        for range in [0..64, (1 << 32) - 64..len] {
            let got = data.slice(range.clone()).to_vec().unwrap();
            let expected: Vec<f32> = range.clone().map(|i| element_uniform_f32(seed, i as u64)).collect();
            assert_eq!(bits32(&got), bits32(&expected), "elements {range:?}");
        }
    }

    fn fill_rejects_bad_parameters(device) {
        let stream = device.default_stream();
        for len in [0usize, 5] {
            let mut single = DeviceBuffer::from_slice(device, &vec![1.5f32; len]).unwrap();
            for (mean, std_dev, message) in [
                (0.0f32, f32::NAN, "cannot launch kernel `fill_normal_f32`: the standard deviation is NaN; it must be finite and at least 0"),
                (0.0, -1.0, "cannot launch kernel `fill_normal_f32`: the standard deviation is -1; it must be finite and at least 0"),
                (f32::INFINITY, 1.0, "cannot launch kernel `fill_normal_f32`: the mean is inf; it must be finite"),
            ] {
                let error = fill_normal(&stream, &mut single, 1, mean, std_dev).unwrap_err();
                assert_eq!(error.to_string(), message);
            }
            assert_eq!(single.to_vec().unwrap(), vec![1.5; len], "a rejected fill writes nothing");
            let mut double = DeviceBuffer::<f64>::zeros(device, len).unwrap();
            let error = fill_normal(&stream, &mut double, 1, 0.0, f64::NEG_INFINITY).unwrap_err();
            assert_eq!(error.to_string(), "cannot launch kernel `fill_normal_f64`: the standard deviation is -inf; it must be finite and at least 0");
        }
        // A standard deviation of 0 is allowed: every element is the mean.
        let mut single = DeviceBuffer::<f32>::zeros(device, 9).unwrap();
        fill_normal(&stream, &mut single, 1, 2.5, 0.0).unwrap();
        assert_eq!(single.to_vec().unwrap(), vec![2.5; 9]);
        // A buffer of another device than the stream's.
        if let Some(other) = other_device(device) {
            let mut foreign = DeviceBuffer::<f32>::zeros(&other, 16).unwrap();
            match fill_uniform(&stream, &mut foreign, 1) {
                Err(Error::DeviceMismatch { .. }) => {}
                other => panic!("expected a device mismatch, got {other:?}"),
            }
        }
    }

    fn monte_carlo_counts_what_the_host_counts(device) {
        let (blocks, threads, samples) = (4u32, 64u32, 300u32);
        let seed = 2026;
        let mut hits = DeviceBuffer::<u64>::zeros(device, 1).unwrap();
        launch!(count_in_circle[blocks, threads](seed, samples, &mut hits)).unwrap();
        let mut expected = 0u64;
        for t in 0..u64::from(blocks * threads) {
            let mut rng = Philox::new(seed, t, 0);
            for _ in 0..samples {
                let (x, y) = (rng.uniform_f32(), rng.uniform_f32());
                expected += u64::from(x * x + y * y <= 1.0);
            }
        }
        assert_eq!(hits.to_vec().unwrap(), vec![expected]);
        let n = f64::from(blocks * threads * samples);
        let p = std::f64::consts::FRAC_PI_4;
        within_5_sigma("4 * hits / samples", 4.0 * expected as f64 / n, std::f64::consts::PI, 4.0 * (p * (1.0 - p) / n).sqrt()).unwrap();
    }
}

#[test]
fn statistical_checks_reject_broken_generators() {
    let key = [1, 0];
    let uniforms = |rounds: u32| -> Vec<f64> {
        (0..SAMPLES as u32 / 4)
            .flat_map(|block| philox4x32(rounds, [block, 0, 0, 0], key))
            .map(|word| f64::from(uniform_f32(word)))
            .collect()
    };
    check_uniform(&uniforms(10)).expect("Philox4x32-10 passes");
    // One round leaves the second word of every block at M1 * 0 = 0.
    let broken = check_uniform(&uniforms(1)).expect_err("one round fails");
    eprintln!("one round: {broken}");
    // Normals from a generator whose words repeat every other draw.
    let correlated: Vec<f64> = (0..SAMPLES as u32 / 2)
        .flat_map(|i| {
            let word = philox4x32_10([i, 0, 0, 0], key)[0];
            let (a, b) = ferrocuda::device::random::box_muller_f32(word, word);
            [f64::from(a), f64::from(b)]
        })
        .collect();
    let broken = check_normal(&correlated).expect_err("u = v fails");
    eprintln!("u = v: {broken}");
}

#[test]
fn fill_definitions_follow_the_stream() {
    // The per-element definitions against a sequential walk of subsequence 0: element i of
    // a uniform f32 fill is word i, of an f64 fill words 2i and 2i + 1, and the normal
    // fills are the stream's normals in order.
    let seed = 99;
    let mut stream = Philox::new(seed, 0, 0);
    let mut normals = Philox::new(seed, 0, 0);
    let mut doubles = Philox::new(seed, 0, 0);
    let mut normal_doubles = Philox::new(seed, 0, 0);
    for i in 0..1001u64 {
        assert_eq!(
            element_uniform_f32(seed, i).to_bits(),
            stream.uniform_f32().to_bits()
        );
        assert_eq!(
            element_normal_f32(seed, i, 0.0, 1.0).to_bits(),
            normals.normal_f32().to_bits()
        );
        assert_eq!(
            element_uniform_f64(seed, i).to_bits(),
            doubles.uniform_f64().to_bits()
        );
        assert_eq!(
            element_normal_f64(seed, i, 0.0, 1.0).to_bits(),
            normal_doubles.normal_f64().to_bits()
        );
    }
}
