//! Gravitational n-body: one thread per body sums the pull of every other body.

use ferrocuda::prelude::*;

/// A point mass.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct Body {
    /// Position (x, y, z).
    pub pos: [f32; 3],
    /// Mass.
    pub mass: f32,
}

/// `accel[i]` = the acceleration of body `i`: the sum over all bodies `j` of
/// `mass[j] * d / (|d|^2 + softening2)^(3/2)` with `d = pos[j] - pos[i]` (the softening keeps
/// close encounters finite and makes the `j == i` term zero).
#[kernel]
pub fn accelerations(bodies: &[Body], accel: &mut [[f32; 3]], softening2: f32) {
    let i = grid!(1);
    if i < bodies.len() && i < accel.len() {
        let me = bodies[i].pos;
        let mut sum = [0.0f32; 3];
        for other in bodies {
            let d = [
                other.pos[0] - me[0],
                other.pos[1] - me[1],
                other.pos[2] - me[2],
            ];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + softening2;
            let inv_r = 1.0 / r2.sqrt();
            let s = other.mass * inv_r * inv_r * inv_r;
            for k in 0..3 {
                sum[k] += s * d[k];
            }
        }
        accel[i] = sum;
    }
}
