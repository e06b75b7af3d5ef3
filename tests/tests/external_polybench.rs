//! The external suite's Rodinia CFD (euler3d) and PolyBench-GPU kernels (`kernels-external`:
//! fdtd-2d, correlation, gemver) against independent CPU references written here, on random
//! inputs whose sizes are not multiples of the blocks, with 1 and the smallest valid size. The
//! references compute each algorithm directly, element by element, with the floating-point
//! operations in the kernels' order (neither side contracts multiply-adds), so every comparison
//! is bit for bit. Output buffers start as NaN, so an element a kernel should write and does
//! not shows as a mismatch.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng};
use kernels_external::correlation::{
    EPS, correlation_corr, correlation_mean, correlation_reduce, correlation_std,
};
use kernels_external::euler3d::{
    FAR_FIELD_BOUNDARY, FarField, NNB, NVAR, WING_BOUNDARY, euler3d_compute_flux,
    euler3d_compute_step_factor, euler3d_time_step, far_field,
};
use kernels_external::fdtd2d::{fdtd_step1, fdtd_step2, fdtd_step3};
use kernels_external::gemver::{gemver_add, gemver_outer, gemver_product, gemver_transposed};
use rand::Rng;
use rand::rngs::StdRng;

/// Asserts that `actual` and `expected` hold the same bits, naming the first element that
/// differs (the reference must be finite everywhere, so that the comparison means something).
fn assert_bits(what: &str, actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    assert!(
        expected.iter().all(|v| v.is_finite()),
        "{what}: the reference is not finite"
    );
    if let Some(i) = (0..actual.len()).find(|&i| actual[i].to_bits() != expected[i].to_bits()) {
        panic!(
            "{what}: element {i} is {} ({:#010x}), the CPU says {} ({:#010x})",
            actual[i],
            actual[i].to_bits(),
            expected[i],
            expected[i].to_bits()
        );
    }
}

/// A buffer of `n` NaNs: every element must be written.
fn poisoned(device: &Device, n: usize) -> DeviceBuffer<f32> {
    DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap()
}

/// `n` uniform values in `[lo, hi)`.
fn uniform(rng: &mut StdRng, n: usize, lo: f32, hi: f32) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(lo..hi)).collect()
}

// ---------------------------------------------------------------------------------------------
// Rodinia CFD (euler3d).

/// A random mesh of `nelr` elements: neighbour indices (one face in eight a wing wall, one in
/// eight the far field, the rest elements), normals, positive areas, and a physical state
/// (density in [1, 2), velocity components in [-0.5, 0.5), pressure in [0.5, 1.5)), laid out
/// as the kernels read them.
struct Mesh {
    nelr: usize,
    neighbours: Vec<i32>,
    normals: Vec<f32>,
    areas: Vec<f32>,
    variables: Vec<f32>,
}

fn random_mesh(rng: &mut StdRng, nelr: usize) -> Mesh {
    let neighbours = (0..NNB * nelr)
        .map(|_| match rng.random_range(0..8) {
            0 => WING_BOUNDARY,
            1 => FAR_FIELD_BOUNDARY,
            _ => rng.random_range(0..nelr) as i32,
        })
        .collect();
    // Small faces, so that a few time steps keep every state physical (positive pressure).
    let normals = random_f32(rng, 3 * NNB * nelr)
        .into_iter()
        .map(|v| 0.1 * v)
        .collect();
    let areas = uniform(rng, nelr, 0.5, 1.5);
    let mut variables = vec![0.0f32; NVAR * nelr];
    for i in 0..nelr {
        let density: f32 = rng.random_range(1.0..2.0);
        let velocity: [f32; 3] = [0; 3].map(|_| rng.random_range(-0.5..0.5));
        let pressure: f32 = rng.random_range(0.5..1.5);
        let speed_sqd = velocity.iter().map(|v| v * v).sum::<f32>();
        variables[i] = density;
        for d in 0..3 {
            variables[i + (1 + d) * nelr] = density * velocity[d];
        }
        variables[i + 4 * nelr] = pressure / 0.4 + 0.5 * density * speed_sqd;
    }
    Mesh {
        nelr,
        neighbours,
        normals,
        areas,
        variables,
    }
}

