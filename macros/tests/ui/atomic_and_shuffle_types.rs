use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub fn misuse(floats: &mut [f32], bytes: &mut [u8]) {
    floats.atomic_or(0, 1.0);
    bytes.atomic_add(0, 1);
    let _ = shfl_sync(FULL_MASK, 1u8, 0);
}

fn main() {}

//~ ERROR 9:25: `f32` has no bitwise atomics
//~ ERROR 10:25: `u8` has no atomic operations on the GPU
//~ ERROR 11:34: `u8` cannot be moved by a warp shuffle
