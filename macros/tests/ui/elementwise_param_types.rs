use ferrocuda::prelude::*;

pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

pub struct NotDeviceCopy {
    pub value: f32,
}

#[elementwise]
pub fn by_reference(x: &f32) -> f32 {
    *x
}

#[elementwise]
pub fn a_pointer(x: *const f32) -> f32 {
    let _ = x;
    0.0
}

#[elementwise]
pub fn not_device_copy(x: NotDeviceCopy) -> f32 {
    x.value
}

#[elementwise(broadcast(scale))]
pub fn unknown_broadcast(x: f32) -> f32 {
    x
}

fn main() {}

//~ ERROR 11:24: an element is a value, not a reference: write the element type (`x: f32`); the launch takes a slice of them, or one value for every element with `broadcast(x)`
//~ ERROR 16:21: this type cannot be an element; an element is a number, `bool`, an array or a `#[repr(C)]` struct with `#[derive(DeviceCopy)]`
//~ ERROR 22:27: `NotDeviceCopy` cannot be passed to or stored on the GPU
//~ ERROR 26:25: `broadcast(scale)` names no parameter of the function
