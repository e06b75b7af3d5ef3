use ferrocuda::prelude::*;

// No `ferrocuda::ptx_module!()` in this crate.

#[kernel]
pub fn fill(out: &mut [f32]) {
    out[0] = 1.0;
}

#[constant]
pub static FACTOR: f32 = 2.0;

fn main() {}

//~ ERROR 5:1: this crate has no PTX module: add `ferrocuda::ptx_module!();` at the root of the kernel crate (`src/lib.rs`)
//~ ERROR 10:1: this crate has no PTX module: add `ferrocuda::ptx_module!();` at the root of the kernel crate (`src/lib.rs`)
