//! A 3-D 7-point stencil (a Jacobi step of the heat equation on an `nx` x `ny` x `nz` grid):
//! each interior point becomes `c0` times itself plus `c1` times the sum of its six neighbours;
//! points on the faces of the grid are copied. One thread per point, blocks of 32 x 8 x 1 on a
//! 3-D grid.
//!
//! Written the way a new user writes it: `grid!(3)`, `usize` indices, checked indexing. The
//! CUDA C twin is `stencil3d_cuda` in `bench/idiomatic.cu`.

use ferrocuda::prelude::*;

/// `output = ` one 7-point stencil step of `input` (x fastest, then y, then z), for a grid of
/// `(ceil(nx / 32), ceil(ny / 8), nz)` blocks of 32 x 8 x 1 threads (any shape works).
#[kernel]
pub fn stencil3d(input: &[f32], output: &mut [f32], nx: u32, ny: u32, nz: u32, c0: f32, c1: f32) {
    let (x, y, z) = grid!(3);
    let (nx, ny, nz) = (nx as usize, ny as usize, nz as usize);
    if x < nx && y < ny && z < nz {
        let i = (z * ny + y) * nx + x;
        if x == 0 || y == 0 || z == 0 || x == nx - 1 || y == ny - 1 || z == nz - 1 {
            output[i] = input[i];
        } else {
            let plane = nx * ny;
            output[i] = c0 * input[i]
                + c1 * (input[i - 1]
                    + input[i + 1]
                    + input[i - nx]
                    + input[i + nx]
                    + input[i - plane]
                    + input[i + plane]);
        }
    }
}
