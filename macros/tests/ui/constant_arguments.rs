use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[constant(fast)]
pub static A: f32 = 1.0;

#[constant]
pub fn not_a_static() {}

fn main() {}

//~ ERROR 7:12: #[constant] takes no arguments
//~ ERROR 11:5: #[constant] goes on a static: `#[constant] pub static FACTORS: [f32; 2] = [1.0, 1.0];`