/// The primitive quantities of one element's state `[rho, m_x, m_y, m_z, E]`: velocity, |v|^2,
/// pressure and speed of sound, as Rodinia's helpers compute them.
fn primitives(state: [f32; 5]) -> ([f32; 3], f32, f32, f32) {
    let gamma = 1.4f32;
    let rho = state[0];
    let v = [state[1] / rho, state[2] / rho, state[3] / rho];
    let speed_sqd = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
    let pressure = (gamma - 1.0) * (state[4] - 0.5 * rho * speed_sqd);
    let sound = (gamma * pressure / rho).sqrt();
    (v, speed_sqd, pressure, sound)
}

/// Rodinia's flux contribution as a 4 x 3 matrix: rows momentum x, y, z and energy, columns
/// the face normal's x, y, z.
fn flux_matrix(state: [f32; 5], v: [f32; 3], pressure: f32) -> [[f32; 3]; 4] {
    let m = [state[1], state[2], state[3]];
    let mut f = [[0.0f32; 3]; 4];
    for a in 0..3 {
        for b in 0..3 {
            f[a][b] = if a == b {
                v[a] * m[a] + pressure
            } else if b > a {
                v[a] * m[b]
            } else {
                f[b][a]
            };
        }
    }
    let de_p = state[4] + pressure;
    f[3] = [v[0] * de_p, v[1] * de_p, v[2] * de_p];
    f
}

fn state_of(variables: &[f32], nelr: usize, i: usize) -> [f32; 5] {
    [0, 1, 2, 3, 4].map(|v| variables[i + v * nelr])
}

fn step_factor_reference(mesh: &Mesh, variables: &[f32]) -> Vec<f32> {
    (0..mesh.nelr)
        .map(|i| {
            let (_, speed_sqd, _, sound) = primitives(state_of(variables, mesh.nelr, i));
            0.5 / (mesh.areas[i].sqrt() * (speed_sqd.sqrt() + sound))
        })
        .collect()
}

fn flux_reference(mesh: &Mesh, variables: &[f32], far: &FarField) -> Vec<f32> {
    let nelr = mesh.nelr;
    let far_flux = [
        far.flux_momentum_x,
        far.flux_momentum_y,
        far.flux_momentum_z,
        far.flux_density_energy,
    ]
    .map(|f| [f.x, f.y, f.z]);
    let mut fluxes = vec![0.0f32; NVAR * nelr];
    for i in 0..nelr {
        let s_i = state_of(variables, nelr, i);
        let (v_i, speed_sqd_i, p_i, c_i) = primitives(s_i);
        let speed_i = speed_sqd_i.sqrt();
        let f_i = flux_matrix(s_i, v_i, p_i);
        // [density, momentum x, y, z, energy]
        let mut flux = [0.0f32; 5];
        for j in 0..NNB {
            let nb = mesh.neighbours[i + j * nelr];
            let n = [0, 1, 2].map(|d| mesh.normals[i + (j + d * NNB) * nelr]);
            let normal_len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            // The neighbour's state (or the far field's) and its fluxes.
            let (s_nb, f_nb) = if nb >= 0 {
                let s_nb = state_of(variables, nelr, nb as usize);
                let (v_nb, speed_sqd_nb, p_nb, c_nb) = primitives(s_nb);
                let factor = -normal_len * 0.2 * 0.5 * (speed_i + speed_sqd_nb.sqrt() + c_i + c_nb);
                // Viscosity in the kernel's order: density, energy, momentum.
                for k in [0, 4, 1, 2, 3] {
                    flux[k] += factor * (s_i[k] - s_nb[k]);
                }
                (s_nb, flux_matrix(s_nb, v_nb, p_nb))
            } else if nb == -1 {
                for d in 0..3 {
                    flux[1 + d] += n[d] * p_i;
                }
                continue;
            } else {
                assert_eq!(nb, -2);
                (far.variables, far_flux)
            };
            for d in 0..3 {
                let factor = 0.5 * n[d];
                flux[0] += factor * (s_nb[1 + d] + s_i[1 + d]);
                flux[4] += factor * (f_nb[3][d] + f_i[3][d]);
                for a in 0..3 {
                    flux[1 + a] += factor * (f_nb[a][d] + f_i[a][d]);
                }
            }
        }
        for (k, value) in flux.into_iter().enumerate() {
            fluxes[i + k * nelr] = value;
        }
    }
    fluxes
}

fn time_step_reference(
    j: i32,
    nelr: usize,
    old: &[f32],
    step_factors: &[f32],
    fluxes: &[f32],
) -> Vec<f32> {
    let mut out = vec![0.0f32; NVAR * nelr];
    for i in 0..nelr {
        let factor = step_factors[i] / (3 + 1 - j) as f32;
        for v in 0..NVAR {
            out[i + v * nelr] = old[i + v * nelr] + factor * fluxes[i + v * nelr];
        }
    }
    out
}

