use ferrocuda::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
pub struct Params {
    pub scale: f32,
    pub n: u32,
}

fn main() {}

//~ ERROR 4:12: `Params` must be `#[repr(C)]` to derive DeviceCopy: the host and the GPU must agree on its layout
