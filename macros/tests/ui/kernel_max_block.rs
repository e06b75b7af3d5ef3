use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel(max_block(0))]
pub fn zero(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(max_block(64, 32))]
pub fn too_many_threads(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(max_block(8, 8, 8, 2))]
pub fn four_dimensions(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(max_block)]
pub fn no_bound(out: &mut [f32]) {
    out[0] = 1.0;
}

const WIDE: usize = 2048;

#[kernel(max_block(WIDE))]
pub fn constant_too_wide(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(max_block(256), max_block(128))]
pub fn twice(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(min_blocks_per_sm(2))]
pub fn blocks_without_bound(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(max_block(128), min_blocks_per_sm(0))]
pub fn zero_blocks(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}

//~ ERROR 7:20: a `max_block` dimension must be 1 to 1024 (the most threads a block may have), not 0
//~ ERROR 12:10: `max_block` allows blocks of 2048 threads, more than the 1024 a block may have; lower a dimension
//~ ERROR 17:10: `max_block` takes one to three dimensions (x, y, z), not 4: e.g. `max_block(256)` for blocks of at most 256 x 1 x 1 threads, or `max_block(16, 16)` for at most 16 x 16
//~ ERROR 22:10: `max_block` needs the largest block, one to three dimensions: e.g. `max_block(256)` for blocks of at most 256 x 1 x 1 threads, or `max_block(16, 16)` for at most 16 x 16
//~ ERROR 29:10: evaluation panicked: `max_block`: each dimension must be 1 to 1024 and their product at most 1024 (the most threads a block may have)
//~ ERROR 34:26: `max_block` is given twice
//~ ERROR 39:10: `min_blocks_per_sm(n)` needs `max_block(...)` beside it: the registers it leaves each thread depend on the block size, e.g. `#[kernel(max_block(256), min_blocks_per_sm(2))]`
//~ ERROR 44:44: `min_blocks_per_sm` must be 1 to 32 (the most blocks a multiprocessor holds), not 0
