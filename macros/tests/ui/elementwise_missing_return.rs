use ferrocuda::prelude::*;

#[elementwise]
pub fn nothing(x: f32) {
    let _ = x;
}

#[elementwise]
pub fn unit(x: f32) -> () {
    let _ = x;
}

fn main() {}

//~ ERROR 4:22: a #[elementwise] function returns the element it computes: add the return type, e.g. `-> f32`
//~ ERROR 9:24: a #[elementwise] function returns the element it computes, not `()`: e.g. `-> f32`
