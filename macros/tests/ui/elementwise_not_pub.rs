use ferrocuda::prelude::*;

#[elementwise]
fn double(x: f32) -> f32 {
    2.0 * x
}

fn main() {}

//~ ERROR 4:1: a #[elementwise] function must be `pub`: write `pub fn`, so that host code can call the launches generated beside it
