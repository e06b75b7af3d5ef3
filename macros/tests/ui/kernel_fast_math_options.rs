use ferrocuda::prelude::*;

#[kernel(fast_math(fused))]
pub fn misspelt(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(fast_math())]
pub fn empty(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(fast_math(contract, contract))]
pub fn twice(out: &mut [f32]) {
    out[0] = 1.0;
}

#[kernel(fast_math, fast_math(approx_div))]
pub fn repeated(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}

