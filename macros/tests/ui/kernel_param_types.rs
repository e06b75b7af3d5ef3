use ferrocuda::prelude::*;

// A kernel crate gets this from `ferrocuda::ptx_module!()`; these tests have no PTX.
pub static __FERROCUDA_MODULE: ferrocuda::__private::PtxModule =
    ferrocuda::__private::PtxModule::new("ui", "");

pub trait Scale {}

#[kernel]
pub fn pattern([a, b]: [u32; 2], out: &mut [u32]) {
    out[0] = a + b;
}

#[kernel]
pub fn pointer(p: *mut f32) {
    let _ = p;
}

#[kernel]
pub fn trait_type(s: impl Scale) {
    let _ = s;
}

#[kernel]
pub fn function(f: fn() -> u32) {
    let _ = f;
}

#[kernel]
pub fn slice_of_references(data: &[&u32]) {
    let _ = data;
}

#[kernel]
pub fn owned(name: String, boxed: Box<u32>, buffer: DeviceBuffer<f32>) {
    let _ = (name, boxed, buffer);
}

fn main() {}

//~ ERROR 10:16: kernel parameters must be plain names (`x: f32`); destructure inside the body
//~ ERROR 15:19: raw pointers cannot be kernel parameters; take `&[T]` or `&mut [T]`, which keep their length and bounds checks
//~ ERROR 20:22: trait types cannot be kernel parameters; use a generic kernel with `#[kernel(instances(...))]`
//~ ERROR 25:20: unsupported kernel parameter type; use `&[T]`, `&mut [T]` or a `DeviceCopy` value
//~ ERROR 30:36: slice elements must be numbers, `bool`, arrays or `#[repr(C)]` structs with `#[derive(DeviceCopy)]`
//~ ERROR 35:20: `String` cannot be a kernel parameter; take `&[T]` or `&mut [T]` (the host passes a DeviceBuffer, a Vec or a slice)
//~ ERROR 35:35: `Box` cannot be a kernel parameter; take `&[T]` or `&mut [T]` (the host passes a DeviceBuffer, a Vec or a slice)
//~ ERROR 35:53: `DeviceBuffer` cannot be a kernel parameter; take `&[T]` or `&mut [T]` (the host passes a DeviceBuffer, a Vec or a slice)
