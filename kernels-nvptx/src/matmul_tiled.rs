//! Tiled matrix multiplication: each 16x16 block stages a 16x16 tile of `A` and
//! one of `B` in shared memory, synchronizes, accumulates the tile's 16 products from shared
//! memory, and synchronizes again before the next tile overwrites them. Every global element is
//! read from memory `16` times less often than by the naive kernel.
//!
//! The tutorial's version needs the sizes to be multiples of 16; here tiles that hang over the
//! edge of `A` or `B` are padded with zeros, so any `m`, `n`, `p` work.

use ferrocuda::prelude::*;

/// Edge of the square tile, and of the block (`TILE` x `TILE` threads).
pub const TILE: usize = 16;

/// `C = A B` for row-major `A` (`m` x `n`), `B` (`n` x `p`) and `C` (`m` x `p`), in blocks of
/// 16x16 threads (`grid = (ceil(p / 16), ceil(m / 16))`): thread `(x, y)` of block `(bx, by)`
/// computes `C[16 by + y][16 bx + x]`. Every access is bounds-checked; a block that is not
/// 16x16 stops with a panic that says so.
#[kernel]
pub fn matmul_tiled(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, p: u32) {
    assert!(
        block_dim().x as usize == TILE && block_dim().y as usize == TILE,
        "matmul_tiled needs blocks of 16 x 16 threads"
    );
    let mut tile_a = shared_array!(f32; TILE, TILE);
    let mut tile_b = shared_array!(f32; TILE, TILE);
    let (m, n, p) = (m as usize, n as usize, p as usize);
    // Matrix views check once that each slice holds its matrix; an index inside the shape then
    // needs no further check, so `get` below costs one comparison per dimension.
    let (a, b, mut c) = (
        Matrix::new(a, m, n),
        Matrix::new(b, n, p),
        MatrixMut::new(c, m, p),
    );
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    let mut acc = 0.0f32;
    for t in 0..n.div_ceil(TILE) {
        // Both global loads are issued before either is stored, so their latencies overlap;
        // parts of a tile outside the matrix read as zero.
        let va = a.get((row, t * TILE + tx)).copied().unwrap_or(0.0);
        let vb = b.get((t * TILE + ty, col)).copied().unwrap_or(0.0);
        tile_a[(ty, tx)] = va;
        tile_b[(ty, tx)] = vb;
        syncthreads();
        for k in 0..TILE {
            acc += tile_a[(ty, k)] * tile_b[(k, tx)];
        }
        syncthreads();
    }
    if let Some(out) = c.get_mut((row, col)) {
        *out = acc;
    }
}

/// [`matmul_tiled`] with the bounds checks of the hot loop turned off through the explicit
/// unchecked accessors: the benchmark measures what the checks cost. The global loads and the
/// store keep the same explicit `row < m`-style tests as the checked kernel (they are part of the
/// algorithm), and the block shape is still asserted, which is what makes the unchecked tile
/// accesses sound.
#[kernel]
pub fn matmul_tiled_unchecked(a: &[f32], b: &[f32], c: &mut [f32], m: u32, n: u32, p: u32) {
    assert!(
        block_dim().x as usize == TILE && block_dim().y as usize == TILE,
        "matmul_tiled_unchecked needs blocks of 16 x 16 threads"
    );
    let mut tile_a = shared_array!(f32; TILE, TILE);
    let mut tile_b = shared_array!(f32; TILE, TILE);
    let (m, n, p) = (m as usize, n as usize, p as usize);
    let (tx, ty) = (thread_idx().x as usize, thread_idx().y as usize);
    let row = block_idx().y as usize * TILE + ty;
    let col = block_idx().x as usize * TILE + tx;
    // The launch checked that `a`, `b` and `c` hold `m n`, `n p` and `m p` elements.
    let fits = a.len() >= m * n && b.len() >= n * p && c.len() >= m * p;
    assert!(
        fits,
        "matmul_tiled_unchecked: a slice is shorter than its matrix"
    );
    let mut acc = 0.0f32;
    for t in 0..n.div_ceil(TILE) {
        let (ka, kb) = (t * TILE + tx, t * TILE + ty);
        // SAFETY: tx, ty < 16 (asserted block shape); the global indices are inside the matrices
        // (tested just before each read, and the lengths were asserted above).
        unsafe {
            let va = if row < m && ka < n {
                *a.get_unchecked(row * n + ka)
            } else {
                0.0
            };
            let vb = if kb < n && col < p {
                *b.get_unchecked(kb * p + col)
            } else {
                0.0
            };
            tile_a.set_unchecked((ty, tx), va);
            tile_b.set_unchecked((ty, tx), vb);
        }
        syncthreads();
        for k in 0..TILE {
            // SAFETY: ty, tx, k < 16.
            acc += unsafe { tile_a.get_unchecked((ty, k)) * tile_b.get_unchecked((k, tx)) };
        }
        syncthreads();
    }
    if row < m && col < p {
        // SAFETY: row < m and col < p, and c holds m p elements.
        unsafe { *c.get_unchecked_mut(row * p + col) = acc };
    }
}
