use ferrocuda::prelude::*;

pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

#[elementwise(broadcast(a))]
pub fn saxpy(a: f32, x: f32, y: f32) -> f32 {
    a * x + y
}

#[reduction(identity = 0.0, combine = |a, b| a + b)]
pub fn sum_of_squares(x: f32) -> f32 {
    x * x
}

fn main() -> ferrocuda::Result<()> {
    let device = Device::simulator();
    let stream = device.default_stream();
    let x = DeviceBuffer::<f32>::zeros(&device, 4)?;
    let y = DeviceBuffer::<i32>::zeros(&device, 4)?;
    let mut out = DeviceBuffer::<f32>::zeros(&device, 4)?;
    saxpy::launch(&stream, 2.0, &x, &y, &mut out)?;
    saxpy::launch(&stream, 2.0f64, &x, &x, &mut out)?;
    saxpy::launch(&stream, 2.0, &x, &x, &out)?;
    let _: f64 = sum_of_squares::reduce(&stream, &x)?;
    Ok(())
}

//~ ERROR 22:37: `&ferrocuda::DeviceBuffer<i32>` cannot be passed for a slice of `f32` elements
//~ ERROR 23:28: mismatched types
//~ ERROR 24:41: `&ferrocuda::DeviceBuffer<f32>` cannot be passed for an output slice of `f32` elements
//~ ERROR 25:18: `?` operator has incompatible types
