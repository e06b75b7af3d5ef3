//! The Rodinia kernels of the external suite (`kernels_external::{gaussian, lavamd,
//! particle_filter, streamcluster}`) against CPU references written here from Rodinia's
//! sequential algorithms, on random inputs whose sizes are not multiples of the block, plus 1
//! and the smallest valid size, on the simulator and the GPU.
//!
//! Gaussian elimination, the particle filter's indices and likelihoods and streamcluster's
//! costs are compared bit for bit (the references do the same operations in the same order).
//! lavaMD and the particle filter's weights go through `exp`, which the kernels take from
//! `libm` and the references from `std`: those are compared within a bound on the rounding.

use ferrocuda::prelude::*;
use ferrocuda_tests::{device_tests, random_f32, rng, ulps32};
use kernels_external::gaussian::{FAN1_BLOCK, FAN2_BLOCK, fan1, fan2};
use kernels_external::lavamd::{FourVector, LavaBox, MAX_NEIGHBOURS, PAR_PER_BOX, THREADS, lavamd};
use kernels_external::particle_filter::{self, find_index, likelihood_kernel};
use kernels_external::streamcluster::{self, Point, compute_cost, launch_grid};
use rand::Rng;
use rand::rngs::StdRng;

// ---------------------------------------------------------------------------------------------
// Gaussian elimination

/// A diagonally dominant `n x n` matrix (so that elimination without pivoting is stable) and a
/// right-hand side.
fn gaussian_inputs(rng: &mut StdRng, n: usize) -> (Vec<f32>, Vec<f32>) {
    let mut a = random_f32(rng, n * n);
    for i in 0..n {
        a[i * n + i] += n as f32 + 1.0;
    }
    (a, random_f32(rng, n))
}

/// Rodinia's elimination on the CPU: for each pivot, the multipliers of its column, then the
/// update of the rows below it and of `b`.
fn gaussian_reference(a: &mut [f32], b: &mut [f32], m: &mut [f32], n: usize) {
    for t in 0..n.saturating_sub(1) {
        for i in t + 1..n {
            m[i * n + t] = a[i * n + t] / a[t * n + t];
        }
        for i in t + 1..n {
            let multiplier = m[i * n + t];
            for j in t..n {
                a[i * n + j] -= multiplier * a[t * n + j];
            }
            b[i] -= multiplier * b[t];
        }
    }
}

// ---------------------------------------------------------------------------------------------
// lavaMD

/// The boxes of a `d x d x d` grid, numbered `(i * d + j) * d + k`, each listing the boxes
/// around it (in order of the offsets -1, 0, 1 along i, then j, then k), with its particles at
/// `number * PAR_PER_BOX`.
fn lava_boxes(d: usize) -> Vec<LavaBox> {
    let mut boxes = Vec::new();
    for i in 0..d as isize {
        for j in 0..d as isize {
            for k in 0..d as isize {
                let number = ((i * d as isize + j) * d as isize + k) as usize;
                let mut nei = [0u32; MAX_NEIGHBOURS];
                let mut nn = 0;
                for di in -1..=1isize {
                    for dj in -1..=1isize {
                        for dk in -1..=1isize {
                            let (ni, nj, nk) = (i + di, j + dj, k + dk);
                            let inside = [ni, nj, nk].iter().all(|&c| (0..d as isize).contains(&c));
                            if (di, dj, dk) != (0, 0, 0) && inside {
                                nei[nn] = ((ni * d as isize + nj) * d as isize + nk) as u32;
                                nn += 1;
                            }
                        }
                    }
                }
                boxes.push(LavaBox {
                    offset: (number * PAR_PER_BOX) as u32,
                    nn: nn as u32,
                    nei,
                });
            }
        }
    }
    boxes
}

/// Values in [0.1, 1.0], as Rodinia draws them (`(rand() % 10 + 1) / 10`, here continuous).
fn lava_value(rng: &mut StdRng) -> f32 {
    rng.random_range(0.1f32..=1.0)
}

