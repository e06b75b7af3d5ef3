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

//~ ERROR 3:20: unknown fast_math option; the options are `contract` (fuse multiply-adds), `approx_div` and `approx_sqrt` (approximate f32 division and square root)
//~ ERROR 8:10: `fast_math()` needs at least one option, e.g. `fast_math(contract)`; `fast_math` alone means `fast_math(contract)`
//~ ERROR 13:30: this fast_math option is given twice
//~ ERROR 18:21: `fast_math` is given twice
