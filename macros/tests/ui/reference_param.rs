use ferrocuda::prelude::*;

#[kernel]
pub fn fill(value: &f32, out: &mut [f32]) {
    out[0] = *value;
}

fn main() {}

//~ ERROR 4:20: a kernel parameter that is a reference must be a slice, `&[T]` or `&mut [T]`; pass a single value by value instead
