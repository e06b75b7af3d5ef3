use ferrocuda::prelude::*;

#[kernel]
pub fn scale<T: Copy + core::ops::Mul<Output = T>>(a: T, x: &mut [T]) {
    x[0] = a * x[0];
}

fn main() {}

//~ ERROR 4:14: a generic kernel needs explicit instances, one PTX entry each: write `#[kernel(instances(f32, f64))]` with the types to compile
