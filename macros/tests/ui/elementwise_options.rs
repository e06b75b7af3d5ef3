use ferrocuda::prelude::*;

#[elementwise(broadcast(m), per_row(m))]
pub fn both(x: f32, m: f32) -> f32 {
    x - m
}

#[elementwise(identity = 0.0)]
pub fn reduction_option(x: f32) -> f32 {
    x
}

#[reduction(per_row(m), identity = 0.0, combine = |a, b| a + b)]
pub fn per_row_reduction(x: f32, m: f32) -> f32 {
    x - m
}

#[elementwise(instances(f32))]
pub fn not_generic(x: f32) -> f32 {
    x
}

#[elementwise]
pub fn generic_without_instances<T: Copy>(x: T) -> T {
    x
}

fn main() {}

//~ ERROR 4:21: a parameter is either `broadcast` (one value) or `per_row` (one element per row), not both
//~ ERROR 8:15: unknown #[elementwise] option; the options are `per_row(<parameters>)`, `broadcast(<parameters>)`, `instances(<types>)`, `large_buffers` and `fast_math`
//~ ERROR 13:13: unknown #[reduction] option; the options are `identity = <value>`, `combine = |a, b| <expression>`, `broadcast(<parameters>)`, `instances(<types>)`, `large_buffers` and `fast_math`
//~ ERROR 18:15: `instances(...)` is only for generic functions; this function has no type parameter
//~ ERROR 24:34: a generic #[elementwise] function needs its instances, one kernel each: write `#[elementwise(instances(f32, f64))]` with the types to compile
