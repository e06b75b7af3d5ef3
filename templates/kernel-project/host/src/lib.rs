//! What the program and its tests share: the kernels' launches and their CPU references.

use ferrocuda::prelude::*;
use my_kernels::heat::heat_step;
use my_kernels::nbody::{Body, accelerations};

/// Threads per block of the 1-D launches.
pub const BLOCK: u32 = 256;

/// The accelerations of all `bodies`, computed by the `accelerations` kernel on `device`.
pub fn gpu_accelerations(
    device: &Device,
    bodies: &[Body],
    softening2: f32,
) -> ferrocuda::Result<Vec<[f32; 3]>> {
    let bodies_on_device = DeviceBuffer::from_slice(device, bodies)?;
    let mut accel = DeviceBuffer::<[f32; 3]>::zeros(device, bodies.len())?;
    let grid = (bodies.len() as u32).div_ceil(BLOCK);
    launch!(accelerations[grid, BLOCK](&bodies_on_device, &mut accel, softening2))?;
    accel.to_vec()
}

/// `steps` heat steps of a `width` x `height` grid on `device`, ping-ponging two buffers.
pub fn gpu_heat(
    device: &Device,
    grid_values: &[f32],
    width: u32,
    height: u32,
    alpha: f32,
    steps: usize,
) -> ferrocuda::Result<Vec<f32>> {
    let mut current = DeviceBuffer::from_slice(device, grid_values)?;
    let mut next = DeviceBuffer::<f32>::zeros(device, grid_values.len())?;
    let blocks = (width.div_ceil(16), height.div_ceil(16));
    for _ in 0..steps {
        launch!(heat_step[blocks, (16, 16)](&current, &mut next, width, height, alpha))?;
        std::mem::swap(&mut current, &mut next);
    }
    current.to_vec()
}

/// The CPU reference of `accelerations`, in f64: for each body, the acceleration and the sum
/// of the magnitudes of its terms (the scale an f32 result's rounding error is relative to).
pub fn reference_accelerations(bodies: &[Body], softening2: f32) -> Vec<([f64; 3], f64)> {
    bodies
        .iter()
        .map(|me| {
            let (mut sum, mut scale) = ([0.0f64; 3], 0.0f64);
            for other in bodies {
                let d: [f64; 3] = std::array::from_fn(|k| f64::from(other.pos[k] - me.pos[k]));
                let r2 = d.iter().map(|x| x * x).sum::<f64>() + f64::from(softening2);
                let s = f64::from(other.mass) / (r2 * r2.sqrt());
                for k in 0..3 {
                    sum[k] += s * d[k];
                    scale += (s * d[k]).abs();
                }
            }
            (sum, scale)
        })
        .collect()
}

/// The CPU reference of `steps` heat steps, in f64.
pub fn reference_heat(
    grid_values: &[f32],
    width: usize,
    height: usize,
    alpha: f32,
    steps: usize,
) -> Vec<f64> {
    let alpha = f64::from(alpha);
    let mut current: Vec<f64> = grid_values.iter().map(|&v| f64::from(v)).collect();
    let mut next = current.clone();
    for _ in 0..steps {
        for y in 1..height.saturating_sub(1) {
            for x in 1..width.saturating_sub(1) {
                let i = y * width + x;
                let neighbours =
                    current[i - 1] + current[i + 1] + current[i - width] + current[i + width];
                next[i] = current[i] + alpha * (neighbours - 4.0 * current[i]);
            }
        }
        std::mem::swap(&mut current, &mut next);
    }
    current
}

/// Deterministic pseudo-random numbers in `[0, 1)` (a 64-bit LCG): inputs without a dependency.
pub fn pseudo_random(seed: u64, n: usize) -> Vec<f32> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// `n` bodies at pseudo-random positions in a unit cube with masses in `[0.5, 1.5)`.
pub fn random_bodies(seed: u64, n: usize) -> Vec<Body> {
    let values = pseudo_random(seed, 4 * n);
    values
        .chunks_exact(4)
        .map(|v| Body {
            pos: [v[0], v[1], v[2]],
            mass: 0.5 + v[3],
        })
        .collect()
}
