//! Rodinia's CFD solver (`cfd/euler3d.cu`): the three kernels of one Runge-Kutta stage of an
//! explicit finite-volume Euler solver on an unstructured mesh of `nelr` elements.
//!
//! Storage is structure-of-arrays, as Rodinia's: variable `v` of element `i` is
//! `variables[i + v * nelr]` (`VAR_DENSITY`, `VAR_MOMENTUM + 0..3`, `VAR_DENSITY_ENERGY`), the
//! `j`-th of the [`NNB`] neighbours of element `i` is `neighbours[i + j * nelr]` (an element
//! index, or [`WING_BOUNDARY`] (-1) for a wall, [`FAR_FIELD_BOUNDARY`] (-2) for the far field),
//! and component `d` of the normal of face `j` is `normals[i + (j + d * NNB) * nelr]`.
//!
//! One thread per element, blocks of [`BLOCK_SIZE`] (192) threads as Rodinia's `block_length`,
//! a 1-D grid of `nelr.div_ceil(192)` blocks. Rodinia pads `nelr` to a multiple of the block;
//! these kernels test `i < nelr` instead, so any `nelr` works. CUDA C twins:
//! `bench/external/polybench.cu` (`<kernel>_cuda`), with the same arithmetic in the same order.

use ferrocuda::prelude::*;

/// Threads per block (Rodinia's `block_length`).
pub const BLOCK_SIZE: usize = 192;
/// Neighbours (faces) per element.
pub const NNB: usize = 4;
/// Spatial dimensions.
pub const NDIM: usize = 3;
/// Index of the density among the variables.
pub const VAR_DENSITY: usize = 0;
/// Index of the first momentum component among the variables.
pub const VAR_MOMENTUM: usize = 1;
/// Index of the energy density among the variables.
pub const VAR_DENSITY_ENERGY: usize = VAR_MOMENTUM + NDIM;
/// Variables per element.
pub const NVAR: usize = VAR_DENSITY_ENERGY + 1;
/// The ratio of specific heats.
pub const GAMMA: f32 = 1.4;
/// Runge-Kutta stages per iteration (Rodinia's `RK`).
pub const RK: i32 = 3;
/// The artificial-viscosity coefficient of [`euler3d_compute_flux`].
pub const SMOOTHING_COEFFICIENT: f32 = 0.2;
/// A neighbour index meaning a wing (wall) boundary.
pub const WING_BOUNDARY: i32 = -1;
/// A neighbour index meaning a far-field boundary.
pub const FAR_FIELD_BOUNDARY: i32 = -2;

/// Three floats, CUDA's `float3` (12 bytes, aligned to 4).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct Float3 {
    /// First component.
    pub x: f32,
    /// Second component.
    pub y: f32,
    /// Third component.
    pub z: f32,
}

/// The far-field state that Rodinia keeps in constant memory (`ff_variable` and the four
/// `ff_flux_contribution_*`), passed by value: 68 bytes, the layout of the CUDA C twin's
/// `struct FarField`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct FarField {
    /// The far-field variables, indexed like an element's (`VAR_DENSITY`, ...).
    pub variables: [f32; NVAR],
    /// The flux contribution of the x momentum.
    pub flux_momentum_x: Float3,
    /// The flux contribution of the y momentum.
    pub flux_momentum_y: Float3,
    /// The flux contribution of the z momentum.
    pub flux_momentum_z: Float3,
    /// The flux contribution of the energy density.
    pub flux_density_energy: Float3,
}

/// The flux contributions of one element's state (Rodinia's `compute_flux_contribution`):
/// the momentum fluxes along x, y, z and the energy flux.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FluxContribution {
    /// Flux of the x momentum.
    pub momentum_x: Float3,
    /// Flux of the y momentum.
    pub momentum_y: Float3,
    /// Flux of the z momentum.
    pub momentum_z: Float3,
    /// Flux of the energy density.
    pub density_energy: Float3,
}

/// `momentum / density`, per component.
#[inline(always)]
pub fn compute_velocity(density: f32, momentum: Float3) -> Float3 {
    Float3 {
        x: momentum.x / density,
        y: momentum.y / density,
        z: momentum.z / density,
    }
}

/// `|v|^2`, summed x, y, z.
#[inline(always)]
pub fn compute_speed_sqd(velocity: Float3) -> f32 {
    velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z
}

/// `(gamma - 1) (E - rho |v|^2 / 2)`.
#[inline(always)]
pub fn compute_pressure(density: f32, density_energy: f32, speed_sqd: f32) -> f32 {
    (GAMMA - 1.0) * (density_energy - 0.5 * density * speed_sqd)
}

