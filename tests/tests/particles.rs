//! `#[derive(DeviceCopy)]` structs as kernel arguments (`kernels_nvptx::particles`): a buffer of
//! `Particle`s updated in place and `SimParams` passed by value, against a CPU reference written
//! here, bit for bit (the kernels use explicit fused multiply-adds only), on random inputs of
//! awkward sizes, on the simulator and the GPU.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, rng};
use kernels_nvptx::particles::{Particle, SimParams, integrate, particle_energy};
use rand::Rng;
use rand::rngs::StdRng;

fn random_particles(rng: &mut StdRng, n: usize) -> Vec<Particle> {
    (0..n)
        .map(|_| Particle {
            pos: [
                rng.random_range(-10.0..10.0),
                rng.random_range(0.0..20.0),
                rng.random_range(-10.0..10.0),
            ],
            vel: [
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
                rng.random_range(-5.0..5.0),
            ],
            mass: rng.random_range(0.1..10.0),
        })
        .collect()
}

fn random_params(rng: &mut StdRng, bounce: bool) -> SimParams {
    SimParams {
        dt: rng.random_range(1e-3..1e-2),
        steps: rng.random_range(1..200),
        gravity: [
            rng.random_range(-1.0..1.0),
            rng.random_range(-12.0..-8.0),
            rng.random_range(-1.0..1.0),
        ],
        floor: rng.random_range(-1.0..3.0),
        drag: rng.random_range(0.0..0.5),
        bounce,
    }
}

/// The integration on the CPU, step by step as `integrate` documents it.
fn integrate_reference(particles: &[Particle], params: &SimParams) -> Vec<Particle> {
    particles
        .iter()
        .map(|start| {
            let mut p = *start;
            let damping = -(params.drag / p.mass);
            let floor = params.floor as f32;
            for _ in 0..params.steps {
                for k in 0..3 {
                    let accel = damping.mul_add(p.vel[k], params.gravity[k]);
                    p.vel[k] = accel.mul_add(params.dt, p.vel[k]);
                    p.pos[k] = p.vel[k].mul_add(params.dt, p.pos[k]);
                }
                if params.bounce && p.pos[1] < floor {
                    p.pos[1] = floor;
                    p.vel[1] = -p.vel[1];
                }
            }
            p
        })
        .collect()
}

/// The energy on the CPU, in `particle_energy`'s order of operations.
fn energy_reference(particles: &[Particle], params: &SimParams) -> Vec<f64> {
    particles
        .iter()
        .map(|p| {
            let (mut speed2, mut work) = (0.0f64, 0.0f64);
            for k in 0..3 {
                let v = p.vel[k] as f64;
                speed2 = v.mul_add(v, speed2);
                let height = p.pos[k] as f64 - if k == 1 { params.floor } else { 0.0 };
                work = (params.gravity[k] as f64).mul_add(height, work);
            }
            let m = p.mass as f64;
            (0.5 * m).mul_add(speed2, -(m * work))
        })
        .collect()
}

#[test]
fn sim_params_has_the_documented_c_layout() {
    assert_eq!(std::mem::size_of::<SimParams>(), 40);
    assert_eq!(std::mem::align_of::<SimParams>(), 8);
    assert_eq!(std::mem::offset_of!(SimParams, gravity), 8);
    assert_eq!(std::mem::offset_of!(SimParams, floor), 24);
    assert_eq!(std::mem::offset_of!(SimParams, drag), 32);
    assert_eq!(std::mem::offset_of!(SimParams, bounce), 36);
    assert_eq!(std::mem::size_of::<Particle>(), 28);
}

device_tests! {
    fn particles_integrate_like_the_cpu(device) {
        let mut rng = rng("particles_integrate");
        for (n, block, bounce) in [(1usize, 32u32, true), (1003, 128, true), (2500, 96, false)] {
            let particles = random_particles(&mut rng, n);
            let params = random_params(&mut rng, bounce);
            let mut buffer = DeviceBuffer::from_slice(device, &particles).unwrap();
            launch!(integrate[n.div_ceil(block as usize) as u32, block](&mut buffer, params)).unwrap();
            let got = buffer.to_vec().unwrap();
            let expected = integrate_reference(&particles, &params);
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                assert_eq!(g, e, "particle {i} of {n}, {params:?}");
            }
            // The bounce case really bounced: every particle ends at or above the floor.
            if bounce && n > 1 {
                assert!(got.iter().all(|p| p.pos[1] >= params.floor as f32));
            }
        }
    }

    fn params_by_reference_and_host_slices_of_structs(device) {
        let mut rng = rng("particles_host_slices");
        let mut particles = random_particles(&mut rng, 777);
        let params = random_params(&mut rng, true);
        let expected = integrate_reference(&particles, &params);
        // A host `&mut Vec<Particle>` is copied in and back; `&SimParams` is accepted too.
        launch!(integrate[7, 128](&mut particles, &params)).unwrap();
        assert_eq!(particles, expected);
    }

    fn energy_of_particles_with_params_by_value(device) {
        let mut rng = rng("particles_energy");
        let n = 1001;
        let particles = random_particles(&mut rng, n);
        let params = random_params(&mut rng, false);
        let on_device = DeviceBuffer::from_slice(device, &particles).unwrap();
        let mut energy = DeviceBuffer::from_slice(device, &vec![f64::NAN; n]).unwrap();
        launch!(particle_energy[n.div_ceil(64) as u32, 64](&on_device, params, &mut energy)).unwrap();
        assert_eq!(energy.to_vec().unwrap(), energy_reference(&particles, &params));
        // The particles were only read.
        assert_eq!(on_device.to_vec().unwrap(), particles);
    }

    fn zeroed_struct_buffers(device) {
        let buffer = DeviceBuffer::<Particle>::zeros(device, 33).unwrap();
        assert_eq!(buffer.to_vec().unwrap(), vec![Particle::default(); 33]);
    }
}