/// Element counts: 1, around one block of 192, and several blocks with a partial one.
const NELRS: [usize; 5] = [1, 2, 191, 193, 1000];

device_tests! {
    fn euler3d_step_factor_matches_cpu(device) {
        let mut rng = rng("external euler3d step factor");
        for nelr in NELRS {
            let mesh = random_mesh(&mut rng, nelr);
            let variables = DeviceBuffer::from_slice(device, &mesh.variables).unwrap();
            let areas = DeviceBuffer::from_slice(device, &mesh.areas).unwrap();
            let mut step_factors = poisoned(device, nelr);
            launch!(euler3d_compute_step_factor[nelr.div_ceil(192), 192](
                &variables, &areas, &mut step_factors, nelr as u32
            ))
            .unwrap();
            assert_bits(
                &format!("step factors, nelr = {nelr}"),
                &step_factors.to_vec().unwrap(),
                &step_factor_reference(&mesh, &mesh.variables),
            );
        }
    }

    fn euler3d_flux_matches_cpu(device) {
        let mut rng = rng("external euler3d flux");
        let far = far_field(1.2, 0.05);
        for nelr in NELRS {
            let mesh = random_mesh(&mut rng, nelr);
            let neighbours = DeviceBuffer::from_slice(device, &mesh.neighbours).unwrap();
            let normals = DeviceBuffer::from_slice(device, &mesh.normals).unwrap();
            let variables = DeviceBuffer::from_slice(device, &mesh.variables).unwrap();
            let mut fluxes = poisoned(device, NVAR * nelr);
            launch!(euler3d_compute_flux[nelr.div_ceil(192), 192](
                &neighbours, &normals, &variables, far, &mut fluxes, nelr as u32
            ))
            .unwrap();
            assert_bits(
                &format!("fluxes, nelr = {nelr}"),
                &fluxes.to_vec().unwrap(),
                &flux_reference(&mesh, &mesh.variables, &far),
            );
        }
    }

    fn euler3d_iterations_match_cpu(device) {
        // Rodinia's main loop: per iteration, copy the variables, compute the step factors,
        // then RK stages of flux and time step; two iterations.
        let mut rng = rng("external euler3d iterations");
        let far = far_field(1.2, 0.0);
        for nelr in NELRS {
            let mesh = random_mesh(&mut rng, nelr);
            let grid = nelr.div_ceil(192);
            let neighbours = DeviceBuffer::from_slice(device, &mesh.neighbours).unwrap();
            let normals = DeviceBuffer::from_slice(device, &mesh.normals).unwrap();
            let areas = DeviceBuffer::from_slice(device, &mesh.areas).unwrap();
            let mut variables = DeviceBuffer::from_slice(device, &mesh.variables).unwrap();
            let mut old_variables = poisoned(device, NVAR * nelr);
            let mut step_factors = poisoned(device, nelr);
            let mut fluxes = poisoned(device, NVAR * nelr);
            let mut expected = mesh.variables.clone();
            for _ in 0..2 {
                old_variables.copy_from(&variables.to_vec().unwrap()).unwrap();
                launch!(euler3d_compute_step_factor[grid, 192](
                    &variables, &areas, &mut step_factors, nelr as u32
                ))
                .unwrap();
                let old = expected.clone();
                let factors = step_factor_reference(&mesh, &old);
                for j in 0..3 {
                    launch!(euler3d_compute_flux[grid, 192](
                        &neighbours, &normals, &variables, far, &mut fluxes, nelr as u32
                    ))
                    .unwrap();
                    launch!(euler3d_time_step[grid, 192](
                        j, &old_variables, &mut variables, &step_factors, &fluxes, nelr as u32
                    ))
                    .unwrap();
                    let f = flux_reference(&mesh, &expected, &far);
                    expected = time_step_reference(j, nelr, &old, &factors, &f);
                }
            }
            assert_bits(
                &format!("variables after 2 iterations, nelr = {nelr}"),
                &variables.to_vec().unwrap(),
                &expected,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PolyBench-GPU fdtd-2d.

/// `tmax` time steps of fdtd-2d on the whole grid.
fn fdtd_reference(
    fict: &[f32],
    (ex, ey, hz): (&mut [f32], &mut [f32], &mut [f32]),
    nx: usize,
    ny: usize,
    tmax: usize,
) {
    for &source in &fict[..tmax] {
        ey[..ny].fill(source);
        for i in 1..nx {
            for j in 0..ny {
                ey[i * ny + j] -= 0.5 * (hz[i * ny + j] - hz[(i - 1) * ny + j]);
            }
        }
        for i in 0..nx {
            for j in 1..ny {
                ex[i * (ny + 1) + j] -= 0.5 * (hz[i * ny + j] - hz[i * ny + j - 1]);
            }
        }
        for i in 0..nx {
            for j in 0..ny {
                let curl = ex[i * (ny + 1) + j + 1] - ex[i * (ny + 1) + j] + ey[(i + 1) * ny + j]
                    - ey[i * ny + j];
                hz[i * ny + j] -= 0.7 * curl;
            }
        }
    }
}

device_tests! {
    fn fdtd2d_matches_cpu(device) {
        let mut rng = rng("external fdtd2d");
        let tmax = 4;
        // (nx, ny): one cell, one row, one column, partial blocks along both axes.
        for (nx, ny) in [(1usize, 1usize), (1, 33), (9, 1), (13, 37), (70, 45)] {
            let fict = random_f32(&mut rng, tmax);
            let mut ex = random_f32(&mut rng, nx * (ny + 1));
            let mut ey = random_f32(&mut rng, (nx + 1) * ny);
            let mut hz = random_f32(&mut rng, nx * ny);
            let fict_dev = DeviceBuffer::from_slice(device, &fict).unwrap();
            let mut ex_dev = DeviceBuffer::from_slice(device, &ex).unwrap();
            let mut ey_dev = DeviceBuffer::from_slice(device, &ey).unwrap();
            let mut hz_dev = DeviceBuffer::from_slice(device, &hz).unwrap();
            let grid = ((ny as u32).div_ceil(32), (nx as u32).div_ceil(8));
            let (nxu, nyu) = (nx as u32, ny as u32);
            for t in 0..tmax as u32 {
                launch!(fdtd_step1[grid, (32, 8)](&fict_dev, &mut ey_dev, &hz_dev, nxu, nyu, t))
                    .unwrap();
                launch!(fdtd_step2[grid, (32, 8)](&mut ex_dev, &hz_dev, nxu, nyu)).unwrap();
                launch!(fdtd_step3[grid, (32, 8)](&ex_dev, &ey_dev, &mut hz_dev, nxu, nyu))
                    .unwrap();
            }
            fdtd_reference(&fict, (&mut ex, &mut ey, &mut hz), nx, ny, tmax);
            let what = |field: &str| format!("{field} after {tmax} steps, {nx} x {ny}");
            assert_bits(&what("ex"), &ex_dev.to_vec().unwrap(), &ex);
            assert_bits(&what("ey"), &ey_dev.to_vec().unwrap(), &ey);
            assert_bits(&what("hz"), &hz_dev.to_vec().unwrap(), &hz);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PolyBench-GPU correlation.

device_tests! {
    fn correlation_matches_cpu(device) {
        let mut rng = rng("external correlation");
        // (m columns, n rows): one element, one column, one row (every std dev 0, so 1), and
        // partial blocks of 256 columns and of 32 x 8.
        for (m, n) in [(1usize, 1usize), (1, 5), (5, 1), (37, 19), (300, 45)] {
            let mut data = random_f32(&mut rng, n * m);
            // A constant column: its std dev is 0, replaced by 1.
            if m > 3 {
                for i in 0..n {
                    data[i * m + 3] = 0.25;
                }
            }
            let float_n = n as f32;
            let data_dev = DeviceBuffer::from_slice(device, &data).unwrap();
            let mut mean_dev = poisoned(device, m);
            let mut std_dev = poisoned(device, m);
            let mut reduced_dev = DeviceBuffer::from_slice(device, &data).unwrap();
            let mut symmat_dev = poisoned(device, m * m);
            let (mu, nu) = (m as u32, n as u32);
            let columns = m.div_ceil(256);
            launch!(correlation_mean[columns, 256](&data_dev, &mut mean_dev, mu, nu, float_n))
                .unwrap();
            launch!(correlation_std[columns, 256](
                &data_dev, &mean_dev, &mut std_dev, mu, nu, float_n
            ))
            .unwrap();
            let grid = ((m as u32).div_ceil(32), (n as u32).div_ceil(8));
            launch!(correlation_reduce[grid, (32, 8)](
                &mean_dev, &std_dev, &mut reduced_dev, mu, nu, float_n
            ))
            .unwrap();
            launch!(correlation_corr[columns, 256](&reduced_dev, &mut symmat_dev, mu, nu))
                .unwrap();

            // The reference, column by column.
            let mut mean = vec![0.0f32; m];
            let mut std = vec![0.0f32; m];
            for j in 0..m {
                let mut s = 0.0f32;
                for i in 0..n {
                    s += data[i * m + j];
                }
                mean[j] = s / float_n;
                let mut q = 0.0f32;
                for i in 0..n {
                    q += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
                }
                let sd = (q / float_n).sqrt();
                std[j] = if sd <= EPS { 1.0 } else { sd };
            }
            let mut reduced = data.clone();
            for i in 0..n {
                for j in 0..m {
                    reduced[i * m + j] = (data[i * m + j] - mean[j]) / (float_n.sqrt() * std[j]);
                }
            }
            let mut symmat = vec![0.0f32; m * m];
            for j1 in 0..m {
                symmat[j1 * m + j1] = 1.0;
                for j2 in j1 + 1..m {
                    let mut s = 0.0f32;
                    for i in 0..n {
                        s += reduced[i * m + j1] * reduced[i * m + j2];
                    }
                    symmat[j1 * m + j2] = s;
                    symmat[j2 * m + j1] = s;
                }
            }
            if m > 3 && n > 1 {
                assert_eq!(std[3], 1.0, "the constant column's std dev is replaced by 1");
            }
            let what = |field: &str| format!("{field}, {m} columns x {n} rows");
            assert_bits(&what("mean"), &mean_dev.to_vec().unwrap(), &mean);
            assert_bits(&what("std dev"), &std_dev.to_vec().unwrap(), &std);
            assert_bits(&what("reduced data"), &reduced_dev.to_vec().unwrap(), &reduced);
            assert_bits(&what("correlation"), &symmat_dev.to_vec().unwrap(), &symmat);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// PolyBench-GPU gemver.

device_tests! {
    fn gemver_matches_cpu(device) {
        let mut rng = rng("external gemver");
        let (alpha, beta) = (1.5f32, 1.2f32);
        for n in [1usize, 2, 31, 257, 300] {
            let [a, u1, v1, u2, v2, x, y, z, w] = [n * n, n, n, n, n, n, n, n, n]
                .map(|len| random_f32(&mut rng, len));
            let mut a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let [u1_dev, v1_dev, u2_dev, v2_dev, y_dev, z_dev] =
                [&u1, &v1, &u2, &v2, &y, &z].map(|v| DeviceBuffer::from_slice(device, v).unwrap());
            let mut x_dev = DeviceBuffer::from_slice(device, &x).unwrap();
            let mut w_dev = DeviceBuffer::from_slice(device, &w).unwrap();
            let nu = n as u32;
            let grid = (nu.div_ceil(32), nu.div_ceil(8));
            let blocks = nu.div_ceil(256);
            launch!(gemver_outer[grid, (32, 8)](
                &mut a_dev, &v1_dev, &v2_dev, &u1_dev, &u2_dev, nu
            ))
            .unwrap();
            launch!(gemver_transposed[blocks, 256](&a_dev, &mut x_dev, &y_dev, beta, nu)).unwrap();
            let x_after_transposed = x_dev.to_vec().unwrap();
            launch!(gemver_add[blocks, 256](&mut x_dev, &z_dev, nu)).unwrap();
            launch!(gemver_product[blocks, 256](&a_dev, &x_dev, &mut w_dev, alpha, nu)).unwrap();

            let mut a_ref = a.clone();
            for i in 0..n {
                for j in 0..n {
                    a_ref[i * n + j] += u1[i] * v1[j] + u2[i] * v2[j];
                }
            }
            let mut x_ref = x.clone();
            for i in 0..n {
                for j in 0..n {
                    x_ref[i] += beta * a_ref[j * n + i] * y[j];
                }
            }
            let x_transposed = x_ref.clone();
            for i in 0..n {
                x_ref[i] += z[i];
            }
            let mut w_ref = w.clone();
            for i in 0..n {
                for j in 0..n {
                    w_ref[i] += alpha * a_ref[i * n + j] * x_ref[j];
                }
            }
            assert_bits(&format!("A, n = {n}"), &a_dev.to_vec().unwrap(), &a_ref);
            assert_bits(&format!("x + beta A^T y, n = {n}"), &x_after_transposed, &x_transposed);
            assert_bits(&format!("x + z, n = {n}"), &x_dev.to_vec().unwrap(), &x_ref);
            assert_bits(&format!("w, n = {n}"), &w_dev.to_vec().unwrap(), &w_ref);
        }
    }
}