/// lavaMD on the CPU: the expected `fv` and, per component, the sum of the magnitudes of the
/// terms added (for the rounding bound).
fn lavamd_reference(
    alpha: f32,
    boxes: &[LavaBox],
    rv: &[FourVector],
    qv: &[f32],
    fv: &[FourVector],
) -> (Vec<FourVector>, Vec<[f32; 4]>) {
    let a2 = 2.0 * alpha * alpha;
    let mut out = fv.to_vec();
    let mut magnitude = vec![[0.0f32; 4]; fv.len()];
    for (bx, home) in boxes.iter().enumerate() {
        let mut others = vec![bx];
        others.extend(home.nei[..home.nn as usize].iter().map(|&b| b as usize));
        for i in 0..PAR_PER_BOX {
            let pi = home.offset as usize + i;
            let a = rv[pi];
            let mut acc = fv[pi];
            let mut size = [acc.v.abs(), acc.x.abs(), acc.y.abs(), acc.z.abs()];
            for &other in &others {
                let first = boxes[other].offset as usize;
                for j in 0..PAR_PER_BOX {
                    let b = rv[first + j];
                    let q = qv[first + j];
                    let r2 = (a.v + b.v) - (a.x * b.x + a.y * b.y + a.z * b.z);
                    let vij = (-(a2 * r2)).exp();
                    let fs = 2.0 * vij;
                    let terms = [
                        q * vij,
                        q * (fs * (a.x - b.x)),
                        q * (fs * (a.y - b.y)),
                        q * (fs * (a.z - b.z)),
                    ];
                    acc.v += terms[0];
                    acc.x += terms[1];
                    acc.y += terms[2];
                    acc.z += terms[3];
                    for (s, t) in size.iter_mut().zip(terms) {
                        *s += t.abs();
                    }
                }
            }
            out[pi] = acc;
            magnitude[pi] = size;
        }
    }
    (out, magnitude)
}

// ---------------------------------------------------------------------------------------------
// Particle filter

/// Rodinia's disk of radius `r` (`strelDisk` and `getneighbors`): the offsets `(dy, dx)` of
/// the points at distance below `r` from the centre, `x` outer, `y` inner.
fn disk(r: isize) -> Vec<i32> {
    let mut offsets = Vec::new();
    for x in -(r - 1)..=(r - 1) {
        for y in -(r - 1)..=(r - 1) {
            if ((x * x + y * y) as f64).sqrt() < r as f64 {
                offsets.push(y as i32);
                offsets.push(x as i32);
            }
        }
    }
    offsets
}

/// The video and frame geometry of the likelihood tests.
struct Video {
    image: Vec<u8>,
    isz_x: i32,
    isz_y: i32,
    nfr: i32,
}

/// The likelihood kernel on the CPU: the indices, the likelihoods and the new weights.
fn likelihood_reference(
    (x, y): (&[f32], &[f32]),
    objxy: &[i32],
    video: &Video,
    weights: &[f32],
    k: i32,
) -> (Vec<i32>, Vec<f32>, Vec<f32>) {
    let count = objxy.len() / 2;
    let max_size = video.isz_x as i64 * video.isz_y as i64 * video.nfr as i64;
    let (isz_y, nfr) = (video.isz_y as i64, video.nfr as i64);
    let mut ind = Vec::new();
    let mut like = Vec::new();
    let mut new_weights = Vec::new();
    for i in 0..x.len() {
        let (cx, cy) = (x[i].round() as i64, y[i].round() as i64);
        let mut sum = 0.0f32;
        for d in 0..count {
            let px = cx + objxy[2 * d + 1] as i64;
            let py = cy + objxy[2 * d] as i64;
            let mut index = (px * isz_y * nfr + py * nfr + k as i64).abs();
            if index >= max_size {
                index = 0;
            }
            ind.push(index as i32);
            let pixel = f32::from(video.image[index as usize]);
            sum += ((pixel - 100.0).powi(2) - (pixel - 228.0).powi(2)) / 50.0;
        }
        let l = sum / count as f32;
        like.push(l);
        new_weights.push(weights[i] * l.exp());
    }
    (ind, like, new_weights)
}