/// `sqrt(gamma p / rho)`.
#[inline(always)]
pub fn compute_speed_of_sound(density: f32, pressure: f32) -> f32 {
    (GAMMA * pressure / density).sqrt()
}

/// The flux contributions of a state (Rodinia's `compute_flux_contribution`).
#[inline(always)]
pub fn compute_flux_contribution(
    momentum: Float3,
    density_energy: f32,
    pressure: f32,
    velocity: Float3,
) -> FluxContribution {
    let momentum_x = Float3 {
        x: velocity.x * momentum.x + pressure,
        y: velocity.x * momentum.y,
        z: velocity.x * momentum.z,
    };
    let momentum_y = Float3 {
        x: momentum_x.y,
        y: velocity.y * momentum.y + pressure,
        z: velocity.y * momentum.z,
    };
    let momentum_z = Float3 {
        x: momentum_x.z,
        y: momentum_y.z,
        z: velocity.z * momentum.z + pressure,
    };
    let de_p = density_energy + pressure;
    FluxContribution {
        momentum_x,
        momentum_y,
        momentum_z,
        density_energy: Float3 {
            x: velocity.x * de_p,
            y: velocity.y * de_p,
            z: velocity.z * de_p,
        },
    }
}

/// The far-field state of a free stream at Mach `mach` and angle of attack `angle` (radians),
/// with density 1.4 and pressure 1, and its flux contributions, as Rodinia's `main` computes it
/// (host only).
#[cfg(not(target_arch = "nvptx64"))]
pub fn far_field(mach: f32, angle: f32) -> FarField {
    let mut variables = [0.0f32; NVAR];
    variables[VAR_DENSITY] = 1.4;
    let pressure = 1.0f32;
    let speed_of_sound = (GAMMA * pressure / variables[VAR_DENSITY]).sqrt();
    let speed = mach * speed_of_sound;
    let velocity = Float3 {
        x: speed * angle.cos(),
        y: speed * angle.sin(),
        z: 0.0,
    };
    variables[VAR_MOMENTUM] = variables[VAR_DENSITY] * velocity.x;
    variables[VAR_MOMENTUM + 1] = variables[VAR_DENSITY] * velocity.y;
    variables[VAR_MOMENTUM + 2] = variables[VAR_DENSITY] * velocity.z;
    variables[VAR_DENSITY_ENERGY] =
        variables[VAR_DENSITY] * (0.5 * (speed * speed)) + (pressure / (GAMMA - 1.0));
    let momentum = Float3 {
        x: variables[VAR_MOMENTUM],
        y: variables[VAR_MOMENTUM + 1],
        z: variables[VAR_MOMENTUM + 2],
    };
    let flux =
        compute_flux_contribution(momentum, variables[VAR_DENSITY_ENERGY], pressure, velocity);
    FarField {
        variables,
        flux_momentum_x: flux.momentum_x,
        flux_momentum_y: flux.momentum_y,
        flux_momentum_z: flux.momentum_z,
        flux_density_energy: flux.density_energy,
    }
}

/// The local time step of each element, divided by its volume: `step_factors[i] = 0.5 /
/// (sqrt(areas[i]) (|v| + c))` (Rodinia's `cuda_compute_step_factor`). `variables` holds
/// `NVAR * nelr` values, `areas` and `step_factors` `nelr`.
///
/// Launch: one thread per element, `nelr.div_ceil(192)` blocks of 192 threads. Benchmark kernel:
/// Rodinia's `cuda_compute_step_factor` (CFD, euler3d).
#[kernel(max_block(BLOCK_SIZE))]
pub fn euler3d_compute_step_factor(
    variables: &[f32],
    areas: &[f32],
    step_factors: &mut [f32],
    nelr: u32,
) {
    let i = grid!(1);
    let nelr = nelr as usize;
    if i < nelr {
        let density = variables[i + VAR_DENSITY * nelr];
        let momentum = Float3 {
            x: variables[i + VAR_MOMENTUM * nelr],
            y: variables[i + (VAR_MOMENTUM + 1) * nelr],
            z: variables[i + (VAR_MOMENTUM + 2) * nelr],
        };
        let density_energy = variables[i + VAR_DENSITY_ENERGY * nelr];
        let velocity = compute_velocity(density, momentum);
        let speed_sqd = compute_speed_sqd(velocity);
        let pressure = compute_pressure(density, density_energy, speed_sqd);
        let speed_of_sound = compute_speed_of_sound(density, pressure);
        step_factors[i] = 0.5 / (areas[i].sqrt() * (speed_sqd.sqrt() + speed_of_sound));
    }
}

