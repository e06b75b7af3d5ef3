use ferrocuda::prelude::*;

#[kernel]
pub async fn fill(out: &mut [f32]) {
    out[0] = 1.0;
}

fn main() {}

//~ ERROR 4:5: a kernel cannot be `async`; remove `async` (a launch is already asynchronous)
