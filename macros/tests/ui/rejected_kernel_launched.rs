use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[kernel]
pub fn fill(value: (f32, f32), out: &mut [f32]) {
    out[0] = value.0;
}

fn main() -> ferrocuda::Result<()> {
    let device = Device::simulator();
    let mut out = DeviceBuffer::<f32>::zeros(&device, 4)?;
    launch!(fill[1, 32]((1.0, 2.0), &mut out))?;
    fill.grid(1).block(32).launch((1.0, 2.0), &mut out)?;
    Ok(())
}

//~ ERROR 8:20: tuples cannot be kernel parameters (their layout is not fixed); use separate parameters or a `#[repr(C)]` struct with `#[derive(DeviceCopy)]`
