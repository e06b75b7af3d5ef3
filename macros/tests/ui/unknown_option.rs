use ferrocuda::prelude::*;

#[kernel(block = 256)]
pub fn fill(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
