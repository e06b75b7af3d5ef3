use ferrocuda::prelude::*;

#[kernel]
pub fn sum(a: &[f32]) -> f32 {
    a[0]
}

fn main() {}

//~ ERROR 4:23: a kernel cannot return a value; write results into a `&mut [T]` parameter instead
