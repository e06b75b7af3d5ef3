use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub fn vecadd(a: &[f32], b: &[f32], c: &mut [f32]) {
    let i = grid!(1);
    if i < c.len() {
        c[i] = a[i] + b[i];
    }
}

fn main() -> ferrocuda::Result<()> {
    let device = Device::simulator();
    let a = DeviceBuffer::<f32>::zeros(&device, 4)?;
    let mut c = DeviceBuffer::<f32>::zeros(&device, 4)?;
    launch!(vecadd[1, 4](&a, &mut c))?;
    Ok(())
}

//~ ERROR 19:5: this method takes 3 arguments but 2 arguments were supplied
