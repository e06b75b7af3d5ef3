//! Structs crossing to the GPU: a buffer of `#[repr(C)]` particles (`&mut [Particle]`) and the
//! simulation's parameters passed by value (`SimParams`), both `#[derive(DeviceCopy)]`, so the
//! host and the kernel agree on their C layout, padding included.
//!
//! The arithmetic uses explicit fused multiply-adds (`mul_add`) and plain multiplications only,
//! so a GPU cannot fuse operations differently from the host: results are exact on every
//! backend.

use ferrocuda::prelude::*;

/// One point mass.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct Particle {
    /// Position (x, y, z); y points up.
    pub pos: [f32; 3],
    /// Velocity.
    pub vel: [f32; 3],
    /// Mass (positive).
    pub mass: f32,
}

/// The parameters of [`integrate`]. Its fields have mixed sizes, so the C layout has padding
/// inside (before `floor`) and at the end (after `bounce`): 40 bytes, aligned to 8.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct SimParams {
    /// Time step.
    pub dt: f32,
    /// Number of steps to take.
    pub steps: u32,
    /// Gravity (an acceleration).
    pub gravity: [f32; 3],
    /// Height of the floor.
    pub floor: f64,
    /// Linear drag coefficient: the drag force is `-drag * vel`, its acceleration
    /// `-drag / mass * vel`.
    pub drag: f32,
    /// Whether particles bounce off the floor (else they fall through).
    pub bounce: bool,
}

/// Advances each particle by `params.steps` semi-implicit Euler steps: per step and axis,
/// `vel += (gravity - drag / mass * vel) * dt` then `pos += vel * dt` (each as one fused
/// multiply-add); with `bounce`, a particle below the floor is put back on it and its vertical
/// velocity reversed.
#[kernel]
pub fn integrate(particles: &mut [Particle], params: SimParams) {
    let i = grid!(1);
    if i < particles.len() {
        let mut p = particles[i];
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
        particles[i] = p;
    }
}

/// `energy[i]` = kinetic plus potential energy of particle `i` under `params.gravity` (height
/// measured from the floor): `m |v|^2 / 2 - m (g . (pos - floor))`, accumulated with fused
/// multiply-adds in a fixed order.
#[kernel]
pub fn particle_energy(particles: &[Particle], params: SimParams, energy: &mut [f64]) {
    let i = grid!(1);
    if i < particles.len() && i < energy.len() {
        let p = particles[i];
        let mut speed2 = 0.0f64;
        let mut work = 0.0f64;
        for k in 0..3 {
            let v = p.vel[k] as f64;
            speed2 = v.mul_add(v, speed2);
            let height = if k == 1 {
                p.pos[k] as f64 - params.floor
            } else {
                p.pos[k] as f64
            };
            work = (params.gravity[k] as f64).mul_add(height, work);
        }
        let m = p.mass as f64;
        energy[i] = (0.5 * m).mul_add(speed2, -(m * work));
    }
}
