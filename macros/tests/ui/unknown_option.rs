use ferrocuda::prelude::*;

#[kernel(block = 256)]
pub fn fill(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}

//~ ERROR 3:10: unknown #[kernel] option; the options are `instances(...)` for generic kernels, e.g. `#[kernel(instances(f32, f64))]`, `large_buffers` for slices of more than u32::MAX elements, `cooperative` for kernels that call `grid_sync`, `max_block(x, y, z)` for the largest block the kernel is launched with (and `min_blocks_per_sm(n)` beside it), and `fast_math` or `fast_math(contract, approx_div, approx_sqrt)`
