use ferrocuda::prelude::*;

#[kernel]
pub fn scale<T: Copy + core::ops::Mul<Output = T>>(a: T, x: &mut [T]) {
    x[0] = a * x[0];
}

fn main() {}
