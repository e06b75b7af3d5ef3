use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

pub struct Params {
    pub scale: f32,
}

#[kernel]
pub fn apply(p: Params, out: &mut [f32]) {
    out[0] = p.scale;
}

fn main() {}

//~ ERROR 12:17: `Params` cannot be passed to or stored on the GPU
