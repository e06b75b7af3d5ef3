use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[constant]
pub static mut COUNTS: [u32; 4] = [0; 4];

pub struct NotDeviceCopy(pub f32);

#[constant]
pub static WRONG: NotDeviceCopy = NotDeviceCopy(1.0);

fn main() {}

//~ ERROR 8:12: a #[constant] static cannot be `mut`: kernels only read constant memory; write it from the host with `NAME.write(&device, &value)`
//~ ERROR 13:19: `NotDeviceCopy` cannot be passed to or stored on the GPU
