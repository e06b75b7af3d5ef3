use ferrocuda::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Borrowed<'a> {
    pub values: &'a [f32],
    pub scale: f32,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Pointers {
    pub data: *mut f32,
    pub ends: [*const u8; 2],
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct Generic<T> {
    pub value: T,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(u32)]
pub enum Mode {
    Fast,
}

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub union Bits {
    pub f: f32,
}

#[derive(Clone, Copy)]
pub struct Plain;

#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
pub struct HoldsPlain {
    pub plain: Plain,
}

fn main() {}

//~ ERROR 6:17: references/pointers cannot be copied to the GPU: a host address means nothing there; pass the data as a `&[T]` kernel parameter (a `DeviceBuffer` on the host) and store indices instead
//~ ERROR 13:15: references/pointers cannot be copied to the GPU: a host address means nothing there; pass the data as a `&[T]` kernel parameter (a `DeviceBuffer` on the host) and store indices instead
//~ ERROR 14:16: references/pointers cannot be copied to the GPU: a host address means nothing there; pass the data as a `&[T]` kernel parameter (a `DeviceBuffer` on the host) and store indices instead
//~ ERROR 19:19: DeviceCopy cannot be derived for generic structs; define one struct per element type
//~ ERROR 25:5: DeviceCopy can only be derived for structs; pass an enum as a `#[repr(u32)]` integer instead
//~ ERROR 31:5: DeviceCopy can only be derived for structs
//~ ERROR 41:16: `Plain` cannot be passed to or stored on the GPU