/// The flux through the four faces of each element (Rodinia's `cuda_compute_flux`): for a
/// neighbour element, an artificial-viscosity term `-|n| 0.2 0.5 (|v_i| + |v_nb| + c_i + c_nb)
/// (U_i - U_nb)` plus the average of the two cells' fluxes along the face normal; for a wing
/// face, the pressure force `n p_i`; for a far-field face, the average with the far-field
/// state's fluxes. `neighbours` holds `NNB * nelr` indices, `normals` `NDIM * NNB * nelr`
/// components, `variables` and `fluxes` `NVAR * nelr` values.
///
/// Launch: one thread per element, `nelr.div_ceil(192)` blocks of 192 threads. Benchmark kernel:
/// Rodinia's `cuda_compute_flux` (CFD, euler3d).
#[kernel(max_block(BLOCK_SIZE))]
pub fn euler3d_compute_flux(
    neighbours: &[i32],
    normals: &[f32],
    variables: &[f32],
    far: FarField,
    fluxes: &mut [f32],
    nelr: u32,
) {
    let i = grid!(1);
    let nelr = nelr as usize;
    if i >= nelr {
        return;
    }
    let density_i = variables[i + VAR_DENSITY * nelr];
    let momentum_i = Float3 {
        x: variables[i + VAR_MOMENTUM * nelr],
        y: variables[i + (VAR_MOMENTUM + 1) * nelr],
        z: variables[i + (VAR_MOMENTUM + 2) * nelr],
    };
    let density_energy_i = variables[i + VAR_DENSITY_ENERGY * nelr];
    let velocity_i = compute_velocity(density_i, momentum_i);
    let speed_sqd_i = compute_speed_sqd(velocity_i);
    let speed_i = speed_sqd_i.sqrt();
    let pressure_i = compute_pressure(density_i, density_energy_i, speed_sqd_i);
    let speed_of_sound_i = compute_speed_of_sound(density_i, pressure_i);
    let flux_i = compute_flux_contribution(momentum_i, density_energy_i, pressure_i, velocity_i);

    let mut flux_density = 0.0f32;
    let mut flux_momentum = Float3::default();
    let mut flux_density_energy = 0.0f32;

    for j in 0..NNB {
        let nb = neighbours[i + j * nelr];
        let normal = Float3 {
            x: normals[i + j * nelr],
            y: normals[i + (j + NNB) * nelr],
            z: normals[i + (j + 2 * NNB) * nelr],
        };
        let normal_len = (normal.x * normal.x + normal.y * normal.y + normal.z * normal.z).sqrt();

        if nb >= 0 {
            let nb = nb as usize;
            let density_nb = variables[nb + VAR_DENSITY * nelr];
            let momentum_nb = Float3 {
                x: variables[nb + VAR_MOMENTUM * nelr],
                y: variables[nb + (VAR_MOMENTUM + 1) * nelr],
                z: variables[nb + (VAR_MOMENTUM + 2) * nelr],
            };
            let density_energy_nb = variables[nb + VAR_DENSITY_ENERGY * nelr];
            let velocity_nb = compute_velocity(density_nb, momentum_nb);
            let speed_sqd_nb = compute_speed_sqd(velocity_nb);
            let pressure_nb = compute_pressure(density_nb, density_energy_nb, speed_sqd_nb);
            let speed_of_sound_nb = compute_speed_of_sound(density_nb, pressure_nb);
            let flux_nb =
                compute_flux_contribution(momentum_nb, density_energy_nb, pressure_nb, velocity_nb);

            // Artificial viscosity.
            let factor = -normal_len
                * SMOOTHING_COEFFICIENT
                * 0.5
                * (speed_i + speed_sqd_nb.sqrt() + speed_of_sound_i + speed_of_sound_nb);
            flux_density += factor * (density_i - density_nb);
            flux_density_energy += factor * (density_energy_i - density_energy_nb);
            flux_momentum.x += factor * (momentum_i.x - momentum_nb.x);
            flux_momentum.y += factor * (momentum_i.y - momentum_nb.y);
            flux_momentum.z += factor * (momentum_i.z - momentum_nb.z);

            // Cell-centred fluxes.
            let factor = 0.5 * normal.x;
            flux_density += factor * (momentum_nb.x + momentum_i.x);
            flux_density_energy += factor * (flux_nb.density_energy.x + flux_i.density_energy.x);
            flux_momentum.x += factor * (flux_nb.momentum_x.x + flux_i.momentum_x.x);
            flux_momentum.y += factor * (flux_nb.momentum_y.x + flux_i.momentum_y.x);
            flux_momentum.z += factor * (flux_nb.momentum_z.x + flux_i.momentum_z.x);

            let factor = 0.5 * normal.y;
            flux_density += factor * (momentum_nb.y + momentum_i.y);
            flux_density_energy += factor * (flux_nb.density_energy.y + flux_i.density_energy.y);
            flux_momentum.x += factor * (flux_nb.momentum_x.y + flux_i.momentum_x.y);
            flux_momentum.y += factor * (flux_nb.momentum_y.y + flux_i.momentum_y.y);
            flux_momentum.z += factor * (flux_nb.momentum_z.y + flux_i.momentum_z.y);

            let factor = 0.5 * normal.z;
            flux_density += factor * (momentum_nb.z + momentum_i.z);
            flux_density_energy += factor * (flux_nb.density_energy.z + flux_i.density_energy.z);
            flux_momentum.x += factor * (flux_nb.momentum_x.z + flux_i.momentum_x.z);
            flux_momentum.y += factor * (flux_nb.momentum_y.z + flux_i.momentum_y.z);
            flux_momentum.z += factor * (flux_nb.momentum_z.z + flux_i.momentum_z.z);
        } else if nb == WING_BOUNDARY {
            flux_momentum.x += normal.x * pressure_i;
            flux_momentum.y += normal.y * pressure_i;
            flux_momentum.z += normal.z * pressure_i;
        } else if nb == FAR_FIELD_BOUNDARY {
            let factor = 0.5 * normal.x;
            flux_density += factor * (far.variables[VAR_MOMENTUM] + momentum_i.x);
            flux_density_energy += factor * (far.flux_density_energy.x + flux_i.density_energy.x);
            flux_momentum.x += factor * (far.flux_momentum_x.x + flux_i.momentum_x.x);
            flux_momentum.y += factor * (far.flux_momentum_y.x + flux_i.momentum_y.x);
            flux_momentum.z += factor * (far.flux_momentum_z.x + flux_i.momentum_z.x);

            let factor = 0.5 * normal.y;
            flux_density += factor * (far.variables[VAR_MOMENTUM + 1] + momentum_i.y);
            flux_density_energy += factor * (far.flux_density_energy.y + flux_i.density_energy.y);
            flux_momentum.x += factor * (far.flux_momentum_x.y + flux_i.momentum_x.y);
            flux_momentum.y += factor * (far.flux_momentum_y.y + flux_i.momentum_y.y);
            flux_momentum.z += factor * (far.flux_momentum_z.y + flux_i.momentum_z.y);

            let factor = 0.5 * normal.z;
            flux_density += factor * (far.variables[VAR_MOMENTUM + 2] + momentum_i.z);
            flux_density_energy += factor * (far.flux_density_energy.z + flux_i.density_energy.z);
            flux_momentum.x += factor * (far.flux_momentum_x.z + flux_i.momentum_x.z);
            flux_momentum.y += factor * (far.flux_momentum_y.z + flux_i.momentum_y.z);
            flux_momentum.z += factor * (far.flux_momentum_z.z + flux_i.momentum_z.z);
        }
    }

    fluxes[i + VAR_DENSITY * nelr] = flux_density;
    fluxes[i + VAR_MOMENTUM * nelr] = flux_momentum.x;
    fluxes[i + (VAR_MOMENTUM + 1) * nelr] = flux_momentum.y;
    fluxes[i + (VAR_MOMENTUM + 2) * nelr] = flux_momentum.z;
    fluxes[i + VAR_DENSITY_ENERGY * nelr] = flux_density_energy;
}

