use ferrocuda::prelude::*;

#[reduction(combine = |a, b| a + b)]
pub fn no_identity(x: f32) -> f32 {
    x
}

#[reduction(identity = 0.0)]
pub fn no_combine(x: f32) -> f32 {
    x
}

fn main() {}

//~ ERROR 3:1: a #[reduction] needs `identity = <value>`: the value that changes nothing when combined (`0.0` for a sum, `1.0` for a product, `f32::NEG_INFINITY` for a maximum)
//~ ERROR 8:1: a #[reduction] needs `combine = |a, b| <expression>`: an associative function of two partial results, e.g. `combine = |a, b| a + b`
