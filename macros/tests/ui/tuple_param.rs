use ferrocuda::prelude::*;

#[kernel]
pub fn fill(pair: (f32, f32), out: &mut [f32]) {
    out[0] = pair.0;
}

fn main() {}