/// The blocks' tree sums of `weights` as the kernel forms them: `BLOCK` slots, zero past the
/// end, halved until one is left.
fn tree_sums(weights: &[f32]) -> Vec<f32> {
    weights
        .chunks(particle_filter::BLOCK)
        .map(|chunk| {
            let mut slots = vec![0.0f32; particle_filter::BLOCK];
            slots[..chunk.len()].copy_from_slice(chunk);
            let mut s = particle_filter::BLOCK / 2;
            while s > 0 {
                for t in 0..s {
                    slots[t] += slots[t + s];
                }
                s /= 2;
            }
            slots[0]
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// streamcluster

/// A streamcluster problem: points with dimension-major coordinates, `k` centers among them,
/// each point assigned to one with its cost, the center table (slots of the centers, `u32::MAX`
/// elsewhere: a read of a non-center's slot would panic).
struct Cluster {
    num: usize,
    dim: usize,
    k: usize,
    coord: Vec<f32>,
    points: Vec<Point>,
    center_table: Vec<u32>,
}

fn cluster(rng: &mut StdRng, num: usize, dim: usize, k: usize) -> Cluster {
    let coord = random_f32(rng, num * dim);
    let mut centers: Vec<usize> = Vec::new();
    while centers.len() < k {
        let c = rng.random_range(0..num);
        if !centers.contains(&c) {
            centers.push(c);
        }
    }
    let mut center_table = vec![u32::MAX; num];
    for (slot, &c) in centers.iter().enumerate() {
        center_table[c] = slot as u32;
    }
    let points = (0..num)
        .map(|i| {
            let center = centers[rng.random_range(0..k)];
            let weight = rng.random_range(0.5f32..2.0);
            let distance: f32 = (0..dim)
                .map(|d| (coord[d * num + i] - coord[d * num + center]).powi(2))
                .sum();
            Point {
                weight,
                assign: center as u32,
                // Some costs above, some below their distance: both branches are taken.
                cost: distance * weight * rng.random_range(0.5f32..1.5),
            }
        })
        .collect();
    Cluster {
        num,
        dim,
        k,
        coord,
        points,
        center_table,
    }
}

/// `kernel_compute_cost` on the CPU: the new `work_mem` and `switch_membership`.
fn compute_cost_reference(
    c: &Cluster,
    x: usize,
    stride: usize,
    work_mem: &mut [f32],
    switch: &mut [bool],
) {
    for i in 0..c.num {
        let mut distance = 0.0f32;
        for d in 0..c.dim {
            let diff = c.coord[d * c.num + i] - c.coord[d * c.num + x];
            distance += diff * diff;
        }
        let p = c.points[i];
        let x_cost = distance * p.weight;
        if x_cost < p.cost {
            switch[i] = true;
            work_mem[i * stride + c.k] += x_cost - p.cost;
        } else {
            let slot = c.center_table[p.assign as usize] as usize;
            work_mem[i * stride + slot] += p.cost - x_cost;
        }
    }
}

device_tests! {
    fn gaussian_matches_cpu(device) {
        let mut rng = rng("gaussian");
        // 1: nothing to eliminate; 2: the smallest system with a step; the others not
        // multiples of 16 (nor 512).
        for n in [1usize, 2, 17, 45, 100] {
            let (a, b) = gaussian_inputs(&mut rng, n);
            let mut a_dev = DeviceBuffer::from_slice(device, &a).unwrap();
            let mut b_dev = DeviceBuffer::from_slice(device, &b).unwrap();
            let mut m_dev = DeviceBuffer::<f32>::zeros(device, n * n).unwrap();
            let fan2_grid = (n.div_ceil(FAN2_BLOCK), n.div_ceil(FAN2_BLOCK));
            for t in 0..n.saturating_sub(1) {
                let (nn, tt) = (n as u32, t as u32);
                launch!(fan1[n.div_ceil(FAN1_BLOCK), FAN1_BLOCK](&mut m_dev, &a_dev, nn, tt)).unwrap();
                launch!(fan2[fan2_grid, (FAN2_BLOCK, FAN2_BLOCK)](&m_dev, &mut a_dev, &mut b_dev, nn, tt)).unwrap();
            }
            let (mut a_ref, mut b_ref, mut m_ref) = (a.clone(), b.clone(), vec![0.0f32; n * n]);
            gaussian_reference(&mut a_ref, &mut b_ref, &mut m_ref, n);
            assert_eq!(m_dev.to_vec().unwrap(), m_ref, "m, n = {n}");
            assert_eq!(a_dev.to_vec().unwrap(), a_ref, "a, n = {n}");
            assert_eq!(b_dev.to_vec().unwrap(), b_ref, "b, n = {n}");
            // The elimination did happen: below the diagonal, a is zero up to rounding.
            let a_out = a_dev.to_vec().unwrap();
            for i in 0..n {
                for j in 0..i {
                    assert!(a_out[i * n + j].abs() < 1e-5, "a[{i}][{j}] = {}", a_out[i * n + j]);
                }
            }
        }
    }

    fn lavamd_matches_cpu(device) {
        let mut rng = rng("lavamd");
        // 1: one box without neighbours; 2: every box a corner; 3: a centre box with all 26.
        for d in [1usize, 2, 3] {
            let boxes = lava_boxes(d);
            let particles = boxes.len() * PAR_PER_BOX;
            let rv: Vec<FourVector> = (0..particles)
                .map(|_| FourVector {
                    v: lava_value(&mut rng),
                    x: lava_value(&mut rng),
                    y: lava_value(&mut rng),
                    z: lava_value(&mut rng),
                })
                .collect();
            let qv: Vec<f32> = (0..particles).map(|_| lava_value(&mut rng)).collect();
            // Not zero: the kernel adds to what fv holds.
            let fv: Vec<FourVector> = (0..particles)
                .map(|_| FourVector {
                    v: rng.random_range(-1.0..1.0),
                    x: rng.random_range(-1.0..1.0),
                    y: rng.random_range(-1.0..1.0),
                    z: rng.random_range(-1.0..1.0),
                })
                .collect();
            let alpha = 0.5f32;
            let boxes_dev = DeviceBuffer::from_slice(device, &boxes).unwrap();
            let rv_dev = DeviceBuffer::from_slice(device, &rv).unwrap();
            let qv_dev = DeviceBuffer::from_slice(device, &qv).unwrap();
            let mut fv_dev = DeviceBuffer::from_slice(device, &fv).unwrap();
            launch!(lavamd[boxes.len(), THREADS](alpha, &boxes_dev, &rv_dev, &qv_dev, &mut fv_dev)).unwrap();
            let got = fv_dev.to_vec().unwrap();
            let (expected, magnitude) = lavamd_reference(alpha, &boxes, &rv, &qv, &fv);
            for (i, ((g, e), size)) in got.iter().zip(&expected).zip(&magnitude).enumerate() {
                let terms = (boxes[i / PAR_PER_BOX].nn as usize + 1) * PAR_PER_BOX;
                // Each side's sum is within terms * 2^-24 * size of the exact sum of its own
                // terms, and the terms differ by the exp's few ulp.
                let bound = (2 * terms + 8) as f32 * 2f32.powi(-24);
                for (c, (gv, ev)) in [(g.v, e.v), (g.x, e.x), (g.y, e.y), (g.z, e.z)].into_iter().enumerate() {
                    assert!(
                        (gv - ev).abs() <= bound * size[c],
                        "d = {d}, particle {i}, component {c}: got {gv}, expected {ev} (bound {})",
                        bound * size[c]
                    );
                }
            }
        }
    }

    fn particle_filter_likelihood_matches_cpu(device) {
        let mut rng = rng("particle filter likelihood");
        let (isz_x, isz_y, nfr) = (40i32, 48i32, 3i32);
        let video = Video {
            // Pixels around the midpoint of 100 and 228 (164), so that exp(likelihood) and the
            // blocks' sums of 512 weights stay finite: a term is within -46..56.
            image: (0..isz_x * isz_y * nfr).map(|_| rng.random_range(155u8..=175)).collect(),
            isz_x,
            isz_y,
            nfr,
        };
        let image_dev = DeviceBuffer::from_slice(device, &video.image).unwrap();
        let max_size = isz_x * isz_y * nfr;
        for (n, radius) in [(1usize, 1isize), (2, 3), (511, 4), (513, 2), (1500, 5)] {
            let objxy = disk(radius);
            let count = objxy.len() / 2;
            // Positions past the edges too: indices that are negative (taken absolutely) or
            // beyond the video (taken as 0); and exact halves, rounded away from zero.
            let mut x: Vec<f32> = (0..n).map(|_| rng.random_range(-6.0..isz_x as f32 + 6.0)).collect();
            let mut y: Vec<f32> = (0..n).map(|_| rng.random_range(-6.0..isz_y as f32 + 6.0)).collect();
            for (i, half) in [10.5f32, -2.5, 0.5, 3.5].into_iter().enumerate().take(n) {
                x[i] = half;
                y[n - 1 - i] = half + 1.0;
            }
            let weights: Vec<f32> = (0..n).map(|_| rng.random_range(0.01f32..1.0)).collect();
            let k = 1;
            let blocks = n.div_ceil(particle_filter::BLOCK);
            let (x_dev, y_dev) = (DeviceBuffer::from_slice(device, &x).unwrap(), DeviceBuffer::from_slice(device, &y).unwrap());
            let objxy_dev = DeviceBuffer::from_slice(device, &objxy).unwrap();
            let mut ind_dev = DeviceBuffer::from_slice(device, &vec![-7i32; n * count]).unwrap();
            let mut like_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; n]).unwrap();
            let mut weights_dev = DeviceBuffer::from_slice(device, &weights).unwrap();
            let mut sums_dev = DeviceBuffer::from_slice(device, &vec![f32::NAN; blocks]).unwrap();
            launch!(likelihood_kernel[blocks, particle_filter::BLOCK](
                &x_dev, &y_dev, &objxy_dev, &image_dev, &mut ind_dev, &mut like_dev,
                &mut weights_dev, &mut sums_dev, count as u32, max_size, k, isz_y, nfr
            )).unwrap();
            let (ind, like, new_weights) = likelihood_reference((&x, &y), &objxy, &video, &weights, k);
            assert_eq!(ind_dev.to_vec().unwrap(), ind, "ind, n = {n}");
            assert_eq!(like_dev.to_vec().unwrap(), like, "likelihood, n = {n}");
            let got = weights_dev.to_vec().unwrap();
            for (i, (&g, &e)) in got.iter().zip(&new_weights).enumerate() {
                // exp within 2 ulp on each side, then one rounded product.
                assert!(ulps32(g, e) <= 6, "weight {i}, n = {n}: got {g}, expected {e}");
            }
            let sums = sums_dev.to_vec().unwrap();
            for (b, (&g, &e)) in sums.iter().zip(&tree_sums(&new_weights)).enumerate() {
                assert!((g - e).abs() <= 1e-5 * e, "block {b} sum, n = {n}: got {g}, expected {e}");
            }
        }
    }

    fn particle_filter_find_index_matches_cpu(device) {
        let mut rng = rng("particle filter find index");
        for n in [1usize, 2, 511, 513, 2000] {
            let weights: Vec<f32> = (0..n).map(|_| rng.random_range(0.1f32..1.0)).collect();
            let total: f32 = weights.iter().sum();
            let mut cdf = Vec::with_capacity(n);
            let mut running = 0.0f32;
            for w in &weights {
                running += w / total;
                cdf.push(running);
            }
            // Rodinia's systematic resampling: u[j] = u1 + j / n, u1 in [0, 1 / n); the last one
            // past every CDF entry (the search's "not found" case) and the first at 0.
            let u1 = rng.random_range(0.0f32..1.0) / n as f32;
            let mut u: Vec<f32> = (0..n).map(|j| u1 + j as f32 / n as f32).collect();
            u[0] = 0.0;
            u[n - 1] = 1.5;
            let x: Vec<f32> = random_f32(&mut rng, n);
            let y: Vec<f32> = random_f32(&mut rng, n);
            let mut xj = vec![f32::NAN; n];
            let mut yj = vec![f32::NAN; n];
            launch!(find_index[n.div_ceil(particle_filter::BLOCK), particle_filter::BLOCK](
                &x, &y, &cdf, &u, &mut xj, &mut yj
            )).unwrap();
            for j in 0..n {
                let index = cdf.iter().position(|&c| c >= u[j]).unwrap_or(n - 1);
                assert_eq!((xj[j], yj[j]), (x[index], y[index]), "j = {j}, n = {n}");
            }
        }
    }

    fn streamcluster_compute_cost_matches_cpu(device) {
        let mut rng = rng("streamcluster");
        for (num, dim, k) in [(1usize, 1usize, 1usize), (2, 3, 2), (511, 17, 5), (513, 4, 7), (1300, 9, 10)] {
            let c = cluster(&mut rng, num, dim, k);
            let stride = k + 1;
            for x in [0, num - 1, rng.random_range(0..num)] {
                let work_mem = random_f32(&mut rng, num * stride);
                let switch: Vec<bool> = (0..num).map(|_| rng.random_bool(0.2)).collect();
                let points_dev = DeviceBuffer::from_slice(device, &c.points).unwrap();
                let coord_dev = DeviceBuffer::from_slice(device, &c.coord).unwrap();
                let table_dev = DeviceBuffer::from_slice(device, &c.center_table).unwrap();
                let mut work_dev = DeviceBuffer::from_slice(device, &work_mem).unwrap();
                let mut switch_dev = DeviceBuffer::from_slice(device, &switch).unwrap();
                launch!(compute_cost[launch_grid(num), streamcluster::THREADS](
                    dim as u32, x as u32, &points_dev, k as u32, stride as u32, &coord_dev,
                    &mut work_dev, &table_dev, &mut switch_dev
                )).unwrap();
                let (mut work_ref, mut switch_ref) = (work_mem.clone(), switch.clone());
                compute_cost_reference(&c, x, stride, &mut work_ref, &mut switch_ref);
                assert_eq!(work_dev.to_vec().unwrap(), work_ref, "work_mem, num = {num}, x = {x}");
                assert_eq!(switch_dev.to_vec().unwrap(), switch_ref, "switch, num = {num}, x = {x}");
            }
        }
    }

    fn streamcluster_two_dimensional_grid(device) {
        // Rodinia numbers blocks x + gridDim.x * y when it spreads them over y: a 2 x 3 grid
        // covers 6 blocks, the last one partly.
        let mut rng = rng("streamcluster 2-D grid");
        let (num, dim, k) = (5 * streamcluster::THREADS + 7, 3, 4);
        let c = cluster(&mut rng, num, dim, k);
        let stride = k + 2; // a wider row than needed: the extra slot stays untouched
        let x = 17;
        let work_mem = random_f32(&mut rng, num * stride);
        let mut switch = vec![false; num];
        let mut work = work_mem.clone();
        launch!(compute_cost[(2, 3), streamcluster::THREADS](
            dim as u32, x as u32, &c.points, k as u32, stride as u32, &c.coord, &mut work,
            &c.center_table, &mut switch
        )).unwrap();
        let (mut work_ref, mut switch_ref) = (work_mem, vec![false; num]);
        compute_cost_reference(&c, x, stride, &mut work_ref, &mut switch_ref);
        assert_eq!(work, work_ref);
        assert_eq!(switch, switch_ref);
        assert_eq!(launch_grid(num), (6, 1));
        assert_eq!(launch_grid(1), (1, 1));
        assert_eq!(launch_grid(65536 * 512), (32768, 2));
    }
}
