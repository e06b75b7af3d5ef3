use ferrocuda::DeviceCopy;

#[derive(Clone, Copy, DeviceCopy)]
pub struct Params {
    pub scale: f32,
    pub n: u32,
}

fn main() {}
