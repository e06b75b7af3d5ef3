use ferrocuda::prelude::*;

#[kernel]
pub unsafe fn fill(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}
