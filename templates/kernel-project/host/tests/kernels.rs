//! Each kernel against its CPU reference, on the CPU simulator and on GPU 0.
//!
//! A check is written once, as a function of a `Device`, and run twice: `*_simulator` always,
//! `*_gpu` when there is a GPU. Without one the GPU test prints why and passes, unless
//! `FERROCUDA_REQUIRE_GPU=1` is set: then it fails, so a broken driver on a GPU machine cannot
//! pass for a green run.

use ferrocuda::Device;
use my_host::{
    gpu_accelerations, gpu_heat, pseudo_random, random_bodies, reference_accelerations,
    reference_heat,
};

/// Runs `check` on GPU 0, or says why it cannot (failing if `FERROCUDA_REQUIRE_GPU` is set).
fn on_gpu(check: fn(&Device)) {
    match Device::new(0) {
        Ok(device) => check(&device),
        Err(e) => {
            let required =
                std::env::var("FERROCUDA_REQUIRE_GPU").is_ok_and(|v| !v.is_empty() && v != "0");
            assert!(
                !required,
                "FERROCUDA_REQUIRE_GPU is set but there is no usable GPU: {e}"
            );
            eprintln!("skipped on the GPU: {e}");
        }
    }
}

/// 4096 bodies (16 blocks, every thread busy): each acceleration within 1e-5 of the sum of
/// its terms' magnitudes (f32 rounding over 4096 terms) of the f64 reference.
fn nbody_matches_cpu(device: &Device) {
    let bodies = random_bodies(7, 4096);
    let accel = gpu_accelerations(device, &bodies, 1e-3).unwrap();
    let reference = reference_accelerations(&bodies, 1e-3);
    for (i, (a, (r, scale))) in accel.iter().zip(&reference).enumerate() {
        for k in 0..3 {
            let error = (f64::from(a[k]) - r[k]).abs();
            assert!(
                error <= 1e-5 * scale,
                "body {i} axis {k}: {} against {} (scale {scale})",
                a[k],
                r[k]
            );
        }
    }
}

/// 40 steps of a 383 x 257 grid (sizes that are no multiple of the 16 x 16 blocks), border
/// fixed, within 1e-5 of the f64 reference.
fn heat_matches_cpu(device: &Device) {
    let (width, height, alpha, steps) = (383, 257, 0.2, 40);
    let start = pseudo_random(3, width * height);
    let out = gpu_heat(device, &start, width as u32, height as u32, alpha, steps).unwrap();
    let reference = reference_heat(&start, width, height, alpha, steps);
    for (i, (o, r)) in out.iter().zip(&reference).enumerate() {
        assert!(
            (f64::from(*o) - r).abs() <= 1e-5,
            "cell ({}, {}): {o} against {r}",
            i % width,
            i / width
        );
    }
}

#[test]
fn nbody_simulator() {
    nbody_matches_cpu(&Device::simulator());
}

#[test]
fn nbody_gpu() {
    on_gpu(nbody_matches_cpu);
}

#[test]
fn heat_simulator() {
    heat_matches_cpu(&Device::simulator());
}

#[test]
fn heat_gpu() {
    on_gpu(heat_matches_cpu);
}
