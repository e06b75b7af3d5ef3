use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub fn square(a: &mut [f32]) {
    let i = grid!(1);
    if i < a.len() {
        a[i] *= a[i];
    }
}

fn main() -> ferrocuda::Result<()> {
    let device = Device::simulator();
    let a = DeviceBuffer::<f32>::zeros(&device, 4)?;
    launch!(square[1, 4](&a))?;
    Ok(())
}

//~ ERROR 18:26: `&ferrocuda::DeviceBuffer<f32>` cannot be passed for a kernel parameter of shape `SliceMut<f32>`
