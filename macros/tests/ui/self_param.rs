use ferrocuda::prelude::*;

pub struct Scaler;

impl Scaler {
    #[kernel]
    pub fn scale(&self, out: &mut [f32]) {
        out[0] = 1.0;
    }
}

fn main() {}

//~ ERROR 7:18: a kernel is a free function; remove `self` and pass the data as parameters