/// One Runge-Kutta stage `j` (0 to `RK - 1`): `variables = old_variables + step_factors[i] /
/// (RK + 1 - j) * fluxes`, for each of the `NVAR` variables of each element (Rodinia's
/// `cuda_time_step`). `old_variables`, `variables` and `fluxes` hold `NVAR * nelr` values,
/// `step_factors` `nelr`.
///
/// Launch: one thread per element, `nelr.div_ceil(192)` blocks of 192 threads. Benchmark kernel:
/// Rodinia's `cuda_time_step` (CFD, euler3d).
#[kernel(max_block(BLOCK_SIZE))]
pub fn euler3d_time_step(
    j: i32,
    old_variables: &[f32],
    variables: &mut [f32],
    step_factors: &[f32],
    fluxes: &[f32],
    nelr: u32,
) {
    let i = grid!(1);
    let nelr = nelr as usize;
    if i < nelr {
        let factor = step_factors[i] / (RK + 1 - j) as f32;
        for v in [
            VAR_DENSITY,
            VAR_DENSITY_ENERGY,
            VAR_MOMENTUM,
            VAR_MOMENTUM + 1,
            VAR_MOMENTUM + 2,
        ] {
            variables[i + v * nelr] = old_variables[i + v * nelr] + factor * fluxes[i + v * nelr];
        }
    }
}
