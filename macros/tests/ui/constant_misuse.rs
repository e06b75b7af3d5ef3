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
