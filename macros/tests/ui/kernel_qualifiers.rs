use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub const fn constant(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel]
pub extern "C" fn with_abi(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel]
pub unsafe extern "C" fn variadic(out: &mut [f32], args: ...) {
    out[0] = 1.0;
}

fn main() {}

//~ ERROR 8:5: a kernel cannot be `const`; remove `const`
//~ ERROR 13:5: remove the ABI: #[kernel] gives the function the GPU kernel ABI itself
//~ ERROR 18:5: a kernel cannot be an `unsafe fn`; launches are safe calls, so put `unsafe { ... }` blocks inside the body
//~ ERROR 18:12: remove the ABI: #[kernel] gives the function the GPU kernel ABI itself
//~ ERROR 18:52: a kernel cannot be variadic
