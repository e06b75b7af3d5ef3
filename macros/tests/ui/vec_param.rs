use ferrocuda::prelude::*;

#[kernel]
pub fn fill(out: Vec<f32>) {
    let _ = out;
}

fn main() {}

//~ ERROR 4:18: `Vec` cannot be a kernel parameter; take `&[T]` or `&mut [T]` (the host passes a DeviceBuffer, a Vec or a slice)
