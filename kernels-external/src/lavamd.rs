//! Particle potential and forces in a 3-D grid of boxes, after Rodinia's lavaMD
//! (`kernel_gpu_cuda` of `kernel/kernel_gpu_cuda.cu`), in `f32` (Rodinia's `fp` is `double`).
//!
//! The space is cut into boxes, each holding [`PAR_PER_BOX`] (100) particles stored one box
//! after another (`rv[offset..offset + 100]` for the box whose [`LavaBox::offset`] is
//! `offset`). Each box lists its neighbours (up to 26: the boxes around it in the grid) by box
//! number, as Rodinia's `box_str` does. For every particle `i` of a home box and every
//! particle `j` of the home box itself and of each neighbour:
//!
//! ```text
//! r2  = (rA.v + rB.v) - dot(rA, rB)         (dot over x, y, z)
//! vij = exp(-(a2 * r2))                     a2 = 2 * alpha * alpha
//! fs  = 2 * vij
//! fv[i].v += qB * vij
//! fv[i].x += qB * (fs * (rA.x - rB.x))      (and y, z alike)
//! ```
//!
//! summed over the home box first and then its neighbours in list order, `j` ascending within
//! each box.
//!
//! Launch: one block per box, [`THREADS`] (128) threads per block:
//! `[boxes.len(), THREADS]`. Each block copies the home box's particles into shared memory,
//! then, for the home box and each neighbour in turn, that box's positions and charges, and
//! thread `i < 100` accumulates particle `i`'s potential and force.

use ferrocuda::prelude::*;

/// Particles per box (Rodinia's `NUMBER_PAR_PER_BOX`).
pub const PAR_PER_BOX: usize = 100;

/// Threads per block (Rodinia's `NUMBER_THREADS`).
pub const THREADS: usize = 128;

/// Most neighbours a box has (the 26 boxes around it in a 3-D grid).
pub const MAX_NEIGHBOURS: usize = 26;

/// A particle's position and its "v" term (Rodinia's `FOUR_VECTOR`), or the accumulated
/// potential (`v`) and force (`x`, `y`, `z`) on a particle.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, DeviceCopy)]
pub struct FourVector {
    /// The potential term of a position; the potential of an output.
    pub v: f32,
    /// x coordinate, or the force's x component.
    pub x: f32,
    /// y coordinate, or the force's y component.
    pub y: f32,
    /// z coordinate, or the force's z component.
    pub z: f32,
}

/// A box of the grid (Rodinia's `box_str`, reduced to what the kernel reads): where its
/// particles start and which boxes are its neighbours.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceCopy)]
pub struct LavaBox {
    /// Index of the box's first particle in the particle arrays.
    pub offset: u32,
    /// Number of neighbours (0 to 26).
    pub nn: u32,
    /// The neighbours' box numbers; the first `nn` are used.
    pub nei: [u32; MAX_NEIGHBOURS],
}

/// Rodinia's lavaMD kernel: `fv[i]` of every particle of box `block_idx().x` gets the potential
/// and force of the particles of that box and of its neighbours (see the module documentation
/// for the formula and the order of the sums), added to what `fv` held.
///
/// `boxes` lists the boxes; `rv` (positions) and `qv` (charges) hold [`PAR_PER_BOX`] particles
/// per box, `fv` as many outputs. Launch: `[boxes.len(), THREADS]`.
#[kernel(max_block(THREADS))]
pub fn lavamd(alpha: f32, boxes: &[LavaBox], rv: &[FourVector], qv: &[f32], fv: &mut [FourVector]) {
    let bx = block_idx().x as usize;
    let tx = thread_idx().x as usize;
    if bx >= boxes.len() {
        return;
    }
    let mut ra_shared = shared_array!(FourVector; PAR_PER_BOX);
    let mut rb_shared = shared_array!(FourVector; PAR_PER_BOX);
    let mut qb_shared = shared_array!(f32; PAR_PER_BOX);

    let a2 = 2.0 * alpha * alpha;
    let home = boxes[bx];
    let first_i = home.offset as usize;

    let mut w = tx;
    while w < PAR_PER_BOX {
        ra_shared[w] = rv[first_i + w];
        w += THREADS;
    }
    syncthreads();

    // Thread tx accumulates particle tx (there are fewer particles than threads).
    let mut acc = if tx < PAR_PER_BOX {
        fv[first_i + tx]
    } else {
        FourVector::default()
    };

    for k in 0..1 + home.nn as usize {
        let pointer = if k == 0 { bx } else { home.nei[k - 1] as usize };
        let first_j = boxes[pointer].offset as usize;
        let mut w = tx;
        while w < PAR_PER_BOX {
            rb_shared[w] = rv[first_j + w];
            qb_shared[w] = qv[first_j + w];
            w += THREADS;
        }
        syncthreads();

        if tx < PAR_PER_BOX {
            let ra = ra_shared[tx];
            for j in 0..PAR_PER_BOX {
                let rb = rb_shared[j];
                let q = qb_shared[j];
                let r2 = (ra.v + rb.v) - (ra.x * rb.x + ra.y * rb.y + ra.z * rb.z);
                let u2 = a2 * r2;
                let vij = (-u2).exp();
                let fs = 2.0 * vij;
                let fxij = fs * (ra.x - rb.x);
                let fyij = fs * (ra.y - rb.y);
                let fzij = fs * (ra.z - rb.z);
                acc.v += q * vij;
                acc.x += q * fxij;
                acc.y += q * fyij;
                acc.z += q * fzij;
            }
        }
        syncthreads();
    }

    if tx < PAR_PER_BOX {
        fv[first_i + tx] = acc;
    }
}
