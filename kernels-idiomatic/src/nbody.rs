//! One step of an all-pairs n-body simulation in the style of GPU Gems 3, chapter 31: each
//! thread owns a body and sums the softened gravitational pull of every body, which the block
//! stages through shared memory one tile of 256 positions at a time; then it advances its body's
//! velocity and position by one explicit Euler step.
//!
//! Written the way a new user writes it: `grid!(1)`, `usize` indices, checked indexing of the
//! slices and the shared tile. The CUDA C twin is `nbody_cuda` in `bench/idiomatic.cu`, whose
//! bodies are `float4`s, like [`Float4`] here.

use ferrocuda::prelude::*;

/// Threads per block and bodies per shared tile.
pub const BLOCK: usize = 256;

/// Four floats aligned to 16 bytes, as CUDA's `float4`: a position with the mass in `w`, or a
/// velocity (`w` unused).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct Float4 {
    /// x component.
    pub x: f32,
    /// y component.
    pub y: f32,
    /// z component.
    pub z: f32,
    /// Fourth component: the mass of a position.
    pub w: f32,
}

/// Advances every body `i < positions.len()` by one step of `dt`: its acceleration is the sum
/// over all bodies `j` (itself included, which adds nothing) of
/// `m_j r / (|r|^2 + softening2)^(3/2)` with `r = p_j - p_i`, then
/// `new_velocities[i] = v_i + a dt` and `new_positions[i] = p_i + new_velocity dt` (the mass is
/// kept). Blocks of 256 threads, `ceil(n / 256)` blocks.
#[kernel(max_block(BLOCK))]
pub fn nbody(
    positions: &[Float4],
    velocities: &[Float4],
    new_positions: &mut [Float4],
    new_velocities: &mut [Float4],
    dt: f32,
    softening2: f32,
) {
    let mut tile = shared_array!(Float4; BLOCK);
    let n = positions.len();
    let i = grid!(1);
    let tx = thread_idx().x as usize;
    let me = if i < n {
        positions[i]
    } else {
        Float4::default()
    };
    let (mut ax, mut ay, mut az) = (0.0f32, 0.0f32, 0.0f32);
    for start in (0..n).step_by(BLOCK) {
        if start + tx < n {
            tile[tx] = positions[start + tx];
        }
        syncthreads();
        for j in 0..BLOCK.min(n - start) {
            let other = tile[j];
            let (rx, ry, rz) = (other.x - me.x, other.y - me.y, other.z - me.z);
            let distance2 = rx * rx + ry * ry + rz * rz + softening2;
            let inverse = 1.0 / distance2.sqrt();
            let strength = other.w * (inverse * inverse * inverse);
            ax += rx * strength;
            ay += ry * strength;
            az += rz * strength;
        }
        syncthreads();
    }
    if i < n {
        let v = velocities[i];
        let velocity = Float4 {
            x: v.x + ax * dt,
            y: v.y + ay * dt,
            z: v.z + az * dt,
            w: v.w,
        };
        new_velocities[i] = velocity;
        new_positions[i] = Float4 {
            x: me.x + velocity.x * dt,
            y: me.y + velocity.y * dt,
            z: me.z + velocity.z * dt,
            w: me.w,
        };
    }
}
