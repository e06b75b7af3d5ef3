use ferrocuda::prelude::*;

#[kernel]
pub fn fill(value: &f32, out: &mut [f32]) {
    out[0] = *value;
}

fn main() {}
