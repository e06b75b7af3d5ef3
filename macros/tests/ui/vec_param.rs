use ferrocuda::prelude::*;

#[kernel]
pub fn fill(out: Vec<f32>) {
    let _ = out;
}

fn main() {}
