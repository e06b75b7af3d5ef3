use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub struct NotAFunction;

fn main() {}

//~ ERROR 8:5: #[kernel] goes on a function: `pub fn name(a: &[f32], out: &mut [f32]) { ... }`
