use ferrocuda::prelude::*;

#[kernel]
pub fn fill(pair: (f32, f32), out: &mut [f32]) {
    out[0] = pair.0;
}

fn main() {}

//~ ERROR 4:19: tuples cannot be kernel parameters (their layout is not fixed); use separate parameters or a `#[repr(C)]` struct with `#[derive(DeviceCopy)]`
