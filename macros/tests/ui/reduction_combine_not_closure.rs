use ferrocuda::prelude::*;

fn add(a: f32, b: f32) -> f32 {
    a + b
}

#[reduction(identity = 0.0, combine = add)]
pub fn named_function(x: f32) -> f32 {
    x
}

#[reduction(identity = 0.0, combine = |a| a)]
pub fn one_argument(x: f32) -> f32 {
    x
}

#[reduction(identity = 0.0, combine = |a, b| a + b)]
pub fn returns_a_tuple(x: f32) -> (f32, f32) {
    (x, x)
}

fn main() {
    let _ = add(1.0, 2.0);
}

//~ ERROR 7:39: `combine` must be a closure of two arguments, the partial results to combine: e.g. `combine = |a, b| a + b`
//~ ERROR 12:39: `combine` must be a closure of two arguments, the partial results to combine: e.g. `combine = |a, b| a + b`
//~ ERROR 18:35: a #[reduction] returns one value per element, not a tuple; reduce each part with its own #[reduction]
