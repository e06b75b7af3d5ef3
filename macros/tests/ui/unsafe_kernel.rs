use ferrocuda::prelude::*;

#[kernel]
pub unsafe fn fill(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}

//~ ERROR 4:5: a kernel cannot be an `unsafe fn`; launches are safe calls, so put `unsafe { ... }` blocks inside the body
