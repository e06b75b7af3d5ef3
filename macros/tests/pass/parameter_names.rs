//! Kernel parameters may use any name, including those of the launcher's own locals.
use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub fn names(binder: &[u32], config: &mut [u32], device: u32, stream: u32, info: u32) {
    let i = grid!(1);
    if i < config.len() {
        config[i] = binder[i] + device + stream + info;
    }
}

fn main() -> ferrocuda::Result<()> {
    let device = Device::simulator();
    let binder = DeviceBuffer::from_slice(&device, &[1u32, 2, 3])?;
    let mut config = DeviceBuffer::<u32>::zeros(&device, 3)?;
    launch!(names[1, 32](&binder, &mut config, 10, 100, 1000))?;
    assert_eq!(config.to_vec()?, vec![1111, 1112, 1113]);
    Ok(())
}
